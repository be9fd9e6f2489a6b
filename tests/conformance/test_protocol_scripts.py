"""``run_script``: a whole scenario in one request, judged exactly as one request per step.

The runner sends a scenario's calls in one ``run_script`` when the adapter declares it, and
judges each step on its answer; when the answers fail as a whole or run out, it makes the
calls one at a time. Either way the judgement must be the one the calls alone would give.
"""

from __future__ import annotations

import io
import json
import re
import shlex
import sys
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import breaking
import pytest

from conformance import Case, Catalog, PackInput, ReferenceAdapter, Runner, load_catalog
from conformance._basics.errors import AdapterFault
from conformance._catalog.cases import Scenario
from conformance._catalog.steps import parse_step
from conformance._cli import main
from conformance._fuzz.engine import fuzz
from conformance._fuzz.judge import as_case
from conformance._fuzz.oracle import expect_run
from conformance._judging.runner import PartResult, _calls
from conformance._protocol import ProtocolError, SubprocessAdapter, check_message

FAKES = Path(__file__).resolve().parent / "protocol_fakes"
SERVE = [sys.executable, "-m", "conformance", "serve"]
PACK: dict[str, Any] = {
    "id": "scripts-test",
    "name": "Scripts test",
    "version": "1.0.0",
    "template_engine": {"version": "v1", "syntax": "{{variable}}"},
    "prompts": {"main": {"id": "main", "name": "Main", "version": "1.0.0", "system_template": "W"}},
    "workflow": {
        "version": 2,
        "entry": "draft",
        "engine": {"budget": {"max_tool_calls": 2}},
        "states": {
            "draft": {"prompt_task": "main", "on_event": {"Submit": "review"}},
            "review": {"prompt_task": "main", "on_event": {"Approve": "done", "Back": "draft"}},
            "done": {"prompt_task": "main", "terminal": True},
        },
    },
}
SCRIPT = [
    {"event": "Approve"},
    {"event": "Submit"},
    {"tool_calls": 1},
    {"event": "Back"},
    {"event": "Submit"},
    {"event": "Approve"},
]


def command(fake: str, *args: object) -> list[str]:
    return [sys.executable, str(FAKES / f"{fake}.py"), *map(str, args)]


def fuzz_case() -> Case:
    """A case as the fuzzer writes it: validation, then one scenario of six steps."""
    case = as_case(expect_run("loops", PACK, [dict(step) for step in SCRIPT]))
    assert case.parts == ["validation", "fuzz"]
    return case


def ops(log: Path) -> list[str]:
    return log.read_text(encoding="utf-8").splitlines()


def sent(transcript: io.StringIO) -> list[str]:
    return re.findall(r'^> \{"id":\d+,"op":"(\w+)"', transcript.getvalue(), re.MULTILINE)


def judged(result: PartResult) -> tuple[Any, ...]:
    """Everything a part result says, but its duration."""
    return (
        result.part,
        result.outcome,
        result.message,
        [(c.id, c.requirement, c.passed, c.message, c.detail) for c in result.checks],
    )


@pytest.fixture
def adapters() -> Iterator[Callable[..., SubprocessAdapter]]:
    made: list[SubprocessAdapter] = []

    def make(command: list[str], **options: Any) -> SubprocessAdapter:
        adapter = SubprocessAdapter(command, **options)
        made.append(adapter)
        return adapter

    yield make
    for adapter in made:
        adapter.close()


# -- what the runner sends ----------------------------------------------------------------------


def scenario(steps: list[dict[str, Any]], **fields: Any) -> Scenario:
    """A scenario of steps written as in a case file."""
    return Scenario(
        name="s",
        steps=tuple(parse_step(s, f"/steps/{i}") for i, s in enumerate(steps)),
        final=fields.get("final"),
        start_rejection=fields.get("start_rejection"),
        pointer="",
        start_state=fields.get("start_state"),
        start_agent=fields.get("start_agent"),
    )


def test_the_calls_read_the_session_only_where_an_expectation_does() -> None:
    go = {"event": "Go", "source": "host"}
    calls = _calls(
        scenario(
            [
                go,
                {**go, "expect": {"rejection": "unknown-event"}},
                {"tool_calls": 2, "expect": {"status": "active"}},
                {**go, "expect": {"any_of": [{"transition": {"to": "b"}}, {"history": []}]}},
                {"user_turn": True},
            ],
            final={"state": "b"},
            start_state="a",
        )
    )
    assert calls == [
        ("start", {"at_state": "a"}),
        ("send", go),
        ("send", go),
        ("record_tool_calls", {"count": 2}),
        ("state", {}),
        ("send", go),
        ("state", {}),
        ("user_turn", {}),
        ("state", {}),
    ]


