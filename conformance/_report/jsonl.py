"""The JSON Lines report: written as the run goes, read back for any view.

Line 1 is the run header, then one line per case part as it ends, then (if the run finishes) a
summary with the levels and the verdict. A run killed halfway leaves every part it finished,
and the reader renders what a truncated file holds. Every line is published as
``schema/report.schema.json``, and the reader checks each one against it.
"""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Iterator, Mapping
from functools import cache
from pathlib import Path
from typing import IO, Any, TextIO

import jsonschema_rs

from conformance._basics.errors import KitError
from conformance._basics.files import NotAFile, open_regular
from conformance._basics.json_text import JsonTextError, loads
from conformance._basics.resources import schema_path
from conformance._basics.spec_versions import SpecVersionError, check_target
from conformance._basics.text import kept, without_surrogates
from conformance._judging.records import REPORT_FORMAT, PartRecord, Report, RunHeader
from conformance._judging.verdicts import judge_report
from conformance._report.outputs import STDOUT, OutputError, open_locked

__all__ = [
    "MAX_LINE_BYTES",
    "MAX_REPORT_BYTES",
    "MESSAGE_SHOWN",
    "SCHEMA",
    "JsonLinesWriter",
    "ReportError",
    "check_record",
    "levels_data",
    "read_report",
    "summary_line",
    "summary_record",
]


class ReportError(KitError):
    """A report file cannot be read: what, where (file:line), how to fix it."""


def _line(record: Mapping[str, Any]) -> str:
    return json.dumps(record, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n"


class JsonLinesWriter:
    """Streams a run to a JSON Lines file, flushed after every record.

    The file is locked while it is written (see :mod:`conformance._report.outputs`): a second
    writer is refused, never interleaved.

    Arguments:
        path: the file, or ``-`` for ``stdout``.
        header: the run header, the first line.
        stdout: the stream ``-`` means (default ``sys.stdout``).

    Raises:
        OutputError: the file cannot be written, or another command is writing it.
    """

    def __init__(
        self, path: str | Path, header: RunHeader, *, stdout: TextIO | None = None
    ) -> None:
        self._owned = str(path) != STDOUT
        self._path = "-" if not self._owned else str(path)
        self._stream: IO[str] = (
            io.TextIOWrapper(open_locked(path, "the json report"), encoding="utf-8")
            if self._owned
            else stdout or sys.stdout
        )
        try:
            self._write(header.to_dict())
        except OutputError:
            self.close()
            raise

    def _write(self, record: Mapping[str, Any]) -> None:
        """Write one line and flush it.

        Raises:
            OutputError: it cannot be written (a full disk, a file-size limit): an error of
                the kit's, which stops the run; never one of the runtime's.
        """
        try:
            try:
                self._stream.write(_line(record))
            except UnicodeEncodeError:  # a lone surrogate not caught earlier: keep it as text
                self._stream.write(_line(without_surrogates(record)))
            self._stream.flush()
        except OSError as error:
            raise OutputError(
                f"cannot write the json report {self._path}: {error.strerror or error}"
            ) from None

    def add(self, record: PartRecord) -> None:
        """Write a part's record.

        Raises:
            OutputError: see :meth:`_write`.
        """
        self._write(record.to_dict())

    def finish(self, report: Report) -> None:
        """Write the summary line of a finished run.

        Raises:
            OutputError: see :meth:`_write`.
        """
        self._write(summary_record(report))

    def close(self) -> None:
        """Close the file (flush ``stdout``); never raises: a line that could not be written
        was said by :meth:`_write`."""
        try:
            if self._owned:
                self._stream.close()
            else:
                self._stream.flush()
        except OSError:
            pass  # the buffer held a line whose error _write raised already


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
    """A :class:`~conformance._judging.levels.LevelReport` as JSON-able data."""
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


MAX_LINE_BYTES = 32 * 1024 * 1024
"""The longest line a report may have (a part record holds at most its case's pack, of at most
10 MB, and strings the kit has cut)."""
MAX_REPORT_BYTES = 512 * 1024 * 1024
"""The largest report read (the whole catalog's takes about 1 MB)."""


def _open_report(path: str | Path) -> IO[bytes]:
    """The report file opened for reading, if it is a file (see
    :mod:`conformance._basics.files`)."""
    try:
        return open_regular(path)
    except NotAFile as error:
        raise ReportError(
            f"{path}: cannot read the report: {error}; give the path of a report written by "
            "`ppconf run --report json`"
        ) from None


_COMPRESSED = (
    (b"\x1f\x8b", "gzip"),
    (b"BZh", "bzip2"),
    (b"\xfd7zXZ\x00", "xz"),
    (b"\x28\xb5\x2f\xfd", "zstd"),
    (b"PK\x03\x04", "zip"),
)
"""The first bytes of the compressed files a report may be kept in."""


def _check_not_compressed(path: str | Path, start: bytes) -> None:
    for magic, kind in _COMPRESSED:
        if start.startswith(magic):
            raise ReportError(
                f"{path}: a {kind}-compressed file; decompress it first (the kit reads the "
                "JSON Lines text `ppconf run --report json` writes)"
            )


def _lines(path: str | Path, stream: IO[bytes]) -> Iterator[tuple[int, str, bool]]:
    """``(number, text, ends with a newline)`` for each line, each at most
    :data:`MAX_LINE_BYTES` long and the file at most :data:`MAX_REPORT_BYTES`."""
    total = 0
    number = 0
    while True:
        raw = stream.readline(MAX_LINE_BYTES + 1)
        if not raw:
            return
        if number == 0:
            _check_not_compressed(path, raw)
        number += 1
        total += len(raw)
        if len(raw) > MAX_LINE_BYTES:
            raise ReportError(
                f"{path}:{number}: a line longer than {MAX_LINE_BYTES // (1024 * 1024)} MB; "
                "a report written by ppconf has none"
            )
        if total > MAX_REPORT_BYTES:
            raise ReportError(
                f"{path}: larger than {MAX_REPORT_BYTES // (1024 * 1024)} MB; a report written "
                "by ppconf is far smaller"
            )
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            raise ReportError(
                f"{path}:{number}: not UTF-8 text (byte {error.start + 1} of the line); is this "
                "a report written by `ppconf run --report json`?"
            ) from None
        yield number, text, text.endswith("\n")


def read_report(path: str | Path) -> Report:
    """Read a JSON Lines report, complete or truncated, checking every line against the schema.

    A last line cut off mid-way (the run was killed while writing it) is ignored; anything else
    malformed is an error: a file that is not a regular file, a line that is not JSON the kit
    reads (see :mod:`conformance._basics.json_text`: no lone surrogate, no over-deep nesting, no
    number of hundreds of digits) or breaks ``schema/report.schema.json``, a file that does not
    start with a run header, a report format or spec version this kit does not read, a part
    reported twice, a record after the summary.

    Arguments:
        path: the report file.

    Raises:
        ReportError: the file cannot be read, or is not a ppconf report (file:line, what, how).
    """
    header: RunHeader | None = None
    records: list[PartRecord] = []
    seen: dict[tuple[str, str], int] = {}
    complete = False
    written: dict[str, Any] | None = None
    with _open_report(path) as stream:
        for number, line, whole in _lines(path, stream):
            if not line.strip():
                continue
            try:
                data = loads(line)
            except JsonTextError as error:
                if not whole:
                    break  # the last line was being written when the run died
                raise ReportError(f"{path}:{number}: not JSON the kit reads: {error}") from None
            kind = data.get("type") if isinstance(data, dict) else None
            if header is None and kind != "run":
                raise ReportError(
                    f"{path}:{number}: no run header before this line; is this a report "
                    "written by `ppconf run --report json`?"
                )
            if kind == "run" and header is None and data.get("format") != REPORT_FORMAT:
                raise ReportError(
                    f"{path}:{number}: a report in format {data.get('format')!r:.80}; "
                    f"this kit reads {REPORT_FORMAT} (render it with the kit that wrote it, or "
                    "run again)"
                )
            problem = check_record(data)
            if problem is None and complete:
                problem = f"a {kind} record after the summary, which ends a report"
            elif problem is None and kind == "run" and header is not None:
                problem = "a second run header: one report holds one run"
            elif problem is None and kind == "run":
                problem = _spec_version_problem(data)
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
                            f"a second record of {record.case} [{record.part}] (the first is "
                            f"on line {seen[key]})"
                        )
                    seen[key] = number
                    records.append(record)
                else:
                    complete = True
                    written = data
            except (KeyError, TypeError, ValueError) as error:
                raise ReportError(
                    f"{path}:{number}: not a ppconf report record: {kept(error, 300)}"
                ) from None
    if header is None:
        raise ReportError(
            f"{path}: no run header; is this a report written by `ppconf run --report json`?"
        )
    report = Report(header, tuple(records), complete, written)
    problem = _disagreement(report, seen)
    if problem is not None:
        raise ReportError(
            f"{path}: {problem}: the report was altered after it was written; run again"
        )
    return report


