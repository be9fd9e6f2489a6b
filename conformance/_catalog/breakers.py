"""Breakers: the standard ways to break one schema constraint (SEMANTICS R16).

A *constraint* is one keyword of a published schema or of an RFC's schema fragment at one place
of a pack (``"type": "integer"`` on ``max_visits``, ``"additionalProperties": false`` on a
state). Its *breakers* are the edits a runtime must tell apart: each wrong JSON type, each value
outside an enum or a const (an outsider and the near misses: other case, trailing space), each
required field left out, an unknown and a vendor-style key on a closed object (and the same keys
kept on an open one: still valid), a value just below a minimum or above a maximum (and the
bound itself: valid), a list or map one entry short of its minimum size, a string off its
pattern. Each breaker says whether the pack stays valid, so a generated case knows what to
expect; the generator checks that against the schema itself.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

__all__ = [
    "KEYWORDS",
    "Breaker",
    "apply",
    "breakers_for",
    "standard_breakers",
]

Edit = Literal["set", "delete", "add"]
"""How a breaker changes the pack at the constraint's place: replace the value there, delete a
field of the object there, add a key to the object there."""


@dataclass(frozen=True)
class Breaker:
    """One way to break (or, for ``valid``, to keep) a constraint.

    Attributes:
        name: a slug, stable: the last part of a generated case's id (``boolean``,
            ``missing-entry``, ``vendor-key-x``, ``below-minimum``).
        valid: the pack stays valid (an open object's extra key, a value at its bound).
        edit: what it does at the constraint's place (see :data:`Edit`).
        value: the value set or added.
        key: the field deleted or the key added.
        what: what the breaker does, in a few words, for the case's description.
        inside: where the offending value is, below the constraint's place (an item ``/0``,
            a map entry ``/added``; empty: the place itself).
    """

    name: str
    valid: bool
    edit: Edit
    value: Any = None
    key: str = ""
    what: str = ""
    inside: str = ""


_WRONG_TYPES: dict[str, tuple[tuple[str, Any, str], ...]] = {
    "integer": (
        ("boolean", True, "a boolean"),
        ("numeric-string", "1", "a numeric string"),
        ("float", 1.5, "a float"),
        ("null", None, "null"),
    ),
    "number": (
        ("boolean", True, "a boolean"),
        ("numeric-string", "1", "a numeric string"),
        ("null", None, "null"),
    ),
    "string": (("integer", 1, "an integer"), ("null", None, "null")),
    "boolean": (("string", "true", "the string 'true'"), ("null", None, "null")),
    "object": (("list", [], "a list"), ("null", None, "null")),
    "array": (("object", {}, "an object"), ("null", None, "null")),
}
"""The wrong JSON types R16 lists for each type a schema asks for, with ``null`` for all."""

_JSON_TYPES = {
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "null": lambda v: v is None,
}

_EXTRA_KEYS = (
    ("unknown-key", "unknown_field", "an unknown key"),
    ("vendor-key-x", "x-acme", "a vendor key x-acme"),
    ("vendor-key-dotted", "acme.field", "a vendor key acme.field"),
)
"""Keys no schema of the kit's parts defines: an unknown field, and the two vendor styles."""

_OFF_PATTERN = ("1starts_with_digit", "has space", "has-hyphen", "", "UPPER", "nodot")
"""Candidates for a string off a pattern: the first the pattern refuses is used."""

KEYWORDS = (
    "type",
    "enum",
    "const",
    "required",
    "additionalProperties",
    "minimum",
    "maximum",
    "minItems",
    "minProperties",
    "pattern",
    "items",
)
"""The schema keywords breakers are derived for; others (``$ref``, ``oneOf``, ``if``,
``default``) are tested through the constraints they lead to, or not at all."""


