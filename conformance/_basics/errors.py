"""The kit's errors, and the signals an adapter raises to report what its runtime did."""

from __future__ import annotations

from reference import LocatedError

__all__ = [
    "AdapterError",
    "AdapterFault",
    "AdapterGaveUp",
    "CaseError",
    "KitError",
    "PackRejected",
    "Rejected",
    "ScriptIncomplete",
    "Unsupported",
]


class KitError(Exception):
    """Base class of the kit's own errors (bad case files, bad adapter specs, ...)."""


class CaseError(LocatedError, KitError):
    """A case file (or an expected-failures file) is malformed: what, where, how to fix it."""


class AdapterError(KitError):
    """An adapter could not be loaded or started (bad ``module:Class``, missing command, ...)."""


class AdapterFault(Exception):
    """An adapter broke the protocol (died, hung, wrote garbage); the case part is errored."""


class AdapterGaveUp(AdapterFault):
    """The adapter failed to start too many times in a row; no more starts will be tried.

    The run cannot go on: stop it with this message and keep what was measured so far.
    """


class ScriptIncomplete(AdapterFault):
    """A whole-scenario answer (:class:`~conformance._runtime.adapter.ScriptingAdapter`) holds no
    answer for the call the kit makes now: the kit runs the scenario again, one call at a time."""


# -- signals raised by adapters ----------------------------------------------------------------


class Rejected(Exception):
    """The runtime refused an operation with a SEMANTICS rejection code.

    Write ``raise Rejected("budget-exhausted", limit="max_tool_calls", message="...")``.

    Arguments:
        code: e.g. ``unknown-event`` or ``budget-exhausted``.
        limit: for ``budget-exhausted``, the budget field that was hit (keyword only).
        message: the runtime's own words, for the report (keyword only).
    """

    def __init__(self, code: str, *, limit: str | None = None, message: str = "") -> None:
        self.code = code
        self.limit = limit
        self.message = message
        super().__init__(f"{code}: {message}" if message else code)


class PackRejected(Exception):
    """The runtime refused to load a pack at all."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


class Unsupported(Exception):
    """The runtime does not implement this operation; the case part is skipped."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)
