"""The subprocess adapter under attack: bounded starts, giving up, no survivors, stray lines.

Each test drives a fake program from ``protocol_fakes/`` straight through
:class:`SubprocessAdapter` (the runner's side is tested in ``test_subprocess_faults.py``).
"""

from __future__ import annotations

import json
import math
import os
import re
import shlex
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType

import pytest

from conformance import PackInput
from conformance._basics.errors import AdapterError, AdapterFault, AdapterGaveUp, KitError
from conformance._cli import main
from conformance._protocol import SubprocessAdapter
from conformance._runtime.operations import BY_NAME

FAKES = Path(__file__).resolve().parent / "protocol_fakes"
PACK_TEXT = json.dumps(
    {
        "id": "client-test",
        "name": "Client test",
        "version": "1.0.0",
        "template_engine": {"version": "v1", "syntax": "{{variable}}"},
        "prompts": {
            "main": {"id": "main", "name": "Main", "version": "1.0.0", "system_template": "W"}
        },
        "workflow": {
            "version": 1,
            "entry": "a",
            "states": {
                "a": {"prompt_task": "main", "on_event": {"Go": "b"}},
                "b": {"prompt_task": "main", "terminal": True},
            },
        },
    }
)
PACK = PackInput(text=PACK_TEXT, format="json", document=json.loads(PACK_TEXT), source="<test>")
PATIENT = 30.0
"""A time limit that a well-behaved fake never reaches, even on a busy machine."""
STARTUP = 5.0
"""Longer than a fake takes to start and say hello on a busy machine (about 1 s), but short
enough to wait for once in a test."""


def command(fake: str, *args: object) -> list[str]:
    """The command line running ``protocol_fakes/FAKE.py ARGS``."""
    return [sys.executable, str(FAKES / f"{fake}.py"), *map(str, args)]


@pytest.fixture
def adapters() -> Iterator[Callable[..., SubprocessAdapter]]:
    """Makes adapters, and closes them all at the end of the test."""
    made: list[SubprocessAdapter] = []

    def make(command: list[str], **options: object) -> SubprocessAdapter:
        adapter = SubprocessAdapter(command, **options)  # type: ignore[arg-type]
        made.append(adapter)
        return adapter

    yield make
    for adapter in made:
        adapter.close()


def wait_for(condition: Callable[[], bool], what: str, limit: float = PATIENT) -> None:
    """Wait until ``condition()`` holds (checking every 20 ms); fail after ``limit`` seconds."""
    deadline = time.monotonic() + limit
    while not condition():
        # A liveness deadline (PATIENT, 30 s, by default), not a speed target: what is awaited
        # happens within about a second, so only a kit that never gets there reaches it.
        assert time.monotonic() < deadline, f"still waiting for {what} after {limit:g} s"
        time.sleep(0.02)


def group_is_gone(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return True
    return not any(_in_group(pid, pgid) and not _zombie(pid) for pid in _pids())


def _pids() -> list[int]:
    return [int(name) for name in os.listdir("/proc") if name.isdigit()]


def _stat(pid: int) -> list[str]:
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as stream:
            return stream.read().rsplit(")", 1)[1].split()
    except OSError:
        return []


def _in_group(pid: int, pgid: int) -> bool:
    fields = _stat(pid)
    return len(fields) > 2 and int(fields[2]) == pgid


def _zombie(pid: int) -> bool:
    fields = _stat(pid)
    return not fields or fields[0] == "Z"


# -- time limits ------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [0, -1, math.nan, math.inf, -math.inf, 1e300])
@pytest.mark.parametrize("option", ["timeout", "startup_timeout"])
def test_an_unusable_time_limit_is_refused(option: str, value: float) -> None:
    refusal = f"must be a positive, finite number of seconds .*{re.escape(repr(value))}"
    with pytest.raises(AdapterError, match=refusal):
        SubprocessAdapter(["true"], **{option: value})  # type: ignore[arg-type]


def test_an_unusable_time_limit_is_refused_when_set_later() -> None:
    adapter = SubprocessAdapter(["true"])
    with pytest.raises(AdapterError, match="the adapter's timeout must be a positive"):
        adapter.client.timeout = math.inf
    assert adapter.client.timeout == 10


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "1e10", "86401"])
def test_the_cli_refuses_an_unusable_timeout_for_a_command(
    capsys: pytest.CaptureFixture[str], value: str
) -> None:
    """``--timeout inf`` once crashed inside the kit, blamed on the adapter (OverflowError),
    and ``--timeout 1e10`` made every in-process part a kit error: now the option itself is
    refused, a usage error, before any adapter starts."""
    adapter = "cmd:" + shlex.join(command("fake_protocol_server"))
    with pytest.raises(SystemExit) as exited:
        main(["smoke", "--adapter", adapter, "--timeout", value])
    assert exited.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert (
        f"argument --timeout: {value} is not a number of seconds above 0 and at most 86,400"
        in captured.err
    )
    assert "Traceback" not in captured.err


