"""Reports of whole-catalog runs, as ``ppconf run --report json`` writes them, made once per test
process: the report, compare and schema tests read the same files.

``report_file(adapter)`` (the fixture in each of those modules) returns the path of the report
of the built-in catalog (the session's cached copy) against ``adapter`` (``reference``,
``fakes:Name``, ``breaking:Name``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance._cli import main

_MADE: dict[str, Path] = {}


def make_report(adapter: str, folder: Path, *extra: str) -> Path:
    """The report of a run of the catalog against ``adapter`` (made on first use).

    Arguments:
        adapter: the adapter spec.
        folder: where to write it, when it is not made yet.
        extra: more ``ppconf run`` options (part of the cache key).
    """
    key = " ".join((adapter, *extra))
    if key not in _MADE:
        path = folder / f"{len(_MADE)}-{adapter.replace(':', '-')}.jsonl"
        status = main(["run", "--adapter", adapter, "--report", "json", str(path), *extra])
        assert status in (0, 1, 130), f"ppconf run --adapter {adapter} exited {status}"
        _MADE[key] = path
    return _MADE[key]


class ReportFiles:
    """``files(adapter, *options)``: the path of a report (see the module docstring); what the
    run prints is dropped, so that a test sees only what it prints itself."""

    def __init__(self, factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]) -> None:
        self.factory = factory
        self.capsys = capsys

    def __call__(self, adapter: str, *extra: str) -> Path:
        path = make_report(adapter, self.factory.getbasetemp(), *extra)
        self.capsys.readouterr()
        return path
