"""The records of a run: what the JSON Lines report holds, and what every view is rendered from.

A run is a header (:class:`RunHeader`), one :class:`PartRecord` per case part, and, when the
run finished, a summary. The CLI streams them to ``--report json``, the pytest plugin gathers
them from its items (across xdist workers), and the text, Markdown and JUnit views, the levels
and the exit status are all computed from them, so a report written today can be rendered again
tomorrow.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from conformance._basics.contract import REQUIREMENTS, Requirement
from conformance._basics.text import kept, kept_data
from conformance._catalog.cases import Case, Catalog, Selection
from conformance._catalog.expected_failures import ExpectedFailure
from conformance._catalog.statements import Registry, builtin
from conformance._judging.checks import Check
from conformance._judging.explain import case_excerpts, cited_statements
from conformance._judging.levels import CaseVerdict, LevelReport, compute_levels, describe_level
from conformance._judging.runner import OUTCOMES, CaseResult, PartResult, worst
from conformance._runtime.adapter import Capabilities

__all__ = [
    "NAME_LIMIT",
    "REPORT_FORMAT",
    "PartRecord",
    "Report",
    "RunHeader",
    "case_verdicts",
    "catalog_digest",
    "is_partial",
    "kit_version",
    "records_of",
]

REPORT_FORMAT = "ppconf-report/2"


def kit_version() -> str:
    """The installed kit's version (``unknown`` in a bare source tree)."""
    try:
        return version("ppconf")
    except PackageNotFoundError:
        return "unknown"


def catalog_digest(cases: Sequence[Case]) -> str:
    """A fingerprint of the cases' contents, so two reports say whether they ran the same ones."""
    digest = hashlib.sha256()
    for case in sorted(cases, key=lambda c: c.id):
        data = case.document.data if case.document is not None else case.id
        digest.update(json.dumps(data, sort_keys=True, ensure_ascii=False).encode())
        digest.update(case.pack.text.encode())
    return "sha256:" + digest.hexdigest()[:32]


