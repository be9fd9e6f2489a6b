"""Tests of ``ppconf trace``: the transition / artifact table, JSON output and usage errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance._cli import main

# A small codegen-like loop (RFC 0009 example 1, cut down): implement <-> test, bounded by
# max_visits on implement with a redirect to review, an externally orchestrated test state,
# an append-mode artifact and all three budgets.
LOOP_PACK = """\
id: codegen-loop
name: Codegen loop
version: 1.0.0
template_engine:
  version: v1
  syntax: "{{variable}}"
prompts:
  planner:
    id: planner
    name: Planner
    version: 1.0.0
    system_template: Plan the work.
  coder:
    id: coder
    name: Coder
    version: 1.0.0
    system_template: "Code. Last: {{artifacts.commit_sha}} Notes: {{artifacts.notes}}"
  tester:
    id: tester
    name: Tester
    version: 1.0.0
    system_template: "Test revision {{artifacts.commit_sha}}."
  reviewer:
    id: reviewer
    name: Reviewer
    version: 1.0.0
    system_template: Review the code.
workflow:
  version: 2
  entry: plan
  engine:
    budget:
      max_total_visits: 30
      max_tool_calls: 5
      max_wall_time_sec: 60
  states:
    plan:
      prompt_task: planner
      on_event:
        PlanReady: implement
    implement:
      prompt_task: coder
      max_visits: 2
      on_max_visits: review
      artifacts:
        commit_sha:
          type: text/plain
        notes:
          type: text/plain
          mode: append
      on_event:
        CodeReady: test
    test:
      prompt_task: tester
      orchestration: external
      on_event:
        TestsPassed: review
        TestsFailed: implement
    review:
      prompt_task: reviewer
      on_event:
        Approved: done
    done:
      prompt_task: reviewer
      terminal: true
