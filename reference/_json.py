"""JSON values and JSON pointers (RFC 6901): the data model every part of the reference reads."""

from __future__ import annotations

from typing import Any, TypeGuard

_JSON_TYPES = {
    dict: "an object",
    list: "a list",
    str: "a string",
    bool: "a boolean",
    int: "an integer",
    float: "a number",
}


def escape_token(token: str | int) -> str:
    """Escape one reference token (``~`` -> ``~0``, ``/`` -> ``~1``)."""
    return str(token).replace("~", "~0").replace("/", "~1")


def json_pointer(*tokens: str | int) -> str:
    """Build a JSON pointer from reference tokens: ``json_pointer("a", "b/c", 0)`` is
    ``/a/b~1c/0``; no tokens give ``""``, the whole document."""
    return "".join("/" + escape_token(t) for t in tokens)


def unescape_pointer(value: str) -> list[str]:
    """Split a JSON pointer into its unescaped reference tokens."""
    if not value:
        return []
    return [t.replace("~1", "/").replace("~0", "~") for t in value[1:].split("/")]


def describe_json_type(value: Any) -> str:
    """Name a loaded value's JSON type for messages: ``"a string"``, ``"null"`` ..."""
    if value is None:
        return "null"
    return _JSON_TYPES.get(type(value), f"a {type(value).__name__}")


def is_number(value: Any) -> TypeGuard[int | float]:
    """Whether ``value`` is a JSON number (Python's ``bool`` is an ``int``, but not a number)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def is_integer(value: Any) -> TypeGuard[int | float]:
    """Whether a loaded value is an integer in JSON terms (``2`` or ``2.0``, not ``True``)."""
    return (isinstance(value, int) and not isinstance(value, bool)) or (
        isinstance(value, float) and value.is_integer()
    )