def test_hello_has_the_request_timeout(adapters: Callable[..., SubprocessAdapter]) -> None:
    """A process that never answers hello is cut off at ``timeout``, not at a longer limit."""
    adapter = adapters(command("hangs", "--op", "hello", "--nth", 1), timeout=0.5)
    with pytest.raises(AdapterFault, match=r"^no answer to 'hello' within 0.5 s \(hung\?\)"):
        adapter.capabilities()


def test_hello_has_the_startup_timeout_when_one_is_set(
    adapters: Callable[..., SubprocessAdapter],
) -> None:
    adapter = adapters(
        command("hangs", "--op", "hello", "--nth", 1), timeout=5, startup_timeout=0.5
    )
    with pytest.raises(AdapterFault, match=r"^no answer to 'hello' within 0.5 s"):
        adapter.capabilities()


def test_a_slow_start_passes_within_the_startup_timeout(
    adapters: Callable[..., SubprocessAdapter],
) -> None:
    """Hello takes 0.5 s longer than any request may, and is still fine."""
    slow = command("slow_but_correct", "--delay", 0.6)
    adapter = adapters(slow, timeout=0.1, startup_timeout=PATIENT)
    assert adapter.capabilities().name == "ppconf-reference"
    with pytest.raises(AdapterFault, match=r"^no answer to 'load' within 0.1 s"):
        adapter.load(PACK)


# -- giving up --------------------------------------------------------------------------------


def script(tmp_path: Path, *words: str) -> list[str]:
    """``scripted_starts`` options: processes behave as ``words`` say; hellos go to a log."""
    path = tmp_path / "script"
    path.write_text("".join(f"{word}\n" for word in words), encoding="utf-8")
    (tmp_path / "log").touch()
    return command("scripted_starts", "--script", path, "--log", tmp_path / "log")


def hellos(tmp_path: Path) -> int:
    """How many processes read a hello."""
    return (tmp_path / "log").read_text(encoding="utf-8").splitlines().count("hello")


def test_three_failed_starts_in_a_row_give_up_for_good(
    adapters: Callable[..., SubprocessAdapter], tmp_path: Path
) -> None:
    adapter = adapters(script(tmp_path, "die", "hang", "die", "serve"), timeout=STARTUP)
    with pytest.raises(AdapterFault, match=r"^the adapter process exited \(status 3\)") as first:
        adapter.capabilities()
    assert not isinstance(first.value, AdapterGaveUp)
    with pytest.raises(AdapterFault, match=r"^no answer to 'hello' within 5 s") as second:
        adapter.load(PACK)
    assert not isinstance(second.value, AdapterGaveUp)
    gave_up = (
        "gave up on the adapter after 3 failed starts in a row; the last: "
        "the adapter process exited (status 3) before answering 'hello'; "
        "adapter stderr: scripted_starts: dying (request 1, hello)"
    )
    with pytest.raises(AdapterGaveUp) as third:
        adapter.start(PACK)
    assert str(third.value) == gave_up
    with pytest.raises(AdapterGaveUp) as fourth:  # at once: no fourth process
        adapter.validate(PACK)
    assert str(fourth.value) == gave_up
    assert hellos(tmp_path) == 3
    assert (tmp_path / "script").read_text(encoding="utf-8") == "serve\n"


def test_a_good_start_resets_the_count(
    adapters: Callable[..., SubprocessAdapter], tmp_path: Path
) -> None:
    """Two failures, a good start, a crash, two failures, a good start: never three in a row."""
    adapter = adapters(
        script(tmp_path, "die", "die", "crash", "die", "die", "serve"), timeout=PATIENT
    )
    outcomes = []
    for _ in range(7):
        try:
            adapter.load(PACK)
        except AdapterFault as fault:
            outcomes.append(type(fault).__name__ + ": " + str(fault).split(";")[0])
        else:
            outcomes.append("ok")
    assert outcomes == [
        "AdapterFault: the adapter process exited (status 3) before answering 'hello'",
        "AdapterFault: the adapter process exited (status 3) before answering 'hello'",
        "AdapterFault: the adapter process exited (status 3) before answering 'load'",
        "AdapterFault: the adapter process exited (status 3) before answering 'hello'",
        "AdapterFault: the adapter process exited (status 3) before answering 'hello'",
        "ok",
        "ok",
    ]
    assert hellos(tmp_path) == 6


def test_a_command_that_cannot_start_also_counts(tmp_path: Path) -> None:
    adapter = SubprocessAdapter([str(tmp_path / "no-such-adapter")], max_failed_starts=2)
    with pytest.raises(AdapterError, match="cannot start the adapter"):
        adapter.capabilities()
    with pytest.raises(AdapterGaveUp, match="after 2 failed starts in a row; the last: cannot"):
        adapter.capabilities()


