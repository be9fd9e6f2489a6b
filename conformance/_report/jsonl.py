"""The JSON Lines report: written as the run goes, read back for any view.

Line 1 is the run header, then one line per case part as it ends, then (if the run finishes) a
summary with the levels and the verdict. A run killed halfway leaves every part it finished,
and the reader renders what a truncated file holds.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

from conformance._errors import KitError
from conformance._records import PartRecord, Report, RunHeader
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
        levels = report.levels()
        self._write(
            {
                "type": "summary",
                "counts": report.counts(),
                "levels": levels_data(levels),
                "verdict": judge_report(report).to_dict(),
            }
        )

    def close(self) -> None:
        self._stream.close()


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


def read_report(path: str | Path) -> Report:
    """Read a JSON Lines report, complete or truncated.

    A last line cut off mid-way (the run was killed while writing it) is ignored; anything else
    malformed is an error.

    Raises:
        ReportError: the file cannot be read, or is not a ppconf report.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ReportError(f"{path}: cannot read the report: {error}") from None
    lines = text.splitlines()
    header: RunHeader | None = None
    records: list[PartRecord] = []
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
            break
        try:
            if kind == "run" and header is None:
                header = RunHeader.from_dict(data)
            elif kind == "part" and header is not None:
                records.append(PartRecord.from_dict(data))
            elif kind == "summary" and header is not None:
                complete = True
            else:
                raise ValueError(f"unexpected record type {kind!r}")
        except (KeyError, TypeError, ValueError) as error:
            raise ReportError(
                f"{path}:{number}: not a ppconf report record ({type(error).__name__}: {error})"
            ) from None
    if header is None:
        raise ReportError(
            f"{path}: no run header; is this a report written by `ppconf run --report json`?"
        )
    return Report(header, tuple(records), complete)
