"""One writer contract, one reader: every report the kit writes reads back, whatever the runtime
sent; and the kit's own write errors are the kit's, never the runtime's.

A runtime's answer can be of any size and shape; a record is not. Shortening keeps the schema's
types (a list stays a list, with an elision marker the schema allows), so ``report`` (every
view), ``compare`` and the matrix read back what ``run`` wrote. A log or report the kit cannot
write (a full disk, a file-size limit) stops the run with one error, exit 2: no runtime is
judged by what the kit could not write.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from hostile import LONG, deep, one_error, ppconf
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from conformance._basics.text import ELIDED, TEXT_LIMIT, kept_data
from conformance._catalog.cases import Catalog
from conformance._cli import main
from conformance._judging.checks import Check
from conformance._judging.records import PartRecord, Report
from conformance._judging.runner import PartResult
from conformance._report.jsonl import JsonLinesWriter, check_record, read_report
from conformance._report.views import VIEWS

HERE = Path(__file__).resolve().parent
LONG_PATH = ("--id", "workflow.execution.history-complete")
"""A case of 101 transitions: ``hostile:LosesOldestHistory`` diverges after 100 of them."""
ODD = [
    "\x1b[2J",
    "\x00\x07\x9b",
    "\u202e",
    "\u2028",
    "\ud800",
    "::error file=x::owned",
    "</details>",
    "<script>",
    "https://evil.example",
    "| a | b |\n|---|---|",
    "```",
    "\U0001f600",
]
"""Unicode oddities and markup a runtime may put in any string."""


def reads_back(capsys: pytest.CaptureFixture[str], report: Path, other: Path) -> None:
    """``report`` validates line by line, and every reader takes it: each view of ``report``,
    ``compare`` both ways in both formats, the matrix in each of its views."""
    lines = report.read_text("utf-8").split("\n")[:-1]  # not splitlines(): U+2028 is text
    for number, line in enumerate(lines, start=1):
        assert check_record(json.loads(line)) is None, f"line {number}"
    for fmt in ("json", *VIEWS):
        status, out, err = ppconf(capsys, "report", report, "--format", fmt)
        assert status == 0, err
        assert out
    for old, new in ((report, other), (other, report)):
        for fmt in ("text", "json", "md"):
            status, _, err = ppconf(capsys, "compare", old, new, "--format", fmt)
            assert status in (0, 1), err
            assert "error" not in err
    for fmt in ("text", "md", "html"):
        status, out, err = ppconf(capsys, "report", report, other, "--format", fmt)
        assert status == 0, err


@pytest.mark.usefixtures("fakes_importable")
def test_a_failure_after_a_long_path_reads_back_everywhere(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """NEW-1: the path of a failure 85 or more transitions long was cut into a string, which
    the schema refuses: report, compare and the matrix all failed on the run's own report."""
    report, reference = tmp_path / "hostile.jsonl", tmp_path / "reference.jsonl"
    status, _, err = ppconf(
        capsys, "run", "--adapter", "hostile:LosesOldestHistory", *LONG_PATH, "--report", "json",
        report,
    )  # fmt: skip
    assert status == 0, err  # a MAY case: a finding, not a failure of the run
    assert ppconf(capsys, "run", *LONG_PATH, "--report", "json", reference)[0] == 0
    record = next(r for r in read_report(report).records if not r.passed)
    detail = next(c.detail for c in record.checks if "path" in c.detail)
    path = detail["path"]
    assert isinstance(path, list)
    assert len(path) < 100  # shortened ...
    marker = next(t for t in path if ELIDED in t)
    assert len(path) - 1 + marker[ELIDED] == 100  # ... saying how many it left out
    assert path[0] == {"from": "idle", "to": "ping", "event": "Start"}  # the head kept
    assert path[-1]["to"] != "ping" or path[-1]["from"] != "pong"  # and the (hostile) tail
    reads_back(capsys, report, reference)


_TEXT = st.one_of(st.sampled_from(ODD), st.text(max_size=40), st.just(LONG[:20_000]))
_LEAF = st.one_of(st.none(), st.booleans(), st.integers(-(10**30), 10**30), _TEXT)
_JSON = st.recursive(
    _LEAF,
    lambda inner: st.one_of(
        st.lists(inner, max_size=300), st.dictionaries(_TEXT, inner, max_size=60)
    ),
    max_leaves=400,
)
_TRANSITION = st.fixed_dictionaries({"from": _TEXT, "to": _TEXT, "event": _TEXT})
_DETAIL = st.fixed_dictionaries(
    {
        "path": st.lists(_TRANSITION, max_size=300),
        "step": st.integers(1, 10**6),
        "step_text": _TEXT,
        "start": _TEXT,
        "field": _TEXT,
        "expected": st.one_of(_JSON, st.just(deep(300))),
        "actual": st.one_of(_JSON, st.just(deep(300))),
    },
    optional={
        "differences": st.lists(
            st.fixed_dictionaries({"field": _TEXT, "expected": _JSON, "actual": _JSON}),
            max_size=200,
        ),
        "line": st.integers(1, 10**6),
    },
)


