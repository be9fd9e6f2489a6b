"""JSON pointers (RFC 6901), the paths every diagnostic carries."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

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


def pointer(*tokens: str | int) -> str:
    """Build a JSON pointer from reference tokens: ``pointer("a", "b/c")`` is ``/a/b~1c``."""
    return "".join("/" + escape_token(t) for t in tokens)


def pointer_from_path(path: Iterable[str | int]) -> str:
    """Build a JSON pointer from a path such as a schema error's instance path."""
    return pointer(*path)


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