def test_a_wrong_protocol_is_a_failed_start(
    adapters: Callable[..., SubprocessAdapter], tmp_path: Path
) -> None:
    adapter = adapters(command("bad_hello"), max_failed_starts=2)
    with pytest.raises(AdapterFault, match=r"^the adapter speaks protocol 2, not 1"):
        adapter.load(PACK)
    with pytest.raises(AdapterGaveUp, match="the last: the adapter speaks protocol 2, not 1"):
        adapter.load(PACK)


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        ('{"claims": {"workflow": "2"}}', "claims must map each area to an integer level"),
        ('{"claims": ["workflow"]}', "claims must map each area to an integer level"),
        ('{"extensions": "ppconf.upper"}', "extensions must be a list of names"),
        ('{"runtime": {"name": 7}}', "name must be a string, not 7"),
        ('{"runtime": "ppconf"}', "runtime must be an object {name, version, language}"),
    ],
)
def test_a_malformed_hello_is_a_fault(
    adapters: Callable[..., SubprocessAdapter], answer: str, reason: str
) -> None:
    adapter = adapters(command("bad_hello", "--answer", answer))
    with pytest.raises(AdapterFault, match=r"^the answer to 'hello' is malformed: ") as fault:
        adapter.capabilities()
    assert reason in str(fault.value)


def test_null_claims_and_extensions_are_none(adapters: Callable[..., SubprocessAdapter]) -> None:
    """Some JSON encoders write an empty map or list as null (Go's nil map, say)."""
    answer = '{"claims": null, "extensions": null, "runtime": {"name": "go-runtime"}}'
    capabilities = adapters(command("bad_hello", "--answer", answer)).capabilities()
    assert (capabilities.name, capabilities.claims, capabilities.extensions) == (
        "go-runtime",
        {},
        (),
    )


# -- no process survives ------------------------------------------------------------------------


def behind_a_shell(tmp_path: Path, fake: list[str]) -> list[str]:
    """``fake`` run by ``sh -c``, which first starts a ``sleep`` in the background.

    The shell writes its pid (the process group's id) and the sleep's pid to files.
    """
    line = (
        f"echo $$ > {shlex.quote(str(tmp_path / 'group'))}; sleep 300 & "
        f"echo $! > {shlex.quote(str(tmp_path / 'sleep'))}; exec {shlex.join(fake)}"
    )
    return ["sh", "-c", line]


def pid_in(path: Path) -> int:
    return int(path.read_text(encoding="utf-8"))


def assert_no_survivor(tmp_path: Path) -> None:
    group = pid_in(tmp_path / "group")
    wait_for(lambda: group_is_gone(group), "the adapter's process group to be gone")


def test_close_kills_the_whole_process_group(
    adapters: Callable[..., SubprocessAdapter], tmp_path: Path
) -> None:
    adapter = adapters(behind_a_shell(tmp_path, command("fake_protocol_server")))
    adapter.load(PACK)
    assert not group_is_gone(pid_in(tmp_path / "group"))  # the sleep runs beside the adapter
    adapter.close()
    assert_no_survivor(tmp_path)


def test_a_fault_kills_the_whole_process_group(
    adapters: Callable[..., SubprocessAdapter], tmp_path: Path
) -> None:
    hangs = command("hangs", "--op", "load", "--nth", 1)
    adapter = adapters(behind_a_shell(tmp_path, hangs), timeout=1, startup_timeout=PATIENT)
    with pytest.raises(AdapterFault, match="no answer to 'load' within 1 s"):
        adapter.load(PACK)
    assert_no_survivor(tmp_path)


def test_an_exit_is_seen_at_once_when_a_child_holds_stdout(
    adapters: Callable[..., SubprocessAdapter], tmp_path: Path
) -> None:
    """The background sleep keeps the pipes open: the leader's exit, not their end, counts."""
    crash = command("crash_on_third", "--op", "load", "--nth", 1)
    adapter = adapters(behind_a_shell(tmp_path, crash), timeout=PATIENT)
    with pytest.raises(AdapterFault, match=r"^the adapter process exited \(status 3\) before"):
        adapter.load(PACK)
    assert_no_survivor(tmp_path)


