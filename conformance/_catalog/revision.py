"""A spec editor's revised RFC text, read against the statement registry.

Two questions: which statements of the registry does the text no longer hold verbatim (changed
or removed: the cases citing them must be looked at), and which of its sentences carry RFC 2119
keywords (or say "is an error", "is valid", "warn") that no statement holds yet (candidates for
the registry, with their section). Quotes are compared as the registry's tests compare them:
whitespace, Markdown emphasis and escapes aside, curly quotes read as straight.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from conformance._basics.quotes import normalize
from conformance._catalog.statements import Registry, Statement

NORMATIVE = re.compile(
    r"\b(MUST|SHALL|REQUIRED|SHOULD|RECOMMENDED|MAY|OPTIONAL)\b"
    r"|\b(?i:must|shall|should|required)\b"
    r"|\b(?i:is not an? (?:validation |schema )?error|is an? (?:validation |schema )?error"
    r"|is invalid|is valid|remains? valid|warn)\b"
)
"""What makes a sentence a candidate statement: an RFC 2119 keyword (upper case; the older RFCs
write must/should/required in lower case, so those count too), or the rulings' other binding
words (R8)."""
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.+?)\s*#*\s*$")
_SENTENCE_END = re.compile(r"(?<=[.!?:;])\s+(?=[`*\"'(\[A-Z0-9])")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+\u2022]|\d+\.)\s+")
_FENCE = re.compile(r"^\s*```")


@dataclass(frozen=True)
class Sentence:
    """A sentence of the text, with the heading it stands under and its line."""

    text: str
    section: str
    line: int


@dataclass(frozen=True)
class Stale:
    """A statement the revised text no longer holds verbatim, and the cases citing it."""

    statement: Statement
    cases: tuple[str, ...]


@dataclass(frozen=True)
class Revision:
    """What a revised text changes for the registry."""

    source: str
    stale: tuple[Stale, ...]
    candidates: tuple[Sentence, ...]
    held: int
    """How many of the source's statements the text still holds."""

    @property
    def passed(self) -> bool:
        return not self.stale


def sentences(text: str) -> list[Sentence]:
    """The sentences of a Markdown or plain text, each under its heading.

    Headings are Markdown ``#`` lines, or, in plain text, a short line with no final
    punctuation standing alone between blank lines. Code blocks are left out: schema blocks are
    quoted by the registry's schema statements, not read as sentences here.
    """
    lines = text.splitlines()
    found: list[Sentence] = []
    section = ""
    paragraph: list[tuple[int, str]] = []
    fenced = False

    def flush() -> None:
        if not paragraph:
            return
        start = paragraph[0][0]
        joined = " ".join(part.strip() for _, part in paragraph)
        for piece in _SENTENCE_END.split(joined):
            if piece.strip():
                found.append(Sentence(piece.strip(), section, start))
        paragraph.clear()

    for number, line in enumerate(lines, start=1):
        if _FENCE.match(line):
            flush()
            fenced = not fenced
            continue
        if fenced:
            continue
        heading = _HEADING.match(line)
        if heading is None and _plain_heading(lines, number - 1):
            flush()
            section = line.strip()
            continue
        if heading is not None:
            flush()
            section = heading.group(2).strip()
            continue
        if not line.strip():
            flush()
            continue
        if _LIST_ITEM.match(line):
            flush()
            paragraph.append((number, _LIST_ITEM.sub("", line)))
            continue
        paragraph.append((number, line))
    flush()
    return found


def _plain_heading(lines: Sequence[str], index: int) -> bool:
    line = lines[index].strip()
    if not line or len(line) > 80 or line[-1] in ".,:;!?)\"'`{}[]" or line.startswith(("{", '"')):
        return False
    before = index == 0 or not lines[index - 1].strip()
    after = index + 1 >= len(lines) or not lines[index + 1].strip()
    return before and after and len(line.split()) <= 10


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
        cited: statement id -> the cases citing it, for the stale ones.
    """
    cited = cited or {}
    flat = normalize(text)
    statements = [s for s in registry.statements if s.source == source]
    stale = tuple(
        Stale(s, tuple(dict.fromkeys(cited.get(s.id, ()))))
        for s in statements
        if normalize(s.quote) not in flat
    )
    quotes = [normalize(s.quote) for s in statements]
    candidates = []
    for sentence in sentences(text):
        if not NORMATIVE.search(sentence.text) or sentence.text.endswith("?"):
            continue  # a question states nothing (an unresolved question's lean is a statement)
        plain = normalize(sentence.text)
        if len(plain) < 12:
            continue
        if any(plain in quote or (len(quote) >= 12 and quote in plain) for quote in quotes):
            continue
        candidates.append(sentence)
    return Revision(source, stale, tuple(candidates), len(statements) - len(stale))


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
    "NORMATIVE",
    "Revision",
    "Sentence",
    "Stale",
    "check_revision",
    "sentences",
    "source_name",
]
