"""``ppconf fuzz --max-time``: progress at a steady interval, resuming an interrupted campaign
from the database, and the summary per area."""

from __future__ import annotations

import io
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conformance._cli import fuzz as fuzz_cli
from conformance._cli import main
from conformance._fuzz.engine import BATCH


class _Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _progress(
    monkeypatch: pytest.MonkeyPatch, max_time: float | None, tty: bool = False
) -> tuple[fuzz_cli._Progress, _Clock, io.StringIO]:
    clock = _Clock()
    stream = io.StringIO()
    monkeypatch.setattr(stream, "isatty", lambda: tty)
    return fuzz_cli._Progress(stream, max_time, clock), clock, stream


def test_a_campaign_logs_one_line_per_interval(monkeypatch: pytest.MonkeyPatch) -> None:
    progress, clock, stream = _progress(monkeypatch, max_time=3600.0)
    assert progress.every == 180.0  # a twentieth of the hour
    for second in range(1, 400):
        clock.now += 1
        progress.show(second * 5, 0 if second < 300 else 1, False)
    lines = stream.getvalue().splitlines()
    assert lines == [
        "fuzz: 900 examples (5.0/s), 0 divergence(s), 57m00s left",
        "fuzz: 1,800 examples (5.0/s), 1 divergence(s), 54m00s left",
    ]


@pytest.mark.parametrize(("max_time", "every"), [(60.0, 30.0), (86_400.0, 600.0)])
def test_the_interval_is_bounded(
    monkeypatch: pytest.MonkeyPatch, max_time: float, every: float
) -> None:
    progress, _, _ = _progress(monkeypatch, max_time=max_time)
    assert progress.every == every


def test_a_short_run_logs_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    progress, clock, stream = _progress(monkeypatch, max_time=None)
    for count in range(100):
        clock.now += 10
        progress.show(count, 0, False)
    assert stream.getvalue() == ""


def test_a_terminal_gets_one_line_overwritten(monkeypatch: pytest.MonkeyPatch) -> None:
    progress, clock, stream = _progress(monkeypatch, max_time=100.0, tty=True)
    clock.now += 1
    progress.show(3, 0, True)
    progress.clear()
    text = stream.getvalue()
    assert text.startswith("\rfuzz: 3 examples (3.0/s), 0 divergence(s), shrinking, 1m39s left")
    assert text.endswith("\r")
    assert "\n" not in text


@pytest.mark.parametrize(
    ("seconds", "shown"), [(0.4, "0s"), (59.6, "1m00s"), (560, "9m20s"), (7500, "2h05m")]
)
def test_durations(seconds: float, shown: str) -> None:
    assert fuzz_cli._duration(seconds) == shown


@pytest.mark.usefixtures("fakes_importable")
def test_the_summary_says_what_was_found_shrunk_and_exported_per_area(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    arguments = [
        "fuzz", "--adapter=breaking:IgnoresUnknownEvents", "--area=workflow",
        "--area=loops", "--seed=2", "--max-time=20", f"--export={tmp_path / 'found'}",
        f"--database={tmp_path / 'db'}",
    ]  # fmt: skip
    status = main(arguments)
    out = capsys.readouterr().out
    assert status == 1
    (path,) = (tmp_path / "found").glob("workflow/*.yaml")
    summary = out[out.index("campaign: ") :].splitlines()
    assert summary[0].endswith("1 finding (seed 2)")
    assert summary[1].startswith("  workflow: ")
    assert summary[1].endswith(" examples, 1 finding")
    assert summary[2].startswith("    divergence after ")
    assert summary[2].endswith(f" runs, exported to {path}")
    assert summary[3].startswith("  loops: ")
    assert summary[3].endswith(", 0 findings")


@pytest.mark.usefixtures("fakes_importable")
def test_an_interrupted_campaign_resumes_from_the_database(tmp_path: Path) -> None:
    database = tmp_path / "db"
    command = [
        sys.executable, "-m", "conformance", "fuzz", "--adapter=breaking:BudgetOffByOne",
        "--area=loops", "--seed=5", "--max-time=600", f"--database={database}",
    ]  # fmt: skip
    campaign = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        # A liveness margin for a loaded machine, not a speed target: the fake fails within
        # a few dozen examples, and Hypothesis keeps each failing example as it finds it.
        for _ in range(3000):
            if any(p.is_file() for p in database.rglob("*")) or campaign.poll() is not None:
                break
            time.sleep(0.1)
        assert campaign.poll() is None, campaign.communicate()
        campaign.send_signal(signal.SIGINT)
        _, err = campaign.communicate(timeout=120)
    finally:
        if campaign.poll() is None:
            campaign.kill()
            campaign.wait()
    assert campaign.returncode == 128 + signal.SIGINT, err
    resumed = subprocess.run(
        [*command[:-3], "--seed=9", "--examples=500", f"--database={database}", "--format=json"],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert resumed.returncode == 1, resumed.stderr
    finding = json.loads(resumed.stdout)["finding"]
    assert finding["found_after"] <= BATCH  # in the first test case Hypothesis tries
