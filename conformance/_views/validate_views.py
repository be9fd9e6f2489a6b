"""The views of ``ppconf validate``'s results: ``text`` for people and editors
(``file:line:col: severity [code] /pointer: message``), ``json`` (published as
``schema/validate.schema.json``), ``github`` (workflow commands that annotate the files of a
GitHub Actions run) and ``sarif`` (SARIF 2.1.0, for code scanning and SARIF viewers).

Every string here comes from a pack (names, keys, paths): each view escapes it for its medium,
so that it stays text.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import PurePath
from typing import Any
from urllib.parse import quote

from conformance._basics.text import terminal
from conformance._catalog.codes import CODES, LOAD_ERROR, Code, describe
from conformance._catalog.statements import builtin
from conformance._judging.records import kit_version
from conformance._views.validate import Finding, LoadFailure, PackResult

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
"""The SARIF 2.1.0 schema (OASIS, errata 01), which ``tests/`` checks the output against."""


# -- text -------------------------------------------------------------------------------------


def render_text(results: Sequence[PackResult]) -> tuple[str, str]:
    """The text view: (what goes to stdout, what goes to stderr: the files that cannot load)."""
    out: list[str] = []
    err: list[str] = []
    for result in results:
        failure = result.load_error
        if failure is not None:
            hint = f"\n  hint: {terminal(failure.hint)}" if failure.hint else ""
            where = _where(result.file, failure.line, failure.column)
            # The diagnostics' shape, `severity [code] pointer:`, which problem matchers read.
            code = f"error [{LOAD_ERROR.code}] {terminal(failure.path or '/')}"
            err.append(f"{where}: {code}: cannot load: {terminal(failure.message)}{hint}")
            continue
        for d in result.diagnostics:
            where = _where(result.file, d.line, d.column)
            shown = f"{d.severity} [{d.code}] {d.path or '/'}: {d.message}"
            out.append(f"{where}: {terminal(shown)}")
        verdict = "valid" if result.valid else "invalid"
        counts = f"{_plural(result.errors, 'error')}, {_plural(result.warnings, 'warning')}"
        out.append(f"{terminal(result.file)}: {verdict} ({counts})")
    return _lines(out), _lines(err)


def _where(file: str, line: int | None, column: int | None) -> str:
    shown = terminal(file)  # a file name may hold any character but / and NUL
    if line is None:
        return shown
    return f"{shown}:{line}" if column is None else f"{shown}:{line}:{column}"


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _lines(lines: list[str]) -> str:
    return "".join(line + "\n" for line in lines)


# -- json -------------------------------------------------------------------------------------


def render_json(results: Sequence[PackResult]) -> str:
    """``{"files": [...]}``, one entry per input in order (``schema/validate.schema.json``)."""
    data = {"files": [result.to_dict() for result in results]}
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


# -- github -----------------------------------------------------------------------------------


def render_github(results: Sequence[PackResult]) -> str:
    """One ``::error`` or ``::warning`` workflow command per diagnostic and per file that cannot
    be loaded, with its file, line and column: GitHub Actions shows each on that line of the
    file. Valid files print nothing."""
    lines = []
    for result in results:
        failure = result.load_error
        if failure is not None:
            lines.append(
                _command(
                    "error",
                    result.file,
                    line=failure.line,
                    column=failure.column,
                    title=f"ppconf {LOAD_ERROR.code}",
                    message=_load_message(failure),
                )
            )
        for d in result.diagnostics:
            lines.append(
                _command(
                    d.severity,
                    result.file,
                    line=d.line,
                    column=d.column,
                    title=f"ppconf {d.code}",
                    message=f"{d.path or '/'}: {d.message}",
                )
            )
    return _lines(lines)


def _command(
    kind: str, file: str, *, line: int | None, column: int | None, title: str, message: str
) -> str:
    properties = [("file", file)]
    if line is not None:
        properties.append(("line", str(line)))
        if column is not None:
            properties.append(("col", str(column)))
    properties.append(("title", title))
    shown = ",".join(f"{name}={escape_property(value)}" for name, value in properties)
    return f"::{kind} {shown}::{escape_data(message)}"


def escape_data(text: str) -> str:
    """A workflow command's message, escaped as GitHub's toolkit does (``%``, CR, LF): a
    newline in a pack's name can neither end the command nor start another one."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A workflow command's property value: as :func:`escape_data`, and ``:`` and ``,``,
    which would end the value."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _load_message(failure: LoadFailure) -> str:
    hint = f" ({failure.hint})" if failure.hint else ""
    return f"cannot load: {failure.message}{hint}"


