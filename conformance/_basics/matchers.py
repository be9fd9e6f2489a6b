"""Comparing what a runtime did with what a case expects.

An expected value is plain data, compared for equality (JSON equality: ``1 == 1.0``, but
``True != 1``), or a *matcher*: an object with one key starting with ``$`` that pins only
what the spec pins.

==========================  =====================================================================
``{$contains_in_order: L}``  a string holding the strings of ``L`` in that order, or a list holding
                             items matching ``L`` in that order (others may sit between)
``{$contains: L}``           a list holding an item matching each element of ``L``
``{$unordered: L}``          a list with exactly the items of ``L``, in any order
``{$one_of: L}``             a value matching one element of ``L``
``{$subset: O}``             an object holding at least the keys of ``O``, with matching values
``{$any: true}``             present, with any value
``{$same_as: "/a/0/b"}``     the value at that JSON pointer (RFC 6901) in the same observation:
                             the value the expectation key names (for ``composition``, the
                             result ``{status, output, error, trace}``), compared by JSON
                             equality and never read as a matcher
==========================  =====================================================================

A ``$same_as`` pointer must name a place the expectation itself requires to be there, reached
through plain objects, plain lists and ``$subset`` only, and not the place holding the matcher:
:func:`pointer_problems` says where one does not (``ppconf cases check`` refuses such a case).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from reference import json_pointer

__all__ = [
    "MATCHERS",
    "Mismatch",
    "compare",
    "differences",
    "is_matcher",
    "missing",
    "pointer_problems",
]

MATCHERS = (
    "$contains_in_order",
    "$contains",
    "$unordered",
    "$one_of",
    "$subset",
    "$any",
    "$same_as",
)
_MISSING = object()
_ROOT = object()  # "the observation is the actual value compared"


@dataclass(frozen=True)
class Mismatch:
    """The first difference found: where, what was expected, what was seen."""

    path: str
    expected: Any
    actual: Any
    reason: str = ""

    def __str__(self) -> str:
        where = self.path or "value"
        actual = "nothing" if self.actual is _MISSING else _show(self.actual)
        text = f"{where}: expected {_show(self.expected)}, got {actual}"
        return f"{text} ({self.reason})" if self.reason else text


def _show(value: Any) -> str:
    try:
        text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 300 else text[:297] + "..."


def differences(expected: Any, actual: Any, path: str) -> tuple[Mismatch, ...]:
    """Every difference one level down, where :func:`compare` stops at the first: for a plain
    mapping expected of a mapping, one mismatch per key that does not match and per key the
    case does not expect (``visit_counts.review`` and ``visit_counts.test``, so a report can
    point at every state whose count is wrong); else the first mismatch, if any.
    """
    if is_matcher(expected) or not isinstance(expected, Mapping) or not isinstance(actual, Mapping):
        found = compare(expected, actual, path)
        return (found,) if found else ()
    out = []
    for key, value in expected.items():
        found = _compare(value, actual.get(key, _MISSING), f"{path}.{key}", actual)
        if found:
            out.append(found)
    out += [
        Mismatch(f"{path}.{key}", _MISSING, actual[key], "not expected")
        for key in sorted(set(actual) - set(expected), key=str)
    ]
    return tuple(out)


def missing() -> Any:
    """The marker for a value the runtime did not report at all."""
    return _MISSING


def is_matcher(value: Any) -> bool:
    """Whether an expected value is a matcher object."""
    return isinstance(value, Mapping) and len(value) == 1 and next(iter(value)) in MATCHERS


def compare(expected: Any, actual: Any, path: str = "", *, root: Any = _ROOT) -> Mismatch | None:
    """Return the first mismatch between an expected value and an observed one, or ``None``.

    Arguments:
        root: the observation ``$same_as`` pointers are read in (default: ``actual``).
    """
    return _compare(expected, actual, path, actual if root is _ROOT else root)


def _compare(expected: Any, actual: Any, path: str, root: Any) -> Mismatch | None:
    if is_matcher(expected):
        return _compare_matcher(expected, actual, path, root)
    if actual is _MISSING:
        return Mismatch(path, expected, actual, "not reported")
    if isinstance(expected, Mapping):
        if not isinstance(actual, Mapping):
            return Mismatch(path, expected, actual)
        extra = sorted(set(actual) - set(expected))
        if extra:
            return Mismatch(path, expected, actual, f"unexpected key {extra[0]!r}")
        for key, value in expected.items():
            found = _compare(value, actual.get(key, _MISSING), _below(path, key), root)
            if found:
                return found
        return None
    if isinstance(expected, list):
        if not isinstance(actual, list | tuple):
            return Mismatch(path, expected, actual)
        if len(expected) != len(actual):
            return Mismatch(path, expected, actual, f"{len(actual)} items, not {len(expected)}")
        for index, (want, got) in enumerate(zip(expected, actual, strict=True)):
            found = _compare(want, got, f"{path}[{index}]", root)
            if found:
                return found
        return None
    if not _json_equal(expected, actual):
        return Mismatch(path, expected, actual)
    return None


def _json_equal(expected: Any, actual: Any) -> bool:
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(expected) is type(actual) and expected == actual
    if isinstance(expected, int | float) and isinstance(actual, int | float):
        return expected == actual
    return type(expected) is type(actual) and bool(expected == actual)


def _below(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _same(a: Any, b: Any) -> bool:
    """JSON equality of two observed values, neither of them read as a matcher: a runtime's
    ``{"$any": true}`` is data, equal only to the same data."""
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, Mapping | list | tuple) or isinstance(b, Mapping | list | tuple):
        return False
    return _json_equal(a, b)


def _tokens(pointer: str) -> tuple[str, ...] | None:
    """The reference tokens of a JSON pointer (RFC 6901), ``None`` when it is not one."""
    if pointer == "":
        return ()
    if not pointer.startswith("/"):
        return None
    parts = pointer[1:].split("/")
    if any("~" in p.replace("~0", "").replace("~1", "") for p in parts):
        return None
    return tuple(p.replace("~1", "/").replace("~0", "~") for p in parts)


def _index(token: str, items: Any) -> int | None:
    """A list index token (digits, no leading zero) within ``items``, else ``None``."""
    if not token.isdecimal() or not token.isascii() or (token != "0" and token[0] == "0"):
        return None
    index = int(token)
    return index if index < len(items) else None


def _at(pointer: str, root: Any) -> Any:
    """The observed value at ``pointer`` in ``root``, or the missing marker."""
    tokens = _tokens(pointer)
    if tokens is None:
        return _MISSING
    node = root
    for token in tokens:
        if isinstance(node, Mapping):
            node = node.get(token, _MISSING)
        elif isinstance(node, list | tuple) and (index := _index(token, node)) is not None:
            node = node[index]
        else:
            return _MISSING
    return node


def _compare_matcher(
    matcher: Mapping[str, Any], actual: Any, path: str, root: Any
) -> Mismatch | None:
    name, operand = next(iter(matcher.items()))
    if name == "$any":
        return Mismatch(path, matcher, actual, "not reported") if actual is _MISSING else None
    if actual is _MISSING:
        return Mismatch(path, matcher, actual, "not reported")
    if name == "$same_as":
        target = _at(operand, root) if isinstance(operand, str) else _MISSING
        if target is _MISSING:
            return Mismatch(path, matcher, actual, f"nothing reported at {operand}")
        if not _same(target, actual):
            return Mismatch(path, matcher, actual, f"not the value at {operand}, {_show(target)}")
        return None
    if name == "$one_of":
        if any(_compare(option, actual, path, root) is None for option in operand):
            return None
        return Mismatch(path, matcher, actual, "matches none of the options")
    if name == "$subset":
        if not isinstance(actual, Mapping):
            return Mismatch(path, matcher, actual, "not an object")
        for key, value in operand.items():
            found = _compare(value, actual.get(key, _MISSING), _below(path, key), root)
            if found:
                return found
        return None
    if name == "$contains_in_order" and isinstance(actual, str):
        position = 0
        for part in operand:
            found_at = actual.find(str(part), position)
            if found_at < 0:
                return Mismatch(path, matcher, actual, f"{part!r} missing or out of order")
            position = found_at + len(str(part))
        return None
    if not isinstance(actual, list | tuple):
        return Mismatch(path, matcher, actual, "not a list")
    items = list(actual)
    if name == "$contains_in_order":
        position = 0
        for want in operand:
            while position < len(items) and _compare(want, items[position], "", root) is not None:
                position += 1
            if position == len(items):
                return Mismatch(path, matcher, actual, f"{_show(want)} missing or out of order")
            position += 1
        return None
    if name == "$contains":
        for want in operand:
            if not any(_compare(want, got, "", root) is None for got in items):
                return Mismatch(path, matcher, actual, f"{_show(want)} missing")
        return None
    # $unordered: a one-to-one pairing of expected and actual items (matchers may overlap, so
    # pair by augmenting paths, not greedily).
    if len(items) != len(operand):
        return Mismatch(path, matcher, actual, f"{len(items)} items, not {len(operand)}")
    fits = [
        [j for j, got in enumerate(items) if _compare(want, got, "", root) is None]
        for want in operand
    ]
    owner: dict[int, int] = {}  # actual index -> expected index

    def place(i: int, seen: set[int]) -> bool:
        for j in fits[i]:
            if j not in seen:
                seen.add(j)
                if j not in owner or place(owner[j], seen):
                    owner[j] = i
                    return True
        return False

    for i, want in enumerate(operand):
        if not place(i, set()):
            return Mismatch(path, matcher, actual, f"no item left for {_show(want)}")
    return None


# -- checking the pointers of a case ----------------------------------------------------------

_FIXED = ("$subset",)
"""The matcher through which a place stays where it is: an object's keys keep their names."""