"""


@pytest.fixture
def pack(tmp_path: Path) -> str:
    path = tmp_path / "loop.yaml"
    path.write_text(LOOP_PACK, encoding="utf-8")
    return str(path)


def trace(
    capsys: pytest.CaptureFixture[str], pack: str, events: str, *options: str
) -> tuple[int, str, str]:
    status = main(["trace", pack, "--events", events, *options])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return status, out, err


def table_rows(out: str) -> tuple[list[str], list[list[str]], str]:
    """Split the table output into its header, its rows (cells stripped) and the final line."""
    lines = out.rstrip("\n").splitlines()
    header = [cell.strip() for cell in lines[0].split(" | ")]
    assert set(lines[1]) <= {"-", "+"}
    rows = [[cell.strip() for cell in line.split(" | ")] for line in lines[2:-1]]
    assert all(len(row) == len(header) for row in rows), rows
    return header, rows, lines[-1]


def one_error(err: str) -> str:
    """The single ``ppconf: error:`` line of ``err``."""
    errors = [line for line in err.splitlines() if line.startswith("ppconf: error:")]
    assert len(errors) == 1, err
    assert err.startswith("ppconf: error:")
    return errors[0]


# -- the table --------------------------------------------------------------------------------


def test_trace_table_of_a_loop_with_artifacts_and_a_redirect(
    capsys: pytest.CaptureFixture[str], pack: str
) -> None:
    status, out, err = trace(
        capsys,
        pack,
        "PlanReady,CodeReady,TestsFailed,CodeReady,TestsFailed,Approved",
        "--artifact",
        "1:commit_sha=abc123",
        "--artifact",
        "1:notes=first;",
        "--artifact",
        "3:notes=second;",
        "--artifact",
        "3:commit_sha=def456",
    )
    assert status == 0
    assert err == ""
    header, rows, final = table_rows(out)
    assert header == ["#", "transition", "event", "result", "commit_sha", "notes"]
    assert rows == [
        ["0", "-> plan (1)", "(entry)", "start", "-", "-"],
        ["1", "-> implement (1)", "PlanReady", "ok", "-", "-"],
        ["2", "-> test (1)", "CodeReady", "ok", "abc123", "first;"],
        ["3", "-> implement (2)", "TestsFailed", "ok", "abc123", "first;"],
        ["4", "-> test (2)", "CodeReady", "ok", "def456", "first;second;"],
        [
            "5",
            "-> review (1)",
            "TestsFailed",
            "redirected from implement",
            "def456",
            "first;second;",
        ],
        ["6", "-> done (1)", "Approved", "ok", "def456", "first;second;"],
    ]
    assert final == (
        "final: state done, status completed, "
        "visits done=1, implement=2, plan=1, review=1, test=2, tool calls 0"
    )


def test_rejected_events_show_their_code(capsys: pytest.CaptureFixture[str], pack: str) -> None:
    status, out, _ = trace(capsys, pack, "PlanReady,Nope,CodeReady")
    assert status == 0  # rejections are part of the trace, not failures of the command
    _, rows, final = table_rows(out)
    assert rows[2] == ["2", "x", "Nope", "rejected: unknown-event", "-", "-"]
    assert rows[3][:4] == ["3", "-> test (1)", "CodeReady", "ok"]
    assert final.startswith("final: state test, status active,")


def test_events_after_the_terminal_state_are_rejected(
    capsys: pytest.CaptureFixture[str], pack: str
) -> None:
    _, out, _ = trace(capsys, pack, "PlanReady,CodeReady,TestsPassed,Approved,Approved")
    _, rows, final = table_rows(out)
    assert rows[-1][1:4] == ["x", "Approved", "rejected: terminal-state"]
    assert "status completed" in final


def test_agent_events_are_rejected_in_an_external_state(
    capsys: pytest.CaptureFixture[str], pack: str
) -> None:
    status, out, _ = trace(
        capsys, pack, "PlanReady,agent:CodeReady,agent:TestsPassed,TestsPassed,host:Approved"
    )
    assert status == 0
    _, rows, final = table_rows(out)
    assert [row[1:4] for row in rows[1:]] == [
        ["-> implement (1)", "PlanReady", "ok"],
        ["-> test (1)", "CodeReady [agent]", "ok"],  # implement is internal: agents may
        ["x", "TestsPassed [agent]", "rejected: event-source-not-allowed"],
        ["-> review (1)", "TestsPassed", "ok"],
        ["-> done (1)", "Approved", "ok"],
    ]
    assert final.startswith("final: state done, status completed,")


def test_tool_calls_exhaust_the_budget(capsys: pytest.CaptureFixture[str], pack: str) -> None:
    status, out, _ = trace(
        capsys,
        pack,
        "PlanReady,CodeReady,TestsPassed",
        "--tool-calls",
        "1:3",
        "--tool-calls",
        "1:2",
    )
    assert status == 0
    _, rows, final = table_rows(out)
    assert rows[2][1:4] == ["x", "CodeReady", "rejected: budget-exhausted (max_tool_calls)"]
    # the session has ended; later events are rejected naming the same limit
    assert rows[3][1:4] == ["x", "TestsPassed", "rejected: budget-exhausted (max_tool_calls)"]
    assert final == (
        "final: state implement, status budget_exhausted, visits implement=1, plan=1, tool calls 5"
    )


def test_tool_calls_below_the_budget_are_fine(
    capsys: pytest.CaptureFixture[str], pack: str
) -> None:
    _, out, _ = trace(capsys, pack, "PlanReady,CodeReady", "--tool-calls", "0:4")
    _, rows, final = table_rows(out)
    assert rows[2][3] == "ok"
    assert final.endswith("tool calls 4")


def test_advancing_the_clock_exhausts_the_budget(
    capsys: pytest.CaptureFixture[str], pack: str
) -> None:
    status, out, _ = trace(
        capsys, pack, "PlanReady,CodeReady,TestsPassed", "--advance", "1:59.5", "--advance", "2:0.5"
    )
    assert status == 0
    _, rows, final = table_rows(out)
    assert rows[2][3] == "ok"  # 59.5 s < 60 s
    assert rows[3][1:4] == ["x", "TestsPassed", "rejected: budget-exhausted (max_wall_time_sec)"]
    assert "status budget_exhausted" in final


def test_total_visits_exhaust_the_budget(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "small.yaml"
    path.write_text(LOOP_PACK.replace("max_total_visits: 30", "max_total_visits: 3"))
    _, out, _ = trace(capsys, str(path), "PlanReady,CodeReady,TestsPassed")
    _, rows, _ = table_rows(out)
    assert [row[3] for row in rows[1:]] == [
        "ok",
        "ok",
        "rejected: budget-exhausted (max_total_visits)",
    ]


def test_a_pack_without_artifacts_has_no_artifact_columns(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    text = (
        LOOP_PACK.replace(
            "      artifacts:\n        commit_sha:\n          type: text/plain\n"
            "        notes:\n          type: text/plain\n          mode: append\n",
            "",
        )
        .replace("{{artifacts.commit_sha}}", "x")
        .replace("{{artifacts.notes}}", "y")
    )
    path = tmp_path / "plain.yaml"
    path.write_text(text)
    _, out, _ = trace(capsys, str(path), "PlanReady")
    header, rows, _ = table_rows(out)
    assert header == ["#", "transition", "event", "result"]
    assert rows[1] == ["1", "-> implement (1)", "PlanReady", "ok"]


# -- JSON -------------------------------------------------------------------------------------


def test_json_output_has_steps_and_final_state(
    capsys: pytest.CaptureFixture[str], pack: str
) -> None:
    status, out, err = trace(
        capsys,
        pack,
        "PlanReady,CodeReady,TestsFailed,CodeReady,TestsFailed,agent:Approved,Nope",
        "--artifact",
        "0:notes=a",
        "--artifact",
        "2:notes=b",
        "--tool-calls",
        "1:2",
        "--format",
        "json",
    )
    assert status == 0
    assert err == ""
    report = json.loads(out)
    assert report["pack"] == pack
    steps = report["steps"]
    assert [s["step"] for s in steps] == [1, 2, 3, 4, 5, 6, 7]
    assert steps[0] == {
        "step": 1,
        "event": "PlanReady",
        "source": "host",
        "transition": {"from": "plan", "to": "implement", "event": "PlanReady"},
        "artifacts": {"notes": "a"},
    }
    assert steps[4]["transition"] == {
        "from": "test",
        "to": "review",
        "event": "TestsFailed",
        "redirected": True,
        "original_target": "implement",
    }
    assert steps[5]["source"] == "agent"
    assert steps[5]["transition"]["to"] == "done"
    assert steps[6]["rejection"] == {"code": "terminal-state", "limit": None}
    assert "transition" not in steps[6]
    assert steps[2]["artifacts"] == {"notes": "ab"}

    final = report["final"]
    assert final["current_state"] == "done"
    assert final["status"] == "completed"
    assert final["terminal"] is True
    assert final["available_events"] == []
    assert final["visit_counts"] == {"done": 1, "implement": 2, "plan": 1, "review": 1, "test": 2}
    assert final["history"][-1] == {"from": "review", "to": "done", "event": "Approved"}
    assert len(final["history"]) == 6
    assert final["artifacts"] == {"notes": "ab"}
    assert final["tool_calls"] == 2
    assert len(final["artifact_history"]) == 6


def test_json_output_of_a_budget_rejection(capsys: pytest.CaptureFixture[str], pack: str) -> None:
    _, out, _ = trace(capsys, pack, "PlanReady", "--advance", "0:61", "--format", "json")
    report = json.loads(out)
    assert report["steps"][0]["rejection"] == {
        "code": "budget-exhausted",
        "limit": "max_wall_time_sec",
    }
    assert report["final"]["status"] == "budget_exhausted"
    assert report["final"]["elapsed_sec"] == 61


def test_output_is_deterministic(capsys: pytest.CaptureFixture[str], pack: str) -> None:
    args = ("PlanReady,CodeReady,TestsFailed", "--artifact", "1:notes=x", "--format", "json")
    assert trace(capsys, pack, *args) == trace(capsys, pack, *args)


# -- errors -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "option",
    [
        ["--artifact", "1:notes"],  # no '='
        ["--artifact", "notes=x"],  # no 'AFTER:'
        ["--artifact", "1:=x"],  # no name
        ["--artifact", "x:notes=y"],  # AFTER is not a number
        ["--artifact=-1:notes=y"],
        ["--artifact", "3:notes=y"],  # only two events
        ["--tool-calls", "1:many"],
        ["--tool-calls", "1:-1"],
        ["--tool-calls", "5"],
        ["--advance", "1:soon"],
        ["--advance", "1:-5"],
    ],
)
def test_bad_step_options_give_one_error_line(
    capsys: pytest.CaptureFixture[str], pack: str, option: list[str]
) -> None:
    status, out, err = trace(capsys, pack, "PlanReady,CodeReady", *option)
    assert status == 2
    assert out == ""
    line = one_error(err)
    assert option[0].partition("=")[0] in line


def test_bad_artifact_syntax_says_how_to_write_it(
    capsys: pytest.CaptureFixture[str], pack: str
) -> None:
    _, _, err = trace(capsys, pack, "PlanReady", "--artifact", "1:notes")
    assert "AFTER:NAME=VALUE" in one_error(err)


def test_undeclared_artifact(capsys: pytest.CaptureFixture[str], pack: str) -> None:
    status, out, err = trace(capsys, pack, "PlanReady,CodeReady", "--artifact", "1:summary=x")
    assert status == 2
    assert out == ""
    line = one_error(err)
    assert "'summary'" in line
    assert "no state declares" in line


def test_unreadable_pack(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    missing = str(tmp_path / "missing.yaml")
    status, out, err = trace(capsys, missing, "PlanReady")
    assert status == 2
    assert out == ""
    line = one_error(err)
    assert f"cannot load {missing}" in line
    assert err.count("\n") == 1


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("id: a\nid: b\n", "duplicate key 'id'"),
        ("- a\n", "mapping"),
        ("a: &a [*a]\n", "recursive"),
        ("[" * 500 + "]" * 500, "flow collections ([...] and {...}) nest deeper than 64"),
        # Past libyaml's own limit (0.2.6 and later), its scanner refuses first: still one error.
        ("[" * 5000 + "]" * 5000, "nest"),
    ],
)
def test_unusable_pack(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str, words: str
) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    status, out, err = trace(capsys, str(path), "PlanReady")
    assert status == 2
    assert out == ""
    assert words in one_error(err)
    assert err.count("\n") == 1


def test_invalid_pack(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "invalid.yaml"
    path.write_text(LOOP_PACK.replace("entry: plan", "entry: nowhere"))
    status, out, err = trace(capsys, str(path), "PlanReady")
    assert status == 1
    assert out == ""
    line = one_error(err)
    assert str(path) in line
    assert "entry-unknown" in err


def test_unsupported_workflow_version(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "v7.yaml"
    path.write_text(LOOP_PACK.replace("  version: 2\n  entry", "  version: 7\n  entry"))
    status, out, err = trace(capsys, str(path), "PlanReady")
    assert status == 1
    assert out == ""
    assert "workflow-version-unsupported" in one_error(err)


def test_events_are_required(capsys: pytest.CaptureFixture[str], pack: str) -> None:
    assert main(["trace", pack]) == 2
    assert "give a PACK and --events, or --case ID" in capsys.readouterr().err


def test_a_catalog_scenario_is_traced_by_its_case_id(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["trace", "--case", "loops.budget.max-tool-calls-boundary"]) == 0
    out = capsys.readouterr().out
    assert "rejected: budget-exhausted (max_tool_calls)" in out
    assert out.splitlines()[-1].startswith("final: state work, status budget_exhausted")
    assert main(["trace", "--case", "compositions.agent.exit-tool-called"]) == 2
    assert "run it with `ppconf run --id compositions.agent.exit-tool-called`" in (
        capsys.readouterr().err
    )
    assert main(["trace", "--case", "no.such.case"]) == 2


def test_superscript_digit_in_after_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], pack: str
) -> None:
    status, out, err = trace(capsys, pack, "PlanReady,CodeReady", "--artifact", "²:notes=x")
    assert status == 2
    assert out == ""
    assert "--artifact" in one_error(err)


def test_nan_clock_advance_is_a_usage_error(capsys: pytest.CaptureFixture[str], pack: str) -> None:
    status, out, err = trace(
        capsys, pack, "PlanReady,CodeReady", "--advance", "1:nan", "--advance", "1:100"
    )
    assert status == 2
    assert out == ""
    assert "--advance" in one_error(err)


def test_pack_without_workflow_says_so(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "prompts-only.yaml"
    path.write_text(LOOP_PACK.split("workflow:", maxsplit=1)[0])
    assert main(["validate", str(path)]) == 0
    capsys.readouterr()
    status, out, err = trace(capsys, str(path), "PlanReady")
    assert status in (1, 2)
    assert out == ""
    line = one_error(err)
    assert "workflow" in line
    assert "validation errors" not in err
