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
    code_line,
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
_JSON_KEY = re.compile(r'\s*[{\[]?\s*"[^"\n]{1,80}"\s*:')
"""A quote opening with a JSON key: a piece of a schema block, whatever follows."""
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
    spans = _spans(document, statements)
    stale = [s for s in statements if flats[s.id] not in spans[s.id][0]]
    stale_ids = {s.id for s in stale}

    changes: list[Change] = []
    taken: set[int] = set()
    # Statements quoting the same words in the same section (one schema block for two
    # definitions) are revised by the same sentence.
    shared: dict[tuple[str, str], Sentence | None] = {}
    held = [flats[s.id] for s in statements if s.id not in stale_ids]
    for statement in stale:
        lines = spans[statement.id][1]
        key = (statement.section, flats[statement.id])
        in_code = code_line(statement.quote) or bool(_JSON_KEY.match(statement.quote))
        if key in shared:
            found = shared[key]
        else:
            found = _closest(statement, [s for s in document.sentences if s.line in lines], taken)
            if found is None and in_code:
                # A quote of a schema block or an example: its revision is a code line (or
                # the few lines its words spread over) that no statement still holding quotes,
                # where one changed value is all a change may keep.
                code = [c for c in document.code if c.line in lines]
                used = _quoted_lines(code, held)
                windows = [w for w in _code_windows(code, statement) if w.line not in used]
                found = _closest(statement, windows, taken, code=True)
            shared[key] = found
        in_code = in_code and found is not None and found not in document.sentences
        cases = tuple(dict.fromkeys(cited.get(statement.id, ())))
        if found is None:
            changes.append(Change("removed", statement.section, statement, cases=cases))
            continue
        taken.add(id(found))
        if in_code and statement.keyword == "schema":
            changes.append(
                Change("constraint changed", statement.section, statement, found, cases=cases)
            )
            continue
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


def _spans(document: Document, statements: Sequence[Statement]) -> dict[str, tuple[str, range]]:
    """Statement id -> the plain text of the section it stands in, and that section's lines."""
    paths = frozenset(plain(s.section).casefold() for s in statements)
    by_heading: dict[int, tuple[str, range]] = {}
    spans = {}
    for statement in statements:
        where = _locate(document, statement.section)
        if where not in by_heading:
            by_heading[where] = _span(document, where, paths)
        spans[statement.id] = by_heading[where]
    return spans


def occurrences(statements: Sequence[Statement], text: str) -> dict[str, int]:
    """Statement id -> how many times its quote stands in its section of ``text``: a quote
    standing more than once is not located (a change at one place leaves it in the others, and
    the revision check sees nothing)."""
    document = read_text(text, section_titles(s.section for s in statements))
    spans = _spans(document, statements)
    return {s.id: spans[s.id][0].count(plain(s.quote)) for s in statements}


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


def _code_windows(code: Sequence[Sentence], statement: Statement) -> list[Sentence]:
    """From each line of the section's code on, the fewest following lines holding as many
    words as the statement's quote (``"provider": { "type": "string"`` spans two lines of its
    block), each as one candidate."""
    size = len(_words(statement.quote))
    windows = []
    for start, first in enumerate(code):
        if not _words(first.text):
            continue  # a line of punctuation (a block's brace) opens no revision
        end = start + 1
        while (
            end < len(code)
            and code[end].line == code[end - 1].line + 1
            and len(_words(" ".join(c.text for c in code[start:end]))) < size
        ):
            end += 1
        text = " ".join(c.text for c in code[start:end])
        windows.append(Sentence(text, first.section, first.line))
    return windows


def _quoted_lines(code: Sequence[Sentence], quotes: Sequence[str]) -> set[int]:
    """The code lines on which one of ``quotes`` (of statements the text still holds) starts:
    lines those statements account for, so not a changed statement's revision."""
    joined = ""
    starts: list[tuple[int, int]] = []  # (offset in joined, line)
    for line in code:
        starts.append((len(joined), line.line))
        joined += plain(line.text)  # plain text holds no whitespace: lines join as they are
    used = set()
    for quote in quotes:
        at = joined.find(quote)
        while at >= 0 and quote:
            used.add(next(line for offset, line in reversed(starts) if offset <= at))
            at = joined.find(quote, at + 1)
    return used


def _closest(
    statement: Statement, candidates: Sequence[Sentence], taken: set[int], *, code: bool = False
) -> Sentence | None:
    """The sentence of the statement's section that keeps most of its words (at least
    :data:`MATCH` of them; for ``code``, all but one when that is less), or ``None``: the
    statement is removed."""
    wanted = _words(statement.quote)
    if not wanted or (code and len(wanted) < 2):
        return None
    counted = Counter(wanted)
    least = min(MATCH, (len(wanted) - 1) / len(wanted)) if code else MATCH
    best: tuple[float, int] = (least, -1)
    for index, sentence in enumerate(candidates):
        if id(sentence) in taken:
            continue
        if code and wanted[0] not in _words(sentence.text):
            continue  # the key a code quote opens with is what a changed value keeps
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
    "occurrences",
    "source_name",
    "strongest",
]
