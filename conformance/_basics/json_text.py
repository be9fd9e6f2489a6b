"""JSON text from outside the kit (a runtime's answer, a report file), read strictly.

Python's parser reads more than JSON, and some of what it reads breaks the kit later: ``NaN``
and ``Infinity`` (no JSON values), ``1e999`` (infinite), an integer of thousands of digits
(slow to convert, and refused half way with a ``ValueError`` of its own), nesting deep enough
to exhaust the stack, and lone surrogate escapes (``"\\ud800"``: legal JSON text, but no
character, so it can never be written out as UTF-8). :func:`loads` refuses each of them with
one :class:`JsonTextError` saying which.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, NoReturn

MAX_DEPTH = 256
"""The deepest nesting of arrays and objects read (as the reference's pack loader)."""
MAX_INT_DIGITS = 100
"""The most digits an integer may have."""

_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


class JsonTextError(ValueError):
    """The text is not JSON the kit reads; the message says why (and where, if it can)."""


def _not_json(constant: str) -> NoReturn:
    raise ValueError(f"{constant} is not a JSON value")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text[:40]} is too large for a number")
    return value


def _bounded_int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        raise ValueError(f"an integer of {digits:,} digits (at most {MAX_INT_DIGITS} are read)")
    return int(text)


_DECODER = json.JSONDecoder(parse_constant=_not_json, parse_float=_finite, parse_int=_bounded_int)


def loads(text: str) -> Any:
    """Parse one JSON value, strictly (see the module docstring).

    Raises:
        JsonTextError: not JSON, or JSON the kit does not read.
    """
    try:
        value = _DECODER.decode(text)
    except RecursionError:
        raise JsonTextError(f"arrays and objects nested deeper than {MAX_DEPTH}") from None
    except ValueError as error:  # JSONDecodeError included: it says where
        raise JsonTextError(str(error)) from None
    # Both checks walk the value, so each is made only when the text can need it.
    if text.count("[") + text.count("{") > MAX_DEPTH:
        _check_depth(value)
    if _SURROGATE_ESCAPE.search(text):
        _check_strings(value)
    return value


def _check_depth(value: Any) -> None:
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth > MAX_DEPTH:
                raise JsonTextError(f"arrays and objects nested deeper than {MAX_DEPTH}")
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)


def _check_strings(value: Any) -> None:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                raise JsonTextError(
                    "a string holds a lone surrogate escape (\\ud800-\\udfff), which is no "
                    "character: escape characters beyond U+FFFF as a surrogate pair, or write "
                    "them as they are"
                )
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


__all__ = ["MAX_DEPTH", "MAX_INT_DIGITS", "JsonTextError", "loads"]
