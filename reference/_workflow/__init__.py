"""Workflows (RFC 0005, RFC 0009): the rules, the compiled form, and sessions.

- ``rules``: the validation rules of a pack's ``workflow``, each a small function yielding
  diagnostics, read by ``reference.validate`` (and so by ``compile_workflow``);
- ``model``: a valid workflow compiled into the plain form sessions run on;
- ``session``: one run of a workflow, event by event.
"""
