"""A spec editor's revised RFC text, read against the statement registry, as a list of changes.

Each statement is located, not only quoted: it is looked for under its own section's heading,
so a quote that also stands elsewhere in the text (an ``additionalProperties`` line in two
schema blocks) is found changed where it changed. A revision is then a list of changes (R21):
a statement whose keyword changed (and which way), whose wording changed with its keyword kept,
or that is gone; and a new sentence carrying normative wording that no statement holds. What is
not wording (links, emphasis, code spans, wrapping, the plain-text and Markdown forms, the header
fields) is no change; a header that no longer matches the registry's ``revision:`` line is
said, as information.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import lru_cache

from conformance._basics.contract import Requirement
from conformance._catalog.statements import INFORMATIVE, Registry, Statement
from conformance._catalog.text import (
    Document,
    Sentence,
    plain,
    read_text,
    section_titles,
    title_forms,
)
from conformance._catalog.wording import Strength, keywords, wording_of

_PERMISSION_OR_WARNING = frozenset(("MAY", "OPTIONAL", "warning"))
_RANK: dict[Strength, int] = {"binding": 3, "advisory": 2, "permissive": 1, "none": 0}
_REQUIREMENT_OF: dict[Strength, Requirement] = {
    "binding": "MUST",
    "advisory": "SHOULD",
    "permissive": "MAY",
    "none": "MAY",
}


def normative(sentence: str, section: str) -> bool:
    """Whether a sentence carries normative wording where it stands: binding or advisory
    words as :func:`~conformance._catalog.wording.wording_of` reads them (R17: lower-case
    "must" binds only in the normative core), an upper-case MAY or OPTIONAL, or "warn"."""
    strength = wording_of(sentence, section).strength
    return strength in ("binding", "advisory") or not _PERMISSION_OR_WARNING.isdisjoint(
        keywords(sentence)
    )


_STRENGTH = {
    "MUST": 3, "MUST NOT": 3, "SHALL": 3, "SHALL NOT": 3, "REQUIRED": 3,
    "error": 3, "not-error": 3, "valid": 3,
    "SHOULD": 2, "SHOULD NOT": 2, "RECOMMENDED": 2, "NOT RECOMMENDED": 2, "warning": 2,
    "MAY": 1, "OPTIONAL": 1,
}  # fmt: skip
_WORD = re.compile(r"[A-Za-z0-9_]+")
MATCH = 0.6
"""How much of a statement's words a sentence of its section must keep to be read as the
statement changed (below it, the statement is removed and the sentence is new)."""

KINDS = ("keyword changed", "wording changed", "constraint changed", "removed", "new")


def strongest(words: Sequence[str]) -> str:
    """The strongest of these binding words (``''``: none)."""
    return max(words, key=lambda w: _STRENGTH.get(w, 0), default="")


@dataclass(frozen=True)
class Change:
    """One change a revision makes.

    Attributes:
        kind: one of :data:`KINDS` (``constraint changed``: a schema's).
        statement: the statement changed or removed (``None`` for a new sentence).
        sentence: the revised text's sentence (``None`` for a removed statement).
        section: where it stands.
        was: the binding words the statement carried (``("MUST NOT",)``).
        now: the binding words the sentence carries.
        direction: ``weakened``, ``strengthened`` or ``changed`` for a keyword change.
        cases: the cases citing the statement.
    """

    kind: str
    section: str
    statement: Statement | None = None
    sentence: Sentence | None = None
    was: tuple[str, ...] = ()
    now: tuple[str, ...] = ()
    direction: str = ""
    cases: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, object]:
        data: dict[str, object] = {"kind": self.kind, "section": self.section}
        if self.statement is not None:
            data["statement"] = self.statement.id
            data["keyword"] = self.statement.keyword
            data["requirement"] = self.statement.requirement()
            data["quote"] = self.statement.quote
            data["cases"] = list(self.cases)
        elif self.cases:
            data["cases"] = list(self.cases)  # a new schema constraint: the cases beside it
        if self.sentence is not None:
            data["text"] = self.sentence.text
            if self.sentence.line:
                data["line"] = self.sentence.line
        if self.kind in ("keyword changed", "new"):
            data["now"] = ", ".join(self.now)
        if self.kind == "keyword changed":
            data["was"] = ", ".join(self.was)
            data["direction"] = self.direction
            data["becomes"] = self.becomes
        return data

    @property
    def becomes(self) -> Requirement | None:
        """The requirement the statement would give after a keyword change: its new strongest
        binding word's, or its own when its kind is informative (an example's "must" binds
        nothing); ``None`` for a statement removed."""
        if self.statement is None or self.kind == "removed":
            return None
        if self.kind != "keyword changed" or self.statement.keyword in INFORMATIVE:
            return self.statement.requirement()
        assert self.sentence is not None
        return _REQUIREMENT_OF[wording_of(self.sentence.text, self.statement.section).strength]


@dataclass(frozen=True)
class Revision:
    """What a revised text changes for the registry."""

    source: str
    changes: tuple[Change, ...]
    held: int
    """How many of the source's statements the text still holds where they stood."""
    header: Mapping[str, str]
    """The text's header fields (status, created, updated, ...)."""
    outdated: tuple[str, ...] = ()
    """Header fields the registry's ``revision:`` line no longer matches (information)."""
    revision: str = ""
    """The registry's ``revision:`` line for the source."""

    @property
    def stale(self) -> tuple[Change, ...]:
        return tuple(c for c in self.changes if c.statement is not None)

    @property
    def new(self) -> tuple[Change, ...]:
        return tuple(c for c in self.changes if c.kind == "new")

    @property
    def passed(self) -> bool:
        return not self.changes


