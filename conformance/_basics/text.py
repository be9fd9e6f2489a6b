"""Text from outside the kit, made safe to keep and to show.

Every string a runtime sends is hostile, and so is every string of a report file: it may hold
control characters (a terminal's clear-screen, a NUL that makes XML ill-formed), Markdown or
HTML (a heading that fakes a verdict, a remote image), a lone surrogate escape (no character at
all: it cannot be written as UTF-8), or a megabyte. Such a string stays text everywhere:

- :func:`kept` for what the kit records (the JSON report): lone surrogates written out as
  ``\\ud800``, and a long string cut, its head and tail kept around a note of the size cut;
- one helper per view family, each doing the same and escaping what its format gives meaning
  to: :func:`terminal` (every control character written out, no workflow command),
  :func:`markdown` and :func:`markdown_code` (Markdown syntax, autolinks and HTML escaped),
  :func:`xml_text` (what XML 1.0 cannot hold written out), :func:`html_text`. Every view of
  every command shows outside text through these, and only these.
"""

from __future__ import annotations

import html
import json
import math
import re
from typing import Any

TEXT_LIMIT = 4000
"""Characters of one string kept in a record or shown in a view; the rest is cut."""
HEAD = 2 / 3
"""The share of :data:`TEXT_LIMIT` kept from the head of a cut string (the tail gets the rest)."""

_SURROGATE = re.compile("[\ud800-\udfff]")
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
"""Control characters (C0, DEL, C1), line and paragraph separators, the bidirectional
overrides and isolates (which reorder what a reader sees), and lone surrogates."""
CONTROL_BUT_LINES = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
"""What :data:`_CONTROL` matches but tab and newline: for views where lines are text (HTML)."""
_XML_ILLEGAL = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069"
    "\ud800-\udfff\ufffe\uffff]"
)
"""What XML 1.0 cannot hold (or discourages: DEL and C1), and the separators and
bidirectional controls of :data:`_CONTROL`, tab and newlines aside."""


def written_out(match: re.Match[str]) -> str:
    """A character as the escape that names it: ``\\x1b``, ``\\u202e``, ``\\ud800``."""
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


NOTE_ROOM = 64
"""Characters a cut's note takes at most (``[... N of M characters cut ...]``)."""


def cut(text: str, limit: int = TEXT_LIMIT) -> str:
    """``text``, or for a longer one its head and tail around ``[... N characters cut ...]``,
    at most ``limit`` characters in all (so that cutting again changes nothing)."""
    if len(text) <= limit:
        return text
    keep = max(limit - NOTE_ROOM, 2)
    head = int(keep * HEAD)
    tail = keep - head
    removed = len(text) - head - tail
    return f"{text[:head]} [... {removed:,} of {len(text):,} characters cut ...] {text[-tail:]}"


def kept(text: object, limit: int | None = TEXT_LIMIT) -> str:
    """A string as the kit records it: lone surrogates written out, cut to ``limit`` (``None``:
    not cut)."""
    shown = text if isinstance(text, str) else str(text)
    if _SURROGATE.search(shown):
        shown = _SURROGATE.sub(written_out, shown)
    return shown if limit is None else cut(shown, limit)


def kept_data(value: Any, limit: int = TEXT_LIMIT) -> Any:
    """JSON-shaped data with every string (keys too) :func:`kept`, shortened to about ``limit``
    characters of JSON: a record never carries a megabyte.

    Shortening keeps every value's type, so a record stays true to its schema: a string is
    :func:`cut`, a list keeps its first and last items with an :func:`elided` marker between
    them, an object keeps as many of its keys (sorted) as fit with an ``elided`` key counting
    the others, and each item kept is shortened in turn to its share of the room."""
    return _within(_clean(value, limit), limit)


ELIDED = "elided"
"""The key of the marker that stands for the items of a list (or the keys of an object) that a
record does not keep; its value is how many."""
_ITEM_ROOM = 80
"""Characters of JSON an item kept of a shortened list or object gets at least."""
_MARKER_ROOM = 40
"""Characters of JSON an elision marker and the separators around it take at most."""


