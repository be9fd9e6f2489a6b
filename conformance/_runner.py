"""Running cases against an adapter and judging, in the kit, what happened.

The adapter only ever sees packs and inputs (through :class:`~conformance._boundary.Guard`).
Each case is reported in parts (``load``, ``validation``, one per scenario); a part yields
checks, each tagged MUST, SHOULD or MAY (SEMANTICS section 0), and ends:

- ``passed``: every check at the case's own requirement passed (weaker checks that failed are
  *findings*, reported beside it);
- ``failed``: a check at the case's requirement failed: the runtime did something else;
- ``errored``: the adapter raised or broke the adapter interface (or, said so plainly, the kit
  itself failed);
- ``skipped``: the adapter said ``Unsupported``;
- ``timeout``: the part ran past its time limit;
- ``flaky``: run several times (``repeat``), it did not end the same way every time (R5).

Every outcome but ``passed`` counts as not passed, and a part that did not get to judge its
checks has every one of them counted as not passed.
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from conformance._adapter import Adapter, Call
from conformance._boundary import Guard, GuardedSession, PartTimeout, Reported
from conformance._cases import (
    PART_NAMES,
    Case,
    DiagnosticRef,
    Scenario,
    Step,
    ValidationExpectation,
)
from conformance._checks import Check, weaker
from conformance._contract import Requirement, code_requirement
from conformance._errors import (
    AdapterFault,
    AdapterGaveUp,
    PackRejected,
    Rejected,
    ScriptIncomplete,
    Unsupported,
)
from conformance._matchers import Mismatch, compare, missing

Outcome = Literal["passed", "skipped", "timeout", "errored", "flaky", "failed"]
OUTCOMES: tuple[Outcome, ...] = ("passed", "skipped", "timeout", "errored", "flaky", "failed")
"""Every outcome, from the best to the worst (a case ends with its worst part's)."""


def worst(outcomes: Iterable[str]) -> str:
    """The worst of some outcomes (``passed`` for none)."""
    return max(outcomes, key=_rank, default="passed")


def _rank(outcome: str) -> int:
    return OUTCOMES.index(outcome) if outcome in OUTCOMES else len(OUTCOMES)


DEFAULT_TIMEOUT = 10.0

OBSERVATIONS = {
    "state": "current_state",
    "status": "status",
    "terminal": "terminal",
    "available_events": "available_events",
    "prompt_task": "prompt_task",
    "visit_counts": "visit_counts",
    "history": "history",
    "artifacts": "artifacts",
    "artifact_history": "artifact_history",
    "tool_calls": "tool_calls",
    "turn": "turn",
    "reply": "reply",
    "prompt_variables": "prompt_variables",
}
"""Expectation key -> key of the runtime's observable session data."""


@dataclass(frozen=True)
class PartResult:
    """The result of one part of a case.

    Attributes:
        part: ``load``, ``validation`` or the scenario's name.
        outcome: see the module docstring.
        message: why the part did not pass (the first failing check at the case's requirement,
            or what stopped the part); empty when it passed.
        duration: seconds (the sum over repeats).
        checks: the part's checks, judged.
    """

    part: str
    outcome: Outcome
    message: str = ""
    duration: float = 0.0
    checks: tuple[Check, ...] = ()

    @property
    def passed(self) -> bool:
        return self.outcome == "passed"


@dataclass(frozen=True)
class CaseResult:
    """The result of one case: its parts, and the worst of their outcomes."""

    case: Case
    parts: tuple[PartResult, ...]

    @property
    def outcome(self) -> Outcome:
        """The worst part outcome: failed > flaky > errored > timeout > skipped > passed."""
        return worst(p.outcome for p in self.parts)  # type: ignore[return-value]

    @property
    def passed(self) -> bool:
        return self.outcome == "passed"

    @property
    def duration(self) -> float:
        return sum(p.duration for p in self.parts)

    def failures(self) -> list[PartResult]:
        """The parts that did not pass."""
        return [p for p in self.parts if not p.passed]

    def findings(self) -> list[tuple[str, Check]]:
        """``(part, check)`` for each failed check weaker than the case's requirement, in parts
        that passed: what a runtime could do better without failing the case."""
        return [(p.part, c) for p in self.parts if p.passed for c in p.checks if not c.passed]


@dataclass
class _Failure(Exception):
    """A difference between what a scenario expects and what the runtime did."""

    message: str
    detail: dict[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        return self.message


class Runner:
    """Runs cases against one adapter.

    Arguments:
        adapter: the runtime under test.
        timeout: seconds each case part may take (``None``: no limit, run in this thread).
        repeat: run each part this many times; a part that does not end the same way every
            time is ``flaky`` (R5).
    """

    def __init__(
        self, adapter: Adapter, timeout: float | None = DEFAULT_TIMEOUT, repeat: int = 1
    ) -> None:
        if repeat < 1:
            raise ValueError(f"repeat is a number of runs >= 1, not {repeat}")
        self.adapter = adapter
        self.guard = Guard(adapter, timeout)
        self.timeout = timeout
        self.repeat = repeat
        self._ahead: _Ahead | None = None

    def run(self, case: Case) -> CaseResult:
        """Run every part of a case."""
        return CaseResult(case, tuple(self.run_part(case, part) for part in case.parts))

    def run_all(
        self, cases: Iterable[Case], on_result: Callable[[CaseResult], None] | None = None
    ) -> list[CaseResult]:
        """Run cases in order, calling ``on_result`` after each one."""
        results = []
        for case in cases:
            result = self.run(case)
            results.append(result)
            if on_result is not None:
                on_result(result)
        return results

    def prefetch(self, case: Case) -> None:
        """Send the calls of the case's validation and of its first scenario to the adapter
        now, all at once, if it answers scripts (see ``ScriptingAdapter``) and each part runs
        once: running those parts next, in order, judges them on the answers. For a caller
        with other work to do meanwhile (the fuzzer computes its next example); what is judged
        is the same as without it."""
        self._ahead = None
        names = case.parts
        if self.repeat != 1 or not self.guard.scripts or names[:1] != ["validation"]:
            return
        calls: list[Call] = [("validate", {})]
        parts = names[:1]
        if len(names) > 1:
            scenario = next(s for s in case.scenarios if s.name == names[1])
            scenario_calls = _calls(scenario)
            if scenario_calls is not None:
                calls.extend(scenario_calls)
                parts.append(scenario.name)
        scripted = self.guard.scripted(case.pack, calls)
        if scripted is not None:
            self._ahead = _Ahead(case, parts, scripted)

    def _scripted_for(self, case: Case, part: str) -> Guard | None:
        """The answers :meth:`prefetch` got for this part, if it is the next one they hold."""
        ahead = self._ahead
        if ahead is None or ahead.case is not case or ahead.parts[:1] != [part]:
            self._ahead = None
            return None
        ahead.parts.pop(0)
        return ahead.scripted

    def run_part(self, case: Case, part: str) -> PartResult:
        """Run one part (``load``, ``validation`` or a scenario name) of a case, ``repeat``
        times."""
        scripted = self._scripted_for(case, part)
        runs = [self._run_once(case, part, scripted) for _ in range(self.repeat)]
        first = runs[0]
        duration = sum(r.duration for r in runs)
        different = [r for r in runs[1:] if _signature(r) != _signature(first)]
        if not different:
            return replace(first, duration=duration)
        seen = ", ".join(
            f"run {i}: {r.outcome}" + (f" ({r.message})" if r.message else "")
            for i, r in enumerate(runs, start=1)
        )
        message = f"flaky: {len(runs)} runs did not end the same way ({seen})"
        checks = tuple(c.failed_as(message) for c in first.checks)
        return PartResult(part, "flaky", message, duration, checks)

    def _run_once(self, case: Case, part: str, scripted: Guard | None = None) -> PartResult:
        planned = planned_checks(case, part)
        start = time.perf_counter()
        outcome: Outcome
        try:
            checks = self.guard.within(lambda: _judge_part(case, part, self.guard, scripted))
        except Unsupported as unsupported:
            outcome, message = "skipped", f"unsupported by the runtime: {unsupported.reason}"
        except AdapterGaveUp:
            raise  # the run cannot go on; the caller stops it and keeps what it has
        except AdapterFault as fault:
            outcome, message = "errored", f"adapter fault: {fault}"
        except PartTimeout:
            outcome, message = "timeout", f"no answer within {self.timeout:g} s"
        except (Rejected, PackRejected) as signal:
            outcome, message = (
                "errored",
                f"adapter fault: {type(signal).__name__} out of place: {signal}",
            )
        except KeyboardInterrupt:
            raise
        except BaseException as error:  # the kit's own code: say so, and where
            frame = traceback.extract_tb(error.__traceback__)[-1:]
            where = f" at {frame[0].filename}:{frame[0].lineno}" if frame else ""
            outcome = "errored"
            message = f"kit error: {type(error).__name__}: {error}{where} (please report it)"
        else:
            duration = time.perf_counter() - start
            failing = next(
                (c for c in checks if not c.passed and c.requirement == case.requirement), None
            )
            if failing is None:
                return PartResult(part, "passed", "", duration, checks)
            return PartResult(part, "failed", failing.message, duration, checks)
        duration = time.perf_counter() - start
        return PartResult(
            part, outcome, message, duration, tuple(c.failed_as(message) for c in planned)
        )


def _signature(result: PartResult) -> tuple[Any, ...]:
    return result.outcome, tuple((c.id, c.passed) for c in result.checks)


@dataclass
class _Ahead:
    """What :meth:`Runner.prefetch` sent: the case, its parts the answers hold (in order), and
    the adapter as it answers them."""

    case: Case
    parts: list[str]
    scripted: Guard


def _judge_part(
    case: Case, part: str, guard: Guard, scripted: Guard | None = None
) -> tuple[Check, ...]:
    """The checks of a part, run on ``guard``, or on ``scripted`` (answers to calls made
    ahead) as far as they go."""
    if part == "load":
        return (_run_load(case, guard),)
    if part == "validation":
        assert case.validation is not None
        return tuple(
            judge_validation(case.validation, _validate(case, guard, scripted), case.requirement)
        )
    scenario = next(s for s in case.scenarios if s.name == part)
    try:
        _run_scenario(case, scenario, guard, scripted)
    except _Failure as failure:
        return (Check("scenario", case.requirement, False, failure.message, failure.detail),)
    return (Check("scenario", case.requirement, True),)


def _validate(case: Case, guard: Guard, scripted: Guard | None) -> list[Reported]:
    if scripted is not None:
        try:
            return scripted.validate(case.pack)
        except ScriptIncomplete:
            pass  # the calls go one at a time
    return guard.validate(case.pack)


def planned_checks(case: Case, part: str) -> tuple[Check, ...]:
    """The checks a part yields, whatever the runtime does (all marked not passed)."""
    if part == "load":
        return (Check("load", case.requirement, False),)
    if part == "validation" and case.validation is not None:
        return tuple(judge_validation(case.validation, None, case.requirement))
    return (Check("scenario", case.requirement, False),)


# -- load -------------------------------------------------------------------------------------


def _run_load(case: Case, guard: Guard) -> Check:
    where = case.where("/load")
    try:
        guard.load(case.pack)
    except PackRejected as rejection:
        if case.load:
            return Check(
                "load",
                case.requirement,
                False,
                f"{where}: the runtime refused a pack it must load: {rejection.reason}",
            )
        return Check("load", case.requirement, True)
    if case.load is False:
        return Check(
            "load", case.requirement, False, f"{where}: the runtime loaded a pack it must refuse"
        )
    return Check("load", case.requirement, True)


# -- validation (SEMANTICS R2, R3) ------------------------------------------------------------


def judge_validation(
    expected: ValidationExpectation, reported: list[Reported] | None, requirement: Requirement
) -> list[Check]:
    """The checks of a validation part (R2, R3), judged on the reported diagnostics.

    - ``valid``: no error on a valid pack, an error on an invalid one, at the case's
      requirement; extra errors on an invalid pack are fine;
    - ``error CODE``: each expected error code is reported somewhere (SHOULD);
    - ``warning CODE``: each expected warning is reported (SHOULD for the RFC-named warnings,
      MAY for the kit's lints), ``absent CODE``: not reported, ``exact CODE``: as many as listed;
    - ``... at PATH``: at the expected JSON pointer (MAY).

    With ``reported`` ``None``, the checks are only planned: all of them not passed.
    """
    got = reported or []
    errors = [(c, p) for s, c, p in got if s == "error"]
    shown = ", ".join(f"{s} {c}" + (f" at {p}" if p is not None else "") for s, c, p in got)
    found = f" (reported: {shown or 'nothing'})"
    judged = reported is not None
    checks: list[Check] = []

    def add(check_id: str, level: Requirement, ok: bool, message: str) -> None:
        passed = judged and ok
        checks.append(
            Check(check_id, weaker(requirement, level), passed, "" if passed else message)
        )

    if expected.valid:
        add(
            "valid",
            requirement,
            not errors,
            "expected the pack valid, but errors were reported" + found,
        )
    else:
        add(
            "valid",
            requirement,
            bool(errors),
            "expected the pack invalid, but no error was reported" + found,
        )

    for kind, refs in (("error", expected.errors), ("warning", expected.warnings)):
        # A warning reported as an error still names the code; `valid` judges the severity.
        pool = errors if kind == "error" else [(c, p) for _, c, p in got]
        seen: set[tuple[str, ...]] = set()
        for ref in refs:
            if ref.codes not in seen:
                seen.add(ref.codes)
                add(
                    f"{kind} {ref.code}",
                    _weakest(ref.codes),
                    any(c in ref.codes for c, _ in pool),
                    f"expected {kind} {ref.code}, not reported" + found,
                )
            if ref.path is not None:
                add(
                    f"{kind} {ref.code} at {ref.path or '/'}",
                    "MAY",
                    _at(ref, pool),
                    f"expected {kind} {ref.code} at {ref.path or '/'}" + found,
                )
    for code in expected.absent:
        add(
            f"absent {code}",
            code_requirement(code),
            not any(c == code for _, c, _ in got),
            f"{code} was reported but must not be" + found,
        )
    for code in expected.exact:
        listed = sum(1 for ref in expected.warnings + expected.errors if code in ref.codes)
        count = sum(1 for _, c, _ in got if c == code)
        add(
            f"exact {code}",
            code_requirement(code),
            count == listed,
            f"expected exactly {listed} {code}, got {count}" + found,
        )
    return checks


def _weakest(codes: tuple[str, ...]) -> Requirement:
    """Any of several codes will do: the check weighs what the weakest of them weighs."""
    return "MAY" if any(code_requirement(code) == "MAY" for code in codes) else "SHOULD"


def _at(ref: DiagnosticRef, pool: list[tuple[str, str | None]]) -> bool:
    return any(c in ref.codes and p == ref.path for c, p in pool)


# -- scenarios --------------------------------------------------------------------------------


class _Script:
    """One scenario as it runs: where it is, and the path taken so far."""

    def __init__(self, case: Case, scenario: Scenario) -> None:
        self.case = case
        self.scenario = scenario
        self.taken: list[dict[str, Any]] = []
        self.start_state: str | None = None

    def fail(
        self, message: str, step: int | None = None, mismatch: Mismatch | None = None
    ) -> _Failure:
        case, scenario = self.case, self.scenario
        detail: dict[str, Any] = {"path": list(self.taken)}
        if self.start_state is not None:
            detail["start"] = self.start_state
        if step is not None:
            steps = scenario.steps
            pointer = steps[step - 1].pointer if step <= len(steps) else scenario.pointer + "/final"
            detail["step"] = step
            detail["step_text"] = steps[step - 1].describe() if step <= len(steps) else "final"
        else:
            pointer = scenario.pointer
        where = case.where(pointer)
        line = _line(case, pointer)
        if line is not None:
            detail["line"] = line
        if mismatch is not None:
            detail["field"] = mismatch.path
            detail["expected"] = mismatch.expected
            detail["actual"] = None if mismatch.actual is missing() else mismatch.actual
        label = f"scenario {scenario.name!r}"
        if step is not None and step <= len(scenario.steps):
            label += f", step {step} ({scenario.steps[step - 1].describe()})"
        return _Failure(f"{where}: {label}: {message}", detail)


def _line(case: Case, pointer: str) -> int | None:
    if case.document is None:
        return None
    return case.document.locate(pointer).line


def _run_scenario(
    case: Case, scenario: Scenario, guard: Guard, scripted: Guard | None = None
) -> None:
    # The whole scenario in one go, when the adapter can (one round trip through the
    # protocol), judged on its answers call by call as below; when they run out before the
    # judging does, or the script failed as a whole, the calls are made one at a time.
    if scripted is None and guard.scripts:
        calls = _calls(scenario)
        scripted = None if calls is None else guard.scripted(case.pack, calls)
    if scripted is not None:
        try:
            _run_calls(case, scenario, scripted)
        except ScriptIncomplete:
            pass
        else:
            return
    _run_calls(case, scenario, guard)


def _run_calls(case: Case, scenario: Scenario, guard: Guard) -> None:
    script = _Script(case, scenario)
    session: GuardedSession | None = None
    if scenario.needs_session:
        session = _start(script, guard)
        if session is None:
            return  # refused to start, as the case expects
    try:
        for number, step in enumerate(scenario.steps, start=1):
            session = _run_step(script, number, step, session, guard)
        if scenario.final is not None:
            assert session is not None
            mismatch = _compare_observations(scenario.final, session.state())
            if mismatch:
                raise script.fail(f"final: {mismatch}", len(scenario.steps) + 1, mismatch)
    finally:
        if session is not None:
            session.close()


_CALLS = {
    "event": ("send", ("event", "source")),
    "set_artifact": ("set_artifact", ("name", "value")),
    "tool_calls": ("record_tool_calls", ("count",)),
    "advance_clock": ("advance_clock", ("seconds",)),
    "run_state": ("run_state", ("input", "mocks")),
    "agent_text": ("agent_text", ("text",)),
    "user_turn": ("user_turn", ()),
    "run_composition": ("run_composition", ("name", "input", "mocks")),
}
"""Step kind -> the call :func:`_run_step` makes for it, and the step arguments it passes."""


def _calls(scenario: Scenario) -> list[Call] | None:
    """Every call :func:`_run_calls` may make, in order: the start, each step's, the session
    data after each step whose expectations read it, and at the end for ``final``; ``None``
    when a step's call depends on an earlier answer (``snapshot_restore``)."""
    calls: list[Call] = [("start", _start_of(scenario))] if scenario.needs_session else []
    for step in scenario.steps:
        if step.kind not in _CALLS:
            return None
        name, keys = _CALLS[step.kind]
        calls.append((name, {key: step.arguments[key] for key in keys}))
        expect = step.expect or {}
        alternatives = expect.get("any_of", [expect])
        if scenario.needs_session and any(key in OBSERVATIONS for e in alternatives for key in e):
            calls.append(("state", {}))
    if scenario.final is not None:
        calls.append(("state", {}))
    return calls


def _start_of(scenario: Scenario) -> dict[str, str]:
    """How :func:`_start` starts the scenario's session (as ``Guard.start`` passes it on)."""
    start = {}
    if scenario.start_state is not None:
        start["at_state"] = scenario.start_state
    if scenario.start_agent is not None:
        start["agent"] = scenario.start_agent
    return start


def _start(script: _Script, guard: Guard) -> GuardedSession | None:
    """Start the scenario's session; ``None`` when it is refused as the case expects."""
    scenario = script.scenario
    wanted = scenario.start_rejection
    how = (
        f"at state {scenario.start_state!r}"
        if scenario.start_state is not None
        else f"as agent {scenario.start_agent!r}"
        if scenario.start_agent is not None
        else "at the entry"
    )
    script.start_state = scenario.start_state
    try:
        session = guard.start(
            script.case.pack, state=scenario.start_state, agent=scenario.start_agent
        )
    except Rejected as rejection:
        if wanted is not None and rejection.code in wanted:
            return None
        expected = (
            f"expected a refusal with {' or '.join(wanted)}" if wanted else "expected it to start"
        )
        raise script.fail(
            f"the session refused to start {how} with {_describe(rejection)}, {expected}"
        ) from None
    if wanted is not None:
        session.close()
        raise script.fail(
            f"the session started {how}, expected a refusal with {' or '.join(wanted)}"
        )
    return session


def _run_step(
    script: _Script, number: int, step: Step, session: GuardedSession | None, guard: Guard
) -> GuardedSession | None:
    case = script.case
    args = step.arguments
    transition: Mapping[str, Any] | None = None
    composition: Mapping[str, Any] | None = None
    rejection: Rejected | None = None
    try:
        if step.kind == "run_composition":
            composition = guard.run_composition(
                case.pack, args["name"], args["input"], args["mocks"]
            )
        else:
            assert session is not None
            if step.kind == "event":
                transition = session.send(args["event"], args["source"])
            elif step.kind == "set_artifact":
                session.set_artifact(args["name"], args["value"])
            elif step.kind == "tool_calls":
                session.record_tool_calls(args["count"])
            elif step.kind == "advance_clock":
                session.advance_clock(args["seconds"])
            elif step.kind == "run_state":
                composition = session.run_state(args["input"], args["mocks"])
            elif step.kind == "agent_text":
                session.agent_text(args["text"])
            elif step.kind == "user_turn":
                session.user_turn()
            else:
                restored = guard.restore(case.pack, session.snapshot())
                session.close()
                session = restored
    except Rejected as refused:
        rejection = refused
    if transition is not None:
        script.taken.append(
            {k: transition.get(k) for k in ("from", "to", "event") if k in transition}
        )
    observed = _Observed(rejection, transition, composition, session)
    expect = step.expect or {}
    alternatives = expect.get("any_of")
    if alternatives is None:
        miss = _miss(expect, observed)
        if miss is not None:
            raise script.fail(miss[0], number, miss[1])
        return session
    misses = [_miss(alternative, observed) for alternative in alternatives]
    if all(miss is not None for miss in misses):
        shown = "; ".join(f"({i}) {miss[0]}" for i, miss in enumerate(misses, 1) if miss)
        raise script.fail(f"matches none of the {len(misses)} allowed results: {shown}", number)
    return session


class _Observed:
    """What one step did: refused or not, its transition or composition result, and the session
    (whose data is read once, when an expectation first asks for it)."""

    def __init__(
        self,
        rejection: Rejected | None,
        transition: Mapping[str, Any] | None,
        composition: Mapping[str, Any] | None,
        session: GuardedSession | None,
    ) -> None:
        self.rejection = rejection
        self.transition = transition
        self.composition = composition
        self.session = session
        self._state: Mapping[str, Any] | None = None

    def state(self) -> Mapping[str, Any] | None:
        if self._state is None and self.session is not None:
            self._state = self.session.state()
        return self._state


def _miss(expect: Mapping[str, Any], observed: _Observed) -> tuple[str, Mismatch | None] | None:
    """How a step's result misses one expectation (``None``: it matches)."""
    wanted = expect.get("rejection")
    rejection, transition = observed.rejection, observed.transition
    if rejection is not None:
        if wanted is None:
            return f"rejected with {_describe(rejection)}, expected acceptance", None
        codes, limit = _wanted_codes(wanted)
        if rejection.code not in codes or (limit is not None and rejection.limit != limit):
            return (
                f"expected rejection {_describe_wanted(wanted)}, got {_describe(rejection)}",
                None,
            )
    elif wanted is not None:
        shown = f" ({transition.get('from')} -> {transition.get('to')})" if transition else ""
        return f"accepted{shown}, expected rejection {_describe_wanted(wanted)}", None
    if "transition" in expect:
        seen = {"redirected": False, **(transition or {})}
        mismatch = compare({"$subset": expect["transition"]}, seen, "transition")
        if mismatch:
            return str(mismatch), mismatch
    if "composition" in expect:
        mismatch = compare(expect["composition"], observed.composition or missing(), "composition")
        if mismatch:
            return str(mismatch), mismatch
    if any(key in expect for key in OBSERVATIONS):
        state = observed.state()
        if state is None:
            return "the case checks session data, but no session runs", None
        wanted_state = {k: v for k, v in expect.items() if k in OBSERVATIONS}
        mismatch = _compare_observations(wanted_state, state)
        if mismatch:
            return str(mismatch), mismatch
    return None


def _wanted_codes(wanted: Any) -> tuple[tuple[str, ...], str | None]:
    """The rejection codes any of which is right, and the limit if the case names one."""
    if isinstance(wanted, Mapping):
        code, limit = wanted["code"], wanted.get("limit")
    else:
        code, limit = wanted, None
    return ((code,) if isinstance(code, str) else tuple(code)), limit


def _compare_observations(expected: Mapping[str, Any], state: Mapping[str, Any]) -> Mismatch | None:
    for key, value in expected.items():
        observed_key = OBSERVATIONS[key]
        mismatch = compare(value, state.get(observed_key, missing()), key)
        if mismatch:
            return mismatch
    return None


def _describe(rejection: Rejected) -> str:
    return rejection.code + (f" ({rejection.limit})" if rejection.limit else "")


def _describe_wanted(wanted: Any) -> str:
    codes, limit = _wanted_codes(wanted)
    return " or ".join(codes) + (f" ({limit})" if limit else "")


__all__ = ["PART_NAMES", "CaseResult", "Outcome", "PartResult", "Runner", "judge_validation"]