def test_compositions_alone_start_no_session_and_a_restore_is_not_scripted() -> None:
    run = {"name": "c", "input": {}, "mocks": {}}
    assert _calls(scenario([{"run_composition": run}])) == [("run_composition", run)]
    restore = scenario([{"snapshot_restore": True}], final={"state": "a"})
    assert _calls(restore) is None


# -- the same judgement -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "served", ["conformance._runtime.reference_adapter:ReferenceAdapter", "fakes:AlwaysWrong"]
)
def test_the_catalog_is_judged_the_same_with_and_without_scripts(
    served: str,
    cached_catalog: Catalog,
    fakes_importable: Path,
    adapters: Callable[..., SubprocessAdapter],
) -> None:
    """Every part of every case: outcome, message and checks (with their details) alike."""
    results: dict[bool, dict[tuple[str, str], Any]] = {}
    for scripts in (True, False):
        transcript = io.StringIO()
        adapter = adapters(
            [*SERVE, "--adapter", served],
            scripts=scripts,
            transcript=transcript,
            validate_protocol=scripts,
        )
        runs = Runner(adapter).run_all(cached_catalog.cases)
        results[scripts] = {(r.case.id, p.part): judged(p) for r in runs for p in r.parts}
        scripted = sent(transcript).count("run_script")
        if scripts:
            assert scripted > 300  # every scenario without snapshot_restore
            assert "send" in sent(transcript)  # those with it, one request per step
            assert "\n# " not in transcript.getvalue()  # no script fell back to them
        else:
            assert scripted == 0
    assert results[True] == results[False]


def test_a_served_adapter_can_say_no_to_scripts(adapters: Callable[..., SubprocessAdapter]) -> None:
    transcript = io.StringIO()
    adapter = adapters([*SERVE, "--no-scripts"], transcript=transcript)
    (result,) = Runner(adapter).run(fuzz_case()).parts[1:]
    assert result.outcome == "passed", result.message
    assert "run_script" not in sent(transcript)
    assert "send" in sent(transcript)


# -- falling back to one request per step -------------------------------------------------------


@pytest.mark.parametrize(
    ("how", "restarted"),
    [
        ("short", False),  # the answers run out before the judging does
        ("long", True),  # a fault: the process is killed, and a fresh one answers
        ("skipped", False),
        ("refused", False),
        ("garbage", True),
        ("crash", True),
    ],
)
def test_answers_that_fail_or_run_out_are_made_up_one_request_at_a_time(
    how: str, restarted: bool, tmp_path: Path, adapters: Callable[..., SubprocessAdapter]
) -> None:
    case = fuzz_case()
    expected = [judged(p) for p in Runner(ReferenceAdapter(), timeout=None).run(case).parts]
    log = tmp_path / "ops.log"
    transcript = io.StringIO()
    fake = command("scripts_misanswered", "--how", how, "--log", log)
    runner = Runner(adapters(fake, transcript=transcript))
    assert [judged(p) for p in runner.run(case).parts] == expected
    (note,) = re.findall("^# (.*)$", transcript.getvalue(), re.MULTILINE)
    assert note.endswith("; the calls go one request at a time")
    assert ops(log)[:2] == ["hello", "validate"]
    assert ops(log)[2] == "run_script"
    steps = [op for op in ops(log)[3:] if op != "hello"]
    assert steps[:2] == ["start", "send"]  # the scenario again, one request per step
    assert "run_script" not in steps
    assert ops(log).count("hello") == (2 if restarted else 1)


def test_a_short_answer_is_used_as_far_as_it_goes(
    tmp_path: Path, adapters: Callable[..., SubprocessAdapter]
) -> None:
    """Answers that run out after the judging stopped are never missed: a failing step."""
    case = as_case(expect_run("loops", PACK, [dict(step) for step in SCRIPT]))
    log = tmp_path / "ops.log"
    fake = command("scripts_misanswered", "--how", "short", "--drop", 3, "--log", log)
    wrong = {**PACK, "workflow": {**PACK["workflow"], "entry": "review"}}
    broken = replace(case, pack=PackInput(json.dumps(wrong), "json", wrong, "<test>"))
    (result,) = Runner(adapters(fake)).run(broken).parts[1:]
    assert result.outcome == "failed"
    assert "step 1 (event Approve)" in result.message
    assert ops(log) == ["hello", "validate", "run_script"]


