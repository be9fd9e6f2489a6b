"""The runner: what reaches the adapter, how each outcome arises, and what failures say."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import fakes
import pytest
from conftest import BINDING

from conformance import (
    Case,
    CaseResult,
    Catalog,
    Check,
    PackInput,
    PackRejected,
    PartResult,
    ReferenceAdapter,
    Rejected,
    Runner,
    Unsupported,
    load_case,
)
from conformance._catalog.cases import DiagnosticRef, ValidationExpectation
from conformance._judging.runner import judge_validation

CaseText = Callable[..., str]


@pytest.fixture
def make_case(tmp_path: Path, case_text: CaseText) -> Callable[..., Case]:
    """Write a case (``case_text`` arguments) as ``workflow/case.yaml`` and load it."""

    def make(*args: Any, **kwargs: Any) -> Case:
        root = tmp_path / "catalog"
        (root / "workflow").mkdir(parents=True, exist_ok=True)
        path = root / "workflow" / "case.yaml"
        path.write_text(case_text(*args, **kwargs), encoding="utf-8")
        return load_case(path, root)

    return make


def line_of(case: Case, fragment: str, occurrence: int = 1) -> int:
    seen = 0
    for number, line in enumerate(case.file.read_text(encoding="utf-8").splitlines(), start=1):
        if fragment in line:
            seen += 1
            if seen == occurrence:
                return number
    raise AssertionError(f"{fragment!r} not in {case.file}")


def only_part(result: CaseResult) -> PartResult:
    [part] = result.parts
    return part


# -- adapters built for these tests -------------------------------------------------------------


class Delegate(fakes.Delegating):
    """The reference adapter, describing itself as the reference; tests override what they need."""

    def capabilities(self) -> Any:
        return self.reference.capabilities()


SessionDelegate = fakes.SessionDelegate


class Recording(Delegate):
    """The reference, noting every argument the kit hands over (sessions included)."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[str, tuple[Any, ...]]] = []
        self.snapshots: list[Any] = []

    def note(self, name: str, *args: Any) -> None:
        self.calls.append((name, args))

    def load(self, pack: PackInput) -> None:
        self.note("load", pack)
        super().load(pack)

    def validate(self, pack: PackInput) -> Sequence[Mapping[str, Any]]:
        self.note("validate", pack)
        return super().validate(pack)

    def start(self, pack: PackInput) -> Any:
        self.note("start", pack)
        return RecordingSession(self, super().start(pack))

    def start_at(
        self, pack: PackInput, *, state: str | None = None, agent: str | None = None
    ) -> Any:
        self.note("start_at", pack, *(name for name in (state, agent) if name is not None))
        return RecordingSession(self, self.reference.start_at(pack, state=state, agent=agent))

    def restore(self, pack: PackInput, snapshot: Any) -> Any:
        self.note("restore", pack)
        assert any(snapshot is mine for mine in self.snapshots), "a snapshot we never gave"
        return RecordingSession(self, super().restore(pack, snapshot))

    def run_composition(
        self, pack: PackInput, name: str, input: Any, mocks: Mapping[str, Any]
    ) -> Mapping[str, Any]:
        self.note("run_composition", pack, name, mocks)
        return self.reference.run_composition(pack, name, input, mocks)


class RecordingSession(SessionDelegate):
    def __init__(self, adapter: Recording, session: Any) -> None:
        super().__init__(session)
        self.adapter = adapter

    def send(self, event: str, source: str) -> Mapping[str, Any]:
        self.adapter.note("send", event, source)
        return super().send(event, source)

    def set_artifact(self, name: str, value: str) -> None:
        self.adapter.note("set_artifact", name, value)
        super().set_artifact(name, value)

    def record_tool_calls(self, count: int) -> None:
        self.adapter.note("record_tool_calls", count)
        super().record_tool_calls(count)

    def advance_clock(self, seconds: float) -> None:
        self.adapter.note("advance_clock", seconds)
        super().advance_clock(seconds)

    def agent_text(self, text: str) -> None:
        self.adapter.note("agent_text", text)
        self.session.agent_text(text)

    def user_turn(self) -> None:
        self.adapter.note("user_turn")
        self.session.user_turn()

    def state(self) -> Mapping[str, Any]:
        self.adapter.note("state")
        return super().state()

    def snapshot(self) -> Any:
        self.adapter.note("snapshot")
        snapshot = super().snapshot()
        self.adapter.snapshots.append(snapshot)
        return snapshot

    def run_state(self, input: Any, mocks: Mapping[str, Any]) -> Mapping[str, Any]:
        self.adapter.note("run_state", mocks)
        return self.session.run_state(input, mocks)  # type: ignore[no-any-return]


