"""One stop path for SIGINT, SIGTERM and SIGHUP in every command that starts an adapter.

A CI job's timeout sends SIGTERM; a closed terminal SIGHUP; a user Ctrl-C. Each must stop
`ppconf run`, `fuzz`, `smoke`, `serve` and a pytest session the same way: after the part
running (at once for a hung one), without recording the stop as the runtime's fault, leaving
the report unfinished, with the adapter's process group gone, exit status 128 + the signal.
Each test is a real process receiving a real signal, sent once the run is under way.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from conformance._basics.stopping import STOP, Stopped, StopRequest, stop_signals, wait_for

HERE = Path(__file__).resolve().parent
FAKES = HERE / "protocol_fakes"
PPCONF = [sys.executable, "-m", "conformance"]
WAIT = 120.0
"""Seconds a test waits for what must happen long before (a busy machine is slow, not hung)."""


def env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(HERE)}


def hostile(*options: object) -> str:
    """``cmd:`` spec of the hostile protocol adapter with ``options``."""
    command = [sys.executable, str(FAKES / "hostile_protocol.py"), *map(str, options)]
    return "cmd:" + shlex.join(command)


def wait_until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not condition():
        assert time.monotonic() < deadline, f"never happened: {what}"
        time.sleep(0.02)


def lines(path: Path) -> list[dict[str, object]]:
    """The complete lines of a JSON Lines report (a last line being written is left out)."""
    if not path.exists():
        return []
    found = []
    for line in path.read_text("utf-8").splitlines(keepends=True):
        if line.endswith("\n"):
            found.append(json.loads(line))
    return found


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def pids(path: Path) -> list[int]:
    return [int(p) for p in path.read_text("utf-8").split()] if path.exists() else []


@pytest.fixture
def started() -> Iterator[Callable[..., subprocess.Popen[str]]]:
    """Starts processes (in a session of their own); kills what is left of them at the end."""
    made: list[subprocess.Popen[str]] = []

    def start(command: list[str], **options: object) -> subprocess.Popen[str]:
        options.setdefault("env", env())
        process = subprocess.Popen(
            command,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
            **options,  # type: ignore[call-overload]
        )
        made.append(process)
        return process

    yield start
    for process in made:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        process.communicate()


@pytest.fixture
def adapter_pids(tmp_path: Path) -> Iterator[Path]:
    """A pid file the hostile adapter writes to; its processes are killed at the end."""
    path = tmp_path / "adapter.pids"
    yield path
    for pid in pids(path):
        if alive(pid):
            os.kill(pid, signal.SIGKILL)


def stop_and_wait(process: subprocess.Popen[str], signum: int) -> tuple[str, str]:
    process.send_signal(signum)
    return process.communicate(timeout=WAIT)


def assert_unfinished(report: Path) -> list[dict[str, object]]:
    """The report holds what ran, no summary, and no part blamed for the stop."""
    records = lines(report)
    assert records[0]["type"] == "run"
    assert all(r["type"] == "part" for r in records[1:]), "a summary: the report says finished"
    for record in records[1:]:
        message = str(record["message"])
        assert "terminated" not in message
        assert "kit error" not in message
        assert not message.startswith("adapter fault"), message
    return records


def assert_gone(pid_file: Path) -> None:
    assert pids(pid_file), "the adapter never started"
    wait_until(lambda: not any(alive(p) for p in pids(pid_file)), "the adapter's processes end")


# -- ppconf run ---------------------------------------------------------------------------------


def test_sigterm_stops_a_run_in_process_after_the_part_running(
    started: Callable[..., subprocess.Popen[str]], tmp_path: Path
) -> None:
    """It was caught inside the part, recorded as a kit error, and the run went on to a
    finished report and exit 1."""
    report = tmp_path / "run.jsonl"
    process = started([*PPCONF, "run", "--adapter", "hostile:Slow", "--report", "json", report])
    wait_until(lambda: len(lines(report)) > 3, "a few parts reported")
    out, err = stop_and_wait(process, signal.SIGTERM)
    assert process.returncode == 143
    records = assert_unfinished(report)
    assert err.endswith(
        f"ppconf: stopped by SIGTERM after {len(records) - 1} part(s); the report is unfinished "
        "(no summary)\n"
    )
    assert "Traceback" not in err
    assert "the run did not finish: these are the results it has" in out


@pytest.mark.parametrize(
    ("signum", "status"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129), (signal.SIGINT, 130)]
)
def test_a_stop_signal_stops_a_run_of_a_cmd_adapter_and_kills_it(
    started: Callable[..., subprocess.Popen[str]],
    tmp_path: Path,
    adapter_pids: Path,
    signum: int,
    status: int,
) -> None:
    """SIGTERM made every later part "adapter fault: the adapter was terminated" and the
    report complete; SIGHUP left the adapter running. The adapter here outlives its stdin, as
    a wrapper script may: only the kit's kill ends it."""
    report = tmp_path / "run.jsonl"
    adapter = hostile("--slow", "0.02", "--sticky", "--pidfile", adapter_pids)
    process = started([*PPCONF, "run", "--adapter", adapter, "--report", "json", report])
    wait_until(lambda: len(lines(report)) > 3, "a few parts reported")
    _, err = stop_and_wait(process, signum)
    assert process.returncode == status
    assert_unfinished(report)
    assert f"ppconf: stopped by {signal.Signals(signum).name} after " in err
    assert_gone(adapter_pids)


