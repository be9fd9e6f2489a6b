"""Compositions (RFC 0010): the rulebook, the compiled form, the engine and its trace.

- ``vocabulary``: the words of RFC 0010 (kinds, reducers, ops, predicate variants, names);
- ``rules``: every validation rule, each a small function yielding diagnostics, read by
  ``reference.validate`` and by the engine alike;
- ``steps``: a composition compiled into the plain form the engine runs, once the rulebook
  finds nothing in it to refuse;
- ``run``, ``values``, ``trace``, ``extensions``: the engine, references and predicates, the
  result it returns, and vendor kinds and reducers (Level 3).
"""