def strings_in(value: Any) -> Iterator[str]:
    """Every string inside a value (keys included), a pack's text and parse alike."""
    if isinstance(value, PackInput):
        yield from (value.text, value.format, value.source)
        yield from strings_in(value.document)
    elif isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from strings_in(key)
            yield from strings_in(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from strings_in(item)


SENTINEL_BODY = """\
load: true
validation:
  valid: true
  absent: [sentinel-absent-code]
scenarios:
  - name: sentinel
    steps:
      - set_artifact: {name: notes, value: plain-input}
        expect: {artifacts: {$one_of: [{notes: plain-input}, {notes: sentinel-step-artifact}]}}
      - tool_calls: 3
        expect: {tool_calls: {$one_of: [3, 777001]}}
      - advance_clock: 2.5
      - snapshot_restore: true
        expect: {state: {$one_of: [draft, sentinel-step-state]}}
      - event: Submit
        expect:
          transition: {from: draft, to: review, event: Submit}
          status: {$one_of: [completed, sentinel-step-status]}
    final:
      state: {$one_of: [review, sentinel-final-state]}
      visit_counts: {$subset: {review: 1}}
"""
SENTINELS = ("sentinel-", "777001")
ARGUMENT_TYPES = {
    "load": (PackInput,),
    "validate": (PackInput,),
    "start": (PackInput,),
    "start_at": (PackInput, str),  # the pack, and the state or the agents member
    "agent_text": (str,),
    "user_turn": (),
    "restore": (PackInput,),
    "send": (str, str),
    "set_artifact": (str, str),
    "record_tool_calls": (int,),
    "advance_clock": (int, float),
    "state": (),
    "snapshot": (),
    # The composition input is any JSON value: checked for sentinels, not for type.
    "run_composition": (PackInput, str, Mapping),
    "run_state": (Mapping,),
}


def check_calls(calls: list[tuple[str, tuple[Any, ...]]]) -> None:
    for name, args in calls:
        types = ARGUMENT_TYPES[name]
        if name == "advance_clock":
            assert len(args) == 1
            assert isinstance(args[0], int | float)
        else:
            assert len(args) == len(types), (name, args)
            for arg, kind in zip(args, types, strict=True):
                assert isinstance(arg, kind), (name, args)
        assert not any(isinstance(arg, bool) for arg in args), (name, args)
        if name == "send":
            assert args[1] in ("host", "agent")
        for text in (s for arg in args for s in strings_in(arg)):
            assert not any(sentinel in text for sentinel in SENTINELS), (name, text)


def test_expectations_never_reach_the_adapter(make_case: Callable[..., Case]) -> None:
    case = make_case("workflow.test.sentinel", body=SENTINEL_BODY)
    assert "sentinel-final-state" in case.file.read_text(encoding="utf-8")
    adapter = Recording()
    result = Runner(adapter).run(case)
    assert result.passed, result.failures()
    names = [name for name, _ in adapter.calls]
    for name in ("load", "validate", "start", "set_artifact", "record_tool_calls"):
        assert name in names
    assert {"advance_clock", "snapshot", "restore", "send", "state"} <= set(names)
    check_calls(adapter.calls)


def test_no_case_of_the_catalog_hands_over_anything_but_packs_and_inputs(catalog: Catalog) -> None:
    adapter = Recording()
    results = Runner(adapter, timeout=None).run_all(catalog.cases)
    assert all(r.passed for r in results)
    check_calls(adapter.calls)
    starts = ("load", "validate", "start", "start_at")
    packs = [args[0] for name, args in adapter.calls if name in starts]
    # Every call gets a PackInput of its own: the same pack, never the case's own object.
    assert {p.text for p in packs} <= {c.pack.text for c in catalog.cases}
    assert not {id(p) for p in packs} & {id(c.pack) for c in catalog.cases}
    assert len({id(p) for p in packs}) == len(packs)


class Vandal(Delegate):
    """Changes every pack document it is given, after using it."""

    def validate(self, pack: PackInput) -> Sequence[Mapping[str, Any]]:
        found = super().validate(pack)
        assert pack.document is not None
        pack.document["workflow"]["entry"] = "vandalised"
        pack.document.clear()
        return found

    def start(self, pack: PackInput) -> Any:
        session = super().start(pack)
        assert pack.document is not None
        pack.document.clear()
        return session


def test_each_call_gets_its_own_copy_of_the_pack(make_case: Callable[..., Case]) -> None:
    body = VALIDATION_VALID_BODY + "scenarios:\n" + SCENARIO_ITEMS
    case = make_case(body=body)
    original = case.pack.document
    result = Runner(Vandal()).run(case)
    assert result.passed, result.failures()
    assert case.pack.document == original
    assert case.pack.document["workflow"]["entry"] == "draft"  # type: ignore[index]


# -- outcomes -----------------------------------------------------------------------------------


def test_passed(make_case: Callable[..., Case]) -> None:
    case = make_case()
    result = Runner(ReferenceAdapter()).run(case)
    assert result.parts[0].part == "submit"
    assert (result.outcome, result.passed, result.failures()) == ("passed", True, [])
    assert result.duration >= 0
    assert result.parts[0].checks == (Check("scenario", "MUST", True, statements=(BINDING,)),)


class Crashes(Delegate):
    def start(self, pack: PackInput) -> Any:
        raise RuntimeError("boom")


def test_an_adapter_exception_is_errored_and_says_where(make_case: Callable[..., Case]) -> None:
    part = only_part(Runner(Crashes()).run(make_case()))
    assert part.outcome == "errored"
    assert part.message.startswith(
        "adapter fault: the adapter raised RuntimeError in start(): boom at "
    )
    assert part.message.endswith(f"{__file__}:{Crashes.start.__code__.co_firstlineno + 1}")


class SaysUnsupported(Delegate):
    def start(self, pack: PackInput) -> Any:
        raise Unsupported("no sessions here")


def test_unsupported_is_skipped(make_case: Callable[..., Case]) -> None:
    part = only_part(Runner(SaysUnsupported()).run(make_case()))
    assert (part.outcome, part.message) == (
        "skipped",
        "unsupported by the runtime: no sessions here",
    )


class Blocks(Delegate):
    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()
        self.blocked = 0

    def start(self, pack: PackInput) -> Any:
        if pack.document is not None and pack.document["id"] == "blocks":
            self.blocked += 1
            self.release.wait(30)
        return super().start(pack)


def test_a_hang_is_a_timeout_and_the_next_part_runs(make_case: Callable[..., Case]) -> None:
    adapter = Blocks()
    hanging = make_case("workflow.test.hangs", pack_id="blocks")
    fine = make_case("workflow.test.fine")
    try:
        results = Runner(adapter, timeout=0.5).run_all([hanging, fine, hanging, fine])
    finally:
        adapter.release.set()
    assert [r.outcome for r in results] == ["timeout", "passed", "timeout", "passed"]
    assert results[0].parts[0].message == "no answer within 0.5 s"
    assert adapter.blocked == 2


class Interrupts(Delegate):
    def start(self, pack: PackInput) -> Any:
        raise KeyboardInterrupt


@pytest.mark.parametrize("timeout", [None, 5.0])
def test_an_interrupt_is_not_swallowed(
    make_case: Callable[..., Case], timeout: float | None
) -> None:
    with pytest.raises(KeyboardInterrupt):
        Runner(Interrupts(), timeout=timeout).run(make_case())


def test_without_a_timeout_the_adapter_runs_in_this_thread(make_case: Callable[..., Case]) -> None:
    threads = []

    class Where(Delegate):
        def start(self, pack: PackInput) -> Any:
            threads.append(threading.current_thread())
            return super().start(pack)

    Runner(Where(), timeout=None).run(make_case())
    Runner(Where(), timeout=5).run(make_case())
    assert threads[0] is threading.current_thread()
    assert threads[1] is not threading.current_thread()


def test_the_worst_part_decides_the_case(make_case: Callable[..., Case]) -> None:
    case = make_case()
    order = ["passed", "skipped", "timeout", "errored", "failed"]
    for worse, better in zip(order[1:], order, strict=False):
        result = CaseResult(case, (PartResult("a", better), PartResult("b", worse)))  # type: ignore[arg-type]
        assert result.outcome == worse
        assert [p.part for p in result.failures()] == (["b"] if better == "passed" else ["a", "b"])


def test_run_all_reports_each_case_as_it_ends(make_case: Callable[..., Case]) -> None:
    first = make_case("workflow.test.first")
    second = make_case("workflow.test.second")
    seen: list[str] = []
    results = Runner(ReferenceAdapter()).run_all([first, second], seen.append)  # type: ignore[arg-type]
    assert [r.case.id for r in results] == ["workflow.test.first", "workflow.test.second"]
    assert seen == results  # type: ignore[comparison-overlap]


def test_run_part_runs_only_that_part(make_case: Callable[..., Case]) -> None:
    adapter = Recording()
    case = make_case(body=SENTINEL_BODY)
    assert Runner(adapter).run_part(case, "load").outcome == "passed"
    assert [name for name, _ in adapter.calls] == ["load"]


# -- failure messages: file:line, scenario, step, expected vs actual ----------------------------


class WrongTarget(Delegate):
    def start(self, pack: PackInput) -> Any:
        return WrongTargetSession(super().start(pack))


class WrongTargetSession(SessionDelegate):
    def send(self, event: str, source: str) -> Mapping[str, Any]:
        return {**super().send(event, source), "to": "elsewhere"}


def test_a_wrong_transition_names_file_line_step_expected_and_actual(
    make_case: Callable[..., Case],
) -> None:
    case = make_case()
    part = only_part(Runner(WrongTarget()).run(case))
    assert part.outcome == "failed"
    assert part.message == (
        f"workflow/case.yaml:{line_of(case, '- event: Submit')}: scenario 'submit', step 1 "
        '(event Submit): transition.to: expected "review", got "elsewhere"'
    )


STEPS_BODY = """\
scenarios:
  - name: steps
    steps:
      - event: Nope
        expect: {rejection: unknown-event, state: draft}
      - event: Submit
        expect: {state: review, status: completed, visit_counts: {draft: 1, review: 1}}
      - event: Submit
        expect: {rejection: terminal-state}
    final: {state: review, history: [{from: draft, to: review, event: Submit}]}
"""


def test_an_unexpected_rejection(make_case: Callable[..., Case]) -> None:
    case = make_case(body=STEPS_BODY)
    part = only_part(Runner(fakes.ValidatesOnly()).run(case))
    assert part.message == (
        f"workflow/case.yaml:{line_of(case, '- event: Submit')}: scenario 'steps', step 2 "
        "(event Submit): rejected with unknown-event, expected acceptance"
    )


class AcceptsEverything(Delegate):
    def start(self, pack: PackInput) -> Any:
        return AcceptingSession(super().start(pack))


class AcceptingSession(SessionDelegate):
    def send(self, event: str, source: str) -> Mapping[str, Any]:
        try:
            return super().send(event, source)
        except Rejected:
            return {"from": "draft", "to": "limbo", "event": event}


def test_an_unexpected_acceptance(make_case: Callable[..., Case]) -> None:
    case = make_case(body=STEPS_BODY)
    part = only_part(Runner(AcceptsEverything()).run(case))
    assert part.message == (
        f"workflow/case.yaml:{line_of(case, '- event: Nope')}: scenario 'steps', step 1 "
        "(event Nope): accepted (draft -> limbo), expected a rejection (unknown-event)"
    )


class RejectsWith(Delegate):
    def __init__(self, code: str, limit: str | None = None) -> None:
        super().__init__()
        self.code, self.limit = code, limit

    def start(self, pack: PackInput) -> Any:
        adapter = self

        class Session(SessionDelegate):
            def send(self, event: str, source: str) -> Mapping[str, Any]:
                if event == "Nope":
                    raise Rejected(adapter.code, limit=adapter.limit)
                return super().send(event, source)

        return Session(super().start(pack))


def code_check(part: PartResult, check_id: str | None = None) -> Check:
    """The part's one check of the kit's codes (or the one named ``check_id``)."""
    (check,) = [
        c for c in part.checks if c.id == check_id or (check_id is None and c.id.endswith(" code"))
    ]
    return check


def test_a_wrong_rejection_code_is_a_finding_not_a_failure(make_case: Callable[..., Case]) -> None:
    # R9: the event must be rejected (MUST); the kit's code for it is its vocabulary (MAY here:
    # no RFC names the condition of unknown-event in words).
    case = make_case(body=STEPS_BODY)
    part = only_part(Runner(RejectsWith("terminal-state")).run(case))
    assert part.outcome == "passed"
    check = code_check(part, "step 1 code")
    assert (check.requirement, check.passed) == ("MAY", False)
    assert check.statements == ("kit.code.unknown-event",)
    assert check.message.endswith(
        "scenario 'steps', step 1 (event Nope): "
        "expected rejection unknown-event, got terminal-state"
    )
    assert code_check(part, "step 3 code").passed
    right = only_part(Runner(ReferenceAdapter()).run(case))
    assert code_check(right, "step 1 code").passed


LIMIT_BODY = """\
scenarios:
  - name: limit
    steps:
      - event: Nope
        expect: {rejection: {code: budget-exhausted, limit: max_tool_calls}}
"""


@pytest.mark.parametrize(
    ("code", "limit", "shown"),
    [
        ("budget-exhausted", "max_tool_calls", ""),
        ("budget-exhausted", "max_total_visits", "got budget-exhausted (max_total_visits)"),
        ("budget-exhausted", None, "got budget-exhausted"),
        ("unknown-event", None, "got unknown-event"),
    ],
)
def test_a_rejection_limit_is_compared_when_the_case_names_it(
    make_case: Callable[..., Case], code: str, limit: str | None, shown: str
) -> None:
    part = only_part(Runner(RejectsWith(code, limit)).run(make_case(body=LIMIT_BODY)))
    assert part.outcome == "passed"  # rejected, as the case requires
    check = code_check(part)
    # RFC 0009 names the budget-exhausted condition in words: its code weighs SHOULD.
    assert check.requirement == "SHOULD"
    assert check.passed == (not shown)
    if shown:
        assert check.message.endswith(
            f"expected rejection budget-exhausted (max_tool_calls), {shown}"
        )


class ForgetsHistory(Delegate):
    def start(self, pack: PackInput) -> Any:
        class Session(SessionDelegate):
            def state(self) -> Mapping[str, Any]:
                return {k: v for k, v in super().state().items() if k != "history"}

        return Session(super().start(pack))


def test_history_is_a_detail_the_rfcs_only_recommend(make_case: Callable[..., Case]) -> None:
    # RFC 0009 Question 2 leans to recommending, not requiring, the record of transitions: a
    # runtime without one passes the scenario, with a SHOULD finding naming the final block.
    case = make_case(body=STEPS_BODY)
    part = only_part(Runner(ForgetsHistory()).run(case))
    assert part.outcome == "passed"
    check = code_check(part, "final history")
    assert (check.requirement, check.passed) == ("SHOULD", False)
    assert check.statements == ("RFC0009.question-2.lean.1",)
    assert check.message == (
        f"workflow/case.yaml:{line_of(case, 'final:')}: scenario 'steps': final: history: expected "
        '[{"event": "Submit", "from": "draft", "to": "review"}], got nothing (not reported)'
    )
    assert code_check(only_part(Runner(ReferenceAdapter()).run(case)), "final history").passed


class WrongFinalState(Delegate):
    def start(self, pack: PackInput) -> Any:
        class Session(SessionDelegate):
            def state(self) -> Mapping[str, Any]:
                return {**super().state(), "current_state": "elsewhere"}

        return Session(super().start(pack))


def test_a_final_mismatch_names_the_final_block(make_case: Callable[..., Case]) -> None:
    case = make_case(body="scenarios:\n  - name: steps\n    steps: []\n    final: {state: draft}\n")
    part = only_part(Runner(WrongFinalState()).run(case))
    assert part.message == (
        f"workflow/case.yaml:{line_of(case, 'final:')}: scenario 'steps': final: state: expected "
        '"draft", got "elsewhere"'
    )


class StaysPut(Delegate):
    def start(self, pack: PackInput) -> Any:
        class Session(SessionDelegate):
            def state(self) -> Mapping[str, Any]:
                return {**super().state(), "visit_counts": {"draft": 1}}

        return Session(super().start(pack))


def test_a_step_observation_mismatch(make_case: Callable[..., Case]) -> None:
    case = make_case(body=STEPS_BODY)
    part = only_part(Runner(StaysPut()).run(case))
    assert part.message == (
        f"workflow/case.yaml:{line_of(case, '- event: Submit')}: scenario 'steps', step 2 "
        "(event Submit): visit_counts.review: expected 1, got nothing (not reported)"
    )


START_BODY = """\
scenarios:
  - name: refused
    start: {rejection: workflow-version-unsupported}
"""


def test_a_session_that_starts_when_it_must_not(make_case: Callable[..., Case]) -> None:
    case = make_case(body=START_BODY)
    part = only_part(Runner(ReferenceAdapter()).run(case))
    assert part.message == (
        f"workflow/case.yaml:{line_of(case, '- name: refused')}: scenario 'refused': the session "
        "started at the entry, expected a refusal with workflow-version-unsupported"
    )


class RefusesToStart(Delegate):
    def __init__(self, code: str) -> None:
        super().__init__()
        self.code = code

    def start(self, pack: PackInput) -> Any:
        raise Rejected(self.code)


def test_a_refusal_to_start(make_case: Callable[..., Case]) -> None:
    assert (
        only_part(
            Runner(RefusesToStart("workflow-version-unsupported")).run(make_case(body=START_BODY))
        ).outcome
        == "passed"
    )
    case = make_case()
    part = only_part(Runner(RefusesToStart("workflow-version-unsupported")).run(case))
    assert part.message == (
        f"workflow/case.yaml:{line_of(case, '- name: submit')}: scenario 'submit': "
        "the session refused to start at the entry with workflow-version-unsupported, "
        "expected it to start"
    )


def test_a_refusal_to_start_with_the_wrong_code_shows_both(make_case: Callable[..., Case]) -> None:
    part = only_part(Runner(RefusesToStart("unknown-event")).run(make_case(body=START_BODY)))
    assert part.outcome == "passed"  # refused, as the case requires (R9)
    check = code_check(part)
    assert (check.id, check.passed) == ("start code", False)
    assert "workflow-version-unsupported" in check.message
    assert "unknown-event" in check.message


AT_STATE_BODY = """\
scenarios:
  - name: at-review
    start: {at_state: review}
    final: {state: review, status: completed}
"""


class NoStartAtState(Delegate):
    """Starts at the entry and as an agent, never at a named state: refused, or not offered."""

    def __init__(self, unsupported: bool) -> None:
        super().__init__()
        self.unsupported = unsupported

    def start_at(
        self, pack: PackInput, *, state: str | None = None, agent: str | None = None
    ) -> Any:
        if state is not None and self.unsupported:
            raise Unsupported("no start at a named state")
        if state is not None:
            raise Rejected("start-unsupported")
        return super().start_at(pack, state=state, agent=agent)


@pytest.mark.parametrize("unsupported", [False, True])
def test_a_start_at_a_named_state_refused_is_judged_at_may_only(
    make_case: Callable[..., Case], unsupported: bool
) -> None:
    """Starting at any named state is the kit's adapter contract (kit.pick.start-at-state): a
    runtime that refuses it, or does not offer it, has the part skipped (never passed) with its
    checks at MAY, so no level is lost; one that starts there is held to the case at MUST."""
    case = make_case(body=AT_STATE_BODY)
    part = only_part(Runner(NoStartAtState(unsupported)).run(case))
    assert part.outcome == "skipped"
    cause = (
        "no start at a named state (at state 'review': "
        if unsupported
        else "the session refused to start at state 'review' with start-unsupported ("
    )
    pick = "starting at a named state is the kit's adapter contract (kit.pick.start-at-state, MAY)"
    assert part.message.startswith(f"unsupported by the runtime: {cause}{pick}")
    (check,) = part.checks
    assert (check.id, check.requirement, check.passed) == ("scenario", "MAY", False)
    assert check.statements == ("kit.pick.start-at-state",)
    started = only_part(Runner(ReferenceAdapter()).run(case))
    assert started.outcome == "passed"
    assert [(c.requirement, c.passed) for c in started.checks] == [("MUST", True)]


def test_a_start_at_a_named_state_the_case_expects_refused_is_judged_as_written(
    make_case: Callable[..., Case],
) -> None:
    """A refusal the case asks for is no refusal of the kit's adapter contract: judged as any
    refusal (R9), the code in a check of its own."""
    body = """\
        scenarios:
          - name: nowhere
            start: {at_state: nowhere, rejection: start-state-unknown}
        """
    case = make_case(body=body)
    part = only_part(Runner(NoStartAtState(False)).run(case))
    assert part.outcome == "passed"
    main, code = part.checks
    assert (main.id, main.requirement, main.passed) == ("scenario", "MUST", True)
    assert (code.id, code.passed) == ("start code", False)


class PartialTransition(Delegate):
    def start(self, pack: PackInput) -> Any:
        class Session(SessionDelegate):
            def send(self, event: str, source: str) -> Mapping[str, Any]:
                return {"to": "limbo"}

        return Session(super().start(pack))


def test_an_incomplete_transition_is_a_failure_not_an_adapter_error(
    make_case: Callable[..., Case],
) -> None:
    part = only_part(Runner(PartialTransition()).run(make_case(body=STEPS_BODY)))
    assert part.outcome == "failed"
    assert "expected a rejection (unknown-event)" in part.message


def test_an_incomplete_transition_fails_a_transition_expectation(
    make_case: Callable[..., Case],
) -> None:
    part = only_part(Runner(PartialTransition()).run(make_case()))
    assert part.outcome == "failed"
    assert part.message.endswith('transition.from: expected "draft", got nothing (not reported)')


def test_a_snapshot_restore_continues_in_the_restored_session(
    make_case: Callable[..., Case],
) -> None:
    adapter = Recording()
    body = """\
    scenarios:
      - name: restored
        steps:
          - snapshot_restore: true
          - event: Submit
        final: {state: review}
    """
    assert Runner(adapter).run(make_case(body=body)).passed
    names = [name for name, _ in adapter.calls]
    assert names[:4] == ["start", "snapshot", "restore", "send"]


# -- load and validation parts ------------------------------------------------------------------


class RefusesAll(Delegate):
    def load(self, pack: PackInput) -> None:
        raise PackRejected("not today")


def test_load_parts(make_case: Callable[..., Case]) -> None:
    case = make_case(level=0, body="load: true\n")
    assert only_part(Runner(ReferenceAdapter()).run(case)).outcome == "passed"
    part = only_part(Runner(RefusesAll()).run(case))
    assert part.message == (
        f"workflow/case.yaml:{line_of(case, 'load: true')}: the runtime refused a pack it must "
        "load: not today"
    )
    refuse = make_case(level=0, body="load: false\n")
    assert only_part(Runner(RefusesAll()).run(refuse)).outcome == "passed"
    part = only_part(Runner(ReferenceAdapter()).run(refuse))
    assert part.message == (
        f"workflow/case.yaml:{line_of(refuse, 'load: false')}: the runtime loaded a pack it must "
        "refuse"
    )


class Reports(Delegate):
    def __init__(self, *diagnostics: Mapping[str, Any]) -> None:
        super().__init__()
        self.diagnostics = list(diagnostics)

    def validate(self, pack: PackInput) -> Sequence[Mapping[str, Any]]:
        return self.diagnostics


VALIDATION_VALID_BODY = """\
validation:
  valid: true
"""
SCENARIO_ITEMS = """\
  - name: submit
    steps:
      - event: Submit
        expect:
          transition: {from: draft, to: review, event: Submit}
"""
VALIDATION_BODY = """\
validation:
  valid: false
  errors: [{code: entry-unknown, path: /workflow/entry}]
  warnings: [{code: event-name-style}]
  absent: [cycle-unbounded]
"""
ENTRY = {"code": "entry-unknown", "severity": "error", "path": "/workflow/entry"}
STYLE = {"code": "event-name-style", "severity": "warning", "path": "/x"}


@pytest.mark.parametrize(
    ("valid", "weight"),
    # R2: an extra error on an invalid pack is allowed, so its absence is the kit's pick there.
    [(False, "MAY"), (True, "SHOULD")],
)
def test_an_absent_error_code_weighs_may_on_an_invalid_pack(
    make_case: Callable[..., Case], valid: bool, weight: str
) -> None:
    body = f"validation:\n  valid: {str(valid).lower()}\n  absent: [entry-unknown]\n"
    reported = [] if valid else [{**ENTRY, "code": "schema"}]
    part = only_part(Runner(Reports(*reported)).run(make_case(level=1, body=body)))
    assert graded(part.checks)["absent entry-unknown"] == (weight, True)


def graded(checks: Sequence[Check]) -> dict[str, tuple[str, bool]]:
    return {c.id: (c.requirement, c.passed) for c in checks}


@pytest.mark.parametrize(
    ("reported", "outcome", "failing"),
    [
        ([ENTRY, STYLE], "passed", []),
        # R2: the code is SHOULD, the pointer MAY; a MUST case still passes without them.
        (
            [STYLE, {**ENTRY, "code": "schema"}],
            "passed",
            ["error entry-unknown", "error entry-unknown at /workflow/entry"],
        ),
        (
            [{**ENTRY, "path": "/workflow"}, STYLE],
            "passed",
            ["error entry-unknown at /workflow/entry"],
        ),
        ([{**ENTRY, "path": None}, STYLE], "passed", ["error entry-unknown at /workflow/entry"]),
        # R2: extra errors on an invalid pack are fine.
        ([ENTRY, STYLE, {"code": "schema", "severity": "error", "path": "/a"}], "passed", []),
        # R3: event-name-style is RFC-named: SHOULD.
        ([ENTRY], "passed", ["warning event-name-style"]),
        (
            [ENTRY, STYLE, {"code": "cycle-unbounded", "severity": "warning", "path": None}],
            "passed",
            ["absent cycle-unbounded"],
        ),
        (
            [STYLE],
            "failed",
            ["valid", "error entry-unknown", "error entry-unknown at /workflow/entry"],
        ),
        (
            [],
            "failed",
            [
                "valid",
                "error entry-unknown",
                "error entry-unknown at /workflow/entry",
                "warning event-name-style",
            ],
        ),
    ],
)
def test_validation_parts_are_graded(
    make_case: Callable[..., Case],
    reported: list[Mapping[str, Any]],
    outcome: str,
    failing: list[str],
) -> None:
    case = make_case(level=1, body=VALIDATION_BODY)
    part = only_part(Runner(Reports(*reported)).run(case))
    assert part.outcome == outcome
    assert graded(part.checks) == {
        "valid": ("MUST", "valid" not in failing),
        "error entry-unknown": ("SHOULD", "error entry-unknown" not in failing),
        "error entry-unknown at /workflow/entry": (
            "MAY",
            "error entry-unknown at /workflow/entry" not in failing,
        ),
        "warning event-name-style": ("SHOULD", "warning event-name-style" not in failing),
        "absent cycle-unbounded": ("SHOULD", "absent cycle-unbounded" not in failing),
    }
    if outcome == "failed":
        assert part.message.startswith("expected the pack invalid, but no error was reported")


def test_a_should_case_grades_nothing_above_should(make_case: Callable[..., Case]) -> None:
    case = make_case(level=1, requirement="SHOULD", body=VALIDATION_BODY)
    part = only_part(Runner(Reports(STYLE)).run(case))
    assert part.outcome == "failed"
    assert {c.requirement for c in part.checks} == {"SHOULD", "MAY"}


def test_any_error_on_a_valid_pack_fails() -> None:
    valid = ValidationExpectation(valid=True)
    assert graded(judge_validation(valid, [], "MUST")) == {"valid": ("MUST", True)}
    assert graded(judge_validation(valid, [("warning", "event-name-style", None)], "MUST")) == {
        "valid": ("MUST", True)
    }
    (check,) = judge_validation(valid, [("error", "schema", "/a")], "MUST")
    assert not check.passed
    assert "expected the pack valid" in check.message


def test_planned_checks_are_all_not_passed() -> None:
    expected = ValidationExpectation(valid=False, errors=(DiagnosticRef(("schema",), "/a"),))
    assert graded(judge_validation(expected, None, "MUST")) == {
        "valid": ("MUST", False),
        "error schema": ("SHOULD", False),
        "error schema at /a": ("MAY", False),
    }


def test_alternative_codes_take_any_of_them() -> None:
    either = ValidationExpectation(
        valid=False, errors=(DiagnosticRef(("schema", "workflow-version-unsupported")),)
    )
    for code in ("schema", "workflow-version-unsupported"):
        assert all(c.passed for c in judge_validation(either, [("error", code, "/v")], "MUST"))
    checks = judge_validation(either, [("error", "entry-unknown", "/v")], "MUST")
    assert graded(checks)["error schema|workflow-version-unsupported"] == ("SHOULD", False)


CYCLE_A = DiagnosticRef(("cycle-unbounded",), "/workflow/states/a")
CYCLE_B = DiagnosticRef(("cycle-unbounded",), "/workflow/states/b")


def test_exact_codes_count_the_listed_diagnostics() -> None:
    exact = ValidationExpectation(
        valid=True, warnings=(CYCLE_A, CYCLE_B), exact=("cycle-unbounded",)
    )
    a = ("warning", "cycle-unbounded", "/workflow/states/a")
    b = ("warning", "cycle-unbounded", "/workflow/states/b")
    c = ("warning", "cycle-unbounded", "/workflow/states/c")
    assert all(check.passed for check in judge_validation(exact, [a, b], "MUST"))
    assert graded(judge_validation(exact, [a, b, c], "MUST"))["exact cycle-unbounded"] == (
        "SHOULD",
        False,
    )
    # One per component, but at another member: the count holds, the pointer is a MAY finding.
    checks = graded(judge_validation(exact, [a, c], "MUST"))
    assert checks["exact cycle-unbounded"] == ("SHOULD", True)
    assert checks["warning cycle-unbounded at /workflow/states/b"] == ("MAY", False)


def test_kit_lints_are_may_checks() -> None:
    lint = ValidationExpectation(
        valid=True,
        warnings=(DiagnosticRef(("no-terminal-state",)),),
        absent=("loop-without-budget",),
    )
    assert graded(judge_validation(lint, [], "MUST")) == {
        "valid": ("MUST", True),
        "warning no-terminal-state": ("MAY", False),
        "absent loop-without-budget": ("MAY", True),
    }


@pytest.mark.parametrize(
    ("diagnostics", "words"),
    [
        ({"code": "x"}, "not a list"),
        ([{"code": "x", "severity": "ERROR", "path": "/"}], "severity 'ERROR'"),
        ([{"severity": "error", "path": "/"}], "has no code"),
        ([{"code": "x", "severity": "error", "path": 3}], "has path 3"),
        (["schema"], "not a mapping"),
    ],
)
def test_malformed_diagnostics_are_adapter_faults(
    make_case: Callable[..., Case], diagnostics: Any, words: str
) -> None:
    class Malformed(Delegate):
        def validate(self, pack: PackInput) -> Any:
            return diagnostics

    part = only_part(Runner(Malformed()).run(make_case(level=1, body=VALIDATION_BODY)))
    assert part.outcome == "errored"
    assert words in part.message
    assert all(not c.passed for c in part.checks)


# -- no false passes ----------------------------------------------------------------------------


class StartsNothing(Delegate):
    def start(self, pack: PackInput) -> Any:
        return None


def test_a_start_that_returns_nothing_is_an_adapter_fault_not_a_refusal(
    make_case: Callable[..., Case],
) -> None:
    part = only_part(Runner(StartsNothing()).run(make_case(body=START_BODY)))
    assert part.outcome == "errored"
    assert "start() returned None, not a session" in part.message
    assert [(c.id, c.passed) for c in part.checks] == [("scenario", False), ("start code", False)]


class NoTarget(Delegate):
    def start(self, pack: PackInput) -> Any:
        class Session(SessionDelegate):
            def send(self, event: str, source: str) -> Mapping[str, Any]:
                return {"from": "draft", "event": event}

        return Session(super().start(pack))


def test_a_transition_without_to_is_an_adapter_fault(make_case: Callable[..., Case]) -> None:
    part = only_part(Runner(NoTarget()).run(make_case()))
    assert part.outcome == "errored"
    assert "a transition without 'to'" in part.message


class Exits(Delegate):
    def start(self, pack: PackInput) -> Any:
        raise SystemExit(3)


class Strange(BaseException):
    pass


class RaisesStrange(Delegate):
    def start(self, pack: PackInput) -> Any:
        raise Strange("odd")


@pytest.mark.parametrize(("adapter", "name"), [(Exits, "SystemExit"), (RaisesStrange, "Strange")])
def test_base_exceptions_of_the_adapter_error_the_part_and_the_run_goes_on(
    make_case: Callable[..., Case], adapter: type[Delegate], name: str
) -> None:
    runner = Runner(adapter())
    results = runner.run_all([make_case(), make_case(level=0, body="load: true\n")])
    assert only_part(results[0]).outcome == "errored"
    assert f"the adapter raised {name} in start()" in only_part(results[0]).message
    assert results[1].passed


def test_a_kit_error_is_called_a_kit_error(
    make_case: Callable[..., Case], monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: Any) -> Any:
        raise AssertionError("a kit bug")

    monkeypatch.setattr("conformance._judging.runner.compare_observations", broken)
    part = only_part(Runner(ReferenceAdapter()).run(make_case(body=STEPS_BODY)))
    assert part.outcome == "errored"
    assert part.message.startswith("kit error: AssertionError: a kit bug at ")
    assert "test_runner.py:" in part.message  # where the error was raised


class FlipsEveryOtherRun(Delegate):
    def __init__(self) -> None:
        super().__init__()
        self.starts = 0

    def start(self, pack: PackInput) -> Any:
        self.starts += 1
        if self.starts % 2 == 0:
            raise Rejected("workflow-version-unsupported")
        return super().start(pack)


def test_a_part_that_ends_differently_between_runs_is_flaky(
    make_case: Callable[..., Case],
) -> None:
    case = make_case()
    assert only_part(Runner(FlipsEveryOtherRun()).run(case)).outcome == "passed"
    part = only_part(Runner(FlipsEveryOtherRun(), repeat=3).run(case))
    assert part.outcome == "flaky"
    assert "passed in runs 1, 3; failed in run 2 (" in part.message
    assert [c.passed for c in part.checks] == [False]
    assert only_part(Runner(ReferenceAdapter(), repeat=3).run(case)).outcome == "passed"


class CodeFlips(Delegate):
    """Rejects as it must every time, with a different code every other time."""

    def __init__(self) -> None:
        super().__init__()
        self.sends = 0

    def start(self, pack: PackInput) -> Any:
        adapter = self

        class Session(SessionDelegate):
            def send(self, event: str, source: str) -> Mapping[str, Any]:
                if event == "Nope":
                    adapter.sends += 1
                    raise Rejected("unknown-event" if adapter.sends % 2 else "odd-code")
                return super().send(event, source)

        return Session(super().start(pack))


def test_a_part_whose_must_checks_agree_is_no_flake(make_case: Callable[..., Case]) -> None:
    # Every run passes the MUST check; only the MAY check of the code flips (R20): the part
    # passes, and that check fails as a finding saying which runs differed, not "run 1:
    # passed, run 2: passed, run 3: passed".
    part = only_part(Runner(CodeFlips(), repeat=3).run(make_case(body=STEPS_BODY)))
    assert part.outcome == "passed"
    failed = [c for c in part.checks if not c.passed]
    assert [(c.id, c.requirement) for c in failed] == [("step 1 code", "MAY")]
    assert failed[0].message.startswith("flaky: 3 runs did not end the same way: ")
    assert "passed in" not in failed[0].message
    assert "MAY check 'step 1 code' failed in run 2 (" in failed[0].message
    assert "got odd-code" in failed[0].message


def test_a_weaker_case_whose_checks_vary_fails_at_its_requirement(
    make_case: Callable[..., Case],
) -> None:
    # A SHOULD case whose SHOULD check varies is flaky at SHOULD (R20): a SHOULD failure, a
    # finding for the levels, never a fault counted at every requirement.
    part = only_part(Runner(FlipsEveryOtherRun(), repeat=3).run(make_case(requirement="SHOULD")))
    assert part.outcome == "failed"
    assert part.message.startswith("flaky: 3 runs did not end the same way: ")


class RefusesThePack(Delegate):
    def validate(self, pack: PackInput) -> Any:
        raise PackRejected("cannot parse this pack")

    def start(self, pack: PackInput) -> Any:
        raise PackRejected("cannot parse this pack")


def test_a_refused_pack_fails_the_part_it_stops_and_is_no_adapter_fault(
    make_case: Callable[..., Case],
) -> None:
    # A runtime that answers pack-rejected when asked to start (the spec authors' runtime does,
    # for packs its loader refuses) has not run the scenario: the part fails, nothing errors.
    part = only_part(Runner(RefusesThePack()).run(make_case()))
    assert part.outcome == "failed"
    assert "the runtime refused the pack: cannot parse this pack" in part.message
    invalid = make_case(
        level=1, body="validation: {valid: false, errors: [{code: entry-unknown}]}\n"
    )
    checks = {c.id: c.passed for c in only_part(Runner(RefusesThePack()).run(invalid)).checks}
    assert checks == {"valid": True, "error entry-unknown": False}
    valid = make_case(level=1, body="validation: {valid: true}\n")
    assert only_part(Runner(RefusesThePack()).run(valid)).outcome == "failed"


def test_repeat_must_be_positive() -> None:
    with pytest.raises(ValueError, match="repeat"):
        Runner(ReferenceAdapter(), repeat=0)


# -- alternatives the RFC allows (R1) ------------------------------------------------------------

ALTERNATIVES_BODY = """\
scenarios:
  - name: either
    steps:
      - event: Nope
        expect: {rejection: [unknown-event, terminal-state], state: draft}
      - event: Submit
        expect:
          any_of:
            - {rejection: budget-exhausted}
            - {transition: {to: review}, status: completed}
"""


def test_a_rejection_may_name_alternative_codes(make_case: Callable[..., Case]) -> None:
    case = make_case(body=ALTERNATIVES_BODY)
    assert Runner(ReferenceAdapter()).run(case).passed
    part = only_part(Runner(RefusesToStart("x")).run(make_case(body=ALTERNATIVES_BODY)))
    assert part.outcome == "failed"


class RefusesEverything(Delegate):
    def start(self, pack: PackInput) -> Any:
        class Session(SessionDelegate):
            def send(self, event: str, source: str) -> Mapping[str, Any]:
                raise Rejected("budget-exhausted" if event == "Submit" else "odd-code")

        return Session(super().start(pack))


def test_any_of_takes_any_listed_result(make_case: Callable[..., Case]) -> None:
    part = only_part(Runner(RefusesEverything()).run(make_case(body=ALTERNATIVES_BODY)))
    assert part.outcome == "passed"  # rejected, then one of the allowed results
    check = code_check(part, "step 1 code")
    assert "expected rejection unknown-event or terminal-state, got odd-code" in check.message
    assert code_check(part, "step 2 code").passed
    lenient = ALTERNATIVES_BODY.replace("[unknown-event, terminal-state]", "[odd-code, x]")
    again = only_part(Runner(RefusesEverything()).run(make_case(body=lenient)))
    assert all(c.passed for c in again.checks)


def test_any_of_names_every_miss(make_case: Callable[..., Case]) -> None:
    body = ALTERNATIVES_BODY.replace("to: review", "to: elsewhere")
    part = only_part(Runner(ReferenceAdapter()).run(make_case(body=body)))
    assert part.outcome == "failed"
    assert "matches none of the 2 allowed results: (1) accepted (draft -> review), expected" in (
        part.message
    )
    assert '(2) transition.to: expected "elsewhere", got "review"' in part.message


def test_a_final_mismatch_lists_every_state_whose_count_differs(
    make_case: Callable[..., Case],
) -> None:
    body = """\
scenarios:
  - name: counts
    steps:
      - event: Submit
    final: {state: review, visit_counts: {draft: 2, review: 3}}
"""
    case = make_case(body=body)
    part = only_part(Runner(ReferenceAdapter()).run(case))
    assert part.outcome == "failed"
    (check,) = part.checks
    assert check.detail["field"] == "visit_counts.draft"  # the message names the first
    assert check.detail["differences"] == [
        {"field": "visit_counts.draft", "expected": 2, "actual": 1},
        {"field": "visit_counts.review", "expected": 3, "actual": 1},
    ]