# -- ahead of time (the fuzzer) -----------------------------------------------------------------


def test_a_prefetched_case_takes_one_request_and_is_judged_the_same(
    adapters: Callable[..., SubprocessAdapter],
) -> None:
    case = fuzz_case()
    expected = [judged(p) for p in Runner(ReferenceAdapter(), timeout=None).run(case).parts]
    transcript = io.StringIO()
    runner = Runner(adapters(SERVE, transcript=transcript, validate_protocol=True))
    runner.prefetch(case)
    assert sent(transcript)[-1] == "run_script"
    assert [judged(runner.run_part(case, part)) for part in case.parts] == expected
    assert sent(transcript) == ["hello", "run_script"]
    requests = json.loads(transcript.getvalue().splitlines()[2][2:])["requests"]
    assert [r["op"] for r in requests][:3] == ["validate", "start", "send"]


def test_a_prefetch_is_dropped_when_another_case_runs_first(
    adapters: Callable[..., SubprocessAdapter],
) -> None:
    first, second = fuzz_case(), fuzz_case()
    transcript = io.StringIO()
    runner = Runner(adapters(SERVE, transcript=transcript))
    runner.prefetch(first)
    results = [runner.run_part(second, part) for part in second.parts]
    assert [r.outcome for r in results] == ["passed", "passed"]
    assert sent(transcript) == ["hello", "run_script", "validate", "run_script"]


def test_a_prefetched_answer_is_kept_when_another_request_comes_first(
    adapters: Callable[..., SubprocessAdapter],
) -> None:
    adapter = adapters(SERVE)
    pack = PackInput(json.dumps(PACK), "json", PACK, "<test>")
    pending = adapter.client.send("validate", {"pack": {"text": pack.text, "format": "json"}})
    diagnostics = adapter.validate(pack)  # reads the first answer, then sends and reads its own
    assert pending.answer() == {"id": 2, "ok": True, "diagnostics": diagnostics}
    assert [d["code"] for d in diagnostics] == ["cycle-unbounded"]


def test_the_fuzzer_through_the_protocol_finds_and_shrinks_as_in_process(
    fakes_importable: Path, adapters: Callable[..., SubprocessAdapter]
) -> None:
    """Each example sent ahead, judged after the next one's oracle: the same run."""
    options: dict[str, Any] = {"areas": ("workflow",), "examples_wanted": 300, "seed": 2}
    in_process = fuzz(breaking.IgnoresUnknownEvents(), **options)
    transcript = io.StringIO()
    served = [*SERVE, "--adapter", "breaking:IgnoresUnknownEvents"]
    through = fuzz(adapters(served, transcript=transcript), **options)
    assert in_process.finding is not None
    assert through.finding is not None
    assert (through.found_after, through.shrink_runs) == (
        in_process.found_after,
        in_process.shrink_runs,
    )
    fields = ("kind", "part", "message", "step", "field", "rule")
    assert [getattr(through.finding, f) for f in fields] == [
        getattr(in_process.finding, f) for f in fields
    ]
    assert through.finding.expected == in_process.finding.expected
    assert sent(transcript).count("run_script") >= through.found_after
    assert "validate" not in sent(transcript)[: through.found_after]
    assert "\n# " not in transcript.getvalue()


# -- the hello ----------------------------------------------------------------------------------


def test_operations_that_are_not_a_list_of_names_are_a_fault(
    adapters: Callable[..., SubprocessAdapter],
) -> None:
    answer = json.dumps({"operations": "run_script"})
    adapter = adapters(command("bad_hello", "--answer", answer), max_failed_starts=5)
    with pytest.raises(AdapterFault, match="operations must be a list of operation names"):
        adapter.capabilities()