def test_sigterm_stops_a_hung_part_in_process_at_once(
    started: Callable[..., subprocess.Popen[str]], tmp_path: Path
) -> None:
    """A hung in-process part ignored SIGTERM until its time limit (here ten minutes)."""
    report, mark = tmp_path / "run.jsonl", tmp_path / "hung"
    command = [*PPCONF, "run", "--adapter", "hostile:HangsOnStart", "--timeout", "600"]
    process = started(
        [*command, "--report", "json", report], env={**env(), "PPCONF_TEST_MARK": str(mark)}
    )
    wait_until(mark.exists, "the adapter hangs")
    _, err = stop_and_wait(process, signal.SIGTERM)  # long before the ten minutes
    assert process.returncode == 143
    assert_unfinished(report)
    assert "Traceback" not in err


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_the_adapter_dies_with_the_kit_even_by_sigkill(
    started: Callable[..., subprocess.Popen[str]], tmp_path: Path, adapter_pids: Path
) -> None:
    """SIGKILL leaves the kit no time to kill anything: the adapter is asked, when it starts,
    to die with its parent."""
    mark = tmp_path / "hung"
    adapter = hostile("--hang-validate", "--sticky", "--mark", mark, "--pidfile", adapter_pids)
    process = started([*PPCONF, "run", "--adapter", adapter, "--timeout", "600"])
    wait_until(mark.exists, "the adapter hangs")
    stop_and_wait(process, signal.SIGKILL)
    assert_gone(adapter_pids)


# -- ppconf fuzz, smoke, serve ------------------------------------------------------------------


def test_sigterm_stops_fuzz_and_kills_the_adapter(
    started: Callable[..., subprocess.Popen[str]], tmp_path: Path, adapter_pids: Path
) -> None:
    log = tmp_path / "requests"
    adapter = hostile("--sticky", "--pidfile", adapter_pids, "--log", log)
    command = [*PPCONF, "fuzz", "--adapter", adapter, "--examples", "1000000", "--no-database"]
    process = started(command)
    wait_until(lambda: log.exists() and log.read_text().count("start") > 5, "examples run")
    out, err = stop_and_wait(process, signal.SIGTERM)
    assert process.returncode == 143
    assert err.endswith("ppconf: stopped by SIGTERM\n")
    assert "Traceback" not in err
    assert out == ""
    assert_gone(adapter_pids)


