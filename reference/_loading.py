"""Reading packs (and any other JSON/YAML document) safely.

JSON goes through :mod:`json`, YAML through a PyYAML safe loader with YAML 1.2-style scalars
(only ``true``/``false`` are booleans, dates stay strings), duplicate-key detection and limits on
size, nesting depth and alias expansion. Every problem becomes one :class:`PackLoadError` that
says what, where and how to fix it.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import yaml

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


@dataclass(frozen=True, eq=False)
class Document:
    """A parsed document and enough of its source to say where a JSON pointer is."""

    data: Any
    source: str | None
    format: Format
    _yaml_root: yaml.Node | None = None

    def locate(self, pointer: str) -> Location:
        """Return the location (line and column where known) of the value at ``pointer``."""
        node = self._yaml_root
        try:
            for token in unescape_pointer(pointer):
                if isinstance(node, yaml.MappingNode):
                    node = next(v for k, v in node.value if k.value == token)
                elif isinstance(node, yaml.SequenceNode):
                    node = node.value[int(token)]
                else:
                    node = None
        except (StopIteration, ValueError, IndexError):
            node = None
        if node is None:
            return Location(self.source, pointer=pointer)
        mark = node.start_mark
        return Location(self.source, mark.line + 1, mark.column + 1, pointer)


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
        with open(path, "rb") as stream:
            data = stream.read(limits.max_bytes + 1)
    except OSError as error:
        raise PackLoadError(
            f"cannot read the file: {error.strerror or error}",
            Location(source),
            "check the path and its permissions",
        ) from None
    if format is None:
        format = "json" if source.lower().endswith(".json") else "yaml"
    return parse_document(data, format=format, source=source, limits=limits)


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
        data = _parse_json(text, source, limits)
        return Document(data, source, "json")
    data, root = _parse_yaml(text, source, limits)
    return Document(data, source, "yaml", root)


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


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON value")


def _parse_json(text: str, source: str | None, limits: Limits) -> Any:
    try:
        data = json.loads(
            text, object_pairs_hook=_pairs_without_duplicates, parse_constant=_reject_constant
        )
    except json.JSONDecodeError as error:
        raise PackLoadError(
            f"invalid JSON: {error.msg}",
            Location(source, error.lineno, error.colno),
            "fix the JSON syntax at that position",
        ) from None
    except ValueError as error:  # NaN, Infinity
        match = _NON_FINITE.search(text)
        line, column = _line_column(text, match.start()) if match else (None, None)
        raise PackLoadError(
            f"invalid JSON: {error}",
            Location(source, line, column),
            "use a finite number or a string",
        ) from None
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


def _loader_base() -> Any:
    """libyaml's parser when PyYAML has it (several times faster), PyYAML's own otherwise.

    Either way the events are composed by PyYAML's Python composer, which our loader extends
    to check depth and size as it goes; libyaml's own composer recurses in C without limit.
    """
    parser = getattr(yaml, "CParser", None)
    if parser is None:  # pragma: no cover - PyYAML built without libyaml
        return yaml.SafeLoader

    class Base(
        yaml.composer.Composer,
        parser,  # type: ignore[misc, valid-type]
        yaml.constructor.SafeConstructor,
        yaml.resolver.Resolver,
    ):
        def __init__(self, stream: str) -> None:
            parser.__init__(self, stream)  # type: ignore[misc]
            yaml.composer.Composer.__init__(self)
            yaml.constructor.SafeConstructor.__init__(self)
            yaml.resolver.Resolver.__init__(self)

    return Base


class _SafeLoader(_loader_base()):  # type: ignore[misc]
    """A safe loader for JSON-compatible YAML: YAML 1.2 core scalars, string keys, no
    duplicate keys, no tags outside the JSON data model, and limits on depth and size."""

    max_depth = DEFAULT_LIMITS.max_depth
    max_flow_depth = DEFAULT_LIMITS.max_flow_depth
    max_nodes = DEFAULT_LIMITS.max_nodes
    name = "<string>"
    _depth = 0
    _flow_depth = 0
    _nodes = 0

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
        return super().construct_mapping(node, deep)  # type: ignore[no-any-return]

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
        return PackLoadError(
            f"{node.value!r} is tagged as a number but is not {kind}",
            self._where(node.start_mark),
            "remove the tag or fix the value",
        )


# The YAML 1.2 core schema: what JSON means by true, null and numbers, and nothing else
# (no yes/no/on/off, no 0b or base-60 integers, no dates, no merge or value keys).
_SafeLoader.yaml_implicit_resolvers = {}
for _tag, _pattern, _first in (
    ("bool", r"true|True|TRUE|false|False|FALSE", "tTfF"),
    ("null", r"~|null|Null|NULL|", "~nN"),
    ("int", r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+", "-+0123456789"),
    (
        "float",
        r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)",
        "-+0123456789.",
    ),
):
    _SafeLoader.add_implicit_resolver(
        _TAG + _tag, re.compile(f"^(?:{_pattern})$"), list(_first) or [""]
    )
_SafeLoader.add_implicit_resolver(_TAG + "null", re.compile("^$"), [""])
for _tag, _constructor in (
    ("str", _SafeLoader.construct_yaml_str),
    ("int", _SafeLoader.construct_yaml_int),
    ("float", _SafeLoader.construct_yaml_float),
):
    _SafeLoader.add_constructor(_TAG + _tag, _constructor)


def _refuse_tag(loader: _SafeLoader, node: yaml.Node) -> Any:
    raise PackLoadError(
        f"the tag {node.tag.replace(_TAG, '!!')} has no JSON equivalent",
        loader._where(node.start_mark),
        "packs are JSON-compatible: use strings, numbers, booleans, null, lists and mappings",
    )


# Safe, but outside the JSON data model (bytes, sets, dates, ordered pairs, merge keys).
for _tag in ("binary", "set", "omap", "pairs", "timestamp", "merge", "value"):
    _SafeLoader.add_constructor(_TAG + _tag, _refuse_tag)


def _parse_yaml(text: str, source: str | None, limits: Limits) -> tuple[Any, yaml.Node | None]:
    loader = _SafeLoader(text)
    loader.name = source or "<string>"
    loader.max_depth = limits.max_depth
    loader.max_nodes = limits.max_nodes
    loader.max_flow_depth = limits.max_flow_depth
    try:
        root = loader.get_single_node()
        if root is not None:
            _check_expansion(root, source, limits)
        data = loader.construct_document(root) if root is not None else None
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        where = Location(source, mark.line + 1, mark.column + 1) if mark else Location(source)
        problem = error.problem or error.context or "invalid YAML"
        raise PackLoadError(
            f"invalid YAML: {problem}", where, "fix the YAML syntax at that position"
        ) from None
    except yaml.YAMLError as error:
        raise PackLoadError(f"invalid YAML: {error}", Location(source)) from None
    return data, root


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