def _disagreement(report: Report, lines: Mapping[tuple[str, str], int]) -> str | None:
    """Where a report's header and records disagree (None: nowhere). A report the kit wrote
    never does: its header lists the parts of the catalog it names, each record is one of them,
    and its summary counts its records."""
    header = report.header
    cases = len({case for case, _ in header.parts})
    if cases != header.catalog_cases:
        return (
            f"its header lists parts of {cases:,} cases, but a catalog of "
            f"{header.catalog_cases:,} cases"
        )
    listed = set(header.parts)
    for record in report.records:
        if (record.case, record.part) not in listed:
            line = lines.get((record.case, record.part))
            return (
                f"line {line}: {kept(record.case, 80)} [{kept(record.part, 80)}] is not a part "
                "its header lists"
            )
    if report.written is not None:
        counts = report.written.get("counts")
        if counts != report.counts():
            return f"its summary counts {counts}, but its records make {report.counts()}"
    return None


def _spec_version_problem(data: Mapping[str, Any]) -> str | None:
    """What is wrong with a run header's spec versions (None: nothing): each must be one this
    kit knows, written as it writes them, and the two must agree."""
    version = data["spec_version"]
    try:
        known = check_target(version)
    except SpecVersionError as error:
        return f"the run assessed {error}"
    if known != version:
        return f"spec version {version!r} is written {known!r} by the kit"
    chosen = data["selection"]["spec_version"]
    if chosen != version:
        return f"the selection's spec version {kept(chosen, 40)!r} is not the run's, {version!r}"
    return None