@dataclass(frozen=True)
class RunHeader:
    """What was run, against what.

    Attributes:
        adapter: the adapter spec as given (``reference``, ``module:Class``, ``cmd:...``).
        capabilities: what the adapter says of itself (name, version, claims ...).
        selection: the spec version and filters.
        catalog_hash: :func:`catalog_digest` of the cases of the spec version.
        catalog_cases: how many cases the spec version has in the catalog.
        parts: the case parts of the whole spec version, ``(case id, part)``: a run that did not
            report all of them is partial.
        repeat: how many times each part ran (R5).
        expected_failures: case id -> expected failure.
        require_level: the headline level the run must reach, if any.
        strict: whether every check counts toward the verdict (R14), not only the MUST checks
            of the claimed areas.
        kit_version: the kit's version.
    """

    adapter: str
    capabilities: Capabilities
    selection: Selection
    catalog_hash: str
    catalog_cases: int
    parts: tuple[tuple[str, str], ...]
    repeat: int = 1
    expected_failures: Mapping[str, ExpectedFailure] = field(default_factory=dict)
    require_level: int | None = None
    strict: bool = False
    kit_version: str = field(default_factory=kit_version)

    @classmethod
    def of(
        cls,
        adapter: str,
        capabilities: Capabilities,
        catalog: Catalog,
        selection: Selection,
        *,
        repeat: int = 1,
        expected_failures: Mapping[str, ExpectedFailure] | None = None,
        require_level: int | None = None,
        strict: bool = False,
    ) -> RunHeader:
        """The header of a run of ``selection`` over ``catalog``."""
        full = catalog.select(Selection(spec_version=selection.spec_version))
        return cls(
            adapter=adapter,
            capabilities=_kept_capabilities(capabilities),
            selection=selection,
            catalog_hash=catalog_digest(full),
            catalog_cases=len(full),
            parts=tuple((case.id, part) for case in full for part in case.parts),
            repeat=repeat,
            expected_failures=dict(expected_failures or {}),
            require_level=require_level,
            strict=strict,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": "run",
            "format": REPORT_FORMAT,
            "kit": {"name": "ppconf", "version": self.kit_version},
            "spec_version": self.selection.spec_version,
            "catalog": {"hash": self.catalog_hash, "cases": self.catalog_cases},
            "adapter": {"spec": self.adapter, **self.capabilities.to_dict()},
            "selection": self.selection.to_dict(),
            "parts": [list(part) for part in self.parts],
            "repeat": self.repeat,
            "expected_failures": {
                case_id: {"reason": e.reason, "kind": e.kind}
                for case_id, e in sorted(self.expected_failures.items())
            },
            "require_level": self.require_level,
            "strict": self.strict,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RunHeader:
        adapter = dict(data["adapter"])
        spec = adapter.pop("spec")
        selection = data["selection"]
        return cls(
            adapter=spec,
            capabilities=Capabilities.from_dict(adapter),
            selection=Selection(
                spec_version=data["spec_version"],
                areas=tuple(selection.get("area", ())),
                levels=tuple(selection.get("level", ())),
                requirements=tuple(selection.get("requirement", ())),
                ids=tuple(selection.get("id", ())),
            ),
            catalog_hash=data["catalog"]["hash"],
            catalog_cases=data["catalog"]["cases"],
            parts=tuple((str(c), str(p)) for c, p in data.get("parts", [])),
            repeat=int(data.get("repeat", 1)),
            expected_failures={
                case_id: ExpectedFailure(e["reason"], e.get("kind", "fail"))
                for case_id, e in (data.get("expected_failures") or {}).items()
            },
            require_level=data.get("require_level"),
            strict=bool(data.get("strict", False)),
            kit_version=data["kit"]["version"],
        )


@dataclass(frozen=True)
class PartRecord:
    """One case part as it ended: the case's coordinates, the outcome, the checks.

    Attributes:
        case, area, level, requirement, description, file, line, rules: the case's.
        part: ``load``, ``validation`` or a scenario name.
        outcome, message, duration, checks: as the runner judged them.
        pack: the case's pack document when the part did not pass (for pictures), else None.
        statements: the statements the part's failed checks cite, with their quotes (id ->
            source, section, keyword, requirement, quote), so every view can say why each
            check is required.
        excerpt: for a part that did not pass, the lines of its case file that make it:
            ``pack`` and ``part``, each ``{line, text}`` (``cut``: lines left out).
    """

    case: str
    area: str
    level: int
    requirement: str
    description: str
    file: str
    line: int | None
    rules: tuple[str, ...]
    part: str
    outcome: str
    message: str
    duration: float
    checks: tuple[Check, ...]
    pack: Mapping[str, Any] | None = None
    statements: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    excerpt: Mapping[str, Any] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return self.outcome == "passed"

    @property
    def findings(self) -> tuple[Check, ...]:
        """Failed checks of a part that passed: weaker than the case's requirement."""
        return tuple(c for c in self.checks if not c.passed) if self.passed else ()

    @classmethod
    def of(
        cls, case: Case, part: PartResult, registry: Registry | Callable[[], Registry] = builtin
    ) -> PartRecord:
        """The record of one part of ``case``; ``registry`` holds the statements its checks
        cite (read only when a check failed)."""
        line = None
        excerpts: Mapping[str, Any] = {}
        # Locating a part in its file re-reads the file's events: worth it only for a part a
        # reader is sent to (a passing part is shown by case id alone).
        if not part.passed and case.document is not None:
            pointer = next(
                (s.pointer for s in case.scenarios if s.name == part.part), f"/{part.part}"
            )
            line = case.document.locate(pointer).line
            named = case.document.data.get("pack_file")
            pack_file = case.file.parent / named if isinstance(named, str) else None
            excerpts = case_excerpts(
                case.file,
                case.document.locate("/pack").line if pack_file is None else None,
                line,
                pack_file,
            )
        failed = [i for check in part.checks if not check.passed for i in check.statements]
        return cls(
            case=case.id,
            area=case.area,
            level=case.level,
            requirement=case.requirement,
            description=case.description,
            file=case.source,
            line=line,
            rules=case.rules,
            part=part.part,
            outcome=part.outcome,
            message=kept(part.message),
            duration=part.duration,
            checks=tuple(_kept_check(check) for check in part.checks),
            pack=None if part.passed else case.pack.document,
            statements=cited_statements(failed, registry) if failed else {},
            excerpt=excerpts,
        )

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "type": "part",
            "case": self.case,
            "area": self.area,
            "level": self.level,
            "requirement": self.requirement,
            "description": self.description,
            "file": self.file,
            "line": self.line,
            "rules": list(self.rules),
            "part": self.part,
            "outcome": self.outcome,
            "message": self.message,
            "duration": round(self.duration, 6),
            "checks": [c.to_dict() for c in self.checks],
        }
        if self.pack is not None:
            data["pack"] = self.pack
        if self.statements:
            data["statements"] = {k: dict(v) for k, v in self.statements.items()}
        if self.excerpt:
            data["excerpt"] = dict(self.excerpt)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PartRecord:
        return cls(
            case=data["case"],
            area=data["area"],
            level=int(data["level"]),
            requirement=data["requirement"],
            description=data.get("description", ""),
            file=data.get("file", ""),
            line=data.get("line"),
            rules=tuple(data.get("rules", ())),
            part=data["part"],
            outcome=data["outcome"],
            message=data.get("message", ""),
            duration=float(data.get("duration", 0.0)),
            checks=tuple(Check.from_dict(c) for c in data.get("checks", ())),
            pack=data.get("pack"),
            statements=dict(data.get("statements") or {}),
            excerpt=dict(data.get("excerpt") or {}),
        )


