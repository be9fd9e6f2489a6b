"""An RFC text as the revision check reads it: its header fields, its sections, its sentences,
and its wording with what is not wording left out.

The same RFC comes as Markdown (upstream) or as the plain text of its web page (the kit's older
copies); links, emphasis, code spans, line wrapping, table pipes and heading marks differ between
the two and between revisions without changing a word, so :func:`plain` leaves them out before
any comparison. Every pattern here runs in time linear in its line: a spec editor's file is
untrusted input (a heading of 3,000 spaces once took 101 s).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from conformance._basics.quotes import normalize

_ATX = re.compile(r" {0,3}(#{1,6})(?=[ \t]|$)")
_SENTENCE_END = re.compile(r"(?<=[.!?:;])\s+(?=[`*\"'(\[A-Z0-9])")
_LIST_ITEM = re.compile(r"\s*(?:[-*+\u2022]|\d{1,9}[.)])\s+")
# A line of an example a plain text kept without its code fence: a YAML key with a one-token
# value (or none), or JSON punctuation around strings and literals.
_YAML_LINE = re.compile(
    r"\s*(?:-\s+)?[A-Za-z_$][\w$.-]{0,60}:(?:\s+(?:[\w./$#-]{1,60}|\{.*\}|\[.*\]|\"[^\"\n]*\""
    r"|'[^'\n]*'|[>|]-?))?\s*"
)
_JSON_STRING = re.compile(r'"[^"\n]*"|\b(?:true|false|null)\b')
_JSON_REST = re.compile(r"[\s{}\[\]():,0-9.+-]*")
_OPENING = 40
"""Header fields stand in a text's first lines, before its first section the registry names."""
_NUMBERED = re.compile(r"[0-9]{1,9}[.)]")
_BULLET = re.compile(r"[-*+\u2022]\s")
_FENCE = re.compile(r"\s{0,3}(?:```|~~~)")
_TABLE_RULE = re.compile(r"\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$")
_HEADER = re.compile(
    r"\s*(?:[-*+\u2022]\s+)?(?:\*\*)?"
    r"(Status|Authors?|Author\(s\)|Created|Updated|Discussion|Related Issues|Supersedes"
    r"|Superseded by|Spec version)"
    r"(?:\*\*\s*:|:\s*\*\*|:)\s*(.*)",
    re.IGNORECASE,
)
# Bounded repeats: a link's text, target and title are short, so a line of brackets costs a
# constant per bracket, never a rescan of the line.
_LINK = re.compile(
    r"!?\[([^\[\]\n]{0,400})\](?:\((?:[^()\s]{0,800})(?:\s+\"[^\"\n]{0,200}\")?\)"
    r"|\[[^\[\]\n]{0,100}\])"
)
_LINK_DEFINITION = re.compile(r"\s{0,3}\[[^\[\]\n]{1,100}\]:\s")
_AUTOLINK = re.compile(r"<((?:https?|mailto):[^<>\s]{1,800})>")
_EMPHASIS_UNDERSCORE = re.compile(r"(?<![A-Za-z0-9])_+|_+(?![A-Za-z0-9])")
_NOT_WORDING = re.compile(r"[|\u2022#]")


@dataclass(frozen=True)
class Heading:
    """A heading of the text: its title, its level (0 in plain text, where levels are not
    written) and its line."""

    title: str
    level: int
    line: int


@dataclass(frozen=True)
class Sentence:
    """A sentence of the text, with the heading it stands under and its line."""

    text: str
    section: str
    line: int


@dataclass(frozen=True)
class Document:
    """A text read once: header fields, headings, and each line's wording (code blocks kept:
    the registry quotes schema blocks); ``code``, each line of a code block (or of an example a
    plain text kept without its fence), stripped, under its heading."""

    header: dict[str, str]
    headings: tuple[Heading, ...]
    lines: tuple[str, ...]
    sentences: tuple[Sentence, ...]
    code: tuple[Sentence, ...] = ()

    def span(self, heading: int, nested: Callable[[str, str], bool] | None = None) -> str:
        """The text of ``headings[heading]`` and under it, up to the next heading of its level
        or above. In plain text, where levels are not written, up to the next heading that
        ``nested(title, following title)`` does not say stands under it."""
        start = self.headings[heading]
        end = len(self.lines)
        for following in self.headings[heading + 1 :]:
            if start.level == 0:
                inside = nested is not None and nested(start.title, following.title)
            else:
                inside = following.level > start.level
            if not inside:
                end = following.line - 1
                break
        return "\n".join(self.lines[start.line - 1 : end])


def plain(text: str) -> str:
    """The wording of a text, compared as the registry compares quotes: links as their text,
    no emphasis, code spans, escapes, whitespace, table pipes, bullets or heading marks."""
    text = _AUTOLINK.sub(r"\1", _LINK.sub(r"\1", text))
    text = _EMPHASIS_UNDERSCORE.sub("", text)
    return normalize(_NOT_WORDING.sub("", text))


