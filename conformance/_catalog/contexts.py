"""Contexts: the dimensions in which a runtime may specialise an execution statement (R16).

A statement such as "a state can be entered at most ``max_visits`` times" holds however the
session started, whoever moved the workflow and whichever budget is set; a runtime may still
get it right in one of those contexts and wrong in another. The dimensions and their values are
named here, once; which of them apply to each execution statement is data
(``cases/statements/contexts/*.yaml``, :func:`load_context_table`); which a case part exercises
is derived from the case itself (:func:`part_contexts`), with a case's or scenario's written
``contexts`` for what the case cannot show.

A context is written ``dimension:value`` (``start:agent``, ``budget:max_wall_time_sec``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from conformance._basics.errors import CaseError
from conformance._basics.resources import catalog_root
from conformance._catalog.documents import read_checked
from conformance._catalog.statements import FOLDER
from reference import Document

__all__ = [
    "CONTEXTS",
    "DIMENSIONS",
    "NEVER_REQUIRED",
    "ContextTable",
    "StatementContexts",
    "context_files",
    "load_context_table",
    "split",
]

DIMENSIONS: Mapping[str, tuple[str, ...]] = {
    "start": ("entry", "state", "agent"),
    "source": ("host", "agent"),
    "orchestration": ("internal", "external", "hybrid", "composition"),
    "budget": ("max_total_visits", "max_tool_calls", "max_wall_time_sec", "all"),
    "check": ("validate", "load"),
    "step": ("sequential", "parallel"),
}
"""Each dimension and its values, in the order reports show them.

- ``start``: how the session starts: at the workflow's entry, at a named state, or as an
  ``agents`` member (RFC 0011).
- ``source``: who sends the event that moves the workflow: the host or the agent (RFC 0014).
- ``orchestration``: the orchestration of a state the session is in (RFC 0009, RFC 0010).
- ``budget``: the budget kind set on the workflow, alone; ``all`` is several kinds together.
- ``check``: the pack is judged by validation, or loaded (RFC 0016).
- ``step``: a composition step runs in sequence, or inside a parallel block (RFC 0010).
"""

CONTEXTS: tuple[str, ...] = tuple(
    f"{dimension}:{value}" for dimension, values in DIMENSIONS.items() for value in values
)
"""Every context, ``dimension:value``, in report order."""

NEVER_REQUIRED: Mapping[str, str] = {}
"""Contexts no MUST check can be asked to exercise, and why: none. A start at a named state
(``start:state``) is the kit's adapter contract (``kit.pick.start-at-state``), yet a MUST check
can exercise it: a runtime that refuses or does not offer that start is judged at MAY only
(:mod:`conformance._judging.runner`), one that starts there at the statement's own
requirement."""

SUBFOLDER = "contexts"
"""The folder under a catalog's ``statements/`` that holds the context tables."""


def split(context: str) -> tuple[str, str]:
    """``("start", "agent")`` for ``"start:agent"``."""
    dimension, _, value = context.partition(":")
    return dimension, value


@dataclass(frozen=True)
class StatementContexts:
    """The contexts in which one statement applies, and why the other dimensions do not.

    Attributes:
        statement: the statement id.
        family: the name of the table entry that lists it (statements that share their
            contexts are listed together).
        applies: dimension -> the values in which the catalog must exercise the statement.
        not_applicable: dimension -> why the statement does not vary along it.
        left_out: dimension -> why the values of an applying dimension that ``applies`` does
            not list do not apply (a context of :data:`NEVER_REQUIRED` never needs one).
    """

    statement: str
    family: str
    applies: Mapping[str, tuple[str, ...]]
    not_applicable: Mapping[str, str]
    left_out: Mapping[str, str] = field(default_factory=dict)

    @property
    def required(self) -> tuple[str, ...]:
        """The contexts a MUST check must exercise, in report order."""
        return tuple(
            f"{dimension}:{value}"
            for dimension, values in DIMENSIONS.items()
            for value in values
            if value in self.applies.get(dimension, ())
        )


@dataclass(frozen=True)
class ContextTable:
    """The context entries of a catalog, by statement id."""

    entries: Mapping[str, StatementContexts]
    files: tuple[str, ...] = ()

    def get(self, statement: str) -> StatementContexts | None:
        return self.entries.get(statement)


def context_files(catalog: Path) -> list[Path]:
    """The context tables of a catalog folder (``statements/contexts/*.yaml``), sorted."""
    folder = catalog / FOLDER / SUBFOLDER
    return sorted(folder.glob("*.yaml")) if folder.is_dir() else []


def load_context_table(*catalogs: str | Path) -> ContextTable:
    """The context tables of the built-in catalog, then of each of ``catalogs``.

    Raises:
        CaseError: a malformed table, or a statement two entries both list.
    """
    folders = [catalog_root(), *(Path(c) for c in catalogs)]
    entries: dict[str, StatementContexts] = {}
    where: dict[str, str] = {}
    files: list[str] = []
    for folder in dict.fromkeys(f.resolve() for f in folders):
        for path in context_files(folder):
            files.append(str(path))
            document = read_checked(path, "contexts.schema.json", "the format of a context table")
            for entry, pointer in _read(document):
                if entry.statement in entries:
                    raise CaseError(
                        f"statement {entry.statement} is listed twice (first at "
                        f"{where[entry.statement]})",
                        document.locate(pointer),
                        "list each statement in one family",
                    )
                entries[entry.statement] = entry
                where[entry.statement] = f"{path}#{pointer}"
    return ContextTable(entries, tuple(files))


def _read(document: Document) -> Iterable[tuple[StatementContexts, str]]:
    """Each statement's entry, and the JSON pointer of its line in the table."""
    data = document.data
    defaults: Mapping[str, str] = data.get("not_applicable", {})
    for index, family in enumerate(data["families"]):
        pointer = f"/families/{index}"
        applies = {d: tuple(v) for d, v in family.get("applies", {}).items()}
        given = dict(family.get("not_applicable", {}))
        reasons: dict[str, str] = {}
        left_out: dict[str, str] = {}
        for dimension, values in DIMENSIONS.items():
            if dimension in applies:
                others = [
                    v
                    for v in values
                    if v not in applies[dimension] and f"{dimension}:{v}" not in NEVER_REQUIRED
                ]
                if others and dimension not in given:
                    raise CaseError(
                        f"family {family['name']!r} applies in {dimension} "
                        f"{', '.join(applies[dimension])} but not {', '.join(others)}: say why",
                        document.locate(f"{pointer}/applies/{dimension}"),
                        f"give the reason under not_applicable/{dimension}, or list the values",
                    )
                if dimension in given:
                    left_out[dimension] = given[dimension]
            elif dimension in given:
                reasons[dimension] = given[dimension]
            elif dimension in defaults:
                reasons[dimension] = defaults[dimension]
            else:
                raise CaseError(
                    f"family {family['name']!r} says nothing of dimension {dimension!r}",
                    document.locate(pointer),
                    f"list {dimension!r} under applies, or under not_applicable with the reason",
                )
        for offset, statement in enumerate(family["statements"]):
            yield (
                StatementContexts(statement, family["name"], applies, reasons, left_out),
                f"{pointer}/statements/{offset}",
            )
