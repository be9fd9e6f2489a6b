"""Reading packs (and any other JSON/YAML document) safely.

JSON goes through :mod:`json`, YAML through a PyYAML safe loader with YAML 1.2-style scalars
(only ``true``/``false`` are booleans, dates stay strings), duplicate-key detection and limits on
size, nesting depth and alias expansion. Every problem becomes one :class:`PackLoadError` that
says what, where and how to fix it.
"""

from __future__ import annotations

import functools
import json
import math
import os
import re
import stat
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, cast

import yaml
from yaml.events import (
    AliasEvent,
    DocumentEndEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
)

from reference._errors import Location, PackLoadError
from reference._pointer import describe_json_type, escape_token, unescape_pointer

Format = Literal["json", "yaml"]


@dataclass(frozen=True)
class Limits:
    """Bounds that keep hostile documents from exhausting time or memory.

    Arguments:
        max_bytes: largest accepted document, in bytes.
        max_depth: deepest accepted nesting of mappings and sequences.
        max_flow_depth: deepest accepted nesting of YAML flow collections (``[...]``,
            ``{...}``); YAML parsers slow down with every open flow level.
        max_nodes: most values a document may hold, YAML aliases expanded. Parsing YAML
            costs about 20 microseconds per value, so this bounds the time too.
    """

    max_bytes: int = 10 * 1024 * 1024
    max_depth: int = 256
    max_flow_depth: int = 64
    max_nodes: int = 100_000


DEFAULT_LIMITS = Limits()


Finder = Callable[[list[str]], "tuple[int, int] | None"]
"""Given the reference tokens of a JSON pointer, the 1-based line and column of the value there
in the document's text, or ``None`` when no value is there."""


@dataclass(frozen=True, eq=False)
class Document:
    """A parsed document and enough of its source to say where a JSON pointer is.

    Attributes:
        data: the document as plain data (dicts, lists, strings, numbers, booleans, None).
        source: where it comes from (usually the file path), for messages.
        format: ``json`` or ``yaml``.
    """

    data: Any
    source: str | None
    format: Format
    _find: Finder | None = field(default=None, repr=False)

    def locate(self, pointer: str) -> Location:
        """Return the location (line and column where known) of the value at ``pointer``."""
        found = self._find(unescape_pointer(pointer)) if self._find is not None else None
        if found is None:
            return Location(self.source, pointer=pointer)
        return Location(self.source, found[0], found[1], pointer)


def read_document(
    path: str | Path, *, format: Format | None = None, limits: Limits = DEFAULT_LIMITS
) -> Document:
    """Read a JSON or YAML file.

    Arguments:
        path: the file; ``.json`` is read as JSON, anything else as YAML unless ``format`` says.
        format: force ``"json"`` or ``"yaml"``.
        limits: size, depth and expansion bounds.
    """
    source = str(path)
    try:
        data = _read_regular_file(path, limits.max_bytes + 1, source)
    except OSError as error:
        raise PackLoadError(
            f"cannot read the file: {error.strerror or error}",
            Location(source),
            "check the path and its permissions",
        ) from None
    if format is None:
        format = "json" if source.lower().endswith(".json") else "yaml"
    return parse_document(data, format=format, source=source, limits=limits)


_FILE_TYPES = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def _read_regular_file(path: str | Path, size: int, source: str) -> bytes:
    """Read at most ``size`` bytes of ``path``, refusing at once anything but a regular file.

    Opening does not block (``O_NONBLOCK``: a FIFO without a writer would wait forever), and
    the type is checked on the open descriptor, so the file cannot be swapped in between.
    """
    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(descriptor, "rb") as stream:
        mode = os.fstat(descriptor).st_mode
        if not stat.S_ISREG(mode):
            kind = next((name for test, name in _FILE_TYPES if test(mode)), "not a regular file")
            raise PackLoadError(
                f"cannot read the file: it is {kind}, not a regular file",
                Location(source),
                "give the path of a JSON or YAML file",
            )
        return stream.read(size)


