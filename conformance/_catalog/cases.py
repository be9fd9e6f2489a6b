"""Case files and the catalog: loading, checking against ``schema/case.schema.json``, filtering.

A case file holds one pack and what is expected of a runtime given it. Loading never runs
anything from the file; a malformed case gives one :class:`CaseError` naming the file, line and
field.
"""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache, cached_property
from pathlib import Path
from typing import Any

import reference
from conformance._basics.contract import Requirement
from conformance._basics.errors import CaseError
from conformance._basics.files import NotAFile, read_regular, resolved
from conformance._basics.matchers import pointer_problems
from conformance._basics.resources import catalog_root
from conformance._basics.spec_versions import NEWEST, applies
from conformance._catalog.documents import check_schema, read_yaml
from conformance._catalog.statements import Registry, load_registry
from conformance._catalog.steps import Step, parse_step
from conformance._runtime.adapter import PackFormat, PackInput
from reference import Document, Location

__all__ = [
    "CASE_LOOKALIKES",
    "NOT_CASES",
    "PACK_DIRECTORY",
    "PART_NAMES",
    "Case",
    "Catalog",
    "DiagnosticRef",
    "Generated",
    "Scenario",
    "Selection",
    "ValidationExpectation",
    "case_files",
    "check_unique",
    "load_case",
    "load_catalog",
]

PART_NAMES = ("load", "validation")
"""The parts every case may have besides its scenarios; no scenario takes these names."""

PACK_DIRECTORY = "packs"
"""Folders with this name hold pack files for ``pack_file``, not cases."""
NOT_CASES = (PACK_DIRECTORY, "statements")
"""Folders of a catalog that hold no cases: pack files, and the statement registry."""


@dataclass(frozen=True)
class DiagnosticRef:
    """An expected diagnostic: its code (or the codes any of which is right), and its JSON
    pointer when the case pins it."""

    codes: tuple[str, ...]
    path: str | None = None

    @property
    def code(self) -> str:
        """The code, or the alternatives joined with ``|``."""
        return "|".join(self.codes)

    def __str__(self) -> str:
        return self.code if self.path is None else f"{self.code} at {self.path or '/'}"


@dataclass(frozen=True)
class Generated:
    """How a generated case was made (``generated`` in its file): the command, the template,
    the schema constraint and the breaker applied to it."""

    by: str
    template: str
    constraint: str
    breaker: str


@dataclass(frozen=True)
class ValidationExpectation:
    """What a case expects of validation."""

    valid: bool
    errors: tuple[DiagnosticRef, ...] = ()
    warnings: tuple[DiagnosticRef, ...] = ()
    absent: tuple[str, ...] = ()
    exact: tuple[str, ...] = ()


@dataclass(frozen=True)
class Scenario:
    """A named event script against one session.

    Attributes:
        name: unique within the case.
        steps: the inputs, in order.
        final: what must be observed at the end, if anything.
        start_rejection: the codes (any of them) the start must be refused with, if it must be
            refused.
        start_state: RFC 0011: start at this state instead of the entry.
        start_agent: RFC 0011: start at the state backing this agents member.
        pointer: the scenario's JSON pointer in the case file.
        description: what it shows, in a sentence.
        statements: the statements the scenario's checks cite, where they are not the case's.
        contexts: the contexts (R16) it exercises that cannot be derived from it, as written.
    """

    name: str
    steps: tuple[Step, ...]
    final: Mapping[str, Any] | None
    start_rejection: tuple[str, ...] | None
    pointer: str
    description: str = ""
    start_state: str | None = None
    start_agent: str | None = None
    statements: tuple[str, ...] = ()
    contexts: tuple[str, ...] = ()

    @property
    def needs_session(self) -> bool:
        """Whether the scenario starts a session (running named compositions alone does not)."""
        return (
            self.start_rejection is not None
            or self.start_state is not None
            or self.start_agent is not None
            or self.final is not None
            or any(step.needs_session for step in self.steps)
        )