def check_revision(
    registry: Registry,
    source: str,
    text: str,
    cited: Mapping[str, Iterable[str]] | None = None,
) -> Revision:
    """Read a revised text of ``source`` (``RFC 0014``) against the registry.

    Arguments:
        registry: the statements (the source's among them).
        source: the source the text is a revision of.
        text: the revised text (Markdown or plain text).
        cited: statement id -> the cases citing it, named in the changes.
    """
    cited = cited or {}
    statements = [s for s in registry.statements if s.source == source]
    document = read_text(text, section_titles(s.section for s in statements))
    flats = {s.id: plain(s.quote) for s in statements}
    spans: dict[int, tuple[str, range]] = {}
    stale: list[Statement] = []
    paths = frozenset(plain(s.section).casefold() for s in statements)
    for statement in statements:
        where = _locate(document, statement.section)
        if where not in spans:
            spans[where] = _span(document, where, paths)
        if flats[statement.id] not in spans[where][0]:
            stale.append(statement)

    changes: list[Change] = []
    taken: set[int] = set()
    for statement in stale:
        lines = spans[_locate(document, statement.section)][1]
        found = _closest(statement, [s for s in document.sentences if s.line in lines], taken)
        cases = tuple(dict.fromkeys(cited.get(statement.id, ())))
        if found is None:
            changes.append(Change("removed", statement.section, statement, cases=cases))
            continue
        taken.add(id(found))
        was, now = keywords(statement.quote), keywords(found.text)
        if not was and now and statement.keyword in _STRENGTH:
            was = (statement.keyword,)  # a binding word the quote's wording implies (R8)
        if was == now:
            changes.append(
                Change("wording changed", statement.section, statement, found, cases=cases)
            )
            continue
        step = _rank(found.text, statement) - _rank(statement.quote, statement)
        direction = "weakened" if step < 0 else "strengthened" if step > 0 else "changed"
        changes.append(
            Change(
                "keyword changed",
                statement.section,
                statement,
                found,
                was=was,
                now=now,
                direction=direction,
                cases=cases,
            )
        )

    quotes = [q for q in flats.values() if len(q) >= 12]
    for sentence in document.sentences:
        if id(sentence) in taken or sentence.text.endswith("?"):
            continue  # a question states nothing (an unresolved question's lean is a statement)
        if not normative(sentence.text, sentence.section):
            continue
        flat = plain(sentence.text)
        if len(flat) < 12 or any(flat in quote or quote in flat for quote in quotes):
            continue
        now = keywords(sentence.text)
        changes.append(Change("new", sentence.section, sentence=sentence, now=now))
    known = registry.source(source)
    revision = known.revision if known is not None else ""
    return Revision(
        source,
        tuple(changes),
        len(statements) - len(stale),
        document.header,
        _outdated(document.header, revision),
        revision,
    )


def _rank(text: str, statement: Statement) -> int:
    """How strong a statement's words (or its revision's) are where it stands; a quote whose
    words imply nothing the registry's keyword names counts as that keyword."""
    rank = _RANK[wording_of(text, statement.section).strength]
    if rank == 0 and text == statement.quote:
        return {"MUST": 3, "SHOULD": 2}.get(statement.requirement(), 0)
    return rank


