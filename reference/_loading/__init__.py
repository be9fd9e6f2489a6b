"""Reading packs (and any other JSON/YAML document) safely.

JSON goes through :mod:`json` (``json_reader``), YAML through libyaml's parser and our own
composing (``yaml_reader``, ``yaml_composer``), both into the plain data and source positions
of a :class:`~reference._loading.document.Document`. YAML follows the 1.2 core schema (only
``true``/``false`` are booleans, dates stay strings); both refuse duplicate keys and documents
past the :class:`~reference._loading.document.Limits`. Every problem becomes one
:class:`PackLoadError` that says what, where and how to fix it.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from reference._errors import Location, PackLoadError
from reference._loading.document import DEFAULT_LIMITS, Document, Format, Limits
from reference._loading.json_reader import parse_json
from reference._loading.yaml_reader import parse_yaml

__all__ = ["DEFAULT_LIMITS", "Document", "Format", "Limits", "parse_document", "read_document"]


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
        data = _read_regular_file(path, limits.max_bytes + 1, source)
    except OSError as error:
        raise PackLoadError(
            f"cannot read the file: {error.strerror or error}",
            Location(source),
            "check the path and its permissions",
        ) from None
    if format is None:
        format = "json" if source.lower().endswith(".json") else "yaml"
    return parse_document(data, format=format, source=source, limits=limits)


_FILE_TYPES = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def _read_regular_file(path: str | Path, size: int, source: str) -> bytes:
    """Read at most ``size`` bytes of ``path``, refusing at once anything but a regular file.

    Opening does not block (``O_NONBLOCK``: a FIFO without a writer would wait forever), and
    the type is checked on the open descriptor, so the file cannot be swapped in between.
    """
    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(descriptor, "rb") as stream:
        mode = os.fstat(descriptor).st_mode
        if not stat.S_ISREG(mode):
            kind = next((name for test, name in _FILE_TYPES if test(mode)), "not a regular file")
            raise PackLoadError(
                f"cannot read the file: it is {kind}, not a regular file",
                Location(source),
                "give the path of a JSON or YAML file",
            )
        return stream.read(size)


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
        return parse_json(text, source, limits)
    return parse_yaml(text, source, limits)


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
