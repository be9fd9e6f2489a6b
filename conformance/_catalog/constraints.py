"""Schema constraints as the registry states them: which part of a pack (and so which area) a
constraint is of, and what keyword and value a ``keyword: schema`` statement's quote holds.

A published schema's statement names its constraint in its id (``schema-1.9.0.`` then
``WorkflowState.max_visits.type``); an RFC's schema fragment names it after ``.def.``
(``RFC0009.def.WorkflowState.max_visits.type``), with the RFC's own names for top-level
fields (``RFC0005.def.workflow.version.type`` is ``WorkflowConfig.version.type``).
"""

from __future__ import annotations

import json
import re
from typing import Any

from conformance._basics.areas import BY_NAME
from conformance._basics.spec_versions import parse_version
from conformance._catalog.breakers import KEYWORDS
from conformance._catalog.statements import Statement

__all__ = [
    "SCHEMAS",
    "area_of",
    "constraint_name",
    "constraint_value",
    "fragment_constraint",
    "statement_area",
]

SCHEMAS: dict[str, str] = {"1.4.0": "1.4", "1.5.1": "1.5", "1.9.0": "1.9"}
"""The published schemas the registry quotes, and the first spec version each governs (a
published schema governs the spec versions up to the next one)."""

_RFC_ROOTS = {"workflow": "WorkflowConfig", "compositions": "root.compositions"}
"""RFC fragments that name a top-level field where the published schema has a definition."""


def area_of(name: str) -> str | None:
    """The area whose part a constraint is of (``None``: not a part the catalog tests)."""
    parts = name.split(".")
    head, fields = parts[0], parts[1:-1]
    if "extensions" in fields or head in ("extensions", "ExtensionStep"):
        return "extensions"
    if "provider" in fields or head.startswith("Provider") or name.startswith("root.requires"):
        return "providers"
    if head == "WorkflowState" and fields[:1] == ["control"]:
        return "control"
    if head in ("AgentsConfig", "AgentDef") or name.startswith("root.agents"):
        return "state-agents"
    if head == "WorkflowState" and fields[:1] in (
        ["max_visits"],
        ["on_max_visits"],
        ["terminal"],
        ["artifacts"],
    ):
        return "loops"
    if head in ("ArtifactDef", "WorkflowBudget") or name.startswith("WorkflowConfig.engine.budget"):
        return "loops"
    if head.endswith(("Step", "Predicate")) or head in (
        "Composition",
        "Reducer",
        "StepModifiers",
        "StepInput",
    ):
        return "compositions"
    if name.startswith("root.compositions") or (
        head == "WorkflowState" and fields[:1] == ["composition"]
    ):
        return "compositions"
    if head in ("WorkflowConfig", "WorkflowState") or name.startswith("root.workflow"):
        return "workflow"
    return None


def constraint_value(statement: Statement) -> tuple[str, Any] | None:
    """The constraint a schema statement's quote states: its keyword (the id's last part, or
    for an RFC fragment naming a field, the last keyword the quote holds) and its value, read
    from the quote (``None``: the quote holds no keyword breakers are derived for)."""
    keyword = statement.id.rsplit(".", 1)[-1]
    if keyword in KEYWORDS:
        names = [keyword]
    elif re.fullmatch(r"[a-z_]+", keyword):
        # An RFC fragment quoting a field's whole schema: the field's last keyword.
        names = list(reversed(KEYWORDS))
    else:
        return None  # a definition, or a keyword without breakers (anyOf, if-then-else)
    for name in names:
        value = _quoted(statement.quote, name)
        if value is not _MISSING:
            return name, value
    return None


_MISSING = object()


def _quoted(quote: str, keyword: str) -> Any:
    """The JSON value after the last ``"keyword":`` of a quote (``_MISSING``: none)."""
    found = [m.end() for m in re.finditer(rf'"{re.escape(keyword)}"\s*:\s*', quote)]
    for start in reversed(found):
        try:
            value, _ = json.JSONDecoder().raw_decode(quote[start:])
        except json.JSONDecodeError:
            continue
        return value
    return _MISSING


def constraint_name(statement: Statement) -> str | None:
    """The constraint a ``keyword: schema`` statement states, by name (``None``: not one of a
    published schema or an RFC fragment, or no keyword breakers are derived for)."""
    if statement.keyword != "schema":
        return None
    if statement.source.startswith("schema "):
        name = statement.id.removeprefix(f"schema-{statement.source.removeprefix('schema ')}.")
        return name if name.rsplit(".", 1)[-1] in KEYWORDS else None
    named = fragment_constraint(statement)
    return named[0] if named is not None else None


def fragment_constraint(statement: Statement) -> tuple[str, str, Any] | None:
    """An RFC schema-fragment statement's constraint: its name in the published schema's terms
    (``RFC0010.def.StepModifiers.retry.max_attempts`` quoting ``"minimum": 1`` ->
    ``StepModifiers.retry.max_attempts.minimum``), keyword and value (``None``: not a testable
    fragment, or its quote holds no keyword breakers are derived for)."""
    if statement.keyword != "schema" or not statement.testable:
        return None
    if not statement.source.startswith("RFC ") or ".def." not in statement.id:
        return None
    read = constraint_value(statement)
    if read is None:
        return None
    keyword, value = read
    name = statement.id.split(".def.", 1)[1]
    head, _, rest = name.partition(".")
    if head in _RFC_ROOTS:
        name = f"{_RFC_ROOTS[head]}.{rest}" if rest else _RFC_ROOTS[head]
    if name.rsplit(".", 1)[-1] != keyword:
        name = f"{name}.{keyword}"
    return name, keyword, value


def statement_area(statement: Statement) -> str | None:
    """The area a constraint statement is tested in (``None``: a part of the pack the catalog
    does not test, or a published schema older than the area: ``requires.providers`` of 1.5.1
    governs spec versions before the providers area's first)."""
    name = constraint_name(statement)
    area = area_of(name) if name is not None else None
    version = statement.source.removeprefix("schema ")
    if area is None or version not in SCHEMAS:
        return area
    following = [v for v in SCHEMAS if parse_version(v) > parse_version(version)]
    if following and parse_version(SCHEMAS[following[0]]) <= parse_version(BY_NAME[area].since):
        return None
    return area
