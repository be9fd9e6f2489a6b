"""Reading JSON: :mod:`json` with duplicate keys, non-finite numbers and lone surrogates
refused, and the limits on depth and size checked after parsing, each with its position; and
where each value starts, for ``Document.locate`` (:class:`JsonLocator`)."""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Callable, Iterator
from typing import Any

from reference._errors import Location, PackLoadError
from reference._json import escape_token
from reference._loading.document import (
    SURROGATE,
    SURROGATE_ESCAPE,
    Document,
    Limits,
    line_column,
    too_deep,
    too_many_values,
)


class _DuplicateKey(Exception):
    def __init__(self, key: str) -> None:
        self.key = key
        self.object_start: int | None = None


def _pairs_without_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return result


_NON_FINITE = re.compile(r'(?<![\w"])-?(?:NaN|Infinity)(?![\w"])')


class _NotANumber(Exception):
    """A JSON number Python cannot hold as it is: one that overflows to infinity."""

    def __init__(self, literal: str) -> None:
        self.literal = literal


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON value")


def _finite_float(literal: str) -> float:
    value = float(literal)
    if math.isinf(value):  # 1e999: no NaN comes from a literal, and JSON has no infinity
        raise _NotANumber(literal)
    return value


def parse_json(text: str, source: str | None, limits: Limits) -> Document:
    """Parse JSON text into a :class:`Document` that can say where its values are.

    Arguments:
        text: the document.
        source: a name for messages.
        limits: size, depth and value-count bounds.
    """
    try:
        data = json.loads(
            text,
            object_pairs_hook=_pairs_without_duplicates,
            parse_constant=_reject_constant,
            parse_float=_finite_float,
        )
    except json.JSONDecodeError as error:
        raise PackLoadError(
            f"invalid JSON: {error.msg}",
            Location(source, error.lineno, error.colno),
            "fix the JSON syntax at that position",
        ) from None
    except _NotANumber as error:
        at = line_column(text, _number_offset(text, error.literal.__eq__))
        shown = error.literal if len(error.literal) <= 24 else error.literal[:20] + "..."
        raise PackLoadError(
            f"invalid JSON: the number {shown} overflows to infinity, which is no JSON value",
            Location(source, *at),
            "use a finite number or a string",
        ) from None
    except ValueError as error:
        match = _NON_FINITE.search(text)  # NaN, Infinity
        if match is not None:
            at = line_column(text, match.start())
            message, hint = f"invalid JSON: {error}", "use a finite number or a string"
        else:  # an integer longer than Python converts (sys.get_int_max_str_digits())
            at = line_column(text, _number_offset(text, _too_many_digits))
            message = "invalid JSON: an integer has more digits than can be read"
            hint = "write it as a string"
        raise PackLoadError(message, Location(source, *at), hint) from None
    except _DuplicateKey as error:
        line, column = line_column(text, _duplicate_key_offset(text, error.key))
        raise PackLoadError(
            f"duplicate key {error.key!r}",
            Location(source, line, column),
            "each key may appear once per object; remove or rename one",
        ) from None
    except RecursionError:
        line, column = line_column(text, _json_depth_offset(text, limits.max_depth))
        raise too_deep(Location(source, line, column), limits) from None
    _check_json_shape(data, text, source, limits)
    return Document(data, source, "json", JsonLocator(text))


def _duplicate_key_offset(text: str, key: str) -> int:
    """Find where the duplicate ``key`` starts, re-parsing with the pure-Python scanner.

    The C scanner gives no positions, so only this rare error path pays for a second parse
    that records where each object starts.
    """
    decoder = json.JSONDecoder(object_pairs_hook=_pairs_without_duplicates)

    def parse_object(s_and_end: tuple[str, int], *args: Any, **kwargs: Any) -> Any:
        try:
            return json.decoder.JSONObject(s_and_end, *args, **kwargs)  # type: ignore[attr-defined]
        except _DuplicateKey as error:
            if error.object_start is None:
                error.object_start = s_and_end[1] - 1
            raise

    decoder.parse_object = parse_object  # type: ignore[attr-defined]
    decoder.scan_once = json.scanner.py_make_scanner(decoder)  # type: ignore[attr-defined]
    try:
        decoder.decode(text)
    except _DuplicateKey as error:
        if error.object_start is not None:
            return _second_key_offset(text, error.object_start, key)
    return 0


_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]]', re.DOTALL)
_COLON = re.compile(r"\s*:")


def _second_key_offset(text: str, start: int, key: str) -> int:
    """Offset of the second occurrence of ``key`` as a key of the object starting at ``start``."""
    depth = 0
    seen = 0
    for match in _JSON_TOKEN.finditer(text, start):
        token = match.group()
        if token in "{[":
            depth += 1
        elif token in "}]":
            depth -= 1
            if depth == 0:
                break
        elif depth == 1 and _COLON.match(text, match.end()) and json.loads(token) == key:
            seen += 1
            if seen == 2:
                return match.start()
    return start