NAME_LIMIT = 200
"""Characters kept of what a runtime says of itself (its name, version, language ...)."""


def _kept_capabilities(capabilities: Capabilities) -> Capabilities:
    """What a runtime says of itself, as a record keeps it (see :mod:`conformance._basics.text`)."""
    return Capabilities(
        name=kept(capabilities.name, NAME_LIMIT) or "?",
        version=kept(capabilities.version, NAME_LIMIT),
        language=kept(capabilities.language, NAME_LIMIT),
        claims={kept(area, NAME_LIMIT): level for area, level in capabilities.claims.items()},
        extensions=tuple(kept(name, NAME_LIMIT) for name in capabilities.extensions),
    )


def _kept_check(check: Check) -> Check:
    """A check as a record keeps it: its message and detail hold what the runtime answered,
    whose strings may be of any length or hold lone surrogates (see
    :mod:`conformance._basics.text`)."""
    if not check.message and not check.detail:
        return check
    detail = {key: kept_data(value) for key, value in check.detail.items()}
    return replace(check, message=kept(check.message), detail=detail)


def records_of(
    results: Iterable[CaseResult], registry: Registry | Callable[[], Registry] = builtin
) -> list[PartRecord]:
    """The part records of case results, in order."""
    return [
        PartRecord.of(result.case, part, registry) for result in results for part in result.parts
    ]


