"""Tests of ``ppconf trace`` on RFC 0011 and RFC 0014 packs: ``--at-state``, ``--agent`` and the
``turn`` column."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance._cli import main

# RFC 0014 Example 2, with two agents members: fix is state-backed, report is a prompt.
CODEGEN_PACK = """\
id: codegen
name: Codegen
version: 1.0.0
template_engine: {version: v1, syntax: "{{variable}}"}
prompts:
  compile: {id: compile, name: Compile, version: 1.0.0, system_template: Compile.}
  test: {id: test, name: Test, version: 1.0.0, system_template: Test.}
  fix: {id: fix, name: Fix, version: 1.0.0, system_template: Fix.}
  report: {id: report, name: Report, version: 1.0.0, system_template: Report.}
workflow:
  version: 2
  entry: compile
  states:
    compile:
      prompt_task: compile
      control: agent
      max_visits: 5
      on_event: {CompileFailed: fix, CompileOk: test}
    test:
      prompt_task: test
      control: agent
      max_visits: 5
      on_event: {TestsFailed: fix, TestsPassed: report}
    fix:
      prompt_task: fix
      control: agent
      max_visits: 10
      on_max_visits: report
      on_event: {PatchApplied: compile}
    report:
      prompt_task: report
      control: user
      terminal: true
agents:
  entry: compile
  members:
    fix: {state: fix}
    report: {}
"""


@pytest.fixture
def pack(tmp_path: Path) -> str:
    path = tmp_path / "codegen.yaml"
    path.write_text(CODEGEN_PACK, encoding="utf-8")
    return str(path)


@pytest.fixture
def plain_pack(tmp_path: Path) -> str:
    """The same workflow without any control: agent (control: user stays on report)."""
    path = tmp_path / "plain.yaml"
    path.write_text(CODEGEN_PACK.replace("      control: agent\n", ""), encoding="utf-8")
    return str(path)


def trace(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(["trace", *args])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return status, out, err


def table(out: str) -> tuple[list[str], list[list[str]], str]:
    """The header, the rows (cells stripped) and the final line of a trace table."""
    lines = out.rstrip("\n").splitlines()
    header = [cell.strip() for cell in lines[0].split(" | ")]
    rows = [[cell.strip() for cell in line.split(" | ")] for line in lines[2:-1]]
    return header, rows, lines[-1]


# -- the turn column ---------------------------------------------------------------------------


def test_the_turn_column_follows_control_and_the_event_source(
    capsys: pytest.CaptureFixture[str], pack: str
) -> None:
    events = "agent:CompileFailed,agent:PatchApplied,CompileOk,agent:Nope,agent:TestsPassed"
    status, out, err = trace(capsys, pack, "--events", events)
    assert (status, err) == (0, "")
    header, rows, final = table(out)
    assert header == ["#", "transition", "event", "result", "turn"]
    assert [row[4] for row in rows] == ["user", "agent", "agent", "user", "user", "user"]
    assert rows[4][3] == "rejected: unknown-event"
    assert final == (
        "final: state report, status completed, "
        "visits compile=2, fix=1, report=1, test=1, tool calls 0, turn user"
    )


def test_a_workflow_without_control_agent_has_no_turn_column(
    capsys: pytest.CaptureFixture[str], plain_pack: str
) -> None:
    status, out, _ = trace(capsys, plain_pack, "--events", "agent:CompileFailed")
    assert status == 0
    header, _, final = table(out)
    assert header == ["#", "transition", "event", "result"]
    assert "turn" not in final
    _, out, _ = trace(capsys, plain_pack, "--events", "agent:CompileFailed", "--format", "json")
    report = json.loads(out)
    assert "turn" not in report["steps"][0]
    assert report["final"]["turn"] == "user"  # the session data always has it


def test_json_steps_carry_the_turn(capsys: pytest.CaptureFixture[str], pack: str) -> None:
    events = "agent:CompileFailed,PatchApplied"
    status, out, _ = trace(capsys, pack, "--events", events, "--format", "json")
    assert status == 0
    report = json.loads(out)
    assert [step["turn"] for step in report["steps"]] == ["agent", "user"]
    assert (report["final"]["turn"], report["final"]["reply"]) == ("user", "")


# -- --at-state and --agent --------------------------------------------------------------------


def test_at_state_starts_there_and_counts_only_it(
    capsys: pytest.CaptureFixture[str], pack: str
) -> None:
    status, out, _ = trace(capsys, pack, "--at-state", "test", "--events", "agent:TestsFailed")
    assert status == 0
    _, rows, final = table(out)
    assert rows[0] == ["0", "-> test (1)", "(at state)", "start", "user"]
    assert rows[1][:2] == ["1", "-> fix (1)"]
    assert final.startswith("final: state fix, status active, visits fix=1, test=1,")


def test_agent_starts_at_its_state(capsys: pytest.CaptureFixture[str], pack: str) -> None:
    status, out, _ = trace(capsys, pack, "--agent", "fix", "--events", "agent:PatchApplied")
    assert status == 0
    _, rows, _ = table(out)
    assert rows[0] == ["0", "-> fix (1)", "(agent fix)", "start", "user"]
    assert rows[1] == ["1", "-> compile (1)", "PatchApplied [agent]", "ok", "agent"]


def test_at_state_in_json(capsys: pytest.CaptureFixture[str], pack: str) -> None:
    args = ("--at-state", "report", "--events", "Any", "--format", "json")
    status, out, _ = trace(capsys, pack, *args)
    assert status == 0
    report = json.loads(out)
    assert report["steps"][0]["rejection"] == {"code": "terminal-state", "limit": None}
    final = report["final"]
    assert (final["status"], final["visit_counts"], final["history"]) == (
        "completed",
        {"report": 1},
        [],
    )


@pytest.mark.parametrize(
    ("option", "value", "code"),
    [
        ("--at-state", "nowhere", "start-state-unknown"),
        ("--agent", "nobody", "agent-unknown"),
        ("--agent", "report", "agent-not-state-backed"),
    ],
)
def test_a_refused_start_is_one_error_line(
    capsys: pytest.CaptureFixture[str], pack: str, option: str, value: str, code: str
) -> None:
    status, out, err = trace(capsys, pack, option, value, "--events", "X")
    assert (status, out) == (1, "")
    errors = err.splitlines()
    assert len(errors) == 1
    assert errors[0].startswith(f"ppconf: error: {pack}: the session cannot start: {code}: ")


def test_at_state_and_agent_together_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], pack: str
) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["trace", pack, "--at-state", "fix", "--agent", "fix", "--events", "X"])
    assert stopped.value.code == 2
    assert "not allowed with" in capsys.readouterr().err