def parse_document(
    text: str | bytes,
    *,
    format: Format | None = None,
    source: str | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> Document:
    """Parse JSON or YAML text.

    Arguments:
        text: the document, as text or UTF-8 bytes.
        format: ``"json"``, ``"yaml"``, or ``None`` to read text starting with ``{`` as JSON.
        source: a name for messages (usually the file path).
        limits: size, depth and expansion bounds.
    """
    if isinstance(text, bytes):
        if len(text) > limits.max_bytes:
            raise _too_large(source, limits)
        text = _decode(text, source)
    elif len(text) > limits.max_bytes:  # characters, a lower bound on the UTF-8 size
        raise _too_large(source, limits)
    if format is None:
        format = "json" if text.lstrip().startswith("{") else "yaml"
    if format == "json":
        return Document(_parse_json(text, source, limits), source, "json")
    data, parser = _parse_yaml(text, source, limits)
    return Document(data, source, "yaml", functools.partial(_find, text, parser))


def _too_large(source: str | None, limits: Limits) -> PackLoadError:
    return PackLoadError(
        f"the document is larger than {limits.max_bytes:,} bytes",
        Location(source),
        "packs and cases are small text files; split the document or raise the size limit",
    )


def _decode(data: bytes, source: str | None) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        start = error.start
        line = data.count(b"\n", 0, start) + 1
        line_start = data.rfind(b"\n", 0, start) + 1
        prefix = data[line_start:start].decode("utf-8", errors="replace")
        if line == 1:
            prefix = prefix.removeprefix("\ufeff")
        column = len(prefix) + 1
        raise PackLoadError(
            f"invalid UTF-8 (byte 0x{data[start]:02x})",
            Location(source, line, column),
            "save the file as UTF-8",
        ) from None


# -- JSON -------------------------------------------------------------------------------------


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


def _parse_json(text: str, source: str | None, limits: Limits) -> Any:
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
        at = _line_column(text, _number_offset(text, error.literal.__eq__))
        shown = error.literal if len(error.literal) <= 24 else error.literal[:20] + "..."
        raise PackLoadError(
            f"invalid JSON: the number {shown} overflows to infinity, which is no JSON value",
            Location(source, *at),
            "use a finite number or a string",
        ) from None
    except ValueError as error:
        match = _NON_FINITE.search(text)  # NaN, Infinity
        if match is not None:
            at = _line_column(text, match.start())
            message, hint = f"invalid JSON: {error}", "use a finite number or a string"
        else:  # an integer longer than Python converts (sys.get_int_max_str_digits())
            at = _line_column(text, _number_offset(text, _too_many_digits))
            message = "invalid JSON: an integer has more digits than can be read"
            hint = "write it as a string"
        raise PackLoadError(message, Location(source, *at), hint) from None
    except _DuplicateKey as error:
        line, column = _line_column(text, _duplicate_key_offset(text, error.key))
        raise PackLoadError(
            f"duplicate key {error.key!r}",
            Location(source, line, column),
            "each key may appear once per object; remove or rename one",
        ) from None
    except RecursionError:
        line, column = _line_column(text, _json_depth_offset(text, limits.max_depth))
        raise _too_deep(Location(source, line, column), limits) from None
    _check_json_shape(data, text, source, limits)
    return data


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


def _line_column(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_LONE_SURROGATE_ESCAPE = re.compile(
    r"\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
    r"|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}"
)


def _check_json_shape(data: Any, text: str, source: str | None, limits: Limits) -> None:
    """Check depth and size of parsed JSON, and that no string holds a lone surrogate."""
    strings = _SURROGATE_ESCAPE.search(text) is not None  # only escapes can make surrogates
    count = 1
    stack: list[tuple[Any, str, int]] = [(data, "", 0)]
    while stack:
        value, pointer, depth = stack.pop()
        if isinstance(value, str):
            if _SURROGATE.search(value):
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
            raise PackLoadError(
                f"the document holds more than {limits.max_nodes:,} values",
                Location(source, pointer=pointer),
                "no pack needs that many; split it, or raise Limits.max_nodes",
            )
        if depth >= limits.max_depth:
            raise _too_deep(Location(source, pointer=pointer), limits)
        for token, child in children:
            if strings and _SURROGATE.search(token):
                raise _lone_surrogate(text, source)
            if isinstance(child, dict | list) or (strings and isinstance(child, str)):
                stack.append((child, f"{pointer}/{escape_token(token)}", depth + 1))


def _lone_surrogate(text: str, source: str | None) -> PackLoadError:
    match = _LONE_SURROGATE_ESCAPE.search(text)
    line, column = _line_column(text, match.start()) if match else (None, None)
    return PackLoadError(
        "a string holds a lone surrogate escape (\\uD800-\\uDFFF), which is no character",
        Location(source, line, column),
        "escape characters beyond U+FFFF as a surrogate pair, or write them as is",
    )


def _too_deep(location: Location, limits: Limits) -> PackLoadError:
    return PackLoadError(
        f"the document nests deeper than {limits.max_depth} levels",
        location,
        "flatten the structure; no pack needs that depth",
    )


# -- YAML -------------------------------------------------------------------------------------

_SURROGATE = re.compile("[\ud800-\udfff]")
_TAG = "tag:yaml.org,2002:"


class PurePythonParser(yaml.reader.Reader, yaml.scanner.Scanner, yaml.parser.Parser):
    """PyYAML's own reader, scanner and parser: the events libyaml gives, several times slower."""

    def __init__(self, stream: str) -> None:
        yaml.reader.Reader.__init__(self, stream)
        yaml.scanner.Scanner.__init__(self)
        yaml.parser.Parser.__init__(self)


def _libyaml_parser() -> type | None:
    # Not `getattr(yaml, "CParser")`: the top of the package does not export it.
    try:
        from yaml._yaml import CParser  # noqa: PLC0415
    except ImportError:  # PyYAML built without libyaml
        return None
    return CParser


PARSER: type = _libyaml_parser() or PurePythonParser
"""The YAML parser every load uses: libyaml's when PyYAML was built with it, else PyYAML's own.

Either gives events (``parser.get_event()``); composing them into data, with every limit and
check, is ours (libyaml's composer recurses in C without limit)."""


class _Fallback(Exception):
    """The fast reader met something it leaves to the composing loader (see :func:`_parse_yaml`)."""


def _parse_yaml(text: str, source: str | None, limits: Limits, parser: type | None = None) -> Any:
    """Read one YAML document into plain data.

    The common document (no tags, anchors or aliases; string keys; finite numbers; within the
    limits) is built straight from the parser's events in one loop: that is most of the cost of
    reading a pack. Anything else (an error included) is read again by the composing loader,
    which builds PyYAML nodes first, refuses with a precise message and location, and accepts
    the rest (anchors and aliases, core-schema tags) with exactly the same result.

    Arguments:
        text: the document.
        source: a name for messages.
        limits: size, depth and expansion bounds.
        parser: the parser class (default :data:`PARSER`).
    """
    parser = parser or PARSER
    try:
        try:
            return _build(parser(text), limits), parser
        except _Fallback:
            return _compose_and_construct(text, source, limits, parser), parser
    except yaml.reader.ReaderError:
        raise _unacceptable_character(text, source) from None
    except yaml.MarkedYAMLError as error:
        if parser is not PurePythonParser and _SURROGATE_ESCAPE.search(text):
            # libyaml refuses surrogate escapes, even a pair ("\ud83d\ude00"), which JSON
            # reads as one character; PyYAML's own parser reads them, and so do we.
            return _parse_yaml(text, source, limits, PurePythonParser)
        mark = error.problem_mark or error.context_mark
        where = Location(source, mark.line + 1, mark.column + 1) if mark else Location(source)
        problem = error.problem or error.context or "invalid YAML"
        raise PackLoadError(
            f"invalid YAML: {problem}", where, "fix the YAML syntax at that position"
        ) from None
    except yaml.YAMLError as error:
        raise PackLoadError(f"invalid YAML: {error}", Location(source)) from None


# The YAML 1.2 core schema: what JSON means by true, null and numbers, and nothing else
# (no yes/no/on/off, no 0b or base-60 integers, no dates, no merge or value keys).
_CONSTANTS: dict[str, Any] = {
    **dict.fromkeys(("true", "True", "TRUE"), True),
    **dict.fromkeys(("false", "False", "FALSE"), False),
    **dict.fromkeys(("~", "null", "Null", "NULL", ""), None),
}
_INT = r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+"
_FLOAT = (
    r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)"
)
_INT_PATTERN = re.compile(_INT)
_FLOAT_PATTERN = re.compile(_FLOAT)
_NUMBER_START = frozenset("-+0123456789.")


def _plain(value: str) -> Any:
    """The value of an untagged plain scalar (``_Fallback`` for one that is no JSON value)."""
    if value in _CONSTANTS:
        return _CONSTANTS[value]
    if value[0] not in _NUMBER_START:
        return value
    try:
        if _INT_PATTERN.fullmatch(value):
            if value.startswith(("0o", "0x")):
                return int(value[2:], 8 if value[1] == "o" else 16)
            return int(value)
        if _FLOAT_PATTERN.fullmatch(value):
            number = float(value)
            if math.isfinite(number):
                return number
            raise _Fallback
    except ValueError:  # more digits than int() converts
        raise _Fallback from None
    return value


def _build(parser: Any, limits: Limits) -> Any:
    """Build the document's data from the parser's events, or raise ``_Fallback``.

    One loop over the events with an explicit stack: no recursion, no nodes, and every limit
    counted as it goes. It falls back for tags, anchors and aliases, non-string or repeated
    keys, surrogate escapes, numbers that are no JSON value, more than one document, and any
    limit passed, so that the composing loader says what is wrong, and where.
    """
    get = parser.get_event
    get()  # StreamStartEvent
    event = get()
    if event.__class__ is StreamEndEvent:
        return None
    max_depth, max_flow_depth, max_nodes = limits.max_depth, limits.max_flow_depth, limits.max_nodes
    nodes = flow_depth = 0
    root: Any = None
    stack: list[tuple[Any, bool]] = []  # the enclosing collections, and whether each is flow
    current: Any = None  # the collection being filled: a dict or a list
    is_mapping = False
    key: str | None = None  # in a mapping, the key waiting for its value
    while True:
        event = get()
        kind = event.__class__
        if kind is ScalarEvent:
            nodes += 1
            if event.anchor is not None or event.tag is not None or nodes > max_nodes:
                raise _Fallback
            value: Any = event.value
            if event.implicit[0]:
                value = _plain(value)
            elif event.style == '"' and _SURROGATE.search(value):
                raise _Fallback  # only escapes make surrogates; pairs and lone ones alike
            if is_mapping:
                if key is None:
                    if value.__class__ is not str or value in current:
                        raise _Fallback
                    key = value
                else:
                    current[key] = value
                    key = None
            elif current is not None:
                current.append(value)
            else:
                root = value
        elif kind is MappingStartEvent or kind is SequenceStartEvent:
            nodes += 1
            flow = bool(event.flow_style)
            flow_depth += flow
            if (
                event.anchor is not None
                or event.tag is not None
                or nodes > max_nodes
                or len(stack) >= max_depth
                or flow_depth > max_flow_depth
                or (is_mapping and key is None)  # a collection as a key
            ):
                raise _Fallback
            collection: Any = {} if kind is MappingStartEvent else []
            if is_mapping:
                current[key] = collection
            elif current is not None:
                current.append(collection)
            else:
                root = collection
            stack.append((current, flow))
            current = collection
            is_mapping = kind is MappingStartEvent
            key = None
        elif kind is MappingEndEvent or kind is SequenceEndEvent:
            current, flow = stack.pop()
            flow_depth -= flow
            is_mapping = current.__class__ is dict
            key = None
        elif kind is DocumentEndEvent:
            if get().__class__ is not StreamEndEvent:
                raise _Fallback  # a second document
            return root
        else:  # AliasEvent
            raise _Fallback


def _unacceptable_character(text: str, source: str | None) -> PackLoadError:
    """The error for a character YAML does not allow in a stream (a NUL, most controls)."""
    match = _NON_PRINTABLE.search(text)
    if match is None:  # pragma: no cover - the parser found one
        return PackLoadError("invalid YAML: a character YAML does not allow", Location(source))
    line, column = _line_column(text, match.start())
    return PackLoadError(
        f"invalid YAML: the character U+{ord(match.group()):04X} is not allowed in YAML text",
        Location(source, line, column),
        'remove it, or write it as an escape inside a double-quoted string (e.g. "\\u0000")',
    )


# What YAML 1.2 allows in a stream (its c-printable production), as PyYAML's reader checks it.
_NON_PRINTABLE = re.compile(
    "[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"
)


# -- YAML: the composing loader ---------------------------------------------------------------


class _Checks(yaml.composer.Composer, yaml.constructor.SafeConstructor, yaml.resolver.Resolver):
    """PyYAML's composer and safe constructor for JSON-compatible YAML, over any parser.

    YAML 1.2 core scalars, string keys, no duplicate keys, no tags outside the JSON data model,
    and limits on depth, flow depth and size, each refused with its location. Used when the
    fast reader falls back, and to find where a pointer is when a path holds an alias.
    """

    PARSER: type = PurePythonParser
    max_depth = DEFAULT_LIMITS.max_depth
    max_flow_depth = DEFAULT_LIMITS.max_flow_depth
    max_nodes = DEFAULT_LIMITS.max_nodes
    name = "<string>"
    _depth = 0
    _flow_depth = 0
    _nodes = 0

    peek_event: Callable[[], Any]  # the parser's, which comes after this class

    def __init__(self, stream: str) -> None:
        self.PARSER.__init__(self, stream)  # type: ignore[misc]
        yaml.composer.Composer.__init__(self)
        yaml.constructor.SafeConstructor.__init__(self)
        yaml.resolver.Resolver.__init__(self)

    def _where(self, mark: Any) -> Location:
        return Location(self.name, mark.line + 1, mark.column + 1)

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        event = self.peek_event()
        if not isinstance(event, yaml.AliasEvent):
            self._nodes += 1
            if self._nodes > self.max_nodes:
                raise PackLoadError(
                    f"the document holds more than {self.max_nodes:,} values",
                    self._where(event.start_mark),
                    "no pack needs that many; split it, or raise Limits.max_nodes",
                )
        # Depth counts mappings and sequences, as for JSON; scalars add no level.
        nested = isinstance(event, yaml.MappingStartEvent | yaml.SequenceStartEvent)
        flow = nested and bool(event.flow_style)
        if nested:
            self._depth += 1
            self._flow_depth += flow
            if self._depth > self.max_depth:
                raise PackLoadError(
                    f"the document nests deeper than {self.max_depth} levels",
                    self._where(event.start_mark),
                    "flatten the structure; no pack needs that depth",
                )
            if self._flow_depth > self.max_flow_depth:
                raise PackLoadError(
                    f"flow collections ([...] and {{...}}) nest deeper than "
                    f"{self.max_flow_depth} levels",
                    self._where(event.start_mark),
                    "write deep structures in block style (indented), or as JSON",
                )
        try:
            node: yaml.Node | None = super().compose_node(parent, index)
            return node
        finally:
            if nested:
                self._depth -= 1
                self._flow_depth -= flow

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[str, Any] = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            mark = key_node.start_mark
            if not isinstance(key, str):
                raise PackLoadError(
                    f"mapping key {key!r} is {describe_json_type(key)}, not a string",
                    self._where(mark),
                    "JSON-compatible documents only have string keys; quote the key",
                )
            if key in seen:
                raise PackLoadError(
                    f"duplicate key {key!r} (first at line {seen[key].line + 1})",
                    self._where(mark),
                    "each key may appear once per mapping; remove or rename one",
                )
            seen[key] = mark
        return super().construct_mapping(node, deep)

    def construct_yaml_str(self, node: yaml.ScalarNode) -> str:
        value: str = super().construct_yaml_str(node)
        if _SURROGATE.search(value):
            # "\ud83d\ude00" escapes a pair; JSON reads it as one character, and so do we.
            try:
                value = value.encode("utf-16", "surrogatepass").decode("utf-16")
            except UnicodeDecodeError:
                raise PackLoadError(
                    "a string holds a lone surrogate escape (\\uD800-\\uDFFF)",
                    self._where(node.start_mark),
                    "escape characters beyond U+FFFF as a surrogate pair, or write them as is",
                ) from None
        return value

    def construct_yaml_int(self, node: yaml.ScalarNode) -> int:
        text = str(self.construct_scalar(node))
        sign = -1 if text.startswith("-") else 1
        digits = text.lstrip("+-")
        try:
            if digits.startswith(("0o", "0x")):
                return sign * int(digits[2:], 8 if digits[1] == "o" else 16)
            return sign * int(digits, 10)
        except ValueError:
            raise self._not_a_number(node, "an integer") from None

    def construct_yaml_float(self, node: yaml.ScalarNode) -> float:
        text = str(self.construct_scalar(node))
        if text.lstrip("+-").lower() in (".inf", ".nan"):
            raise PackLoadError(
                f"{text!r} is not a finite number",
                self._where(node.start_mark),
                "JSON has no infinities or NaN; use a finite number or a string",
            )
        try:
            value = float(text)
        except ValueError:
            raise self._not_a_number(node, "a number") from None
        if not math.isfinite(value):
            raise self._not_a_number(node, "a finite number")
        return value

    def _not_a_number(self, node: yaml.ScalarNode, kind: str) -> PackLoadError:
        value = node.value if len(node.value) <= 24 else node.value[:20] + "..."
        return PackLoadError(
            f"{value!r} is read as a number (by its form or its tag) but is not {kind}",
            self._where(node.start_mark),
            "write a number JSON can hold, or make it a string: quote it, without a tag",
        )


# The same core schema for the composing loader's resolver.
_Checks.yaml_implicit_resolvers = {}
for _tag, _pattern, _first in (
    ("bool", r"true|True|TRUE|false|False|FALSE", "tTfF"),
    ("null", r"~|null|Null|NULL|", "~nN"),
    ("int", _INT, "-+0123456789"),
    ("float", _FLOAT, "-+0123456789."),
):
    _Checks.add_implicit_resolver(
        _TAG + _tag, re.compile(f"^(?:{_pattern})$"), list(_first) or [""]
    )
_Checks.add_implicit_resolver(_TAG + "null", re.compile("^$"), [""])
for _tag, _constructor in (
    ("str", _Checks.construct_yaml_str),
    ("int", _Checks.construct_yaml_int),
    ("float", _Checks.construct_yaml_float),
):
    _Checks.add_constructor(_TAG + _tag, cast(Any, _constructor))


def _refuse_tag(loader: _Checks, node: yaml.Node) -> Any:
    raise PackLoadError(
        f"the tag {node.tag.replace(_TAG, '!!')} has no JSON equivalent",
        loader._where(node.start_mark),
        "packs are JSON-compatible: use strings, numbers, booleans, null, lists and mappings",
    )


# Safe, but outside the JSON data model (bytes, sets, dates, ordered pairs, merge keys).
for _tag in ("binary", "set", "omap", "pairs", "timestamp", "merge", "value"):
    _Checks.add_constructor(_TAG + _tag, cast(Any, _refuse_tag))


@functools.cache
def _composing_loader(parser: type) -> type[_Checks]:
    """The composing loader over ``parser`` (made once per parser class)."""
    return type(f"ComposingLoader[{parser.__name__}]", (_Checks, parser), {"PARSER": parser})


def _compose(text: str, source: str | None, limits: Limits, parser: type) -> Any:
    loader = _composing_loader(parser)(text)
    loader.name = source or "<string>"
    loader.max_depth = limits.max_depth
    loader.max_nodes = limits.max_nodes
    loader.max_flow_depth = limits.max_flow_depth
    return loader


def _compose_and_construct(text: str, source: str | None, limits: Limits, parser: type) -> Any:
    loader = _compose(text, source, limits, parser)
    root = loader.get_single_node()
    if root is None:
        return None
    _check_expansion(root, source, limits)
    return loader.construct_document(root)


def _find(text: str, parser: type, tokens: list[str]) -> tuple[int, int] | None:
    """Where the value at ``tokens`` starts in ``text`` (1-based line and column), if anywhere.

    Reads the parser's events only up to that value, skipping the subtrees beside the path, so
    nothing is kept between calls; a path through an alias is found on composed nodes.
    """
    try:
        events = parser(text)
        get = events.get_event
        get()  # StreamStartEvent
        if get().__class__ is not DocumentStartEvent:
            return None
        event = get()
        for token in tokens:
            if event.__class__ is MappingStartEvent:
                while True:
                    key = get()
                    if key.__class__ is MappingEndEvent:
                        return None
                    if key.__class__ is ScalarEvent and key.value == token:
                        event = get()
                        break
                    _skip(get, key)
                    _skip(get, get())
            elif event.__class__ is SequenceStartEvent and token.isdecimal():
                for _ in range(int(token)):
                    item = get()
                    if item.__class__ is SequenceEndEvent:
                        return None
                    _skip(get, item)
                event = get()
                if event.__class__ is SequenceEndEvent:
                    return None
            elif event.__class__ is AliasEvent:
                return _find_in_nodes(text, parser, tokens)
            else:
                return None
        if event.__class__ is AliasEvent:
            return _find_in_nodes(text, parser, tokens)
    except yaml.YAMLError:  # pragma: no cover - the text was read without error before
        return None
    mark = event.start_mark
    return mark.line + 1, mark.column + 1


def _skip(get: Callable[[], Any], event: Any) -> None:
    """Read past the node that starts with ``event``."""
    depth = int(event.__class__ in (MappingStartEvent, SequenceStartEvent))
    while depth:
        kind = get().__class__
        if kind is MappingStartEvent or kind is SequenceStartEvent:
            depth += 1
        elif kind is MappingEndEvent or kind is SequenceEndEvent:
            depth -= 1


def _find_in_nodes(text: str, parser: type, tokens: list[str]) -> tuple[int, int] | None:
    """:func:`_find` on composed nodes, where an alias is the node it names."""
    node = _compose(text, None, DEFAULT_LIMITS, parser).get_single_node()
    for token in tokens:
        if isinstance(node, yaml.MappingNode):
            node = next((v for k, v in node.value if k.value == token), None)
        elif (
            isinstance(node, yaml.SequenceNode)
            and token.isdecimal()
            and int(token) < len(node.value)
        ):
            node = node.value[int(token)]
        else:
            return None
    if node is None:
        return None
    mark = node.start_mark
    return mark.line + 1, mark.column + 1


def _check_expansion(root: yaml.Node, source: str | None, limits: Limits) -> None:
    """Refuse recursive aliases and documents that aliases blow up past the limits.

    Sizes and depths are memoised per node, so the check is linear in the document's text
    even when aliases make the data it describes exponentially large.
    """
    size: dict[int, int] = {}
    height: dict[int, int] = {}
    on_path: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        if isinstance(node, yaml.ScalarNode):
            size[key], height[key] = 1, 0
            continue
        children = (
            [n for pair in node.value for n in pair]
            if isinstance(node, yaml.MappingNode)
            else list(node.value)
        )
        if children_done:
            on_path.discard(key)
            size[key] = 1 + sum(size[id(c)] for c in children)
            height[key] = 1 + max((height[id(c)] for c in children), default=0)
            mark = node.start_mark
            where = Location(source, mark.line + 1, mark.column + 1)
            if size[key] > limits.max_nodes:
                raise PackLoadError(
                    f"aliases expand the document past {limits.max_nodes:,} values",
                    where,
                    "this looks like an alias bomb; write the values out or use fewer aliases",
                )
            if height[key] > limits.max_depth:
                raise _too_deep(where, limits)
            continue
        if key in size:
            continue
        if key in on_path:
            mark = node.start_mark
            raise PackLoadError(
                "an alias refers to a node that contains it (a recursive structure)",
                Location(source, mark.line + 1, mark.column + 1),
                "JSON-compatible documents are trees; remove the recursive alias",
            )
        on_path.add(key)
        stack.append((node, True))
        stack.extend((c, False) for c in children if id(c) not in size)