def test_terminate_ends_a_pending_request_at_once(
    adapters: Callable[..., SubprocessAdapter], tmp_path: Path
) -> None:
    """From a signal handler, as on SIGTERM: the request waiting for a hung adapter ends."""
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signal handlers run in the main thread only")
    log = tmp_path / "log"
    log.touch()
    hangs = command("hangs", "--op", "load", "--nth", 1, "--log", log)
    adapter = adapters(behind_a_shell(tmp_path, hangs), timeout=PATIENT)
    adapter.capabilities()

    def handler(signum: int, frame: FrameType | None) -> None:
        adapter.terminate()

    def send_the_signal() -> None:
        wait_for(lambda: "load" in log.read_text(encoding="utf-8"), "the load request")
        os.kill(os.getpid(), signal.SIGUSR1)

    previous = signal.signal(signal.SIGUSR1, handler)
    try:
        threading.Thread(target=send_the_signal, daemon=True).start()
        with pytest.raises(AdapterFault, match=r"^the adapter was terminated: the run is stopping"):
            adapter.load(PACK)
    finally:
        signal.signal(signal.SIGUSR1, previous)
    assert_no_survivor(tmp_path)
    with pytest.raises(AdapterFault, match=r"^the adapter was terminated"):
        adapter.load(PACK)  # and no fresh process
    assert log.read_text(encoding="utf-8").count("hello") == 1


class Interrupted(BaseException):
    """What a signal handler may raise (as KeyboardInterrupt does)."""


def test_an_interrupted_request_leaves_no_process_behind(
    adapters: Callable[..., SubprocessAdapter], tmp_path: Path
) -> None:
    """The request is abandoned half way: its process group goes, the next request starts
    afresh (the stream of the old process is in no known state)."""
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signal handlers run in the main thread only")
    log = tmp_path / "log"
    log.touch()
    hangs = command("hangs", "--op", "load", "--nth", 1, "--once", tmp_path / "hung", "--log", log)
    adapter = adapters(behind_a_shell(tmp_path, hangs), timeout=PATIENT)
    adapter.capabilities()

    def handler(signum: int, frame: FrameType | None) -> None:
        raise Interrupted

    def send_the_signal() -> None:
        wait_for(lambda: "load" in log.read_text(encoding="utf-8"), "the load request")
        os.kill(os.getpid(), signal.SIGUSR1)

    previous = signal.signal(signal.SIGUSR1, handler)
    try:
        threading.Thread(target=send_the_signal, daemon=True).start()
        with pytest.raises(Interrupted):
            adapter.load(PACK)
    finally:
        signal.signal(signal.SIGUSR1, previous)
    assert_no_survivor(tmp_path)
    adapter.load(PACK)  # a fresh process, which behaves
    assert log.read_text(encoding="utf-8").splitlines() == ["hello", "load", "hello", "load"]


# -- stray lines --------------------------------------------------------------------------------


def test_a_stray_line_waiting_before_a_request_names_the_previous_answer(
    adapters: Callable[..., SubprocessAdapter],
) -> None:
    """A log line comes a second after an answer: the next request finds it waiting."""
    chatter = command("stray_stdout", "--op", "load", "--nth", 1, "--after", 1)
    adapter = adapters(chatter)
    adapter.load(PACK)  # hello is request 1, this load request 2
    connection = adapter.client._connection
    assert connection is not None
    wait_for(lambda: not connection._lines.empty(), "the log line")
    with pytest.raises(AdapterFault) as fault:
        adapter.validate(PACK)
    assert str(fault.value).startswith(
        "a stray line after the previous answer to 'load' (request 2): "
        "'INFO runtime: creating a session'; adapter stderr: stray_stdout: logging to stdout"
    )


# -- values that are not JSON -------------------------------------------------------------------


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_a_request_that_is_not_json_is_the_kits_error(
    adapters: Callable[..., SubprocessAdapter], value: float
) -> None:
    adapter = adapters(command("fake_protocol_server"))
    session = adapter.start(PACK)
    with pytest.raises(KitError, match=r"^the kit cannot send request 3 \('advance_clock'\): "):
        session.advance_clock(value)
    session.advance_clock(1.5)  # nothing was sent: the process and the session are fine
    assert session.state()["elapsed_sec"] == 1.5


# -- answers without their results ----------------------------------------------------------


@pytest.mark.parametrize("validate_protocol", [False, True], ids=["checked", "schema"])
@pytest.mark.parametrize("op", ["validate", "start", "send", "state"])
def test_an_ok_answer_without_its_result_is_an_adapter_fault(
    op: str, validate_protocol: bool
) -> None:
    fake = [sys.executable, str(FAKES / "bare_ok.py"), "--op", op, "--nth", "1"]
    adapter = SubprocessAdapter(fake, validate_protocol=validate_protocol)
    try:
        calls = {
            "validate": lambda: adapter.validate(PACK),
            "start": lambda: adapter.start(PACK),
            "send": lambda: adapter.start(PACK).send("Go", "host"),
            "state": lambda: adapter.start(PACK).state(),
        }
        reason = (
            f"the response to {op} breaks the protocol schema"
            if validate_protocol
            else f"{op} answered without {BY_NAME[op].expected}"
        )
        with pytest.raises(AdapterFault, match=re.escape(reason)):
            calls[op]()
    finally:
        adapter.close()