def heading_of(line: str) -> tuple[int, str] | None:
    """A Markdown ``#`` heading's level and title, or ``None``."""
    match = _ATX.match(line)
    if match is None:
        return None
    title = line[match.end() :].strip()
    if title.endswith("}") and " {#" in title:
        title = title[: title.rindex(" {#")].rstrip()  # an anchor is not part of the title
    closed = title.rstrip("#")
    if closed != title and (not closed or closed[-1] in " \t"):
        title = closed.rstrip()  # a closing run of '#' is not part of the title
    return len(match.group(1)), title


@lru_cache(maxsize=4096)
def title_forms(title: str) -> tuple[str, ...]:
    """A heading's title as sections name it (:func:`plain`, casefolded), with and without a
    list number (a plain text's ``3. Phase 3: ...`` is the registry's ``Phase 3: ...``)."""
    flat = plain(title).casefold()
    bare = _NUMBERED.sub("", flat)
    return tuple(t for t in dict.fromkeys((flat, bare)) if t)


def section_titles(sections: Iterable[str]) -> frozenset[str]:
    """The heading titles a registry's sections name (``Examples: Example 1: Basic Usage``
    names ``Examples``, ``Example 1``, ``Basic Usage``, ``Example 1: Basic Usage``, ...), as
    :func:`plain` and casefold leave them: a plain text without blank lines around its
    headings is read with these."""
    titles: set[str] = set()
    for section in sections:
        parts = section.split(": ")
        for start in range(len(parts)):
            for end in range(start + 1, len(parts) + 1):
                titles.add(plain(": ".join(parts[start:end])).casefold())
    return frozenset(titles)


def read_text(text: str, titles: Collection[str] = frozenset()) -> Document:
    """Read a Markdown or plain text: its header fields (Status, Created, Updated, ... in its
    first lines), its headings (a short line with no final punctuation standing alone
    between blank lines, and in Markdown, a text opening with a ``#`` heading or holding a code
    fence, the ``#`` lines; in plain text a ``#`` line is a comment of an example; and any
    line that is one of ``titles``) and its sentences (code blocks,
    example lines a plain text kept without their fence, header fields and table rules left
    out)."""
    lines = text.splitlines()
    first = next((line for line in lines if line.strip()), "")
    markdown_headings = heading_of(first) is not None or any(_FENCE.match(line) for line in lines)
    header: dict[str, str] = {}
    headings: list[Heading] = []
    found: list[Sentence] = []
    section = ""
    paragraph: list[tuple[int, str]] = []
    code: list[Sentence] = []
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
            if line.strip():
                code.append(Sentence(line.strip(), section, number))
            continue
        markdown = heading_of(line) if markdown_headings else None
        if (
            markdown is not None
            or _plain_heading(lines, number - 1)
            or (len(line) <= 120 and any(t in titles for t in title_forms(line)))
        ):
            flush()
            level, title = markdown if markdown is not None else (0, line.strip())
            headings.append(Heading(title, level, number))
            section = title
            continue
        opening = number <= _OPENING and not any(t in titles for t in title_forms(section))
        field = _HEADER.match(line) if opening else None
        if field is not None:
            flush()
            header.setdefault(field.group(1).casefold(), field.group(2).strip().strip("*").strip())
            continue
        if (
            not line.strip()
            or _TABLE_RULE.match(line)
            or (number < len(lines) and "|" in line and _TABLE_RULE.match(lines[number]))
            or _LINK_DEFINITION.match(line)
        ):
            flush()
            continue
        if code_line(line):
            flush()
            code.append(Sentence(line.strip(), section, number))
            continue
        item = _LIST_ITEM.match(line)
        if item is not None:
            flush()
            paragraph.append((number, line[item.end() :]))
            continue
        paragraph.append((number, line))
    flush()
    return Document(header, tuple(headings), tuple(lines), tuple(found), tuple(code))


def sentences(text: str) -> list[Sentence]:
    """The sentences of a Markdown or plain text, each under its heading."""
    return list(read_text(text).sentences)


def code_line(line: str) -> bool:
    """Whether ``line`` reads as code: a YAML key with a one-token value, or JSON punctuation
    around strings and literals (an example line the plain-text copies kept without its
    fence, or a quote of a schema block)."""
    if _YAML_LINE.fullmatch(line):
        return True
    rest = _JSON_STRING.sub("", line)
    return rest != line and _JSON_REST.fullmatch(rest) is not None


def _plain_heading(lines: Sequence[str], index: int) -> bool:
    line = lines[index].strip()
    if not line or len(line) > 80 or line[-1] in ".,:;!?)\"'`{}[]" or line.startswith(("{", '"')):
        return False
    if _HEADER.match(line) or _BULLET.match(line):
        return False
    before = index == 0 or not lines[index - 1].strip()
    after = index + 1 >= len(lines) or not lines[index + 1].strip()
    return before and after and len(line.split()) <= 10


__all__ = [
    "Document",
    "Heading",
    "Sentence",
    "code_line",
    "heading_of",
    "plain",
    "read_text",
    "section_titles",
    "sentences",
    "title_forms",
]