@dataclass(frozen=True)
class Case:
    """One conformance case, loaded and checked."""

    id: str
    description: str
    area: str
    level: int
    requirement: Requirement
    statements: tuple[str, ...]
    spec_versions: tuple[str, ...]
    rules: tuple[str, ...]
    pack: PackInput
    load: bool | None
    validation: ValidationExpectation | None
    scenarios: tuple[Scenario, ...]
    file: Path
    source: str
    """The file's path relative to the catalog folder, as messages and reports show it."""
    notes: str = ""
    document: Document | None = field(default=None, repr=False, compare=False)
    contexts: tuple[str, ...] = ()
    """The contexts (R16) its checks exercise that cannot be derived from it, as written."""
    generated: Generated | None = None
    """Set on a generated case only."""

    @property
    def parts(self) -> list[str]:
        """The independently reported parts: ``load``, ``validation``, then each scenario."""
        names = []
        if self.load is not None:
            names.append("load")
        if self.validation is not None:
            names.append("validation")
        names.extend(s.name for s in self.scenarios)
        return names

    def applies_to(self, spec_version: str) -> bool:
        """Whether the case belongs to a run for this spec version (R6)."""
        return applies(self.spec_versions, spec_version)

    def where(self, pointer: str = "") -> str:
        """``file:line`` of a pointer inside the case file, for messages."""
        if self.document is None:
            return self.source
        location = self.document.locate(pointer)
        return f"{self.source}:{location.line}" if location.line else self.source

    @property
    def codes(self) -> set[str]:
        """Every diagnostic and rejection code this case expects to see."""
        found: set[str] = set()
        if self.validation is not None:
            for ref in self.validation.errors + self.validation.warnings:
                found.update(ref.codes)
        for scenario in self.scenarios:
            found.update(scenario.start_rejection or ())
            for step in scenario.steps:
                found.update(step.expectation.codes)
        return found

    def statements_of(self, part: str) -> tuple[str, ...]:
        """The statements the checks of one part rest on: its scenario's, else the case's."""
        scenario = next((s for s in self.scenarios if s.name == part), None)
        return (
            scenario.statements
            if scenario is not None and scenario.statements
            else (self.statements)
        )


# -- loading ----------------------------------------------------------------------------------


def load_case(path: str | Path, root: Path | None = None) -> Case:
    """Load one case file.

    Arguments:
        path: the case file.
        root: the catalog folder ``pack_file`` must stay inside (default: the case's folder).

    Raises:
        CaseError: the file is not a well-formed case.
    """
    path = Path(path)
    root = root or path.parent
    try:
        source = resolved(path).relative_to(_resolved(root)).as_posix()
    except ValueError:
        source = str(path)
    except NotAFile as error:
        raise CaseError(
            f"cannot read the file: {error}", Location(str(path)), "fix or remove the link"
        ) from None
    document = read_yaml(path)
    data = document.data
    if not isinstance(data, dict):
        raise CaseError(
            "a case file is a mapping with id, description, area, level ...",
            Location(str(path), pointer=""),
            "see schema/case.schema.json",
        )
    check_schema(document, "case.schema.json", "the case format")
    _check_scenario_names(data, document)
    _check_same_as(data, document)
    area = data["area"]
    if not data["id"].startswith(area + "."):
        raise _field_error(document, "/id", f"the id must start with its area, {area!r}")
    pack = _pack_input(data, document, path, root, source)
    # A pack that cannot be parsed is what a case refusing it (load: false), or judging it
    # invalid with no more said (a runtime may refuse the text), is about; any other case
    # needs one the runtime can read.
    refused = data.get("load") is False or (
        data.get("validation", {}).get("valid") is False and "scenarios" not in data
    )
    if pack.document is None and not refused:
        raise _field_error(document, "/pack_file", "the pack file cannot be loaded")
    return Case(
        id=data["id"],
        description=data["description"],
        area=area,
        level=data["level"],
        requirement=data["requirement"],
        statements=tuple(data["statements"]),
        spec_versions=tuple(data["spec_versions"]),
        rules=tuple(data["rules"]),
        pack=pack,
        load=data.get("load"),
        validation=_validation(data.get("validation")),
        scenarios=tuple(
            _scenario(s, f"/scenarios/{i}") for i, s in enumerate(data.get("scenarios", []))
        ),
        file=path,
        source=source,
        notes=data.get("notes", ""),
        document=document,
        contexts=tuple(data.get("contexts", ())),
        generated=Generated(**data["generated"]) if "generated" in data else None,
    )


@cache
def _resolved(root: Path) -> Path:
    return root.resolve()


def _field_error(document: Document, pointer: str, message: str, hint: str = "") -> CaseError:
    return CaseError(message, document.locate(pointer), hint)


