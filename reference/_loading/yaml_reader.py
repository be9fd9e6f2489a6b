"""Reading YAML: libyaml's parser (PyYAML's own without it), its events straight into data.

Most of the cost of reading a pack is turning parser events into data. :func:`build` does it
in one loop for the common document; anything else goes to the composing loader of
``yaml_composer``, which keeps every check and says where a problem is. :func:`find` answers
``Document.locate`` by reading events again, only up to the value asked for.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable
from typing import Any

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
from reference._loading.document import (
    SURROGATE,
    SURROGATE_ESCAPE,
    Document,
    Limits,
    line_column,
)
from reference._loading.yaml_composer import (
    BOOLEANS,
    FLOAT,
    INT,
    NULLS,
    compose_and_construct,
    find_in_nodes,
)


class PurePythonParser(yaml.reader.Reader, yaml.scanner.Scanner, yaml.parser.Parser):
    """PyYAML's own reader, scanner and parser: the events libyaml gives, several times slower."""

    def __init__(self, stream: str) -> None:
        yaml.reader.Reader.__init__(self, stream)
        yaml.scanner.Scanner.__init__(self)
        yaml.parser.Parser.__init__(self)


def libyaml_parser() -> type | None:
    """libyaml's parser class, or ``None`` when PyYAML was built without libyaml."""
    # Not `getattr(yaml, "CParser")`: the top of the package does not export it.
    try:
        from yaml._yaml import CParser  # noqa: PLC0415
    except ImportError:  # PyYAML built without libyaml
        return None
    return CParser


PARSER: type = libyaml_parser() or PurePythonParser
"""The YAML parser every load uses: libyaml's when PyYAML was built with it, else PyYAML's own.

Either gives events (``parser.get_event()``); composing them into data, with every limit and
check, is ours (libyaml's composer recurses in C without limit)."""


class Fallback(Exception):
    """The fast reader met something it leaves to the composing loader (see :func:`parse_yaml`)."""


def parse_yaml(
    text: str, source: str | None, limits: Limits, parser: type | None = None
) -> Document:
    """Read one YAML document into a :class:`Document` that can say where its values are.

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
            data = build(parser(text), limits)
        except Fallback:
            data = compose_and_construct(text, source, limits, parser)
    except yaml.reader.ReaderError:
        raise _unacceptable_character(text, source) from None
    except yaml.MarkedYAMLError as error:
        if parser is not PurePythonParser and SURROGATE_ESCAPE.search(text):
            # libyaml refuses surrogate escapes, even a pair ("\ud83d\ude00"), which JSON
            # reads as one character; PyYAML's own parser reads them, and so do we.
            return parse_yaml(text, source, limits, PurePythonParser)
        mark = error.problem_mark or error.context_mark
        where = Location(source, mark.line + 1, mark.column + 1) if mark else Location(source)
        problem = error.problem or error.context or "invalid YAML"
        raise PackLoadError(
            f"invalid YAML: {problem}", where, "fix the YAML syntax at that position"
        ) from None
    except yaml.YAMLError as error:
        raise PackLoadError(f"invalid YAML: {error}", Location(source)) from None
    return Document(data, source, "yaml", functools.partial(find, text, parser))


_CONSTANTS: dict[str, Any] = {**BOOLEANS, **dict.fromkeys(NULLS)}
_INT_PATTERN = re.compile(INT)
_FLOAT_PATTERN = re.compile(FLOAT)
_NUMBER_START = frozenset("-+0123456789.")


def _plain(value: str) -> Any:
    """The value of an untagged plain scalar (``Fallback`` for one that is no JSON value)."""
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
            raise Fallback
    except ValueError:  # more digits than int() converts
        raise Fallback from None
    return value


def build(parser: Any, limits: Limits) -> Any:
    """Build the document's data from the parser's events, or raise ``Fallback``.

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
            # Values are counted as JSON counts them: a mapping's keys are no values.
            nodes += not (is_mapping and key is None)
            if event.anchor is not None or event.tag is not None or nodes > max_nodes:
                raise Fallback
            value: Any = event.value
            if event.implicit[0]:
                value = _plain(value)
            elif event.style == '"' and SURROGATE.search(value):
                raise Fallback  # only escapes make surrogates; pairs and lone ones alike
            if is_mapping:
                if key is None:
                    if value.__class__ is not str or value in current:
                        raise Fallback
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
                raise Fallback
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
                raise Fallback  # a second document
            return root
        else:  # AliasEvent
            raise Fallback


def _unacceptable_character(text: str, source: str | None) -> PackLoadError:
    """The error for a character YAML does not allow in a stream (a NUL, most controls)."""
    match = _NON_PRINTABLE.search(text)
    if match is None:  # pragma: no cover - the parser found one
        return PackLoadError("invalid YAML: a character YAML does not allow", Location(source))
    line, column = line_column(text, match.start())
    return PackLoadError(
        f"invalid YAML: the character U+{ord(match.group()):04X} is not allowed in YAML text",
        Location(source, line, column),
        'remove it, or write it as an escape inside a double-quoted string (e.g. "\\u0000")',
    )


# What YAML 1.2 allows in a stream (its c-printable production), as PyYAML's reader checks it.
_NON_PRINTABLE = re.compile(
    "[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"
)


def find(text: str, parser: type, tokens: list[str]) -> tuple[int, int] | None:
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
                return find_in_nodes(text, parser, tokens)
            else:
                return None
        if event.__class__ is AliasEvent:
            return find_in_nodes(text, parser, tokens)
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