def test_sigterm_stops_smoke_waiting_on_a_hung_adapter(
    started: Callable[..., subprocess.Popen[str]], tmp_path: Path, adapter_pids: Path
) -> None:
    mark = tmp_path / "hung"
    adapter = hostile("--hang-validate", "--sticky", "--mark", mark, "--pidfile", adapter_pids)
    process = started([*PPCONF, "smoke", "--adapter", adapter, "--timeout", "600"])
    wait_until(mark.exists, "the adapter hangs")
    _, err = stop_and_wait(process, signal.SIGTERM)
    assert process.returncode == 143
    assert err.endswith("ppconf: stopped by SIGTERM\n")
    assert_gone(adapter_pids)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_stop_signal_ends_serve_quietly(
    started: Callable[..., subprocess.Popen[str]], signum: int
) -> None:
    process = started([*PPCONF, "serve"], stdin=subprocess.PIPE)
    assert process.stdin is not None
    assert process.stdout is not None
    process.stdin.write('{"id": 1, "op": "hello", "protocol": 1}\n')
    process.stdin.flush()
    assert json.loads(process.stdout.readline())["ok"] is True  # serving, idle on its stdin
    _, err = stop_and_wait(process, signum)
    assert process.returncode == 128 + signum
    assert err == f"ppconf: stopped by {signal.Signals(signum).name}\n"


# -- the pytest plugin --------------------------------------------------------------------------


@pytest.mark.parametrize("items", ["part", "area"])
def test_sigterm_stops_a_pytest_session_writing_its_report(
    started: Callable[..., subprocess.Popen[str]], tmp_path: Path, adapter_pids: Path, items: str
) -> None:
    """The session died at once: no --ppconf-report, and the adapter left running. An item of
    a whole area stops after the part running, its parts run so far reported."""
    report, log = tmp_path / "session.jsonl", tmp_path / "requests"
    adapter = hostile("--slow", "0.02", "--sticky", "--pidfile", adapter_pids, "--log", log)
    process = started(
        [
            *(sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q"),
            *(f"--ppconf-adapter={adapter}", "--ppconf-report", "json", str(report)),
            *("--ppconf-report", "md", str(tmp_path / "session.md")),
            f"--ppconf-items={items}",
        ],
        cwd=tmp_path,
    )
    wait_until(lambda: log.exists() and log.read_text().count("start") > 5, "parts run")
    stop_and_wait(process, signal.SIGTERM)
    assert process.returncode == 143
    records = assert_unfinished(report)
    assert len(records) > 5
    assert "**The run did not finish; these are the results it has.**" in (
        (tmp_path / "session.md").read_text("utf-8")
    )
    assert_gone(adapter_pids)


# -- the stop request itself --------------------------------------------------------------------


def test_a_wait_gives_up_once_a_stop_is_overdue(monkeypatch: pytest.MonkeyPatch) -> None:
    request = StopRequest()
    monkeypatch.setattr("conformance._basics.stopping.STOP", request)
    never = threading.Event()
    assert wait_for(never, 0.01) is False  # the time ran out: no stop
    request.request(signal.SIGTERM)
    request.since -= 10  # the grace has passed
    with pytest.raises(Stopped) as stopped:
        wait_for(never, 600)
    assert stopped.value.exit_status == 143


def test_a_second_signal_stops_at_once() -> None:
    with stop_signals() as stop:
        os.kill(os.getpid(), signal.SIGHUP)  # taken note of; the block goes on
        assert stop.signum == signal.SIGHUP
        with pytest.raises(Stopped) as stopped:
            signal_self(signal.SIGTERM)
        assert stopped.value.signum == signal.SIGHUP  # the first signal says why
    assert not STOP.requested  # the next command starts afresh


def signal_self(signum: int) -> None:
    os.kill(os.getpid(), signum)
    time.sleep(1)  # the handler runs in the main thread before this ends