def _pack_input(
    data: dict[str, Any], document: Document, path: Path, root: Path, source: str
) -> PackInput:
    if "pack" in data:
        text = json.dumps(data["pack"], ensure_ascii=False, separators=(",", ":"))
        return PackInput(text, "json", data["pack"], f"{source}#/pack")
    try:
        target = resolved(path.parent / data["pack_file"])
    except NotAFile as error:
        raise _field_error(
            document, "/pack_file", f"cannot read pack_file {data['pack_file']!r}: {error}"
        ) from None
    if not target.is_relative_to(_resolved(root)):
        raise _field_error(
            document,
            "/pack_file",
            f"pack_file {data['pack_file']!r} points outside the catalog",
            "keep pack files inside the catalog folder",
        )
    try:
        # A FIFO, a device or a folder is refused at once: reading one would block or not end.
        raw = read_regular(target, reference.DEFAULT_LIMITS.max_bytes)
        text = raw.decode("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise _field_error(
            document, "/pack_file", f"cannot read pack_file {data['pack_file']!r}: {error}"
        ) from None
    pack_format: PackFormat = "json" if target.suffix == ".json" else "yaml"
    try:
        parsed = reference.parse_document(raw, format=pack_format, source=str(target)).data
    except reference.PackLoadError:
        parsed = None
    pack = parsed if isinstance(parsed, dict) else None
    return PackInput(text, pack_format, pack, target.relative_to(_resolved(root)).as_posix())


def _validation(data: Mapping[str, Any] | None) -> ValidationExpectation | None:
    if data is None:
        return None

    def refs(key: str) -> tuple[DiagnosticRef, ...]:
        return tuple(
            DiagnosticRef(
                (d["code"],) if isinstance(d["code"], str) else tuple(d["code"]), d.get("path")
            )
            for d in data.get(key, [])
        )

    return ValidationExpectation(
        valid=data["valid"],
        errors=refs("errors"),
        warnings=refs("warnings"),
        absent=tuple(data.get("absent", [])),
        exact=tuple(data.get("exact", [])),
    )


def _scenario(data: Mapping[str, Any], pointer: str) -> Scenario:
    start = data.get("start") or {}
    refusal = start.get("rejection")
    return Scenario(
        name=data["name"],
        steps=tuple(
            parse_step(raw, f"{pointer}/steps/{index}")
            for index, raw in enumerate(data.get("steps", []))
        ),
        final=data.get("final"),
        start_rejection=(refusal,) if isinstance(refusal, str) else _tuple(refusal),
        pointer=pointer,
        description=data.get("description", ""),
        start_state=start.get("at_state"),
        start_agent=start.get("agent"),
        statements=tuple(data.get("statements", ())),
        contexts=tuple(data.get("contexts", ())),
    )


def _tuple(value: Any) -> tuple[str, ...] | None:
    return None if value is None else tuple(value)


def _check_scenario_names(data: dict[str, Any], document: Document) -> None:
    """Scenario names are unique in a case: each is reported (and run) as its own part."""
    seen: dict[str, int] = {}
    for index, scenario in enumerate(data.get("scenarios", [])):
        name = scenario["name"]
        if name in seen:
            raise _field_error(
                document,
                f"/scenarios/{index}/name",
                f"scenario name {name!r} is already used by scenario {seen[name] + 1}",
                "give every scenario of a case its own name",
            )
        seen[name] = index


def _expected_values(data: dict[str, Any]) -> list[tuple[str, Any]]:
    """Each expected value of the scenarios, by its JSON pointer in the case file: one per key
    of every ``expect`` (each ``any_of`` alternative apart) and of every ``final``."""
    blocks: list[tuple[str, Any]] = []
    for i, scenario in enumerate(data.get("scenarios", [])):
        for j, step in enumerate(scenario.get("steps", [])):
            expect = step.get("expect") or {}
            where = f"/scenarios/{i}/steps/{j}/expect"
            blocks += [(f"{where}/any_of/{k}", a) for k, a in enumerate(expect.get("any_of", []))]
            blocks.append((where, expect))
        blocks.append((f"/scenarios/{i}/final", scenario.get("final") or {}))
    return [
        (f"{where}/{key}", value)
        for where, block in blocks
        for key, value in block.items()
        if key not in ("any_of", "rejection")
    ]


def _check_same_as(data: dict[str, Any], document: Document) -> None:
    """Every ``$same_as`` names a place its expectation requires: a pointer to nothing would
    make its check fail on every runtime, or (to the matcher's own place) pass on every one."""
    for where, expected in _expected_values(data):
        for inside, problem in pointer_problems(expected):
            raise _field_error(
                document,
                f"{where}{inside}",
                f"$same_as {problem}",
                "a $same_as pointer is read in the value of its own expectation key "
                "(for composition, the result {status, output, error, trace}); see docs/cases.md",
            )