@given(value=st.one_of(_JSON, st.just(deep(300))))
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_shortening_keeps_the_type_and_bounds_the_size(value: Any) -> None:
    kept = kept_data(value)
    assert type(kept) is type(value) or value is None
    assert len(json.dumps(kept, ensure_ascii=False)) <= 2 * TEXT_LIMIT
    text = json.dumps(kept)  # no lone surrogate is left: the report is UTF-8
    text.encode("utf-8")
    if isinstance(value, list) and kept != value:
        assert any(isinstance(i, dict) and set(i) == {ELIDED} for i in kept) or len(kept) == len(
            value
        )


@pytest.fixture(scope="module")
def base_report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Report, Path]:
    """The reference's report of the long case."""
    base = tmp_path_factory.mktemp("writer") / "base.jsonl"
    assert main(["run", *LONG_PATH, "--report", "json", str(base)]) == 0
    return read_report(base), base


@given(detail=_DETAIL, message=_TEXT)
@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    # Each example renders every view: shrinking a failure of megabytes would take minutes, and
    # the failure says which reader refused which line.
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
)
def test_whatever_a_runtime_answers_the_report_reads_back(  # noqa: PLR0917
    detail: dict[str, Any],
    message: str,
    base_report: tuple[Report, Path],
    catalog: Catalog,
    capsys: pytest.CaptureFixture[str],
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """The writer's contract, as a property: a failure holding any answer of a hostile
    runtime (long paths, huge and deep values, every Unicode oddity) is written so that every
    reader takes it."""
    base, base_path = base_report
    case = next(c for c in catalog.cases if c.id == LONG_PATH[1])
    check = Check("scenario", case.requirement, False, message, detail)
    result = PartResult(base.records[0].part, "failed", message, 0.1, (check,))
    record = PartRecord.of(case, result, lambda: catalog.registry)
    path = tmp_path_factory.mktemp("hostile") / "hostile.jsonl"
    writer = JsonLinesWriter(path, base.header)
    writer.add(record)
    writer.finish(Report(base.header, (record,), complete=True))
    writer.close()
    reads_back(capsys, path, base_path)


# -- the kit's faults are the kit's -------------------------------------------------------------

SERVE = f"cmd:{sys.executable} -m conformance serve"
PPCONF = [sys.executable, "-m", "conformance"]
PYTEST = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q"]


@pytest.mark.parametrize(
    "options",
    [
        ("--protocol-log", "/dev/full"),
        ("--report", "json", "/dev/full"),
    ],
    ids=["protocol-log", "json-report"],
)
def test_an_output_the_kit_cannot_write_is_the_kits_error(
    capsys: pytest.CaptureFixture[str], options: tuple[str, ...]
) -> None:
    """NEW-5, NEW-6: the reference came out FAILED with 190 'adapter fault ... OSError' parts
    (protocol log), or the run ended in a traceback (json report)."""
    status, _, err = ppconf(
        capsys, "run", "--adapter", SERVE, "--area", "workflow", "--level", "1", *options
    )
    assert status == 2
    one_error(err, "/dev/full", "No space left on device", alone=False)


def _limited(limit: int) -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))


@pytest.mark.parametrize("how", ["run", "plugin"])
def test_a_disk_full_mid_run_stops_the_run_as_the_kits_error(tmp_path: Path, how: str) -> None:
    """NEW-6: a disk filling up mid-run (here a file-size limit) ended in a traceback."""
    report = tmp_path / "report.jsonl"
    command = (
        [*PPCONF, "run", "--area", "workflow", "--report", "json", str(report)]
        if how == "run"
        else [
            *PYTEST,
            "--ppconf-adapter=reference",
            "--ppconf-area=workflow",
            "--ppconf-report",
            "json",
            str(report),
        ]
    )
    done = subprocess.run(
        command,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        preexec_fn=lambda: _limited(100_000),  # the header and some parts
        check=False,
    )
    assert done.returncode == (2 if how == "run" else 4), done.stderr
    one_error(done.stderr, "cannot write the json report", "File too large", alone=False)
    assert "PASSED" not in done.stdout + done.stderr
    back = read_report(report)  # what was written reads back, as an unfinished run
    assert not back.complete
    assert back.records


def test_the_plugins_report_that_cannot_be_written_is_a_usage_error(tmp_path: Path) -> None:
    """NEW-6: ``ppconf_report = json /dev/full`` ended in a traceback."""
    done = subprocess.run(
        [
            *PYTEST,
            "--ppconf-adapter=reference",
            "--ppconf-area=workflow",
            "--ppconf-report",
            "json",
            "/dev/full",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert done.returncode == 4, done.stderr
    assert "cannot write the json report /dev/full: No space left on device" in done.stderr
    assert "Traceback" not in done.stderr + done.stdout


def test_the_plugin_streams_its_report(tmp_path: Path) -> None:
    """NEW-20: the plugin wrote its JSON report only at the end, so a session killed (SIGKILL:
    no handler runs) left nothing."""
    report = tmp_path / "session.jsonl"
    process = subprocess.Popen(
        [
            *PYTEST,
            "--ppconf-adapter=hostile:Slow",
            "--ppconf-area=workflow",
            "--ppconf-report",
            "json",
            str(report),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(HERE)},
    )
    try:
        # A liveness margin for a busy machine, not a speed target.
        deadline = time.monotonic() + 600
        while not report.exists() or report.read_text("utf-8").count("\n") < 6:
            assert process.poll() is None, "the session ended before its parts were streamed"
            assert time.monotonic() < deadline, "no part streamed"
            time.sleep(0.05)
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()
    back = read_report(report)
    assert not back.complete
    assert len(back.records) >= 5
