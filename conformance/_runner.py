"""Running cases against an adapter and comparing, in the kit, what happened with what is expected.

The adapter only ever sees packs and inputs. Each case is reported in parts (``load``,
``validation``, one per scenario), and a part ends ``passed``, ``failed`` (the runtime did
something else than the case expects), ``errored`` (the adapter raised), ``skipped`` (the
adapter said ``Unsupported``) or ``timeout``.
"""

from __future__ import annotations

import contextlib
import queue
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from conformance._adapter import Adapter, AdapterSession
from conformance._cases import Case, DiagnosticRef, Scenario, Step, ValidationExpectation
from conformance._errors import AdapterFault, PackRejected, Rejected, Unsupported
from conformance._matchers import Mismatch, compare, missing

Outcome = Literal["passed", "failed", "errored", "skipped", "timeout"]
OUTCOMES: tuple[Outcome, ...] = ("passed", "failed", "errored", "skipped", "timeout")
_SEVERITY: dict[Outcome, int] = {
    "passed": 0,
    "skipped": 1,
    "timeout": 2,
    "errored": 3,
    "failed": 4,
}
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
    """The result of one part of a case."""

    part: str
    outcome: Outcome
    message: str = ""
    duration: float = 0.0


@dataclass(frozen=True)
class CaseResult:
    """The result of one case: its parts, and the worst of their outcomes."""

    case: Case
    parts: tuple[PartResult, ...]

    @property
    def outcome(self) -> Outcome:
        """The worst part outcome: failed > errored > timeout > skipped > passed."""
        return max((p.outcome for p in self.parts), key=_SEVERITY.__getitem__, default="passed")

    @property
    def passed(self) -> bool:
        return self.outcome == "passed"

    @property
    def duration(self) -> float:
        return sum(p.duration for p in self.parts)

    def failures(self) -> list[PartResult]:
        """The parts that did not pass."""
        return [p for p in self.parts if p.outcome != "passed"]

    def to_dict(self) -> dict[str, Any]:
        """The result as JSON-able data, for reports."""
        case = self.case
        return {
            "id": case.id,
            "area": case.area,
            "level": case.level,
            "requirement": case.requirement,
            "file": case.source,
            "outcome": self.outcome,
            "duration": round(self.duration, 6),
            "parts": [
                {"part": p.part, "outcome": p.outcome, "message": p.message} for p in self.parts
            ],
        }


class _Failure(Exception):
    """A difference between what a case expects and what the runtime did."""


T = TypeVar("T")


class _Worker:
    """A daemon thread that runs one call at a time, so a hung adapter can be abandoned."""

    def __init__(self) -> None:
        self._tasks: queue.SimpleQueue[tuple[Callable[[], Any], list[Any], threading.Event]]
        self._tasks = queue.SimpleQueue()
        threading.Thread(target=self._loop, name="ppconf-case", daemon=True).start()

    def _loop(self) -> None:
        while True:
            action, box, done = self._tasks.get()
            try:
                box.append((True, action()))
            except BaseException as error:
                box.append((False, error))
            done.set()

    def call(self, action: Callable[[], T], timeout: float) -> T:
        box: list[Any] = []
        done = threading.Event()
        self._tasks.put((action, box, done))
        if not done.wait(timeout):
            raise TimeoutError
        ok, value = box[0]
        if ok:
            return value  # type: ignore[no-any-return]
        raise value