def pointer_problems(expected: Any) -> list[tuple[str, str]]:
    """Each ``$same_as`` in an expected value whose pointer names no place the expectation
    requires: ``(where, why)``, ``where`` the JSON pointer to the matcher below ``expected``.

    A pointer must be reached through plain objects, plain lists and ``$subset`` only (the
    items of ``$unordered``, ``$contains`` ... have no fixed place), end at something the
    expectation holds (so a runtime matching the rest has a value there), and not hold the
    matcher itself (which would compare a value with itself, a check that cannot fail).
    """
    found: list[tuple[str, str]] = []

    def walk(node: Any, where: str, place: tuple[str, ...], fixed: bool) -> None:
        if is_matcher(node):
            name, operand = next(iter(node.items()))
            inner = where + json_pointer(name)
            if name == "$same_as":
                problem = _pointer_problem(expected, operand, place)
                if problem:
                    found.append((inner, problem))
            elif name == "$subset" and isinstance(operand, Mapping):
                for key, value in operand.items():
                    walk(value, inner + json_pointer(key), _on(place, key, fixed), fixed)
            elif isinstance(operand, list):
                # $one_of options stand at the matcher's place; list items have none fixed.
                for i, value in enumerate(operand):
                    walk(value, f"{inner}/{i}", place, fixed and name == "$one_of")
        elif isinstance(node, Mapping):
            for key, value in node.items():
                walk(value, where + json_pointer(key), _on(place, key, fixed), fixed)
        elif isinstance(node, list):
            for i, value in enumerate(node):
                walk(value, f"{where}/{i}", _on(place, str(i), fixed), fixed)

    walk(expected, "", (), True)
    return found


