"""Running cases against an adapter and judging, in the kit, what happened.

The adapter only ever sees packs and inputs (through :class:`~conformance._runtime.boundary.Guard`).
Each case is reported in parts (``load``, ``validation``, one per scenario); a part yields
checks, each tagged MUST, SHOULD or MAY (SEMANTICS section 0), and ends:

- ``passed``: every check at the case's own requirement passed (weaker checks that failed are
  *findings*, reported beside it);
- ``failed``: a check at the case's requirement failed: the runtime did something else;
- ``errored``: the adapter raised or broke the adapter interface (or, said so plainly, the kit
  itself failed);
- ``skipped``: the adapter said ``Unsupported``, or refused a start at a named state that the
  case expects to start (the kit's adapter contract: the part's checks then weigh MAY);
- ``timeout``: the part ran past its time limit;
- ``flaky``: run several times (``repeat``), a MUST check did not end the same way every time,
  or a run stopped before judging while another did not (R5). A part whose MUST checks agree
  on every run is no flake (R20): each weaker check that varied fails at its own requirement,
  with the runs' differences as its message (a finding, or a SHOULD or MAY failure).

Every outcome but ``passed`` counts as not passed, and a part that did not get to judge its
checks has every one of them counted as not passed.
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from conformance._basics.contract import Requirement
from conformance._basics.errors import (
    AdapterFault,
    AdapterGaveUp,
    PackRejected,
    Rejected,
    ScriptIncomplete,
    Unsupported,
)
from conformance._basics.files import shown_source
from conformance._basics.matchers import Mismatch, missing
from conformance._catalog.cases import (
    PART_NAMES,
    Case,
    DiagnosticRef,
    Scenario,
    ValidationExpectation,
)
from conformance._catalog.codes import ERRORS
from conformance._catalog.statements import POINTER, code_requirement, code_statement
from conformance._catalog.steps import (
    ADVISORY,
    OBSERVATIONS,
    AnyOf,
    Context,
    Expect,
    Expectation,
    Miss,
    Observation,
    Observed,
    Step,
    compare_observations,
    describe_rejection,
    without_advisory,
)
from conformance._judging.checks import Check, weaker
from conformance._judging.numbers import LOOP_CODES, loop_numbers
from conformance._runtime.adapter import Adapter, Call
from conformance._runtime.boundary import Guard, PartTimeout, Reported
from conformance._runtime.operations import BY_NAME

Outcome = Literal["passed", "skipped", "timeout", "errored", "flaky", "failed"]
OUTCOMES: tuple[Outcome, ...] = ("passed", "skipped", "timeout", "errored", "flaky", "failed")
"""Every outcome, from the best to the worst (a case ends with its worst part's)."""


def worst(outcomes: Iterable[str]) -> str:
    """The worst of some outcomes (``passed`` for none)."""
    return max(outcomes, key=_rank, default="passed")


def _rank(outcome: str) -> int:
    return OUTCOMES.index(outcome) if outcome in OUTCOMES else len(OUTCOMES)


DEFAULT_TIMEOUT = 10.0


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
        message = f"flaky: {len(runs)} runs did not end the same way: {_differences(runs)}"
        varied = _varied(runs)
        if varied and "MUST" not in varied.values():
            # R20: every MUST check agreed on every run, so this is no MUST flake; what varied
            # fails at its own requirement (a finding below the case's), never a fault.
            checks = tuple(c.failed_as(message) if c.id in varied else c for c in first.checks)
            return _ended(part, case.requirement, checks, duration)
        checks = tuple(c.failed_as(message) for c in first.checks)
        return PartResult(part, "flaky", message, duration, checks)

    def _run_once(self, case: Case, part: str, scripted: Guard | None = None) -> PartResult:
        start = time.perf_counter()
        outcome: Outcome
        at_state = False
        try:
            checks = self.guard.within(lambda: _judge_part(case, part, self.guard, scripted))
        except Unsupported as unsupported:
            outcome, message = "skipped", f"unsupported by the runtime: {unsupported.reason}"
            at_state = isinstance(unsupported, _NoStartAtState)
        except AdapterGaveUp:
            raise  # the run cannot go on; the caller stops it and keeps what it has
        except AdapterFault as fault:
            outcome, message = "errored", f"adapter fault: {fault}"
        except PartTimeout:
            outcome, message = "timeout", f"no answer within {self.timeout:g} s"
        except Rejected as signal:
            outcome, message = (
                "errored",
                f"adapter fault: {type(signal).__name__} out of place: {signal}",
            )
        except KeyboardInterrupt:
            raise
        except BaseException as error:  # the kit's own code: say so, and where
            frame = traceback.extract_tb(error.__traceback__)[-1:]
            where = f" at {shown_source(frame[0].filename)}:{frame[0].lineno}" if frame else ""
            outcome = "errored"
            message = f"kit error: {type(error).__name__}: {error}{where} (please report it)"
        else:
            return _ended(part, case.requirement, checks, time.perf_counter() - start)
        duration = time.perf_counter() - start
        # The checks the part would have judged, worked out only for a part that judged none
        # (most parts judge theirs: the fuzzer runs thousands a second).
        planned = planned_checks(case, part)
        if at_state:
            planned = _at_state_checks(planned)
        return PartResult(
            part, outcome, message, duration, tuple(c.failed_as(message) for c in planned)
        )


def _ended(
    part: str, requirement: Requirement, checks: tuple[Check, ...], duration: float
) -> PartResult:
    """A part whose checks were judged: ``failed`` when a check at the case's requirement
    failed, else ``passed`` (weaker checks that failed are findings)."""
    failing = next((c for c in checks if not c.passed and c.requirement == requirement), None)
    if failing is None:
        return PartResult(part, "passed", "", duration, checks)
    return PartResult(part, "failed", failing.message, duration, checks)


def _varied(runs: list[PartResult]) -> dict[str, Requirement]:
    """The checks whose outcome varied between runs that all judged their checks, with their
    requirements; empty when a run stopped before judging (that is a fault, whatever varied),
    or when the runs judged different checks."""
    if any(r.outcome not in ("passed", "failed") for r in runs):
        return {}
    if len({tuple(c.id for c in r.checks) for r in runs}) > 1:
        return {}
    return {
        check.id: check.requirement
        for position, check in enumerate(runs[0].checks)
        if len({r.checks[position].passed for r in runs}) > 1
    }


def _signature(result: PartResult) -> tuple[Any, ...]:
    return result.outcome, tuple((c.id, c.passed) for c in result.checks)


def _differences(runs: list[PartResult]) -> str:
    """What differed between the runs of a part: its outcome, else each check that passed in
    some runs and not in others (a MAY check's finding included), with the runs of each."""

    def numbers(indices: list[int]) -> str:
        return (
            "run " + ", ".join(str(i) for i in indices)
            if len(indices) == 1
            else ("runs " + ", ".join(str(i) for i in indices))
        )

    outcomes: dict[str, list[int]] = {}
    for index, run in enumerate(runs, start=1):
        outcomes.setdefault(run.outcome, []).append(index)
    if len(outcomes) > 1:
        parts = []
        for outcome, indices in outcomes.items():
            message = next(runs[i - 1].message for i in indices)
            parts.append(f"{outcome} in {numbers(indices)}" + (f" ({message})" if message else ""))
        return "; ".join(parts)
    changed = []
    for position, check in enumerate(runs[0].checks):
        verdicts = [r.checks[position].passed if position < len(r.checks) else None for r in runs]
        if len(set(verdicts)) > 1:
            failed = [i for i, v in enumerate(verdicts, start=1) if not v]
            message = next((runs[i - 1].checks[position].message for i in failed), "")
            changed.append(
                f"{check.requirement} check {check.id!r} failed in {numbers(failed)}"
                + (f" ({message})" if message else "")
            )
    return "; ".join(changed) or "the checks differed"


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
    statements = case.statements_of(part)
    if part == "load":
        return (_run_load(case, guard, statements),)
    if part == "validation":
        assert case.validation is not None
        try:
            reported = _validate(case, guard, scripted)
        except PackRejected:
            # A runtime whose loader refuses the pack has judged it invalid (its codes and
            # pointers, which it gave none of, fail as the weaker checks they are).
            reported = [("error", PACK_REFUSED, None)]
        return tuple(judge_validation(case.validation, reported, case.requirement, statements))
    scenario = next(s for s in case.scenarios if s.name == part)
    return _run_scenario(case, scenario, guard, statements, scripted)


PACK_REFUSED = "pack-rejected"
"""What a validation part records for a runtime that refused to load the pack at all."""


def _validate(case: Case, guard: Guard, scripted: Guard | None) -> list[Reported]:
    if scripted is not None:
        try:
            return scripted.validate(case.pack)
        except ScriptIncomplete:
            pass  # the calls go one at a time
    return guard.validate(case.pack)


def planned_checks(case: Case, part: str) -> tuple[Check, ...]:
    """The checks a part yields, whatever the runtime does (all marked not passed)."""
    statements = case.statements_of(part)
    if part == "load":
        return (Check("load", case.requirement, False, statements=statements),)
    if part == "validation" and case.validation is not None:
        return tuple(judge_validation(case.validation, None, case.requirement, statements))
    scenario = next(s for s in case.scenarios if s.name == part)
    main = Check("scenario", case.requirement, False, statements=statements)
    return (main, *(check.failed_as("") for check in _detail_checks(case, scenario).values()))


# -- load -------------------------------------------------------------------------------------


def _run_load(case: Case, guard: Guard, statements: tuple[str, ...]) -> Check:
    where = case.where("/load")

    def check(passed: bool, message: str = "") -> Check:
        return Check("load", case.requirement, passed, message, statements=statements)

    try:
        guard.load(case.pack)
    except PackRejected as rejection:
        if case.load:
            return check(
                False, f"{where}: the runtime refused a pack it must load: {rejection.reason}"
            )
        return check(True)
    if case.load is False:
        return check(False, f"{where}: the runtime loaded a pack it must refuse")
    return check(True)


# -- validation (SEMANTICS R2, R3, R9, R10) ---------------------------------------------------


def judge_validation(
    expected: ValidationExpectation,
    reported: list[Reported] | None,
    requirement: Requirement,
    statements: tuple[str, ...] = (),
) -> list[Check]:
    """The checks of a validation part (R2, R3, R9, R10), judged on the reported diagnostics.

    - ``valid``: no error on a valid pack, an error on an invalid one, at the case's
      requirement, citing the case's statements; extra errors on an invalid pack are fine;
    - ``error CODE``: each expected error code is reported somewhere, ``warning CODE``: each
      expected warning, ``absent CODE``: not reported, ``exact CODE``: as many as listed; each
      cites the code's entry in the kit's vocabulary, SHOULD where an RFC names the condition
      in words and MAY for the kit's own (R9); ``absent`` of an error code on an invalid pack
      is MAY (R2);
    - ``... at PATH``: at the expected JSON pointer (MAY: no RFC says where).

    With ``reported`` ``None``, the checks are only planned: all of them not passed.
    """
    got = reported or []
    errors = [(c, p) for s, c, p in got if s == "error"]
    shown = ", ".join(f"{s} {c}" + (f" at {p}" if p is not None else "") for s, c, p in got)
    found = f" (reported: {shown or 'nothing'})"
    judged = reported is not None
    checks: list[Check] = []

    def add(
        check_id: str, level: Requirement, ok: bool, message: str, cites: tuple[str, ...]
    ) -> None:
        passed = judged and ok
        checks.append(
            Check(
                check_id,
                weaker(requirement, level),
                passed,
                "" if passed else message,
                statements=cites,
            )
        )

    if expected.valid:
        message = "expected the pack valid, but errors were reported"
        add("valid", requirement, not errors, message + found, statements)
    else:
        message = "expected the pack invalid, but no error was reported"
        add("valid", requirement, bool(errors), message + found, statements)

    for kind, refs in (("error", expected.errors), ("warning", expected.warnings)):
        # A warning reported as an error still names the code; `valid` judges the severity.
        pool = errors if kind == "error" else [(c, p) for _, c, p in got]
        seen: set[tuple[str, ...]] = set()
        for ref in refs:
            cites = tuple(code_statement(code) for code in ref.codes)
            if ref.codes not in seen:
                seen.add(ref.codes)
                add(
                    f"{kind} {ref.code}",
                    _weakest(ref.codes),
                    any(c in ref.codes for c, _ in pool),
                    f"expected {kind} {ref.code}, not reported" + found,
                    cites,
                )
            if ref.path is not None:
                add(
                    f"{kind} {ref.code} at {ref.path or '/'}",
                    "MAY",
                    _at(ref, pool),
                    f"expected {kind} {ref.code} at {ref.path or '/'}" + found,
                    (POINTER,),
                )
    for code in expected.absent:
        # R2: extra errors on an invalid pack are allowed, so an error code that should not be
        # there is only the kit's pick when the pack is invalid.
        add(
            f"absent {code}",
            "MAY" if not expected.valid and code in ERRORS else code_requirement(code),
            not any(c == code for _, c, _ in got),
            f"{code} was reported but must not be" + found,
            (code_statement(code),),
        )
    for code in expected.exact:
        listed_refs = [r for r in expected.warnings + expected.errors if code in r.codes]
        listed = len(listed_refs)
        count = sum(1 for _, c, _ in got if c == code)
        # A diagnostic listed with alternatives (code: [step-kind-unknown, schema], R19) may be
        # reported under any of them: counted either way, the right number passes.
        alternatives = {c for r in listed_refs for c in r.codes}
        either = sum(1 for _, c, _ in got if c in alternatives)
        add(
            f"exact {code}",
            code_requirement(code),
            listed in (count, either),
            f"expected exactly {listed} {code}, got {count}" + found,
            (code_statement(code),),
        )
    return checks


def _weakest(codes: tuple[str, ...]) -> Requirement:
    """Any of several codes will do: the check weighs what the weakest of them weighs."""
    return max((code_requirement(code) for code in codes), key=("MUST", "SHOULD", "MAY").index)


def _at(ref: DiagnosticRef, pool: list[tuple[str, str | None]]) -> bool:
    return any(c in ref.codes and p == ref.path for c, p in pool)


# -- scenarios --------------------------------------------------------------------------------


START = 0
"""The step number of a scenario's start (steps count from 1)."""


def _detail_checks(case: Case, scenario: Scenario) -> dict[int, Check]:
    """The planned detail checks of a scenario, by position (:data:`START`, each step's number,
    one past the last for ``final``): the kit's codes it names (R9) and the observables the RFCs
    do not require (:data:`~conformance._catalog.steps.ADVISORY`), each position's in one check that
    weighs what the weakest of them weighs, never more than the case. Their ids carry the
    position and what they check, so two runs compare check by check."""
    planned: dict[int, Check] = {}
    if scenario.start_rejection:
        planned[START] = _detail_check(case, "start", scenario.start_rejection, ())
    for number, step in enumerate(scenario.steps, start=1):
        expectation = step.expectation
        if expectation.codes or expectation.advisory:
            planned[number] = _detail_check(
                case, f"step {number}", expectation.codes, expectation.advisory
            )
    final = tuple(sorted(key for key in scenario.final or {} if key in ADVISORY))
    if final:
        planned[len(scenario.steps) + 1] = _detail_check(case, "final", (), final)
    return planned


def _detail_check(
    case: Case, where: str, codes: tuple[str, ...], advisory: tuple[str, ...]
) -> Check:
    what = ", ".join(["code"] * bool(codes) + list(advisory))
    weights = [_weakest(codes)] if codes else []
    weights += [ADVISORY[key][1] for key in advisory]
    cited = [code_statement(code) for code in codes]
    cited += list(dict.fromkeys(ADVISORY[key][0] for key in advisory))
    return Check(
        f"{where} {what}",
        weaker(case.requirement, max(weights, key=("MUST", "SHOULD", "MAY").index)),
        True,
        statements=tuple(cited),
    )


class _Script:
    """One scenario as it runs: where it is, the path taken so far, the checks judged."""

    def __init__(self, case: Case, scenario: Scenario, statements: tuple[str, ...]) -> None:
        self.case = case
        self.scenario = scenario
        self.statements = statements
        self.taken: list[dict[str, Any]] = []
        self.start_state: str | None = None
        self.details = _detail_checks(case, scenario)
        self.judged: dict[int, Check] = {}

    def judge_details(self, position: int, miss: Miss | None) -> None:
        """Judge the detail check of a position (see :func:`_detail_checks`)."""
        planned = self.details[position]
        message = "" if miss is None else self.place(miss.message, position)
        self.judged[position] = replace(planned, passed=miss is None, message=message)

    def checks(self, failure: _Failure | None) -> tuple[Check, ...]:
        """The scenario's checks: the main one, then each detail check, judged or not
        reached."""
        main = Check(
            "scenario",
            self.case.requirement,
            failure is None,
            failure.message if failure else "",
            failure.detail if failure else {},
            statements=self.statements,
        )
        stopped = "not reached: " + (failure.message if failure else "")
        details = (
            self.judged.get(position) or planned.failed_as(stopped)
            for position, planned in self.details.items()
        )
        return (main, *details)

    def place(self, message: str, step: int | None) -> str:
        case, scenario = self.case, self.scenario
        pointer = scenario.pointer
        if step is not None and step != START:
            steps = scenario.steps
            pointer = steps[step - 1].pointer if step <= len(steps) else scenario.pointer + "/final"
        label = f"scenario {scenario.name!r}"
        if step is not None and START < step <= len(scenario.steps):
            label += f", step {step} ({scenario.steps[step - 1].describe()})"
        return f"{case.where(pointer)}: {label}: {message}"

    def fail(
        self, message: str, step: int | None = None, mismatch: Mismatch | None = None
    ) -> _Failure:
        scenario = self.scenario
        detail: dict[str, Any] = {"path": list(self.taken)}
        if self.start_state is not None:
            detail["start"] = self.start_state
        pointer = scenario.pointer
        if step is not None and step != START:
            steps = scenario.steps
            pointer = steps[step - 1].pointer if step <= len(steps) else scenario.pointer + "/final"
            detail["step"] = step
            detail["step_text"] = steps[step - 1].describe() if step <= len(steps) else "final"
        line = _line(self.case, pointer)
        if line is not None:
            detail["line"] = line
        if mismatch is not None:
            detail["field"] = mismatch.path
            detail["expected"] = mismatch.expected
            detail["actual"] = None if mismatch.actual is missing() else mismatch.actual
        if isinstance(mismatch, Observation) and len(mismatch.all) > 1:
            # Every state whose count (or artifact) differs, not only the first one met.
            detail["differences"] = [
                {
                    "field": m.path,
                    "expected": None if m.expected is missing() else m.expected,
                    "actual": None if m.actual is missing() else m.actual,
                }
                for m in mismatch.all
            ]
        return _Failure(self.place(message, step), detail)


def _line(case: Case, pointer: str) -> int | None:
    if case.document is None:
        return None
    return case.document.locate(pointer).line


def _run_scenario(
    case: Case,
    scenario: Scenario,
    guard: Guard,
    statements: tuple[str, ...],
    scripted: Guard | None = None,
) -> tuple[Check, ...]:
    # The whole scenario in one go, when the adapter can (one round trip through the
    # protocol), judged on its answers call by call as below; when they run out before the
    # judging does, or the script failed as a whole, the calls are made one at a time.
    if scripted is None and guard.scripts:
        calls = _calls(scenario)
        scripted = None if calls is None else guard.scripted(case.pack, calls)
    if scripted is not None:
        try:
            return _run_calls(case, scenario, scripted, statements)
        except ScriptIncomplete:
            pass
    return _run_calls(case, scenario, guard, statements)


def _run_calls(
    case: Case, scenario: Scenario, guard: Guard, statements: tuple[str, ...]
) -> tuple[Check, ...]:
    script = _Script(case, scenario, statements)
    context = Context(guard, case.pack, None)
    try:
        if scenario.needs_session and not _start(script, guard, context):
            return script.checks(None)  # refused to start, as the case expects
        for number, step in enumerate(scenario.steps, start=1):
            _run_step(script, number, step, context)
        if scenario.final is not None:
            state = context.live().state()
            mismatch = compare_observations(without_advisory(scenario.final), state)
            final = len(scenario.steps) + 1
            if final in script.details:
                found = compare_observations(scenario.final, state)
                script.judge_details(final, None if found is None else Miss(f"final: {found}"))
            if mismatch:
                raise script.fail(f"final: {mismatch}", len(scenario.steps) + 1, mismatch)
    except _Failure as failure:
        return script.checks(failure)
    except PackRejected as refusal:
        # The runtime cannot take the pack at all (its loader refuses it): what the scenario
        # asserts did not happen, which is a failure of the part, not a broken adapter.
        reason = f": {refusal.reason}" if refusal.reason else ""
        return script.checks(
            script.fail(f"the runtime refused the pack{reason}, so the scenario could not run")
        )
    finally:
        if context.session is not None:
            context.session.close()
    return script.checks(None)


def _calls(scenario: Scenario) -> list[Call] | None:
    """Every call :func:`_run_calls` may make, in order: the start, each step's, the session
    data after each step whose expectations read it, and at the end for ``final``; ``None``
    when a step's call depends on an earlier answer (``snapshot_restore``)."""
    calls: list[Call] = [("start", _start_of(scenario))] if scenario.needs_session else []
    for step in scenario.steps:
        if step.operation is None:
            return None
        calls.append((BY_NAME[step.operation].method, step.arguments))
        if scenario.needs_session and _reads_state(step.expectation):
            calls.append(("state", {}))
    if scenario.final is not None:
        calls.append(("state", {}))
    return calls


def _reads_state(expectation: Expectation) -> bool:
    """Whether judging the expectation may read the session data: its observations, or the
    numbers a loop or budget failure's message gives (an unread answer of the script is
    skipped, so a state asked for and not read costs nothing more)."""
    if LOOP_CODES & set(expectation.codes):
        return True
    alternatives = expectation.alternatives if isinstance(expectation, AnyOf) else (expectation,)
    return any(isinstance(a, Expect) and bool(a.observations) for a in alternatives)


def _start_of(scenario: Scenario) -> dict[str, str]:
    """How :func:`_start` starts the scenario's session (as ``Guard.start`` passes it on)."""
    start = {}
    if scenario.start_state is not None:
        start["at_state"] = scenario.start_state
    if scenario.start_agent is not None:
        start["agent"] = scenario.start_agent
    return start


START_AT_STATE = "kit.pick.start-at-state"
"""The statement of a start at any named state (``at_state``): the kit's adapter contract, as
RFC 0011 starts a session at a state only as an agent backed by it."""

_PICK = (
    f"starting at a named state is the kit's adapter contract ({START_AT_STATE}, MAY), so the "
    "scenario's checks weigh MAY"
)


def _at_state_checks(checks: Iterable[Check]) -> tuple[Check, ...]:
    """The checks of a scenario the runtime did not start at its named state: each at MAY,
    resting on :data:`START_AT_STATE` alone (never passed: the part is skipped)."""
    return tuple(replace(c, requirement="MAY", statements=(START_AT_STATE,)) for c in checks)


class _NoStartAtState(Unsupported):
    """The runtime refused, or does not offer, a start at a named state the case did not expect
    it to refuse: the part is skipped, and its checks weigh MAY (:func:`_at_state_checks`)."""


def _start(script: _Script, guard: Guard, context: Context) -> bool:
    """Start the scenario's session; ``False`` when it is refused as the case expects.

    A refusal is judged in two checks (R9): that the start was refused (the scenario's), and
    with which code (a code check of its own, never stronger than the code's statement).

    Raises:
        _NoStartAtState: a start at a named state was refused or is unsupported, and the case
            expected it to start.
    """
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
        context.session = guard.start(
            script.case.pack, state=scenario.start_state, agent=scenario.start_agent
        )
    except Unsupported as unsupported:
        if scenario.start_state is None or wanted:
            raise
        raise _NoStartAtState(f"{unsupported.reason} ({how}: {_PICK})") from None
    except Rejected as rejection:
        if scenario.start_state is not None and not wanted:
            raise _NoStartAtState(
                f"the session refused to start {how} with {describe_rejection(rejection)} ({_PICK})"
            ) from None
        if wanted:
            right = rejection.code in wanted
            script.judge_details(
                START,
                None
                if right
                else Miss(
                    f"refused {how} with {describe_rejection(rejection)}, "
                    f"expected {' or '.join(wanted)}"
                ),
            )
            return False
        raise script.fail(
            f"the session refused to start {how} with {describe_rejection(rejection)}, "
            "expected it to start",
            START,
        ) from None
    if wanted:
        raise script.fail(
            f"the session started {how}, expected a refusal with {' or '.join(wanted)}", START
        )
    return True


def _run_step(script: _Script, number: int, step: Step, context: Context) -> None:
    """Do one step and judge it: what happened at the case's requirement, and the details (the
    kit's codes, R9; the observables the RFCs only recommend) in a check of their own."""
    try:
        observed = step.perform(context)
    except Rejected as refused:
        observed = Observed(rejection=refused)
    observed.session = context.session
    transition = observed.transition
    if transition is not None:
        script.taken.append(
            {k: transition.get(k) for k in ("from", "to", "event") if k in transition}
        )
    expectation = step.expectation
    miss = expectation.check(observed, details=False)
    if miss is not None:
        message = miss.message
        if LOOP_CODES & set(expectation.codes) or "budget_exhausted" in message:
            # The limits and the counts that decide it (visits, tool calls, wall time).
            moved = transition or {}
            where = (moved.get("from"), moved.get("to"))
            try:
                message += loop_numbers(script.case.pack.document, observed.state(), where)
            except AdapterGaveUp:
                raise
            except Exception:  # a help: the failure stands without its numbers
                pass
        raise script.fail(message, number, miss.mismatch)
    if number in script.details:
        script.judge_details(number, expectation.check(observed, details=True))


__all__ = [
    "OBSERVATIONS",
    "PART_NAMES",
    "CaseResult",
    "Outcome",
    "PartResult",
    "Runner",
    "judge_validation",
]
