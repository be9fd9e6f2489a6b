"""The document model: a parsed document, the limits it was read under, and where things are."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from reference._errors import Location, PackLoadError
from reference._json import unescape_pointer

Format = Literal["json", "yaml"]


@dataclass(frozen=True)
class Limits:
    """Bounds that keep hostile documents from exhausting time or memory.

    Arguments:
        max_bytes: largest accepted document, in bytes.
        max_depth: deepest accepted nesting of mappings and sequences.
        max_flow_depth: deepest accepted nesting of YAML flow collections (``[...]``,
            ``{...}``); YAML parsers slow down with every open flow level.
        max_nodes: most values a document may hold, YAML aliases expanded, counted as JSON
            counts them (every mapping, sequence and scalar; a mapping's keys are no values),
            so one pack meets one limit whether written as JSON or YAML; this bounds the time
            to read one too.
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


SURROGATE = re.compile("[\ud800-\udfff]")
"""A surrogate code point, which is no character: only escapes (``\\ud800``) make one."""
SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
"""An escape (``\\ud800``) that writes a surrogate, in JSON or a double-quoted YAML string."""


def line_column(text: str, offset: int) -> tuple[int, int]:
    """The 1-based line and column of ``offset`` in ``text``."""
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def too_deep(location: Location, limits: Limits) -> PackLoadError:
    """The error for a document nested deeper than ``limits.max_depth``."""
    return PackLoadError(
        f"the document nests deeper than {limits.max_depth} levels",
        location,
        "flatten the structure; no pack needs that depth",
    )


def too_many_values(location: Location, limits: Limits) -> PackLoadError:
    """The error for a document holding more than ``limits.max_nodes`` values."""
    return PackLoadError(
        f"the document holds more than {limits.max_nodes:,} values",
        location,
        "no pack needs that many; split it, or raise the limit (Limits.max_nodes; "
        "--max-values of the ppconf command that reads it)",
    )
