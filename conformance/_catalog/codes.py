"""What each diagnostic code of the reference validator means, in one line: the rules of
``ppconf validate --format sarif`` and anything else that explains a code to a person.

The codes are the kit's vocabulary: each is a ``kit.code.*`` statement of the registry
(``cases/statements/kit.yaml``), the one place its sentence and the RFC statements naming its
condition are written (:attr:`Code.statements`: the SARIF rules carry them); severities are the
validator's (SEMANTICS sections 2, 4 and 6).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Literal

from conformance._basics.contract import (
    COMPOSITION_ERROR_CODES,
    COMPOSITION_WARNING_CODES,
    NEWER_ERROR_CODES,
    NEWER_WARNING_CODES,
    WORKFLOW_ERROR_CODES,
    WORKFLOW_WARNING_CODES,
)
from conformance._catalog.statements import code_statement, vocabulary


@dataclass(frozen=True)
class Code:
    """One diagnostic code.

    Attributes:
        code: the code, e.g. ``entry-unknown``.
        severity: ``error`` (the pack is invalid) or ``warning``.
        summary: what it reports, one sentence without a final period.
        statements: ids of the RFC statements naming its condition (none: the kit's own).
    """

    code: str
    severity: Literal["error", "warning"]
    summary: str
    statements: tuple[str, ...] = ()


def _summary(code: str) -> Code | None:
    statement = vocabulary().get(code_statement(code))
    if statement is None:
        return None
    summary = statement.quote.removeprefix(f"{code}: ").removesuffix(".")
    return Code(code, "error", summary, statement.names)


def _codes() -> dict[str, Code]:
    found: dict[str, Code] = {}
    severity: Literal["error", "warning"]
    for severity, codes in (("error", ERRORS), ("warning", WARNINGS)):
        for code in codes:
            known = _summary(code)
            if known is not None:
                found[code] = replace(known, severity=severity)
    return found


ERRORS = WORKFLOW_ERROR_CODES + NEWER_ERROR_CODES + COMPOSITION_ERROR_CODES
WARNINGS = (
    WORKFLOW_WARNING_CODES
    + NEWER_WARNING_CODES
    + COMPOSITION_WARNING_CODES
    + ("parallel-member-kind",)
)

CODES: Mapping[str, Code] = _codes()
"""Every code the validator reports, errors first, each described by its entry in the kit's
vocabulary (``kit.code.*`` of the statement registry), with the RFC statements naming it."""

LOAD_ERROR = Code(
    "load-error",
    "error",
    "the file cannot be read as a pack: unreadable, not JSON or YAML, a duplicate key, past a "
    "size or depth limit, or a root that is not a mapping",
)
"""Not a validator code: what ``ppconf validate`` reports for a file it cannot load."""


def describe(code: str) -> Code:
    """The :class:`Code` of ``code``; an unknown one (a newer validator's) is described as such."""
    known = CODES.get(code)
    if known is not None:
        return known
    if code == LOAD_ERROR.code:
        return LOAD_ERROR
    return Code(code, "error", f"diagnostic code {code}")


__all__ = ["CODES", "LOAD_ERROR", "Code", "describe"]
