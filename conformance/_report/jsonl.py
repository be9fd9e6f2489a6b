"""The JSON Lines report: written as the run goes, read back for any view.

Line 1 is the run header, then one line per case part as it ends, then (if the run finishes) a
summary with the levels and the verdict. A run killed halfway leaves every part it finished,
and the reader renders what a truncated file holds. Every line is published as
``schema/report.schema.json``, and the reader checks each one against it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import IO, Any

import jsonschema_rs

from conformance._errors import KitError
from conformance._records import REPORT_FORMAT, PartRecord, Report, RunHeader
from conformance._resources import schema_path
from conformance._verdicts import judge_report


class ReportError(KitError):
    """A report file cannot be read: what, where (file:line), how to fix it."""


def _line(record: Mapping[str, Any]) -> str:
    return json.dumps(record, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n"


class JsonLinesWriter:
    """Streams a run to a JSON Lines file, flushed after every record."""

    def __init__(self, path: str | Path, header: RunHeader) -> None:
        self._stream: IO[str] = open(path, "w", encoding="utf-8")  # noqa: SIM115
        self._write(header.to_dict())

    def _write(self, record: Mapping[str, Any]) -> None:
        self._stream.write(_line(record))
        self._stream.flush()

    def add(self, record: PartRecord) -> None:
        self._write(record.to_dict())

    def finish(self, report: Report) -> None:
        """Write the summary line of a finished run."""
        self._write(summary_record(report))

    def close(self) -> None:
        self._stream.close()


def summary_record(report: Report) -> dict[str, Any]:
    """The ``summary`` record of a run: its counts, levels and verdict (what ``ppconf run
    --format json`` prints, too)."""
    return {
        "type": "summary",
        "counts": report.counts(),
        "levels": levels_data(report.levels()),
        "verdict": judge_report(report).to_dict(),
    }


def summary_line(report: Report) -> str:
    """The ``summary`` record as the report's last line holds it (one line, keys sorted)."""
    return _line(summary_record(report))


def levels_data(levels: Any) -> dict[str, Any]:
    """A :class:`~conformance._levels.LevelReport` as JSON-able data."""
    return {
        "spec_version": levels.spec_version,
        "partial": levels.partial,
        "headline": levels.headline,
        "headline_areas": list(levels.headline_areas),
        "claim_notes": list(levels.claim_notes),
        "areas": [
            {
                "area": a.area,
                "level": a.level,
                "top": a.top,
                "blocking": list(a.blocking),
                "reason": a.reason,
                "must": list(a.must),
                "should": list(a.should),
                "may": list(a.may),
            }
            for a in levels.areas
        ],
    }


SCHEMA = "report.schema.json"
"""The published schema of the report's lines (``schema/report.schema.json``)."""

MESSAGE_SHOWN = 200
"""Characters of a schema error message shown: an error on a large value quotes all of it."""


@cache
def _validator(kind: str) -> Any:
    with open(schema_path(SCHEMA), encoding="utf-8") as stream:
        schema = json.load(stream)
    # The record's own definition, not the schema's root (a oneOf of the three kinds, whose
    # error would say only that the line matches none of them).
    return jsonschema_rs.validator_for(
        {"$schema": schema["$schema"], "$defs": schema["$defs"], "$ref": f"#/$defs/{kind}"}
    )


def check_record(data: Any) -> str | None:
    """What is wrong with one line of a report, as the schema sees it (None: nothing).

    Arguments:
        data: the line, parsed.
    """
    kind = data.get("type") if isinstance(data, dict) else None
    if kind not in ("run", "part", "summary"):
        return f"not a report record: its type is {kind!r}, not run, part or summary"
    for error in _validator(kind).iter_errors(data):
        where = "/" + "/".join(map(str, error.instance_path))
        message = error.message
        if len(message) > MESSAGE_SHOWN:
            message = message[:MESSAGE_SHOWN] + "..."
        return f"the {kind} record breaks schema/{SCHEMA} at {where}: {message}"
    return None


def read_report(path: str | Path) -> Report:
    """Read a JSON Lines report, complete or truncated, checking every line against the schema.

    A last line cut off mid-way (the run was killed while writing it) is ignored; anything else
    malformed is an error: a line that is not JSON or breaks ``schema/report.schema.json``, a
    file that does not start with a run header, a report format this kit does not read, a
    part reported twice, a record after the summary.

    Arguments:
        path: the report file.

    Raises:
        ReportError: the file cannot be read, or is not a ppconf report (file:line, what, how).
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ReportError(f"{path}: cannot read the report: {error}") from None
    lines = text.splitlines()
    header: RunHeader | None = None
    records: list[PartRecord] = []
    seen: dict[tuple[str, str], int] = {}
    complete = False
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as error:
            if number == len(lines) and not text.endswith("\n"):
                break  # the last line was being written when the run died
            raise ReportError(f"{path}:{number}: not JSON: {error.msg}") from None
        kind = data.get("type") if isinstance(data, dict) else None
        if header is None and kind != "run":
            raise ReportError(
                f"{path}:{number}: no run header before this line; is this a report written by "
                "`ppconf run --report json`?"
            )
        if kind == "run" and header is None and data.get("format") != REPORT_FORMAT:
            raise ReportError(
                f"{path}:{number}: a report in format {data.get('format')!r}; this kit reads "
                f"{REPORT_FORMAT} (render it with the kit that wrote it, or run again)"
            )
        problem = check_record(data)
        if problem is None and complete:
            problem = f"a {kind} record after the summary, which ends a report"
        elif problem is None and kind == "run" and header is not None:
            problem = "a second run header: one report holds one run"
        if problem is not None:
            raise ReportError(f"{path}:{number}: {problem}")
        try:
            if kind == "run":
                header = RunHeader.from_dict(data)
            elif kind == "part":
                record = PartRecord.from_dict(data)
                key = (record.case, record.part)
                if key in seen:
                    raise ValueError(
                        f"a second record of {record.case} [{record.part}] (the first is on "
                        f"line {seen[key]})"
                    )
                seen[key] = number
                records.append(record)
            else:
                complete = True
        except (KeyError, TypeError, ValueError) as error:
            raise ReportError(f"{path}:{number}: not a ppconf report record: {error}") from None
    if header is None:
        raise ReportError(
            f"{path}: no run header; is this a report written by `ppconf run --report json`?"
        )
    return Report(header, tuple(records), complete)