# -- sarif ------------------------------------------------------------------------------------


def render_sarif(
    results: Sequence[PackResult], *, describe_code: Callable[[str], Code] = describe
) -> str:
    """A SARIF 2.1.0 log of one run: a rule per diagnostic code (every code the validator
    has, and ``load-error``), a result per diagnostic and per file that cannot be loaded, with
    its file, line and column (in Unicode code points) and the JSON pointer in its property
    bag.

    Arguments:
        results: what ``ppconf validate`` found.
        describe_code: the code -> its :class:`~conformance._catalog.codes.Code` (a test may give
            codes their statements).
    """
    seen = [d.code for r in results for d in r.diagnostics if d.code not in CODES]
    codes = [*CODES, LOAD_ERROR.code, *sorted(set(seen))]
    rules = [_rule(describe_code(code)) for code in codes]
    index = {code: number for number, code in enumerate(codes)}
    sarif_results = []
    for result in results:
        failure = result.load_error
        if failure is not None:
            sarif_results.append(
                _result(
                    LOAD_ERROR.code,
                    index,
                    level="error",
                    message=_load_message(failure),
                    file=result.file,
                    line=failure.line,
                    column=failure.column,
                    pointer=failure.path,
                )
            )
        sarif_results.extend(_finding(d, index, result.file) for d in result.diagnostics)
    log = {
        "$schema": SARIF_SCHEMA,
        "version": SARIF_VERSION,
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "ppconf",
                        "version": kit_version(),
                        "rules": rules,
                    }
                },
                "columnKind": "unicodeCodePoints",
                "results": sarif_results,
            }
        ],
    }
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


def _rule(code: Code) -> dict[str, Any]:
    rule: dict[str, Any] = {
        "id": code.code,
        "name": "".join(word.capitalize() for word in code.code.split("-")),
        "shortDescription": {"text": code.summary},
        "defaultConfiguration": {"level": code.severity},
        "properties": {"tags": ["promptpack", code.severity]},
    }
    if code.statements:
        # The RFC statements naming the code's condition: a viewer shows them as the rule's help.
        rule["properties"]["statements"] = list(code.statements)
        registry = builtin()
        cited = [
            f"{i} ({s.source}, {s.section}): {' '.join(s.quote.split())}"
            if (s := registry.get(i)) is not None
            else i
            for i in code.statements
        ]
        rule["help"] = {"text": f"{code.summary}. Named by: " + "; ".join(cited)}
    return rule


def _finding(d: Finding, index: dict[str, int], file: str) -> dict[str, Any]:
    message = f"{d.message} (at {d.path or '/'})"
    return _result(
        d.code,
        index,
        level=d.severity,
        message=message,
        file=file,
        line=d.line,
        column=d.column,
        pointer=d.path,
    )


def _result(
    code: str,
    index: dict[str, int],
    *,
    level: str,
    message: str,
    file: str,
    line: int | None,
    column: int | None,
    pointer: str | None,
) -> dict[str, Any]:
    physical: dict[str, Any] = {"artifactLocation": {"uri": artifact_uri(file)}}
    if line is not None:
        region = {"startLine": line}
        if column is not None:
            region["startColumn"] = column
        physical["region"] = region
    result: dict[str, Any] = {
        "ruleId": code,
        "ruleIndex": index[code],
        "level": level,
        "message": {"text": message},
        "locations": [{"physicalLocation": physical}],
    }
    if pointer is not None:
        result["properties"] = {"pointer": pointer}
    return result


def artifact_uri(file: str) -> str:
    """A file as a SARIF artifact URI: relative paths stay relative (code scanning resolves
    them against the repository), with ``/`` separators and percent-escapes; absolute ones
    become ``file:`` URIs."""
    path = PurePath(file)
    if path.is_absolute():
        return path.as_uri()
    return quote(path.as_posix(), safe="/")


VIEWS: dict[str, Callable[[Sequence[PackResult]], str]] = {
    "json": render_json,
    "github": render_github,
    "sarif": render_sarif,
}
"""The views written whole to stdout (``text`` also writes to stderr: see :func:`render_text`)."""


__all__ = [
    "SARIF_SCHEMA",
    "SARIF_VERSION",
    "VIEWS",
    "artifact_uri",
    "escape_data",
    "escape_property",
    "render_github",
    "render_json",
    "render_sarif",
    "render_text",
]
