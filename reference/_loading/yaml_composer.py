"""Reading YAML through nodes: PyYAML's composer and safe constructor, with every check.

The fast reader of ``yaml_reader`` leaves this loader every document it does not read itself:
anchors and aliases (expanded within the limits, recursion refused), core-schema tags, and
every problem, which this loader refuses with its line and column.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable
from typing import Any, cast

import yaml

from reference._errors import Location, PackLoadError
from reference._json import describe_json_type
from reference._loading.document import (
    DEFAULT_LIMITS,
    SURROGATE,
    Limits,
    too_deep,
    too_many_values,
)

TAG = "tag:yaml.org,2002:"
"""The prefix of the YAML core tags (``!!str`` is ``tag:yaml.org,2002:str``)."""
# The YAML 1.2 core schema's plain scalars, as the fast reader and the resolver below read them.
BOOLEANS = {
    "true": True,
    "True": True,
    "TRUE": True,
    "false": False,
    "False": False,
    "FALSE": False,
}
NULLS = ("~", "null", "Null", "NULL", "")
INT = r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+"
FLOAT = (
    r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)"
)


class _Checks(yaml.composer.Composer, yaml.constructor.SafeConstructor, yaml.resolver.Resolver):
    """PyYAML's composer and safe constructor for JSON-compatible YAML, over any parser.

    YAML 1.2 core scalars, string keys, no duplicate keys, no tags outside the JSON data model,
    and limits on depth, flow depth and size, each refused with its location. Used when the
    fast reader falls back, and to find where a pointer is when a path holds an alias.
    """

    PARSER: type  # set by composing_loader()
    limits = DEFAULT_LIMITS
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
        # A mapping's key (composed with no index) is no value: values are counted as JSON
        # counts them, so one pack meets one limit whatever its format.
        is_key = parent is not None and index is None
        if not isinstance(event, yaml.AliasEvent) and not is_key:
            self._nodes += 1
            if self._nodes > self.limits.max_nodes:
                raise too_many_values(self._where(event.start_mark), self.limits)
        # Depth counts mappings and sequences, as for JSON; scalars add no level.
        nested = isinstance(event, yaml.MappingStartEvent | yaml.SequenceStartEvent)
        flow = nested and bool(event.flow_style)
        if nested:
            self._depth += 1
            self._flow_depth += flow
            if self._depth > self.limits.max_depth:
                raise PackLoadError(
                    f"the document nests deeper than {self.limits.max_depth} levels",
                    self._where(event.start_mark),
                    "flatten the structure; no pack needs that depth",
                )
            if self._flow_depth > self.limits.max_flow_depth:
                raise PackLoadError(
                    f"flow collections ([...] and {{...}}) nest deeper than "
                    f"{self.limits.max_flow_depth} levels",
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
        if SURROGATE.search(value):
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


# The YAML 1.2 core schema: what JSON means by true, null and numbers, and nothing else
# (no yes/no/on/off, no 0b or base-60 integers, no dates, no merge or value keys).
_Checks.yaml_implicit_resolvers = {}
for _tag, _pattern, _first in (
    ("bool", "|".join(BOOLEANS), "tTfF"),
    ("null", "|".join(NULLS), "~nN"),
    ("int", INT, "-+0123456789"),
    ("float", FLOAT, "-+0123456789."),
):
    _Checks.add_implicit_resolver(TAG + _tag, re.compile(f"^(?:{_pattern})$"), list(_first))
_Checks.add_implicit_resolver(TAG + "null", re.compile("^$"), [""])
for _tag, _constructor in (
    ("str", _Checks.construct_yaml_str),
    ("int", _Checks.construct_yaml_int),
    ("float", _Checks.construct_yaml_float),
):
    _Checks.add_constructor(TAG + _tag, cast(Any, _constructor))


def _refuse_tag(loader: _Checks, node: yaml.Node) -> Any:
    raise PackLoadError(
        f"the tag {node.tag.replace(TAG, '!!')} has no JSON equivalent",
        loader._where(node.start_mark),
        "packs are JSON-compatible: use strings, numbers, booleans, null, lists and mappings",
    )


# Safe, but outside the JSON data model (bytes, sets, dates, ordered pairs, merge keys).
for _tag in ("binary", "set", "omap", "pairs", "timestamp", "merge", "value"):
    _Checks.add_constructor(TAG + _tag, cast(Any, _refuse_tag))


@functools.cache
def composing_loader(parser: type) -> type[_Checks]:
    """The composing loader over ``parser`` (made once per parser class)."""
    return type(f"ComposingLoader[{parser.__name__}]", (_Checks, parser), {"PARSER": parser})


def compose(text: str, source: str | None, limits: Limits, parser: type) -> Any:
    """A composing loader over ``parser`` for ``text``, ready to compose its one document."""
    loader = composing_loader(parser)(text)
    loader.name = source or "<string>"
    loader.limits = limits
    return loader


def compose_and_construct(text: str, source: str | None, limits: Limits, parser: type) -> Any:
    """Read ``text`` into plain data through nodes, refusing what is wrong with its location.

    Raises:
        PackLoadError: for every problem the fast reader leaves to this loader.
        yaml.YAMLError: for invalid YAML (the caller says where).
    """
    loader = compose(text, source, limits, parser)
    root = loader.get_single_node()
    if root is None:
        return None
    _check_expansion(root, source, limits)
    return loader.construct_document(root)


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
            size[key] = 1 + _size_of_children(node, size)
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
                raise too_deep(where, limits)
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


def find_in_nodes(text: str, parser: type, tokens: list[str]) -> tuple[int, int] | None:
    """Where the value at ``tokens`` starts, found on composed nodes (an alias is the node it
    names); see ``yaml_reader.find``."""
    node = compose(text, None, DEFAULT_LIMITS, parser).get_single_node()
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


def _size_of_children(node: yaml.Node, size: dict[int, int]) -> int:
    """The values below a collection node, as JSON counts them: a mapping's scalar keys are
    no values (a key that is a collection, refused later, still counts)."""
    if isinstance(node, yaml.MappingNode):
        return sum(
            size[id(v)] + (0 if isinstance(k, yaml.ScalarNode) else size[id(k)])
            for k, v in node.value
        )
    return sum(size[id(c)] for c in node.value)