class Runner:
    """Runs cases against one adapter.

    Arguments:
        adapter: the runtime under test.
        timeout: seconds each case part may take (``None``: no limit, run in this thread).
    """

    def __init__(self, adapter: Adapter, timeout: float | None = DEFAULT_TIMEOUT) -> None:
        self.adapter = adapter
        self.timeout = timeout
        self._worker: _Worker | None = None

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

    def run_part(self, case: Case, part: str) -> PartResult:
        """Run one part (``load``, ``validation`` or a scenario name) of a case."""
        if part == "load":
            action: Callable[[], None] = lambda: _run_load(case, self.adapter)  # noqa: E731
        elif part == "validation":
            action = lambda: _run_validation(case, self.adapter)  # noqa: E731
        else:
            scenario = next(s for s in case.scenarios if s.name == part)
            action = lambda: _run_scenario(case, scenario, self.adapter)  # noqa: E731
        start = time.perf_counter()
        outcome, message = self._outcome(action)
        return PartResult(part, outcome, message, time.perf_counter() - start)

    def _outcome(self, action: Callable[[], None]) -> tuple[Outcome, str]:
        try:
            # An adapter that times its own requests out (and recovers) runs in this thread.
            if self.timeout is None or getattr(self.adapter, "handles_timeouts", False):
                action()
            else:
                if self._worker is None:
                    self._worker = _Worker()
                self._worker.call(action, self.timeout)
        except _Failure as failure:
            return "failed", str(failure)
        except Unsupported as unsupported:
            return "skipped", f"unsupported by the runtime: {unsupported.reason}"
        except AdapterFault as fault:
            return "errored", f"adapter fault: {fault}"
        except TimeoutError:
            self._worker = None  # abandon the hung thread; the next part gets a fresh one
            return "timeout", f"no answer within {self.timeout:g} s"
        except Exception as error:
            frame = traceback.extract_tb(error.__traceback__)[-1:]
            where = f" at {frame[0].filename}:{frame[0].lineno}" if frame else ""
            return "errored", f"the adapter raised {type(error).__name__}: {error}{where}"
        return "passed", ""


# -- load -------------------------------------------------------------------------------------


def _run_load(case: Case, adapter: Adapter) -> None:
    try:
        adapter.load(case.pack)
    except PackRejected as rejection:
        if case.load:
            raise _Failure(
                f"{case.where('/load')}: the runtime refused a pack it must load: "
                f"{rejection.reason}"
            ) from None
        return
    if case.load is False:
        raise _Failure(f"{case.where('/load')}: the runtime loaded a pack it must refuse")


# -- validation -------------------------------------------------------------------------------


def _run_validation(case: Case, adapter: Adapter) -> None:
    expected = case.validation
    assert expected is not None
    reported = [_diagnostic(d) for d in adapter.validate(case.pack)]
    problems = validation_problems(expected, reported)
    if problems:
        shown = ", ".join(f"{c}@{p}" if p is not None else c for s, c, p in reported) or "none"
        raise _Failure(
            f"{case.where('/validation')}: " + "; ".join(problems) + f" (reported: {shown})"
        )


def _diagnostic(raw: Mapping[str, Any]) -> tuple[str, str, str | None]:
    return (str(raw.get("severity", "error")), str(raw["code"]), raw.get("path"))


def validation_problems(
    expected: ValidationExpectation, reported: list[tuple[str, str, str | None]]
) -> list[str]:
    """Every way the reported ``(severity, code, path)`` diagnostics miss the expectation."""
    problems = []
    errors = [(c, p) for s, c, p in reported if s == "error"]
    warnings = [(c, p) for s, c, p in reported if s == "warning"]
    valid = not errors
    if valid != expected.valid:
        problems.append(f"expected the pack {'valid' if expected.valid else 'invalid'}")
    unmatched = list(errors)
    for want in expected.errors:
        index = _find(want, unmatched)
        if index is None:
            problems.append(f"missing error {want}")
        else:
            unmatched.pop(index)
    if expected.errors or expected.valid:
        problems.extend(f"unexpected error {DiagnosticRef((c,), p)}" for c, p in unmatched)
    for want in expected.warnings:
        if _find(want, warnings) is None:
            problems.append(f"missing warning {want}")
    for code in expected.absent:
        if any(c == code for _, c, _ in reported):
            problems.append(f"{code} reported but must not be")
    for code in expected.exact:
        # One-to-one: each listed warning takes one reported warning of the code.
        unpaired = [(c, p) for s, c, p in reported if c == code and s == "warning"]
        for want in (d for d in expected.warnings if code in d.codes):
            index = _find(want, unpaired)
            if index is not None:
                unpaired.pop(index)
            elif _find(want, warnings) is not None:  # else already reported missing above
                problems.append(f"missing warning {want} (listed {code} warnings are exact)")
        problems.extend(f"unexpected warning {DiagnosticRef((c,), p)}" for c, p in unpaired)
    return problems


def _find(want: DiagnosticRef, found: list[tuple[str, str | None]]) -> int | None:
    for index, (code, path) in enumerate(found):
        if code in want.codes and (want.path is None or path == want.path):
            return index
    return None


# -- scenarios --------------------------------------------------------------------------------