def _on(place: tuple[str, ...], token: str, fixed: bool) -> tuple[str, ...]:
    """The place one token further down; a place below a list matcher's item stays at the
    list, the last place known."""
    return (*place, token) if fixed else place


def _pointer_problem(expected: Any, pointer: Any, place: tuple[str, ...]) -> str | None:
    """Why ``pointer`` names no place ``expected`` requires, or holds the matcher at
    ``place`` (the tokens of the matcher's own place, as far as it is fixed)."""
    tokens = _tokens(pointer) if isinstance(pointer, str) else None
    if tokens is None:
        return f"{pointer!r} is not a JSON pointer (RFC 6901: '' or '/' followed by tokens)"
    if place[: len(tokens)] == tokens:
        return (
            f"{pointer!r} points at a value holding this $same_as itself, which would compare "
            "a value with itself: point at another step's value"
        )
    node = expected
    for depth, token in enumerate(tokens):
        while is_matcher(node) and next(iter(node)) in _FIXED:
            node = next(iter(node.values()))
        here = json_pointer(*tokens[:depth]) or "the top"
        if is_matcher(node):
            return (
                f"{pointer!r} passes through {next(iter(node))} at {here}, which fixes no place "
                "below it: point through plain objects, lists and $subset only"
            )
        if isinstance(node, Mapping) and token in node:
            node = node[token]
        elif isinstance(node, list) and (index := _index(token, node)) is not None:
            node = node[index]
        else:
            return (
                f"{pointer!r} names {token!r} at {here}, which the expectation does not hold: "
                "point at a value the expectation requires (add it, {$any: true} if need be)"
            )
    return None
