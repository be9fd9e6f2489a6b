"""The words of RFC 0010 compositions, defined once for the rulebook and the engine alike.

Step kinds and reducer strategies (v1 and vendor-namespaced), the step-id pattern, reserved
composition names, the predicate variants and ops, and the ``${...}`` reference syntax.
"""

from __future__ import annotations

import re

SUPPORTED_VERSIONS = (1,)
"""The ``version`` values of a composition this reference runs."""

RESERVED_NAMES = ("workflow__transition", "workflow__set_artifact")
"""Composition names runtimes keep for their workflow tools."""

V1_KINDS = ("prompt", "agent", "tool", "branch", "parallel")
LEAF_KINDS = ("prompt", "agent", "tool")
"""The v1 kinds that run as a parallel's branches in this reference (vendor kinds do too)."""
V1_REDUCERS = ("append", "replace", "barrier")
CALL_KINDS = ("prompt", "agent")
"""The kinds that call a model and may name a ``provider`` (RFC 0017); tool, branch and
parallel steps make no model call."""

REQUIRED_FIELDS = {
    "prompt": ("prompt_task",),
    "agent": ("prompt_task",),
    "tool": ("tool",),
    "branch": ("predicate", "then"),
}
"""Fields each v1 kind needs besides ``id`` and ``kind`` (an agent's ``termination``, a
parallel's ``branches`` and ``reduce`` have codes of their own)."""

BINDINGS: dict[str, tuple[str, ...]] = {
    "prompt": ("input",),
    "agent": ("input",),
    "tool": ("args",),
    "branch": (),
    "parallel": (),
}
"""Where each v1 kind reads references; a vendor kind reads them in ``input`` and ``args``."""
VENDOR_BINDINGS = ("input", "args")

STEP_ID = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")
"""A step id (``fullmatch``)."""
VENDOR_NAME = re.compile(r"[a-z][a-z0-9_-]*\.[a-z][a-z0-9_.-]*")
"""A vendor kind or reducer, ``namespace.name`` (``fullmatch``): the pattern the published
schemas fix for kinds; reducers use the same one."""


def is_namespaced(name: str) -> bool:
    """Whether ``name`` is a vendor name: ``namespace.name`` in lower case (C12)."""
    return VENDOR_NAME.fullmatch(name) is not None


def is_known_kind(kind: str) -> bool:
    """Whether ``kind`` is a v1 kind or a vendor kind."""
    return kind in V1_KINDS or is_namespaced(kind)


def is_known_reducer(strategy: str) -> bool:
    """Whether ``strategy`` is a v1 reducer or a vendor reducer."""
    return strategy in V1_REDUCERS or is_namespaced(strategy)


REFERENCE = re.compile(r"\$\{([^{}]*)\}")
"""A ``${...}`` reference. Anything up to the closing brace: what is inside is checked when it
is read, so ``${a..b}`` is an unresolved reference rather than literal text."""

COMPARE_OPS = (
    "equals",
    "not_equals",
    "in",
    "not_in",
    "less_than",
    "less_than_or_equals",
    "greater_than",
    "greater_than_or_equals",
)
LIST_OPS = ("in", "not_in")
"""The ops whose ``value`` is a list."""

PREDICATE_VARIANTS = (
    frozenset(("path", "op", "value")),
    frozenset(("path", "exists")),
    frozenset(("all_of",)),
    frozenset(("any_of",)),
    frozenset(("not",)),
)
"""The predicate variants by their exact keys: a predicate object has no other keys (closed,
as the engine reads them), so a stray key cannot pass for an expression."""