def _run_scenario(case: Case, scenario: Scenario, adapter: Adapter) -> None:
    where = f"{case.where(scenario.pointer)}: scenario {scenario.name!r}"
    session: AdapterSession | None = None
    if scenario.start_rejection is not None or any(s.needs_session for s in scenario.steps):
        session = _start(case, scenario, adapter, where)
        if session is None:
            return  # refused to start, as the case expects
    try:
        for number, step in enumerate(scenario.steps, start=1):
            session = _run_step(case, step, session, adapter, f"{where}, step {number}")
        if scenario.final is not None:
            if session is None:
                session = _start(case, scenario, adapter, where)
            assert session is not None
            mismatch = _compare_observations(scenario.final, session.state())
            if mismatch:
                raise _Failure(f"{case.where(scenario.pointer + '/final')}: final: {mismatch}")
    finally:
        close = getattr(session, "close", None)  # optional: let the runtime free the session
        if close is not None:
            with contextlib.suppress(Exception):  # never hide the scenario's own outcome
                close()


def _start(case: Case, scenario: Scenario, adapter: Adapter, where: str) -> AdapterSession | None:
    """Start the scenario's session; ``None`` when it is refused as the case expects."""
    try:
        session = adapter.start(case.pack)
    except Rejected as rejection:
        if scenario.start_rejection == rejection.code:
            return None
        expected = (
            f"expected a refusal with {scenario.start_rejection}"
            if scenario.start_rejection
            else "expected it to start"
        )
        raise _Failure(
            f"{where}: the session refused to start with {rejection.code}, {expected}"
        ) from None
    if scenario.start_rejection is not None:
        raise _Failure(
            f"{where}: the session started, expected a refusal with {scenario.start_rejection}"
        )
    return session


def _run_step(
    case: Case, step: Step, session: AdapterSession | None, adapter: Adapter, where: str
) -> AdapterSession | None:
    where = f"{case.where(step.pointer)}: {where.split(': ', 1)[1]} ({step.describe()})"
    args = step.arguments
    transition: Mapping[str, Any] | None = None
    composition: Mapping[str, Any] | None = None
    rejection: Rejected | None = None
    try:
        if step.kind == "run_composition":
            composition = _optional(adapter, "run_composition")(
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
                composition = _optional(session, "run_state")(args["input"], args["mocks"])
            else:
                session = adapter.restore(case.pack, session.snapshot())
    except Rejected as refused:
        rejection = refused
    expect = step.expect or {}
    wanted = expect.get("rejection")
    if rejection is not None:
        if wanted is None:
            raise _Failure(f"{where}: rejected with {_describe(rejection)}, expected acceptance")
        code, limit = (
            (wanted, None) if isinstance(wanted, str) else (wanted["code"], wanted.get("limit"))
        )
        if rejection.code != code or (limit is not None and rejection.limit != limit):
            expected = code + (f" ({limit})" if limit else "")
            raise _Failure(f"{where}: expected rejection {expected}, got {_describe(rejection)}")
    elif wanted is not None:
        shown = f" ({transition.get('from')} -> {transition.get('to')})" if transition else ""
        raise _Failure(f"{where}: accepted{shown}, expected rejection {_describe_wanted(wanted)}")
    if "transition" in expect:
        observed = {"redirected": False, **(transition or {})}
        mismatch = compare({"$subset": expect["transition"]}, observed, "transition")
        if mismatch:
            raise _Failure(f"{where}: {mismatch}")
    if "composition" in expect:
        mismatch = compare(expect["composition"], composition or missing(), "composition")
        if mismatch:
            raise _Failure(f"{where}: {mismatch}")
    if any(key in expect for key in OBSERVATIONS):
        if session is None:
            raise _Failure(f"{where}: the case checks session data, but no session runs")
        observed_state = session.state()
        wanted_state = {k: v for k, v in expect.items() if k in OBSERVATIONS}
        mismatch = _compare_observations(wanted_state, observed_state)
        if mismatch:
            raise _Failure(f"{where}: {mismatch}")
    return session


def _optional(target: object, method: str) -> Callable[..., Mapping[str, Any]]:
    """An optional adapter method (compositions); a runtime without it skips the part."""
    function = getattr(target, method, None)
    if function is None:
        raise Unsupported(f"the adapter has no {method}() (compositions)")
    return function  # type: ignore[no-any-return]


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
    if isinstance(wanted, str):
        return wanted
    return str(wanted["code"]) + (f" ({wanted['limit']})" if wanted.get("limit") else "")
