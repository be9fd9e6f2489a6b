"""The statement registry: the normative statements the kit's checks cite (SEMANTICS R8).

One YAML file per source (an RFC, a published schema, the add-workflow guide, the kit's own
picks) under the catalog's ``statements/`` folder, each statement with a stable id, its section,
a keyword, its verbatim quote and its testability (``schema/statements.schema.json``). A check
cites statement ids, and its requirement is *derived* from the keywords of what it cites: never
stronger than the strongest statement it rests on. The kit ships the quotes, not the texts.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from conformance._basics.contract import REQUIREMENTS, Requirement
from conformance._basics.errors import CaseError
from conformance._basics.files import NotAFile, resolved
from conformance._basics.resources import catalog_root
from conformance._catalog.documents import read_checked
from reference import Location

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

FOLDER = "statements"
"""The folder of a catalog that holds its statement files (never read as cases)."""

BINDING = frozenset(
    (
        "MUST",
        "MUST NOT",
        "REQUIRED",
        "SHALL",
        "SHALL NOT",
        "error",
        "not-error",
        "valid",
        "schema",
        "definition",
    )
)
"""Keywords that give MUST: the RFC 2119 requirements, "is an error", "is not an error", "is
valid", a published schema's constraint, and a field's definition (for exactly what it
defines)."""
ADVISORY = frozenset(("SHOULD", "SHOULD NOT", "RECOMMENDED", "lean"))
"""Keywords that give SHOULD: the RFC's "should", and an unresolved question's stated lean."""
INFORMATIVE = frozenset(
    (
        "level",
        "example",
        "motivation",
        "design",
        "testing",
        "adoption",
        "informative",
        "rationale",
        "illustration",
    )
)
"""Keywords that never require anything (MAY at most): support-level lines, examples,
motivation, design notes, testing strategies, adoption notes, and a definition's rationale or
illustration (why it is so, an instance of it: never the definition itself, R17)."""


@dataclass(frozen=True)
class Statement:
    """One normative statement of a source.

    Attributes:
        id: stable, never reused (``RFC0014.rule-4.2``).
        source: ``RFC 0014``, ``schema 1.9.0``, ``guide`` or ``kit``.
        section: where it stands (a heading path, or a JSON pointer for a schema).
        keyword: what it can require (see :meth:`requirement`).
        quote: its own words.
        untestable: why no case can test it through the adapter interface (``None``: testable).
        why: the reason, in a sentence, for an untestable statement.
        names: for a kit code, the statements naming its condition in words.
        note: anything a reader of the registry should know.
        ruling: the ruling that makes the quote's weaker wording bind as ``keyword`` says
            (``R17``), empty when the wording itself binds.
        line: the line of the statement in its file (``None``: not read from a file).
    """

    id: str
    source: str
    section: str
    keyword: str
    quote: str
    untestable: str | None = None
    why: str = ""
    names: tuple[str, ...] = ()
    note: str = ""
    ruling: str = ""
    line: int | None = field(default=None, compare=False)

    @property
    def testable(self) -> bool:
        return self.untestable is None

    def requirement(self, *, validity: bool = False) -> Requirement:
        """The strongest requirement a check citing this statement may carry (R8).

        Arguments:
            validity: the check is of a pack's validity (valid or invalid): an RFC-named
                warning then gives MUST, since a pack with only that condition stays valid
                (R10), where reporting the warning is SHOULD.
        """
        keyword = self.keyword
        if keyword in BINDING:
            return "MUST"
        if keyword == "warning":
            return "MUST" if validity else "SHOULD"
        if keyword in ADVISORY:
            return "SHOULD"
        if keyword == "code":
            return "SHOULD" if self.names else "MAY"
        return "MAY"

    def to_dict(self) -> dict[str, Any]:
        """The statement as JSON-able data, for reports and ``statements list``."""
        data: dict[str, Any] = {
            "id": self.id,
            "source": self.source,
            "section": self.section,
            "keyword": self.keyword,
            "requirement": self.requirement(),
            "quote": self.quote,
        }
        if self.untestable is not None:
            data["untestable"] = self.untestable
            data["why"] = self.why
        if self.names:
            data["names"] = list(self.names)
        if self.ruling:
            data["ruling"] = self.ruling
        return data


@dataclass(frozen=True)
class Source:
    """The statements of one source, and which revision of it they were taken from."""

    name: str
    title: str
    revision: str
    text: str
    statements: tuple[Statement, ...]
    file: str = ""


@dataclass(frozen=True)
class Registry:
    """Every statement the checks of a catalog may cite."""

    sources: tuple[Source, ...]
    by_id: Mapping[str, Statement] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def of(cls, sources: Iterable[Source]) -> Registry:
        """A registry of these sources (the first statement of a repeated id wins)."""
        listed = tuple(sources)
        by_id: dict[str, Statement] = {}
        for source in listed:
            for statement in source.statements:
                by_id.setdefault(statement.id, statement)
        return cls(listed, by_id)

    def __contains__(self, statement_id: object) -> bool:
        return statement_id in self.by_id

    def get(self, statement_id: str) -> Statement | None:
        return self.by_id.get(statement_id)

    @property
    def statements(self) -> tuple[Statement, ...]:
        return tuple(s for source in self.sources for s in source.statements)

    def source(self, name: str) -> Source | None:
        return next((s for s in self.sources if s.name == name), None)

    def derived(self, ids: Iterable[str], *, validity: bool = False) -> Requirement | None:
        """The strongest requirement the statements ``ids`` give (``None``: none is known)."""
        given = [s.requirement(validity=validity) for i in ids if (s := self.by_id.get(i))]
        return min(given, key=REQUIREMENTS.index) if given else None


# -- loading ----------------------------------------------------------------------------------


def load_source(path: str | Path) -> Source:
    """Read one statement file.

    Raises:
        CaseError: the file is not a well-formed statement file (said where, and how to fix).
    """
    path = Path(path)
    document = read_checked(path, "statements.schema.json", "the statement format")
    data = document.data
    name = data["source"]
    seen: set[str] = set()
    statements = []
    lines = _item_lines(path, "statements")
    for index, item in enumerate(data["statements"]):
        if item["id"] in seen:
            raise CaseError(
                f"statement id {item['id']!r} is used twice",
                document.locate(f"/statements/{index}/id"),
                "every statement needs its own id",
            )
        seen.add(item["id"])
        statements.append(
            Statement(
                id=item["id"],
                source=name,
                section=item["section"],
                keyword=item["keyword"],
                quote=item["quote"],
                untestable=item.get("untestable"),
                why=item.get("why", ""),
                names=tuple(item.get("names", ())),
                note=item.get("note", ""),
                ruling=item.get("ruling", ""),
                line=lines[index]
                if index < len(lines)
                else document.locate(f"/statements/{index}").line,
            )
        )
    return Source(
        name=name,
        title=data["title"],
        revision=data["revision"],
        text=data.get("text", ""),
        statements=tuple(statements),
        file=str(path),
    )


def _item_lines(path: Path, key: str) -> list[int]:
    """The line where each item of the top-level sequence ``key`` of the YAML file at ``path``
    starts, read in one pass over its events (locating each item on its own reads the events
    before it again: a registry file took half a second). Stops short at an item that is an
    alias, or anything unexpected: the items it does not cover are located one by one."""
    lines: list[int] = []
    with open(path, encoding="utf-8") as stream:
        events = yaml.parse(stream, Loader=_LOADER)
        kinds = [type(next(events)) for _ in range(3)]
        if kinds[1:] != [yaml.DocumentStartEvent, yaml.MappingStartEvent]:
            return lines
        while isinstance(name := next(events), yaml.ScalarEvent):
            value = next(events)
            if name.value != key:
                _skip(events, value)
                continue
            if isinstance(value, yaml.SequenceStartEvent):
                item = next(events)
                while item.start_mark is not None and not isinstance(
                    item, yaml.SequenceEndEvent | yaml.AliasEvent
                ):
                    lines.append(item.start_mark.line + 1)
                    _skip(events, item)
                    item = next(events)
            break
    return lines


def _skip(events: Iterator[yaml.Event], first: yaml.Event) -> None:
    """Read past the node that starts with ``first``."""
    depth = int(isinstance(first, yaml.MappingStartEvent | yaml.SequenceStartEvent))
    while depth:
        event = next(events)
        if isinstance(event, yaml.MappingStartEvent | yaml.SequenceStartEvent):
            depth += 1
        elif isinstance(event, yaml.MappingEndEvent | yaml.SequenceEndEvent):
            depth -= 1


def statement_files(catalog: Path) -> list[Path]:
    """The statement files of a catalog folder (``statements/*.yaml``), sorted."""
    folder = catalog / FOLDER
    return sorted(folder.glob("*.yaml")) if folder.is_dir() else []


def load_registry(*catalogs: str | Path) -> Registry:
    """The statements of the built-in catalog, then of each of ``catalogs`` that has a
    ``statements/`` folder (a spec editor's own statements beside their own cases).

    Raises:
        CaseError: a malformed statement file, or an id two files both define.
    """
    folders = [catalog_root(), *(Path(c) for c in catalogs)]
    unique: list[Path] = []
    for folder in folders:
        if folder.resolve() not in [f.resolve() for f in unique]:
            unique.append(folder)
    sources: list[Source] = []
    owner: dict[str, str] = {}
    read: list[Source] = []
    for folder in unique:
        for path in statement_files(folder):
            try:
                source = _cached_source(resolved(path))
            except NotAFile as error:
                raise CaseError(
                    f"cannot read the statement file: {error}",
                    Location(str(path)),
                    "remove the link, or make it name a statement file",
                ) from None
            # A copy of a file already read (a catalog folder made from the built-in one, its
            # statements/ included) is the same source, not a second definition of its ids.
            content = replace(source, file="")
            if content in read:
                continue
            read.append(content)
            for statement in source.statements:
                if statement.id in owner and owner[statement.id] != source.file:
                    raise CaseError(
                        f"statement id {statement.id!r} is already defined in "
                        f"{owner[statement.id]}",
                        Location(source.file),
                        "give each statement its own id (a catalog folder's statements/ adds "
                        "to the built-in statements: keep in it only files of its own, or "
                        "unchanged copies)",
                    )
                owner[statement.id] = source.file
            sources.append(source)
    return Registry.of(sources)


@cache
def _cached_source(path: Path) -> Source:
    return load_source(path)


@cache
def builtin() -> Registry:
    """The built-in catalog's statements (the kit's codes among them)."""
    return load_registry()


@cache
def vocabulary() -> Registry:
    """The kit's own statements (``kit.yaml``: its codes and picks), without the RFCs': what a
    run needs to weigh the checks of the kit's codes."""
    return Registry.of([_cached_source((catalog_root() / FOLDER / "kit.yaml").resolve())])


def code_requirement(code: str) -> Requirement:
    """How much reporting one of the kit's codes weighs (R2, R3, R9): SHOULD when an RFC names
    the code's condition in words (``kit.code.CODE`` lists what names it), else MAY."""
    statement = vocabulary().get(f"kit.code.{code}")
    return statement.requirement() if statement is not None else "MAY"


def code_statement(code: str) -> str:
    """The statement id a check of one of the kit's codes cites."""
    return f"kit.code.{code}"


POINTER = "kit.pointer"
"""Where a diagnostic or failure is reported (a JSON pointer, a step id): the kit's pick (R2)."""


__all__ = [
    "ADVISORY",
    "BINDING",
    "INFORMATIVE",
    "POINTER",
    "Registry",
    "Source",
    "Statement",
    "builtin",
    "code_requirement",
    "code_statement",
    "load_registry",
    "load_source",
]