def case_verdicts(records: Iterable[PartRecord]) -> list[CaseVerdict]:
    """One verdict per case, from its part records, in the order the cases first appear.

    A requirement's verdict is whether every check of it passed, in every part.
    """
    grouped: dict[str, list[PartRecord]] = {}
    for record in records:
        grouped.setdefault(record.case, []).append(record)
    verdicts = []
    for case_id, parts in grouped.items():
        first = parts[0]
        checks: dict[Requirement, bool] = {}
        for requirement in REQUIREMENTS:
            judged = [c.passed for p in parts for c in p.checks if c.requirement == requirement]
            if judged:
                checks[requirement] = all(judged)
        if any(not p.passed and not p.checks for p in parts):
            # A part that stopped before judging anything fails the case at its requirement.
            checks[first.requirement] = False  # type: ignore[index]
        failing = next((p for p in parts if not p.passed), None)
        outcome = worst(p.outcome for p in parts)
        verdicts.append(
            CaseVerdict(
                id=case_id,
                area=first.area,
                level=first.level,
                requirement=first.requirement,
                outcome=outcome,
                checks=checks,
                message=failing.message if failing else "",
            )
        )
    return verdicts


def is_partial(header: RunHeader, records: Iterable[PartRecord]) -> bool:
    """Whether the records leave out parts of the spec version (a filter, a deselection, a run
    that did not finish)."""
    if header.selection.partial:
        return True
    seen = {(r.case, r.part) for r in records}
    return not set(header.parts) <= seen


@dataclass(frozen=True)
class Report:
    """A run as its records tell it: everything a view needs.

    Attributes:
        header: what was run against what.
        records: one per case part, in the order they ran.
        complete: whether the run finished (its summary was written).
        written: the summary record as the report holds it (``None`` for a run in memory, or
            one that did not finish): what the kit that wrote it computed.
    """

    header: RunHeader
    records: tuple[PartRecord, ...]
    complete: bool = True
    written: Mapping[str, Any] | None = field(default=None, compare=False)

    def drift(self) -> list[str]:
        """Where the levels and verdict the report's summary holds differ from those this kit
        computes from its records (a report written by another kit version, whose rules
        differed): every view says so rather than silently showing its own."""
        if self.written is None:
            return []
        notes = []
        wrote = self.written.get("levels") or {}
        levels = self.levels()
        written_areas = {a.get("area"): a.get("level") for a in wrote.get("areas", ())}
        for area in levels.areas:
            if area.area in written_areas and written_areas[area.area] != area.level:
                notes.append(
                    f"{area.area}: level {_shown(written_areas[area.area])} as written, "
                    f"{_shown(area.level)} by this kit's rules"
                )
        if "headline" in wrote and wrote["headline"] != levels.headline:
            notes.append(
                f"headline: {_shown(wrote['headline'])} as written, "
                f"{_shown(levels.headline)} by this kit's rules"
            )
        verdict = (self.written.get("verdict") or {}).get("passed")
        if isinstance(verdict, bool) and verdict != self._judged_passed():
            notes.append(
                f"verdict: {'passed' if verdict else 'failed'} as written, "
                f"{'passed' if not verdict else 'failed'} by this kit's rules"
            )
        return notes

    def _judged_passed(self) -> bool:
        from conformance._judging.verdicts import judge_report  # noqa: PLC0415 (verdicts read records)

        return judge_report(self).passed

    @cached_property
    def partial(self) -> bool:
        """Whether the records cover less than the whole spec version."""
        return is_partial(self.header, self.records)

    def verdicts(self) -> list[CaseVerdict]:
        return list(self._verdicts)

    @cached_property
    def _verdicts(self) -> tuple[CaseVerdict, ...]:
        return tuple(case_verdicts(self.records))

    def levels(self) -> LevelReport:
        return self._levels

    @cached_property
    def _levels(self) -> LevelReport:
        return compute_levels(
            self._verdicts,
            claims=self.header.capabilities.claims,
            spec_version=self.header.selection.spec_version,
            partial=self.partial,
        )

    def counts(self) -> dict[str, int]:
        """Cases per outcome (the worst outcome of their parts)."""
        counts: dict[str, int] = dict.fromkeys(OUTCOMES, 0)
        for verdict in self._verdicts:
            counts[verdict.outcome] = counts.get(verdict.outcome, 0) + 1
        return counts


def _shown(level: Any) -> str:
    return describe_level(level) if level is None or isinstance(level, int) else str(level)
