"""What every ``ppconf`` command shares: exit statuses, the one-line error and ``--format``."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from typing import Any, TextIO

from conformance._basics.text import terminal, without_surrogates
from conformance._options import MAX_EXAMPLES, whole_number

__all__ = [
    "EXIT_FAILED",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_UNUSABLE",
    "JSON",
    "TEXT",
    "add_format_option",
    "positive_int",
    "print_json",
    "report_error",
]

EXIT_OK = 0
EXIT_FAILED = 1
"""The input was read, and is invalid, or a run or check did not pass."""
EXIT_UNUSABLE = 2
"""The input could not be used: unreadable file, malformed case, bad arguments, broken adapter."""
EXIT_INTERRUPTED = 130


def report_error(message: str) -> None:
    """Print one ``ppconf: error: ...`` line on stderr (what a runtime put in it written out:
    no line or escape sequence of its own)."""
    print(f"ppconf: error: {terminal(message)}", file=sys.stderr)


positive_int = whole_number(MAX_EXAMPLES)
"""A whole number from 1 to :data:`MAX_EXAMPLES`."""


TEXT = "for people (the default)"
JSON = "one JSON document for programs, its shape published in schema/{schema}"


def add_format_option(
    parser: argparse.ArgumentParser,
    *,
    schema: str,
    views: Mapping[str, str] | None = None,
    default: str = "text",
    text: bool = True,
) -> None:
    """The one ``--format`` every command has: ``text`` for people (the default), ``json`` for
    programs (its shape published as ``schema/SCHEMA``, which the tests hold it to), then the
    command's own views.

    Arguments:
        parser: the command's parser.
        schema: the file under ``schema/`` that describes the command's JSON (a fragment,
            ``report.schema.json#/$defs/summary``, for one part of a schema).
        views: the command's own formats, name -> what it is.
        default: the format without ``--format``.
        text: whether the command has a ``text`` view (a drawing has only its languages).
    """
    formats = {"text": TEXT} if text else {}
    formats["json"] = JSON.format(schema=schema)
    formats.update(views or {})
    described = "; ".join(f"{name}: {what}" for name, what in formats.items())
    parser.add_argument(
        "--format",
        choices=tuple(formats),
        default=default,
        help=f"the output: {described} (default {default})",
    )


def print_json(data: Any, out: TextIO) -> None:
    """Print ``data`` as the JSON every command prints: indented, keys in the order built,
    text as is (not ASCII-escaped, a lone surrogate written out as ``\\ud800``), no NaN."""
    # A lone surrogate (a runtime's answer, a fuzzed string) is no character: written out.
    json.dump(without_surrogates(data), out, indent=2, ensure_ascii=False, allow_nan=False)
    out.write("\n")
