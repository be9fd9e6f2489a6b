"""Compositions (RFC 0010): the rulebook, the compiled form, the engine and its trace.

- ``rules``: the validation rules, read by ``reference.validate``;
- ``steps``: a composition compiled into the plain form the engine runs;
- ``run``, ``values``, ``trace``, ``extensions``: the engine, references and predicates, the
  result it returns, and vendor kinds and reducers (Level 3).
"""