# -- the catalog ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Selection:
    """Which cases a run takes: those of one spec version, optionally filtered.

    A filtered selection is *partial*: its levels describe only the cases run, so they certify
    nothing, and a required level cannot be judged on it.

    Attributes:
        spec_version: the spec version the run targets (R6); its cases are the full set.
        areas, levels, requirements: keep cases with one of these (empty: all).
        ids: keep cases whose id matches one of these glob patterns (empty: all).
    """

    spec_version: str = NEWEST
    areas: tuple[str, ...] = ()
    levels: tuple[int, ...] = ()
    requirements: tuple[str, ...] = ()
    ids: tuple[str, ...] = ()

    @property
    def partial(self) -> bool:
        """Whether a filter leaves out cases of the spec version."""
        return bool(self.areas or self.levels or self.requirements or self.ids)

    def matches(self, case: Case) -> bool:
        """Whether the case is in the selection."""
        return (
            case.applies_to(self.spec_version)
            and (not self.areas or case.area in self.areas)
            and (not self.levels or case.level in self.levels)
            and (not self.requirements or case.requirement in self.requirements)
            and (not self.ids or any(fnmatch.fnmatchcase(case.id, p) for p in self.ids))
        )

    def to_dict(self) -> dict[str, Any]:
        """As JSON-able data, for reports."""
        return {
            "spec_version": self.spec_version,
            "area": list(self.areas),
            "level": list(self.levels),
            "requirement": list(self.requirements),
            "id": list(self.ids),
            "partial": self.partial,
        }


@dataclass(frozen=True)
class Catalog:
    """The cases of one catalog folder, sorted by id, and the statements they cite."""

    root: Path
    cases: tuple[Case, ...]
    extra: tuple[Path, ...] = ()

    @cached_property
    def registry(self) -> Registry:
        """The statements the cases may cite: the built-in ones, and those of the catalog's
        and each extra folder's ``statements/`` (read when first asked for: a run needs none).

        Raises:
            CaseError: a malformed statement file, or an id defined twice.
        """
        return load_registry(self.root, *self.extra)

    def select(self, selection: Selection | None = None) -> list[Case]:
        """The cases of a selection (default: every case of the newest spec version)."""
        selection = selection or Selection()
        return [case for case in self.cases if selection.matches(case)]

    def get(self, case_id: str) -> Case | None:
        """The case with this id, if any."""
        return next((c for c in self.cases if c.id == case_id), None)


def case_files(root: Path) -> list[Path]:
    """The case files under ``root``: ``*.yaml`` outside ``packs/`` and ``statements/``
    folders, sorted.

    Raises:
        CaseError: a file outside ``packs/`` folders looks like a case but is not named
            ``.yaml`` (``.yml``, ``.json``, ``.YAML``): it would be skipped without a word.
    """
    found = []
    for path in sorted(root.rglob("*")):
        if set(NOT_CASES) & set(path.relative_to(root).parts):
            continue
        if path.suffix == ".yaml":
            found.append(path)
        elif path.suffix.lower() in CASE_LOOKALIKES and not path.is_dir():
            raise CaseError(
                f"a {path.suffix} file in a catalog: case files are named .yaml, and any "
                "other file here would be skipped",
                Location(str(path)),
                "rename it to .yaml if it is a case; move a pack file into a packs/ folder",
            )
    return found


CASE_LOOKALIKES = (".yml", ".json", ".yaml")
"""Suffixes (any case) of files that look like a case: only ``.yaml`` is one."""


def load_catalog(root: str | Path | None = None, *, extra: Sequence[str | Path] = ()) -> Catalog:
    """Load every case under ``root`` (default: the built-in catalog), and under each ``extra``
    folder on top of it (a spec editor's or a runtime author's own cases).

    Raises:
        CaseError: a folder does not exist, the first malformed case, or a duplicate id or
            description (across all the folders).
    """
    folder = Path(root) if root is not None else catalog_root()
    cases: list[Case] = []
    for each in (folder, *map(Path, extra)):
        if not each.is_dir():
            what = "is not a folder" if each.exists() else "does not exist"
            raise CaseError(
                f"the catalog {what}",
                Location(str(each)),
                "give --catalog and --extra-catalog folders of case files",
            )
        cases.extend(load_case(p, each) for p in case_files(each))
    check_unique(cases)
    return Catalog(folder, tuple(sorted(cases, key=lambda c: c.id)), tuple(map(Path, extra)))


def check_unique(cases: Sequence[Case]) -> None:
    """Raise :class:`CaseError` for the first repeated id or description."""
    for field_name in ("id", "description"):
        seen: dict[str, Case] = {}
        for case in cases:
            value: str = getattr(case, field_name)
            if value in seen:
                document = case.document
                location = (
                    document.locate(f"/{field_name}")
                    if document is not None
                    else Location(str(case.file))
                )
                raise CaseError(
                    f"{field_name} {value!r} is already used by {seen[value].file}",
                    location,
                    f"every case needs its own {field_name}",
                )
            seen[value] = case