def _locate(document: Document, section: str) -> int:
    """The index of the heading a statement's section names (``Examples: Example 1: Basic
    Usage``: the heading ``Example 1: Basic Usage`` under ``Examples``); when the text has no
    such heading (a plain text that runs a rule's title into its sentence), the heading of the
    nearest enclosing section it has; -1 when it has none (the whole text is then searched)."""
    parts = section.split(": ")
    for end in range(len(parts), 0, -1):
        found = _heading(document, plain(": ".join(parts[:end])).casefold())
        if found >= 0:
            return found
    return -1


def _heading(document: Document, wanted: str) -> int:
    best: tuple[int, int, int] | None = None
    chosen = -1
    for index, heading in enumerate(document.headings):
        title = next((t for t in title_forms(heading.title) if _names(wanted, t)), "")
        if not title:
            continue
        rest = wanted[: len(wanted) - len(title)].rstrip(":")
        distance = 0
        if rest:
            distance = next(
                (
                    index - earlier
                    for earlier in range(index - 1, -1, -1)
                    if any(_names(rest, t) for t in title_forms(document.headings[earlier].title))
                ),
                len(document.headings) + 1,
            )
        score = (-len(title), distance, index)
        if best is None or score < best:
            best, chosen = score, index
    return chosen


def _names(path: str, title: str) -> bool:
    return path == title or path.endswith(":" + title)


def _span(document: Document, heading: int, paths: frozenset[str]) -> tuple[str, range]:
    if heading < 0:
        return plain("\n".join(document.lines)), range(1, len(document.lines) + 1)

    def nested(title: str, following: str) -> bool:
        # In plain text, the registry's section paths say which headings stand under which.
        return any(
            path.endswith(":" + inner) and (path.startswith(outer + ":") or f":{outer}:" in path)
            for path in paths
            for outer in title_forms(title)
            for inner in title_forms(following)
        )

    text = document.span(heading, nested)
    start = document.headings[heading].line
    return plain(text), range(start, start + text.count("\n") + 1)


@lru_cache(maxsize=8192)
def _words(text: str) -> tuple[str, ...]:
    return tuple(_WORD.findall(text.replace("_", " ").casefold()))


def _closest(
    statement: Statement, candidates: Sequence[Sentence], taken: set[int]
) -> Sentence | None:
    """The sentence of the statement's section that keeps most of its words (at least
    :data:`MATCH` of them), or ``None``: the statement is removed."""
    wanted = _words(statement.quote)
    if not wanted:
        return None
    counted = Counter(wanted)
    best: tuple[float, int] = (MATCH, -1)
    for index, sentence in enumerate(candidates):
        if id(sentence) in taken:
            continue
        # A sentence far longer than the quote is not its revision, and comparing it would
        # cost its length times the quote's: only the shared words' count is looked at first.
        words = _words(sentence.text)[: 4 * len(wanted) + 64]
        if sum((counted & Counter(words)).values()) < best[0] * len(wanted):
            continue
        matcher = SequenceMatcher(None, wanted, words, autojunk=False)
        kept = sum(block.size for block in matcher.get_matching_blocks()) / len(wanted)
        if kept >= best[0] and (best[1] < 0 or kept > best[0]):
            best = (kept, index)
    return candidates[best[1]] if best[1] >= 0 else None


def _outdated(header: Mapping[str, str], revision: str) -> tuple[str, ...]:
    """Header fields the registry's revision line does not say: its status (the line's first
    word), its created and updated dates."""
    said = revision.casefold()
    outdated = []
    status = header.get("status", "")
    if status and not said.startswith(status.casefold().split()[0]):
        outdated.append("status")
    for field in ("created", "updated"):
        value = header.get(field, "")
        if value and f"{field} {value}".casefold() not in said:
            outdated.append(field)
    return tuple(outdated)


def source_name(text: str, known: Iterable[str]) -> str | None:
    """The registry's name of a source as a spec editor writes it: ``RFC 0014``, ``RFC0014``,
    ``0014``, ``rfc-0014``, ``14``, ``schema 1.9.0``."""
    wanted = re.sub(r"[\s_-]+", "", text).casefold()
    for name in known:
        compact = name.replace(" ", "").casefold()
        if wanted in (compact, compact.removeprefix("rfc")):
            return name
        number = compact.removeprefix("rfc")
        if number.isdigit() and wanted.lstrip("0") == number.lstrip("0"):
            return name
    return None


__all__ = [
    "KINDS",
    "MATCH",
    "Change",
    "Revision",
    "check_revision",
    "normative",
    "source_name",
    "strongest",
]
