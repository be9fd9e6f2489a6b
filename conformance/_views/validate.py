"""``ppconf validate``'s work: which files to read, and each one's diagnostics, located.

Inputs are files, directories (searched recursively for the file names that match the patterns,
hidden directories skipped, in sorted order) and ``-`` (standard input). Each becomes one
:class:`PackResult`: the file could not be loaded (:class:`LoadFailure`), or it was, with the
validator's diagnostics, each with its line and column (JSON and YAML alike). The views of the
results are in ``conformance._views.validate_views``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, BinaryIO

import reference
from conformance._basics.errors import KitError

DEFAULT_PATTERNS = ("*.json", "*.yaml", "*.yml")
"""The file names a directory is searched for, unless ``--pattern`` says otherwise."""

STDIN = "-"
"""The input that stands for standard input."""


@dataclass(frozen=True)
class Finding:
    """One diagnostic of the validator, with where it is in the file.

    Attributes:
        code, severity, path, message: as :class:`reference.Diagnostic` (``path`` is the JSON
            pointer).
        line, column: 1-based, where the value at ``path`` starts (None where it is not in the
            file, e.g. a missing field's pointer).
    """

    code: str
    severity: str
    path: str
    message: str
    line: int | None
    column: int | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "severity": self.severity,
            "path": self.path,
            "message": self.message,
            "line": self.line,
            "column": self.column,
        }


@dataclass(frozen=True)
class LoadFailure:
    """Why a file could not be read as a pack: what, where, and how to fix it."""

    message: str
    hint: str
    line: int | None
    column: int | None
    path: str | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "message": self.message,
            "hint": self.hint,
            "line": self.line,
            "column": self.column,
            "path": self.path,
        }


@dataclass(frozen=True)
class PackResult:
    """What ``ppconf validate`` found in one input.

    Attributes:
        file: the input as it is shown (the path as found, or the name given to stdin).
        load_error: why it could not be loaded, or None.
        diagnostics: the validator's findings (none when it could not be loaded), errors first.
    """

    file: str
    load_error: LoadFailure | None
    diagnostics: tuple[Finding, ...] = ()

    @property
    def valid(self) -> bool:
        """Loaded, and no error (warnings never make a pack invalid)."""
        return self.load_error is None and not any(d.severity == "error" for d in self.diagnostics)

    @property
    def errors(self) -> int:
        return sum(d.severity == "error" for d in self.diagnostics)

    @property
    def warnings(self) -> int:
        return sum(d.severity == "warning" for d in self.diagnostics)

    def to_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "valid": self.valid,
            "load_error": self.load_error.to_dict() if self.load_error else None,
            "diagnostics": [d.to_dict() for d in self.diagnostics],
        }


@dataclass(frozen=True)
class Input:
    """One pack to read: a file, or standard input (``path`` None) shown as ``name``."""

    name: str
    path: str | None


def find_inputs(
    arguments: Sequence[str], patterns: Sequence[str] = DEFAULT_PATTERNS, stdin_name: str = STDIN
) -> list[Input]:
    """The packs the command-line arguments name, in the order given.

    A file is read whatever its name; a directory gives the files below it whose name (or path
    below it) matches one of ``patterns`` (``*.yaml``, ``packs/*.json``), sorted, skipping
    hidden directories (``.git``, ``.venv``) and not following symbolic links to directories;
    ``-`` is standard input, shown as ``stdin_name``.

    Raises:
        KitError: ``-`` given twice, or a directory holding no matching file.
    """
    found: list[Input] = []
    for argument in arguments:
        if argument == STDIN:
            if any(i.path is None for i in found):
                raise KitError("- (standard input) is given twice; it can be read once")
            found.append(Input(stdin_name, None))
        elif os.path.isdir(argument):
            files = list(_walk(argument, patterns))
            if not files:
                raise KitError(
                    f"{argument}: the directory holds no file matching {', '.join(patterns)} "
                    "(give the packs' pattern with --pattern)"
                )
            found.extend(Input(f, f) for f in files)
        else:  # a file, or a path that names nothing: reading it says which
            found.append(Input(argument, argument))
    return found


def _walk(root: str, patterns: Sequence[str]) -> Iterable[str]:
    for directory, subdirectories, names in os.walk(root):
        subdirectories[:] = sorted(d for d in subdirectories if not d.startswith("."))
        below = PurePosixPath(Path(directory).relative_to(root).as_posix())
        for name in sorted(names):
            if any((below / name).match(pattern) for pattern in patterns):
                yield os.path.join(directory, name)


def validate_input(
    source: Input,
    stdin: BinaryIO | None = None,
    limits: reference.Limits = reference.DEFAULT_LIMITS,
) -> PackResult:
    """Load and validate one input (``stdin``: where standard input is read from) under
    ``limits``."""
    try:
        if source.path is None:
            document = _read_stdin(source.name, stdin or sys.stdin.buffer, limits)
        else:
            document = reference.read_document(source.path, limits=limits)
        _check_root(document, source.name)
    except reference.PackLoadError as error:
        where = error.location
        failure = LoadFailure(error.message, error.hint, where.line, where.column, where.pointer)
        return PackResult(source.name, failure)
    findings = []
    for diagnostic in reference.validate(document.data):
        location = document.locate(diagnostic.path)
        findings.append(
            Finding(
                diagnostic.code,
                diagnostic.severity,
                diagnostic.path,
                diagnostic.message,
                location.line,
                location.column,
            )
        )
    return PackResult(source.name, None, tuple(findings))


def _read_stdin(name: str, stream: BinaryIO, limits: reference.Limits) -> reference.Document:
    """A pack from standard input: JSON or YAML as ``name``'s extension says, else guessed
    (``{`` first: JSON)."""
    data = stream.read(limits.max_bytes + 1)
    lowered = name.lower()
    format: Any = (
        "json"
        if lowered.endswith(".json")
        else "yaml"
        if lowered.endswith((".yaml", ".yml"))
        else None
    )
    return reference.parse_document(data, format=format, source=name, limits=limits)


def _check_root(document: reference.Document, name: str) -> None:
    """Refuse a document that is no mapping, saying where its value starts."""
    if not isinstance(document.data, dict):
        where = document.locate("")
        raise reference.PackLoadError(
            f"a pack is a mapping of fields, but the document holds {_kind(document.data)}",
            reference.Location(name, where.line, where.column, ""),
            "start the pack with 'id:', 'name:', 'version:' ...",
        )


def _kind(value: Any) -> str:
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    return "nothing (null)" if value is None else "a number"


__all__ = [
    "DEFAULT_PATTERNS",
    "STDIN",
    "Finding",
    "Input",
    "LoadFailure",
    "PackResult",
    "find_inputs",
    "validate_input",
]
