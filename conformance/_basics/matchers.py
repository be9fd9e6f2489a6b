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
==========================  =====================================================================
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["MATCHERS", "Mismatch", "compare", "differences", "is_matcher", "missing"]

MATCHERS = ("$contains_in_order", "$contains", "$unordered", "$one_of", "$subset", "$any")
_MISSING = object()


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
        found = compare(value, actual.get(key, _MISSING), f"{path}.{key}")
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


def compare(expected: Any, actual: Any, path: str = "") -> Mismatch | None:
    """Return the first mismatch between an expected value and an observed one, or ``None``."""
    if is_matcher(expected):
        return _compare_matcher(expected, actual, path)
    if actual is _MISSING:
        return Mismatch(path, expected, actual, "not reported")
    if isinstance(expected, Mapping):
        if not isinstance(actual, Mapping):
            return Mismatch(path, expected, actual)
        extra = sorted(set(actual) - set(expected))
        if extra:
            return Mismatch(path, expected, actual, f"unexpected key {extra[0]!r}")
        for key, value in expected.items():
            found = compare(value, actual.get(key, _MISSING), f"{path}.{key}" if path else key)
            if found:
                return found
        return None
    if isinstance(expected, list):
        if not isinstance(actual, list | tuple):
            return Mismatch(path, expected, actual)
        if len(expected) != len(actual):
            return Mismatch(path, expected, actual, f"{len(actual)} items, not {len(expected)}")
        for index, (want, got) in enumerate(zip(expected, actual, strict=True)):
            found = compare(want, got, f"{path}[{index}]")
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


def _compare_matcher(matcher: Mapping[str, Any], actual: Any, path: str) -> Mismatch | None:
    name, operand = next(iter(matcher.items()))
    if name == "$any":
        return Mismatch(path, matcher, actual, "not reported") if actual is _MISSING else None
    if actual is _MISSING:
        return Mismatch(path, matcher, actual, "not reported")
    if name == "$one_of":
        if any(compare(option, actual, path) is None for option in operand):
            return None
        return Mismatch(path, matcher, actual, "matches none of the options")
    if name == "$subset":
        if not isinstance(actual, Mapping):
            return Mismatch(path, matcher, actual, "not an object")
        for key, value in operand.items():
            found = compare(value, actual.get(key, _MISSING), f"{path}.{key}" if path else key)
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
            while position < len(items) and compare(want, items[position]) is not None:
                position += 1
            if position == len(items):
                return Mismatch(path, matcher, actual, f"{_show(want)} missing or out of order")
            position += 1
        return None
    if name == "$contains":
        for want in operand:
            if not any(compare(want, got) is None for got in items):
                return Mismatch(path, matcher, actual, f"{_show(want)} missing")
        return None
    # $unordered: a one-to-one pairing of expected and actual items (matchers may overlap, so
    # pair by augmenting paths, not greedily).
    if len(items) != len(operand):
        return Mismatch(path, matcher, actual, f"{len(items)} items, not {len(operand)}")
    fits = [[j for j, got in enumerate(items) if compare(want, got) is None] for want in operand]
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