def breakers_for(keyword: str, value: Any, current: Any = None) -> tuple[Breaker, ...]:
    """The standard breakers of the constraint ``keyword: value``.

    Arguments:
        keyword: the schema keyword (one of :data:`KEYWORDS`; any other gives none).
        value: its value in the schema.
        current: the value a valid pack holds at the constraint's place (near misses of an
            enum, and lists one item short, are built from it).
    """
    if keyword == "type":
        return _type_breakers(value)
    if keyword in ("enum", "const"):
        allowed = list(value) if keyword == "enum" else [value]
        return _outside(allowed)
    if keyword == "required":
        return tuple(
            Breaker(f"missing-{_slug(name)}", False, "delete", key=name, what=f"without {name}")
            for name in value
        )
    if keyword == "additionalProperties":
        if value is False or value is True:
            return tuple(
                Breaker(name, value is True, "add", "added", key, what)
                for name, key, what in _EXTRA_KEYS
            )
        if isinstance(value, dict) and isinstance(value.get("type"), str):
            # A map whose values have a type: each wrong type as a value of a new entry.
            return tuple(
                Breaker(
                    f"value-{b.name}",
                    False,
                    "add",
                    b.value,
                    "added",
                    f"{b.what} as a value",
                    "/added",
                )
                for b in _type_breakers(value["type"])
            )
        return ()
    if keyword in ("minimum", "maximum") and isinstance(value, (int, float)):
        step = -1 if keyword == "minimum" else 1
        side = "below" if keyword == "minimum" else "above"
        return (
            Breaker(f"{side}-{keyword}", False, "set", value + step, what=f"{value + step}"),
            Breaker(f"at-{keyword}", True, "set", value, what=f"{value}, the bound"),
        )
    if keyword == "minItems" and isinstance(value, int) and isinstance(current, list):
        short = current[: value - 1]
        found = [Breaker("too-few-items", False, "set", short, what=f"{len(short)} items")]
        if len(current) >= value:
            found.append(
                Breaker("at-min-items", True, "set", current[:value], what=f"{value} items")
            )
        return tuple(found)
    if keyword == "minProperties" and value == 1:
        return (Breaker("empty", False, "set", {}, what="an empty map"),)
    if keyword == "pattern" and isinstance(value, str):
        refused = next((c for c in _OFF_PATTERN if not re.search(value, c)), None)
        if refused is None:
            return ()
        return (Breaker("off-pattern", False, "set", refused, what=f"{refused!r}"),)
    if keyword == "items" and isinstance(value, dict) and isinstance(value.get("type"), str):
        return tuple(
            Breaker(
                f"item-{b.name}", False, "set", [b.value], what=f"{b.what} as an item", inside="/0"
            )
            for b in _type_breakers(value["type"])
        )
    return ()


def _type_breakers(expected: Any) -> tuple[Breaker, ...]:
    allowed = [expected] if isinstance(expected, str) else list(expected)
    found: dict[str, Breaker] = {}
    for each in allowed:
        for name, wrong, what in _WRONG_TYPES.get(each, ()):
            if not any(_JSON_TYPES[t](wrong) for t in allowed if t in _JSON_TYPES):
                found.setdefault(name, Breaker(name, False, "set", wrong, what=what))
    return tuple(found.values())


def _outside(allowed: Sequence[Any]) -> tuple[Breaker, ...]:
    """An outsider of an enum or a const, and the near misses of its first string value."""
    found = []
    if all(isinstance(a, str) for a in allowed):
        outsider: Any = "not_a_listed_value"
    elif all(isinstance(a, int) and not isinstance(a, bool) for a in allowed):
        outsider = max(allowed) + 1
    else:
        return ()
    found.append(Breaker("outsider", False, "set", outsider, what=f"{outsider!r}, not listed"))
    first = next((a for a in allowed if isinstance(a, str)), None)
    if first is not None:
        other = first.upper() if first != first.upper() else first.lower()
        if other not in allowed:
            found.append(Breaker("other-case", False, "set", other, what=f"{other!r}"))
        found.append(Breaker("trailing-space", False, "set", first + " ", what=f"{first + ' '!r}"))
    return tuple(found)


def standard_breakers(keyword: str, value: Any) -> tuple[str, ...]:
    """The names of the breakers a constraint has (what coverage counts), in order."""
    current: list[Any] = [{}] * (value if keyword == "minItems" and isinstance(value, int) else 0)
    return tuple(b.name for b in breakers_for(keyword, value, current))


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def apply(pack: dict[str, Any], pointer: str, breaker: Breaker) -> dict[str, Any]:
    """A copy of ``pack`` with ``breaker`` applied at the JSON pointer ``pointer``.

    Raises:
        KeyError: the pointer's parent is not in the pack (a template without that part).
    """
    result = copy.deepcopy(pack)
    parts = [p.replace("~1", "/").replace("~0", "~") for p in pointer.split("/")[1:]]
    if breaker.edit == "set":
        parent = _walk(result, parts[:-1])
        _put(parent, parts[-1], copy.deepcopy(breaker.value))
        return result
    target = _walk(result, parts[:-1]) if parts else result
    if breaker.edit == "add" and parts and isinstance(target, dict):
        # An optional object the pack leaves out (an engine map) is added for the new key.
        target = target.setdefault(parts[-1], {})
    elif parts:
        target = _walk(target, parts[-1:])
    if not isinstance(target, dict):
        raise KeyError(pointer)
    if breaker.edit == "delete":
        target.pop(breaker.key, None)
    else:
        target[breaker.key] = copy.deepcopy(breaker.value)
    return result


def _walk(node: Any, parts: Sequence[str]) -> Any:
    for part in parts:
        node = node[int(part)] if isinstance(node, list) else node[part]
    return node


def _put(parent: Any, key: str, value: Any) -> None:
    if isinstance(parent, list):
        parent[int(key)] = value
    else:
        parent[key] = value
