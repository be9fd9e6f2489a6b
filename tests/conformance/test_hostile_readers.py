"""Readers refuse what is not a regular file of sane size, with one line and exit 2; ``report``
never takes an existing file that is neither a report nor a view for its output; and what the
kit prints never fails to encode.
"""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hostile import ONE, one_error, ppconf
from report_files import ReportFiles

from conformance._report import jsonl

HERE = Path(__file__).resolve().parent
PPCONF = [sys.executable, "-m", "conformance"]


def test_report_never_overwrites_an_existing_file_that_is_no_view(
    capsys: pytest.CaptureFixture[str], report_file: ReportFiles, tmp_path: Path
) -> None:
    """NEW-4: ``ppconf report base.jsonl old.jsonl.gz`` overwrote the gzip file with a view."""
    base = report_file("reference")
    packed = tmp_path / "old.jsonl.gz"
    packed.write_bytes(gzip.compress(base.read_bytes()))
    before = packed.read_bytes()
    status, out, err = ppconf(capsys, "report", base, packed)
    assert status == 2
    assert out == ""
    one_error(err, f"{packed} exists and is not a report", f"--output {packed}")
    assert packed.read_bytes() == before
    view = tmp_path / "view.md"
    for _ in range(2):  # a view written before is a view to write again
        assert ppconf(capsys, "report", base, view)[0] == 0
    assert "PASSED" in view.read_text("utf-8")


def test_a_compressed_report_is_said_to_be_one(
    capsys: pytest.CaptureFixture[str], report_file: ReportFiles, tmp_path: Path
) -> None:
    packed = tmp_path / "old.jsonl.gz"
    packed.write_bytes(gzip.compress(report_file("reference").read_bytes()))
    status, _, err = ppconf(capsys, "report", packed)
    assert status == 2
    one_error(err, "a gzip-compressed file; decompress it first")


@pytest.mark.parametrize("where", ["last", "only", "compare"])
@pytest.mark.parametrize("kind", ["folder", "fifo", "device", "deep"])
def test_what_is_no_report_is_one_error_wherever_it_is_given(
    capsys: pytest.CaptureFixture[str],
    report_file: ReportFiles,
    tmp_path: Path,
    kind: str,
    where: str,
) -> None:
    """NEW-4, NEW-8: a folder gave a traceback (report and compare), a FIFO as the last
    argument hung, /dev/zero ran out of memory, a deeply nested line a RecursionError."""
    base = report_file("reference")
    if kind == "folder":
        path = tmp_path
    elif kind == "fifo":
        path = tmp_path / "pipe"
        os.mkfifo(path)
    elif kind == "device":
        path = Path("/dev/zero")
    else:
        path = tmp_path / "deep.jsonl"
        path.write_text("[" * 100_000 + "\n", "utf-8")
    args = {
        "last": ("report", base, path),
        "only": ("report", path),
        "compare": ("compare", base, path),
    }[where]
    status, out, err = ppconf(capsys, *args)
    assert status == 2
    assert out == ""
    if kind == "deep" and where == "last":
        one_error(err, "exists and is not a report")
    else:
        one_error(err, str(path))


def test_the_matrix_refuses_reports_too_large_together(
    capsys: pytest.CaptureFixture[str],
    report_file: ReportFiles,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """NEW-21: four reports of 228 MB each ran out of memory after 101 s; each was under the
    limit of one report."""
    base = report_file("reference")
    size = base.stat().st_size
    monkeypatch.setattr(jsonl, "MAX_REPORT_BYTES", size * 3)
    monkeypatch.setattr("conformance._cli.report.MAX_REPORT_BYTES", size * 3)
    copies = []
    for n in range(4):
        copy = tmp_path / f"r{n}.jsonl"
        copy.write_bytes(base.read_bytes())
        copies.append(copy)
    status, _, err = ppconf(capsys, "report", *copies, "--output", tmp_path / "m.md")
    assert status == 2
    one_error(err, "the 4 reports add up to", "more than the")
    assert ppconf(capsys, "report", *copies[:3], "--output", tmp_path / "m.md")[0] == 0


def test_output_that_the_terminal_cannot_encode_is_escaped(tmp_path: Path) -> None:
    """NEW-22: ``PYTHONIOENCODING=ascii`` and a runtime named beyond ASCII: a traceback."""
    done = subprocess.run(
        [*PPCONF, "run", "--adapter", "hostile:NonAsciiName", *ONE],
        capture_output=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(HERE), "PYTHONIOENCODING": "ascii"},
        check=False,
    )
    assert done.returncode == 1, done.stderr
    assert b"Traceback" not in done.stderr
    assert b"\\xdcn\\xefc\\xf8d\\xe9" in done.stdout