def test_unknown_operations_are_ignored(adapters: Callable[..., SubprocessAdapter]) -> None:
    answer = json.dumps({"operations": ["teleport"]})
    transcript = io.StringIO()
    adapter = adapters(command("bad_hello", "--answer", answer), transcript=transcript)
    (result,) = Runner(adapter).run(fuzz_case()).parts[1:]
    assert result.outcome == "passed", result.message
    assert "run_script" not in sent(transcript)


def test_ppconf_run_through_ppconf_serve_sends_scripts(
    cached_catalog: Catalog, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    log = tmp_path / "protocol.log"
    spec = "cmd:" + shlex.join(SERVE)
    case = "workflow.execution.unknown-event"
    status = main(["run", "--adapter", spec, "--id", case, "--protocol-log", str(log)])
    assert status == 0, capsys.readouterr().out
    assert '"op":"run_script"' in log.read_text(encoding="utf-8")


# -- the published schema -----------------------------------------------------------------------


def test_the_schema_holds_a_script_to_requests_without_id_pack_and_session() -> None:
    requests = [
        {"op": "validate"},
        {"op": "start", "at_state": "a"},
        {"op": "send", "event": "Go", "source": "host"},
        {"op": "state"},
        {"op": "run_composition", "name": "c", "input": None, "mocks": {}},
    ]
    script = {"id": 1, "op": "run_script", "pack": {"text": "{}", "format": "json"}}
    check_message({**script, "requests": requests}, "Request")
    for wrong in (
        {"op": "send", "event": "Go", "source": "host", "session": "s1"},
        {"op": "validate", "pack": script["pack"]},
        {"op": "start", "at_state": "a", "agent": "m"},
        {"op": "close"},
        {"op": "run_script", "requests": []},
        {"id": 2, "op": "state"},
    ):
        with pytest.raises(ProtocolError, match="request breaks the protocol schema"):
            check_message({**script, "requests": [wrong]}, "Request")


def test_the_schema_holds_each_answer_of_a_script_to_an_answer_without_id() -> None:
    answers: list[dict[str, Any]] = [
        {"ok": True, "session": "s1"},
        {"ok": True, "diagnostics": [{"code": "x", "severity": "warning", "path": None}]},
        {"ok": False, "error": {"code": "unknown-event", "message": "no"}},
        {"skipped": {"reason": "not here"}},
    ]
    check_message({"id": 1, "ok": True, "answers": answers}, "Response")
    for wrong in ({"id": 2, "ok": True}, {"ok": True, "answers": []}, {"ok": "yes"}):
        with pytest.raises(ProtocolError, match="response breaks the protocol schema"):
            check_message({"id": 1, "ok": True, "answers": [wrong]}, "Response")


ANY_OF_CASE = """\
id: workflow.scripts.any-of
description: an alternative that reads the session, left unread when another matches
area: workflow
level: 2
requirement: MUST
statements: [RFC0005.def.WorkflowState.on_event.2]
spec_versions: [">=1.4"]
rules: [X4]
pack:
  id: any-of
  name: Any of
  version: 1.0.0
  template_engine: {version: v1, syntax: "{{variable}}"}
  prompts:
    main: {id: main, name: Main, version: 1.0.0, system_template: Work.}
  workflow:
    version: 1
    entry: draft
    states:
      draft: {prompt_task: main, on_event: {Submit: review}}
      review: {prompt_task: main, on_event: {Approve: done}}
      done: {prompt_task: main, terminal: true}
scenarios:
  - name: either
    steps:
      - event: Submit
        expect:
          any_of:
            - transition: {from: draft, to: review, event: Submit}
            - {rejection: unknown-event, state: draft}
      - event: Approve
        expect: {state: done}
"""


def test_a_state_the_judging_does_not_read_is_passed_over(
    tmp_path: Path, adapters: Callable[..., SubprocessAdapter]
) -> None:
    (tmp_path / "workflow").mkdir()
    (tmp_path / "workflow" / "any-of.yaml").write_text(ANY_OF_CASE, encoding="utf-8")
    (case,) = load_catalog(tmp_path).cases
    transcript = io.StringIO()
    (result,) = Runner(adapters(SERVE, transcript=transcript)).run(case).parts
    assert result.outcome == "passed", result.message
    assert sent(transcript) == ["hello", "run_script"]
    assert "\n# " not in transcript.getvalue()
    requests = json.loads(transcript.getvalue().splitlines()[2][2:])["requests"]
    assert [r["op"] for r in requests] == ["start", "send", "state", "send", "state"]
