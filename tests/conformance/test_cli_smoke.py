"""``ppconf smoke``: broken wiring (exit 2) versus non-conformance (exit 1), over the protocol."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

from conformance._cli import main

FAKES = Path(__file__).resolve().parent / "protocol_fakes"
PYTHON = shlex.quote(sys.executable)
SERVE = f"cmd:{PYTHON} -m conformance serve"
CHECKS = [
    "describes itself (capabilities / hello)",
    "loads a minimal pack",
    "validates a minimal pack",
    "starts a session at the entry",
    "makes one transition",
]
BROKEN = (
    "every smoke check failed the same way: the adapter's wiring is broken, not its conformance."
)
DESCRIBE = "AdapterError: the adapter failed to describe itself: AdapterFault: "
"""How the first check words a fault of the protocol's handshake."""


def fake(name: str, *args: str) -> str:
    return f"cmd:{PYTHON} {shlex.quote(str(FAKES / f'{name}.py'))} {shlex.join(args)}"


def smoke(capsys: pytest.CaptureFixture[str], adapter: str, *args: str) -> tuple[int, list[str]]:
    status = main(["smoke", "--adapter", adapter, *args])
    return status, capsys.readouterr().out.splitlines()


def test_the_reference_served_passes(capsys: pytest.CaptureFixture[str]) -> None:
    status, lines = smoke(capsys, SERVE, "--validate-protocol")
    assert lines == [f"ok   {check}" for check in CHECKS] + [
        "the wiring works: run the catalog with `ppconf run`"
    ]
    assert status == 0


@pytest.mark.parametrize(
    ("adapter", "first_error"),
    [
        ("cmd:cat", f"{DESCRIBE}the answer to 'hello' has neither ok, error nor skipped"),
        (
            f"cmd:{PYTHON} -c pass",
            f"{DESCRIBE}the adapter process exited (status 0) before answering 'hello'",
        ),
        ("cmd:/no/such/adapter --serve", "AdapterError: cannot start the adapter"),
        (
            fake("bad_hello"),
            f"{DESCRIBE}the adapter speaks protocol 2, not 1; "
            "adapter stderr: bad_hello: speaking protocol 2 (request 1, hello)",
        ),
    ],
    ids=["cat", "exits-at-once", "missing", "protocol-2"],
)
def test_wiring_that_is_broken_everywhere(
    capsys: pytest.CaptureFixture[str], adapter: str, first_error: str
) -> None:
    status, lines = smoke(capsys, adapter)
    assert status == 2
    assert [line.split(":")[0] for line in lines[:-1]] == [f"FAIL {check}" for check in CHECKS]
    assert lines[-1].startswith(f"{BROKEN} First error: {first_error}")


def test_a_served_runtime_that_only_validates_disagrees(
    capsys: pytest.CaptureFixture[str], fakes_importable: Path
) -> None:
    """Well wired (served over the protocol), but its sessions never move: exit 1."""
    status, lines = smoke(capsys, f"{SERVE} --adapter fakes:ValidatesOnly", "--validate-protocol")
    assert lines == [
        *(f"ok   {check}" for check in CHECKS[:-1]),
        "DIFF makes one transition: the declared event Go was rejected with unknown-event",
        "the wiring works; the runtime disagrees with the spec: see `ppconf run`",
    ]
    assert status == 1


def test_a_crash_in_one_check_is_broken_wiring(capsys: pytest.CaptureFixture[str]) -> None:
    status, lines = smoke(capsys, fake("crash_on_third", "--op", "send", "--nth", "1"))
    assert lines[:4] == [f"ok   {check}" for check in CHECKS[:4]]
    assert lines[4].startswith(
        "FAIL makes one transition: AdapterFault: the adapter process exited (status 3) "
        "before answering 'send'; adapter stderr: crash_on_third: segmentation fault"
    )
    assert lines[5:] == ["1 check(s) broke: fix the adapter before reading conformance results"]
    assert status == 2


def test_the_timeout_cuts_a_hang_short(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """The start check hangs once; the next check gets a fresh process and passes."""
    adapter = fake("hangs", "--op", "start", "--nth", "1", "--once", str(tmp_path / "hung"))
    status, lines = smoke(capsys, adapter, "--timeout", "5")  # covers the next process's hello
    assert lines[:3] == [f"ok   {check}" for check in CHECKS[:3]]
    assert lines[3].startswith(
        "FAIL starts a session at the entry: AdapterFault: no answer to 'start' within 5 s "
        "(hung?); adapter stderr: hangs: waiting forever (request 4, start)"
    )
    assert lines[4:] == [
        f"ok   {CHECKS[4]}",
        "1 check(s) broke: fix the adapter before reading conformance results",
    ]
    assert status == 2