_JSON_NUMBER = re.compile(r'"(?:[^"\\]|\\.)*"|-?[0-9][0-9.eE+-]*', re.DOTALL)


def _number_offset(text: str, wanted: Callable[[str], bool]) -> int:
    """Offset of the first number outside the strings of JSON ``text`` that is ``wanted``."""
    for match in _JSON_NUMBER.finditer(text):
        if match.group()[0] != '"' and wanted(match.group()):
            return match.start()
    return 0


def _too_many_digits(literal: str) -> bool:
    limit = sys.get_int_max_str_digits()
    return bool(limit) and literal.lstrip("-").isdecimal() and len(literal.lstrip("-")) > limit


def _json_depth_offset(text: str, max_depth: int) -> int:
    depth = 0
    for match in _JSON_TOKEN.finditer(text):
        token = match.group()
        if token in "{[":
            depth += 1
            if depth > max_depth:
                return match.start()
        elif token in "}]":
            depth -= 1
    return 0


_LONE_SURROGATE_ESCAPE = re.compile(
    r"\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
    r"|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}"
)


def _check_json_shape(data: Any, text: str, source: str | None, limits: Limits) -> None:
    """Check depth and size of parsed JSON, and that no string holds a lone surrogate."""
    strings = SURROGATE_ESCAPE.search(text) is not None  # only escapes can make surrogates
    count = 1
    stack: list[tuple[Any, str, int]] = [(data, "", 0)]
    while stack:
        value, pointer, depth = stack.pop()
        if isinstance(value, str):
            if SURROGATE.search(value):
                raise _lone_surrogate(text, source)
            continue
        if isinstance(value, dict):
            children: Iterator[tuple[str, Any]] = iter(value.items())
        elif isinstance(value, list):
            children = ((str(i), v) for i, v in enumerate(value))
        else:
            continue
        count += len(value)
        if count > limits.max_nodes:
            raise too_many_values(Location(source, pointer=pointer), limits)
        if depth >= limits.max_depth:
            raise too_deep(Location(source, pointer=pointer), limits)
        for token, child in children:
            if strings and SURROGATE.search(token):
                raise _lone_surrogate(text, source)
            if isinstance(child, dict | list) or (strings and isinstance(child, str)):
                stack.append((child, f"{pointer}/{escape_token(token)}", depth + 1))


def _lone_surrogate(text: str, source: str | None) -> PackLoadError:
    match = _LONE_SURROGATE_ESCAPE.search(text)
    line, column = line_column(text, match.start()) if match else (None, None)
    return PackLoadError(
        "a string holds a lone surrogate escape (\\uD800-\\uDFFF), which is no character",
        Location(source, line, column),
        "escape characters beyond U+FFFF as a surrogate pair, or write them as is",
    )


_SCAN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]:,]|[^\s{}\[\]:,"]+', re.DOTALL)
"""The tokens of JSON text: a string, a punctuation mark, or a literal (number, true, ...)."""

_Node = tuple[int, "dict[str, _Node] | list[_Node] | None"]
"""Where a value starts (an offset in the text) and, for an object or an array, its members."""


class JsonLocator:
    """Where the value at a JSON pointer starts in JSON text (1-based line and column).

    :mod:`json` keeps no positions, so the text is scanned again, once, on the first question
    (never for a document nobody asks about): one pass records where every value starts, in a
    tree shaped like the data, and every question after that is a walk down it. The text has
    been parsed by :mod:`json` already, so the scan trusts its syntax.
    """

    def __init__(self, text: str) -> None:
        self._text = text
        self._root: _Node | None = None

    def __call__(self, tokens: list[str]) -> tuple[int, int] | None:
        if self._root is None:
            self._root = _index(self._text)
        node = self._root
        for token in tokens:
            members = node[1]
            if isinstance(members, dict):
                found = members.get(token)
            elif isinstance(members, list) and token.isdecimal() and int(token) < len(members):
                found = members[int(token)]
            else:
                return None
            if found is None:
                return None
            node = found
        return line_column(self._text, node[0])


def _index(text: str) -> _Node:
    """Every value's start in ``text``, as a tree of :data:`_Node` (one pass, no recursion)."""
    root: _Node | None = None
    stack: list[_Node] = []  # the open objects and arrays
    key: str | None = None  # in an object, the key whose value comes next
    for match in _SCAN.finditer(text):
        token = match.group()
        first = token[0]
        if first in ",:":
            continue
        if first in "}]":
            stack.pop()
            continue
        parent = stack[-1][1] if stack else None
        if isinstance(parent, dict) and key is None:  # a key: strings only, here
            key = json.loads(token) if "\\" in token else token[1:-1]
            continue
        node: _Node = (match.start(), {} if first == "{" else [] if first == "[" else None)
        if isinstance(parent, dict):
            assert key is not None
            parent[key] = node
            key = None
        elif isinstance(parent, list):
            parent.append(node)
        else:
            root = node
        if node[1] is not None:
            stack.append(node)
    assert root is not None  # the text was parsed: it holds a value
    return root
