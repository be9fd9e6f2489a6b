"""The kit's errors, and the signals an adapter raises to report what its runtime did."""

from __future__ import annotations

from reference import Location


class KitError(Exception):
    """Base class of the kit's own errors (bad case files, bad adapter specs, ...)."""


class CaseError(KitError):
    """A case file is malformed.

    Attributes:
        message: what is wrong.
        location: file, line, column and JSON pointer of the offending field.
        hint: how to fix it.
    """

    def __init__(self, message: str, location: Location, hint: str = "") -> None:
        self.message = message
        self.location = location
        self.hint = hint
        super().__init__(str(self))

    def __str__(self) -> str:
        text = f"{self.location}: {self.message}"
        return f"{text} ({self.hint})" if self.hint else text


class AdapterError(KitError):
    """An adapter could not be loaded or started (bad ``module:Class``, missing command, ...)."""


class AdapterFault(Exception):
    """An adapter broke the protocol (died, hung, wrote garbage); the case part is errored."""


# -- signals raised by adapters ----------------------------------------------------------------


class Rejected(Exception):
    """The runtime refused an operation with a SEMANTICS rejection code.

    Arguments:
        code: e.g. ``unknown-event`` or ``budget-exhausted``.
        limit: for ``budget-exhausted``, the budget field that was hit.
        message: the runtime's own words, for the report.
    """

    def __init__(self, code: str, limit: str | None = None, message: str = "") -> None:
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