def elided(count: int) -> dict[str, int]:
    """The marker standing for ``count`` items of a list a record does not keep."""
    return {ELIDED: count}


def _within(value: Any, budget: int) -> Any:
    """``value`` shortened to about ``budget`` characters of JSON, keeping its type."""
    if len(_json(value)) <= budget:
        return value
    if isinstance(value, str):
        return cut(value, max(budget - 2, NOTE_ROOM + 2))
    if isinstance(value, list):
        return _list_within(value, budget)
    if isinstance(value, dict):
        return _dict_within(value, budget)
    return value  # a number: the reader bounds its digits


def _list_within(items: list[Any], budget: int) -> list[Any]:
    room = max(budget - _MARKER_ROOM, _ITEM_ROOM)
    keep = min(len(items), room // _ITEM_ROOM)
    while True:
        # The head shows where a run went first, the tail where it ended: keep both.
        tail = keep // 2
        head = keep - tail
        share = room // keep if keep else 0
        kept_items = [_within(item, share) for item in items[:head]]
        removed = len(items) - keep
        if removed:
            kept_items.append(elided(removed))
        kept_items += [_within(item, share) for item in items[len(items) - tail :]]
        if keep == 0 or len(_json(kept_items)) <= budget:
            return kept_items
        keep //= 2


def _dict_within(mapping: dict[str, Any], budget: int) -> dict[str, Any]:
    room = max(budget - _MARKER_ROOM, _ITEM_ROOM)
    names = sorted(mapping)
    keep = min(len(names), room // _ITEM_ROOM)
    while True:
        share = room // keep if keep else 0
        # A key is cut to half its share: a key of thousands of characters must not crowd out
        # its value.
        shortened = {
            cut(name, max(share // 2, NOTE_ROOM + 2)): _within(mapping[name], share // 2)
            for name in names[:keep]
        }
        if keep < len(names):
            shortened[ELIDED] = len(names) - keep
        if keep == 0 or len(_json(shortened)) <= budget:
            return shortened
        keep //= 2


def without_surrogates(value: Any) -> Any:
    """JSON-shaped data with lone surrogates written out in every string (keys too)."""
    return _clean(value, None)


DEPTH_KEPT = 64
"""Nesting kept in a record's data; what is deeper is replaced by a note."""


def _clean(value: Any, limit: int | None, depth: int = 0) -> Any:
    if isinstance(value, str):
        return kept(value, limit)
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)  # no JSON number: kept as the text it is
    if value is None or isinstance(value, bool | int | float):
        return value
    if isinstance(value, dict | list | tuple) and depth >= DEPTH_KEPT:
        return f"[nested deeper than {DEPTH_KEPT}: not kept]"
    if isinstance(value, dict):
        return {kept(str(k), limit): _clean(v, limit, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v, limit, depth + 1) for v in value]
    return kept(_repr(value), limit)


def _repr(value: Any) -> str:
    try:
        return repr(value)
    except Exception as error:  # a runtime's object whose __repr__ fails: say so
        return f"<a {type(value).__name__} whose repr() raised {type(error).__name__}>"


def _json(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True, default=_repr)
    except (TypeError, ValueError, RecursionError):
        return _repr(value)


_WORKFLOW_COMMAND = re.compile(r"(^|\s)::")
"""Where a GitHub Actions workflow command (``::error file=...::``, ``::add-mask::``) would
start: a log line beginning with ``::``, leading spaces aside."""


def terminal(text: object, limit: int = TEXT_LIMIT) -> str:
    """Text for a terminal or a CI log: every control character written out (a runtime cannot
    clear the screen, retitle the window or start a line of its own), and the first colon of a
    ``::`` that could start a workflow command too (``\\x3a:error``), cut to ``limit``."""
    shown = _CONTROL.sub(written_out, cut(str(text), limit))
    return _WORKFLOW_COMMAND.sub(r"\1\\x3a:", shown) if "::" in shown else shown


_MD_ANYWHERE = re.compile(r"([\\`*_\[\]<>&|~$#])")
"""Markdown's inline syntax and HTML's: emphasis, code, links and images, tags and entities,
table cells, strikethrough, math, headings."""
_MD_LINE_START = re.compile(r"^(?:([-+=])|(\d+)([.)]))")
"""What starts a block when it begins a line: a list item, a setext underline, a numbered item
(``>`` and ``#`` are escaped wherever they are)."""


def terminal_lines(text: str) -> str:
    """A whole text view whose lines hold outside text (statements read from files, pack
    keys), each line shown as :func:`terminal` shows text; its own line breaks kept."""
    return "\n".join(terminal(line, limit=max(len(line), 1)) for line in text.split("\n"))


def text_lines(text: str) -> list[str]:
    """The lines of a text of several lines (an adapter's stderr in a failure message), split
    at every line break Python knows (``\\r\\n`` as one); ``[""]`` for an empty text. Each view
    shows them as lines, each escaped as that view escapes text."""
    return text.splitlines() or [""]


def markdown(text: object, limit: int = TEXT_LIMIT) -> str:
    """Text for Markdown (a CI step summary): one line, every character that Markdown or HTML
    gives a meaning to backslash-escaped, control characters and newlines written out, cut to
    ``limit``. It renders as the text it is, wherever it is put in a line."""
    shown = _CONTROL.sub(written_out, cut(str(text), limit))
    shown = _MD_ANYWHERE.sub(r"\\\1", shown)
    shown = _AUTOLINK.sub(r"\1\\\2", shown)
    if "::" in shown:  # printed to a CI log, a Markdown line is a log line too
        shown = _WORKFLOW_COMMAND.sub(r"\1\\::", shown)
    return _MD_LINE_START.sub(_line_start, shown)


_AUTOLINK = re.compile(r"([A-Za-z0-9])([:.@])(?=[/A-Za-z0-9])")
"""What GitHub's Markdown turns into a link without link syntax (``https://...``,
``www.example.com``, ``user@example.com``): the colon, dot or at sign after a letter or digit
is backslash-escaped, which renders as itself and breaks the autolink."""


def _line_start(match: re.Match[str]) -> str:
    sign, number, after = match.groups()
    return "\\" + sign if sign else f"{number}\\{after}"


def markdown_code(text: object, limit: int = TEXT_LIMIT) -> str:
    """Text as a Markdown code span: one line, control characters written out, fenced with more
    backticks than it holds in a row."""
    shown = _CONTROL.sub(written_out, cut(str(text), limit))
    longest = max((len(run) for run in re.findall("`+", shown)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if shown.startswith("`") or shown.endswith("`") or not shown.strip() else ""
    return f"{fence}{pad}{shown}{pad}{fence}"


def xml_text(text: object, limit: int = TEXT_LIMIT) -> str:
    """Text for an XML document: what XML 1.0 cannot hold written out (so the file stays
    well-formed), and the bidirectional overrides and line separators that would reorder or
    break what a CI page shows of it, cut to ``limit``; the XML writer escapes ``<``, ``&`` and
    quotes."""
    return _XML_ILLEGAL.sub(written_out, cut(str(text), limit))


def html_text(text: object, limit: int = TEXT_LIMIT) -> str:
    """Text for HTML (text and attribute values): control characters and lone surrogates
    written out (tab and newline kept: a ``<pre>`` shows them), ``<``, ``&`` and quotes escaped,
    cut to ``limit``."""
    return html.escape(CONTROL_BUT_LINES.sub(written_out, cut(str(text), limit)), quote=True)


__all__ = [
    "CONTROL_BUT_LINES",
    "ELIDED",
    "TEXT_LIMIT",
    "cut",
    "elided",
    "html_text",
    "kept",
    "kept_data",
    "markdown",
    "markdown_code",
    "terminal",
    "terminal_lines",
    "text_lines",
    "without_surrogates",
    "written_out",
    "xml_text",
]
