"""Running compositions (RFC 0010): the rules C1-C12 of SEMANTICS.md section 4.

The kit never calls a real model or tool: every prompt call, agent round and tool call takes
the next response of a script, the *mocks*. ``run_composition`` runs one composition of a pack
with an input and mocks and returns a :class:`CompositionResult`: the output, a status, the
failure if any, and a trace in which every step appears exactly once::

    result = run_composition(pack, "analyze_document", {"text": "..."}, {
        "classify": [{"output": {"type": "research_paper"}}],
        "extract_paper": [{"output": {"title": "..."}}],
    })
    result.status, result.output, result.to_dict()

The composition is trusted to be valid (``reference.validate`` checks it); what cannot be run
at all is refused with :class:`CompositionRunError`, never a crash. Everything a run can meet
(an unresolved reference, a failing call, an unsupported vendor kind ...) fails the run with a
stable code instead.
"""

from __future__ import annotations

import copy
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from reference._compositions.extensions import Extensions, StepFailure
from reference._compositions.steps import (
    AgentStep,
    BranchStep,
    CallStep,
    Composition,
    CompositionRunError,
    ParallelStep,
    Step,
    compile_composition,
)
from reference._compositions.trace import (
    BranchDecision,
    CompositionResult,
    RunFailure,
    SkipReason,
    StepStatus,
    StepTrace,
    ToolCallTrace,
)
from reference._compositions.values import Scope, evaluate, resolve
from reference._compositions.vocabulary import V1_REDUCERS
from reference._json import describe_json_type, is_number, json_pointer
from reference._workflow.session import Session

__all__ = [
    "BranchDecision",
    "CompositionResult",
    "CompositionRunError",
    "RunFailure",
    "StepTrace",
    "ToolCallTrace",
    "run_composition",
    "run_state_composition",
]

_MOCK_FIELDS = frozenset(("output", "error", "tool_calls", "delay"))
_MAX_DELAY = 60.0  # seconds; a script that sleeps longer is a mistake, not a test


# -- entry points ------------------------------------------------------------------------------


def run_composition(
    pack: Mapping[str, Any],
    name: str,
    input: Any,
    mocks: Mapping[str, Any],
    *,
    extensions: Extensions | None = None,
) -> CompositionResult:
    """Run composition ``name`` of ``pack`` with scripted model and tool responses.

    Arguments:
        pack: a loaded pack; the composition is trusted to be valid (see ``reference.validate``).
        name: the key in ``compositions``.
        input: the composition input, read by ``${input...}`` references.
        mocks: the script: key (a step id, else a prompt task or tool name) -> list of
            responses, consumed one per call (see docs/semantics.md section 5).
        extensions: vendor step kinds and reducers to support (Level 3); ``None`` supports the
            v1 vocabulary only. :func:`reference._extensions.test_extensions` gives the kit's.

    Raises:
        CompositionRunError: the composition is unknown or cannot be run as written, or the
            mocks are malformed, or nest too deeply (``nesting-too-deep``). Failures of the run
            itself are in the result, not raised.
    """
    try:
        composition = compile_composition(pack, name)
        book = _MockBook(_checked_mocks(mocks))
        return _Run(composition, copy.deepcopy(input), book, extensions or Extensions()).execute()
    except RecursionError:
        # Predicates, bindings and values are walked recursively: fine for anything a file can
        # hold (the loader stops at 256 levels), refused for deeper structures built in code.
        raise CompositionRunError(
            "nesting-too-deep",
            "the composition, its input or the mocks nest too deeply to run",
            json_pointer("compositions", name),
        ) from None


def run_state_composition(
    pack: Mapping[str, Any],
    session: Session,
    input: Any,
    mocks: Mapping[str, Any],
    *,
    extensions: Extensions | None = None,
) -> CompositionResult:
    """Run the composition of the session's current state (C11).

    The session is only read: mapping the result to an event is the host's business (it then
    calls ``session.send``). A state runs its composition in any session status, as a terminal
    state still does its work.

    Arguments:
        pack: the pack the session's workflow was compiled from (compositions live at its root).
        session: a session whose current state has ``orchestration: composition``.
        input, mocks, extensions: as for :func:`run_composition`.

    Raises:
        CompositionRunError: ``state-not-composition`` when the current state is not in
            composition mode; ``workflow-mismatch`` when ``pack`` holds another workflow than
            the session's; anything :func:`run_composition` raises.
    """
    state = session.workflow.states[session.current_state]
    if state.orchestration != "composition" or state.composition is None:
        raise CompositionRunError(
            "state-not-composition",
            f"state {state.name!r} is orchestrated {state.orchestration!r}, not by a composition",
            json_pointer("workflow", "states", state.name),
        )
    workflow = pack.get("workflow") if isinstance(pack, Mapping) else None
    if workflow != session.workflow.source:
        raise CompositionRunError(
            "workflow-mismatch", "the session runs the workflow of another pack", "/workflow"
        )
    return run_composition(pack, state.composition, input, mocks, extensions=extensions)


# -- the mocks ---------------------------------------------------------------------------------


def _checked_mocks(mocks: Any) -> dict[str, list[Mapping[str, Any]]]:
    """Check the script's shape once, before anything runs, and take a private copy."""
    if not isinstance(mocks, Mapping):
        raise CompositionRunError(
            "mock-invalid", f"mocks is an object, not {describe_json_type(mocks)}", "mocks"
        )
    checked: dict[str, list[Mapping[str, Any]]] = {}
    for key, responses in mocks.items():
        where = f"mocks/{key}"
        if not isinstance(key, str) or not isinstance(responses, list):
            raise CompositionRunError(
                "mock-invalid", "mocks maps a step id, prompt task or tool to a list", where
            )
        for index, response in enumerate(responses):
            _check_response(response, f"{where}/{index}")
        checked[key] = copy.deepcopy(responses)
    return checked


def _check_response(response: Any, where: str) -> None:
    def invalid(message: str) -> CompositionRunError:
        return CompositionRunError("mock-invalid", message, where)

    if not isinstance(response, Mapping):
        raise invalid(f"a response is an object, not {describe_json_type(response)}")
    unknown = sorted(set(response) - _MOCK_FIELDS)
    if unknown:
        raise invalid(f"unknown response fields {unknown}; use output, error, tool_calls, delay")
    if "error" in response:
        if not isinstance(response["error"], str):
            raise invalid("error is a message (a string)")
        if "output" in response or "tool_calls" in response:
            raise invalid("a response with error has no output or tool_calls")
    delay = response.get("delay", 0)
    if not (is_number(delay) and 0 <= delay <= _MAX_DELAY):
        raise invalid(f"delay is a number of seconds from 0 to {_MAX_DELAY:g}")
    calls = response.get("tool_calls", [])
    if not isinstance(calls, list):
        raise invalid("tool_calls is a list of {tool, args}")
    for index, call in enumerate(calls):
        if not (
            isinstance(call, Mapping)
            and isinstance(call.get("tool"), str)
            and set(call) <= {"tool", "args"}
            and isinstance(call.get("args", {}), Mapping)
        ):
            raise CompositionRunError(
                "mock-invalid",
                "a tool call is {tool: name, args?: object}",
                f"{where}/tool_calls/{index}",
            )


class _MockBook:
    """The script's responses and how many of each list are used; shared by all threads."""

    def __init__(self, mocks: dict[str, list[Mapping[str, Any]]]) -> None:
        self._mocks = mocks
        self._used: dict[str, int] = {}
        self._lock = threading.Lock()

    def key_for(self, step_id: str, fallback: str) -> str:
        """The key a step's calls draw from: its id when the script has it, else ``fallback``."""
        return step_id if step_id in self._mocks else fallback

    def draw(self, key: str, call: str, *, own: bool = True) -> Mapping[str, Any]:
        """Take the next response under ``key`` for ``call`` (described for messages).

        Arguments:
            key: the mock list to draw from.
            call: the call, described for messages.
            own: whether the list is the step's own (its first draw of an attempt comes from
                it), so that running out is final: every further attempt would run out too.

        Raises:
            StepFailure: ``mock-exhausted`` when the list is used up or absent.
        """
        with self._lock:
            responses = self._mocks.get(key)
            used = self._used.get(key, 0)
            if responses is None:
                raise StepFailure("mock-exhausted", f"{call} has no mocks under {key!r}", final=own)
            if used >= len(responses):
                raise StepFailure(
                    "mock-exhausted",
                    f"{call} needs response {used + 1} of mocks[{key!r}], which has "
                    f"{len(responses)}",
                    final=own,
                )
            self._used[key] = used + 1
            response = responses[used]
        delay = response.get("delay", 0)
        if delay:
            time.sleep(delay)  # outside the lock, so branches overlap their delays
        return response


# -- the run -----------------------------------------------------------------------------------


@dataclass(slots=True)
class _Attempt:
    """What one attempt found out before it completed or failed (the trace reports the last)."""

    input: Any = None
    decision: BranchDecision | None = None
    members: tuple[StepTrace, ...] = ()
    rounds: int = 0
    exit: str | None = None
    tool_calls: list[ToolCallTrace] = field(default_factory=list)

    def trace(
        self,
        step: Step,
        status: StepStatus,
        attempts: int,
        output: Any = None,
        error: RunFailure | None = None,
    ) -> StepTrace:
        return StepTrace(
            step=step.id,
            kind=step.kind,
            status=status,
            attempts=attempts,
            input=self.input,
            output=output,
            error=error,
            decision=self.decision,
            members=self.members,
            evals=step.evals,
            rounds=self.rounds,
            exit=self.exit,
            tool_calls=tuple(self.tool_calls),
        )


def _skipped(step: Step, reason: SkipReason) -> StepTrace:
    members: tuple[StepTrace, ...] = ()
    if isinstance(step, ParallelStep):
        member_reason: SkipReason = "not-run" if reason == "not-run" else "parallel-skipped"
        members = tuple(_skipped(member, member_reason) for member in step.members)
    return StepTrace(
        step=step.id,
        kind=step.kind,
        status="skipped",
        reason=reason,
        members=members,
        evals=step.evals,
    )


def _skipped_by_dependencies(step: Step, statuses: Mapping[str, str]) -> bool:
    """C1: a step whose ``depends_on`` steps were all skipped is skipped."""
    return bool(step.depends_on) and all(statuses.get(d) == "skipped" for d in step.depends_on)


class _Run:
    """One run of a composition: the top-level loop (C1, C2, C10) and the step kinds."""

    def __init__(
        self, composition: Composition, input: Any, book: _MockBook, extensions: Extensions
    ) -> None:
        self._composition = composition
        self._input = input
        self._book = book
        self._extensions = extensions
        self._outputs: dict[str, Any] = {}
        self._statuses: dict[str, StepStatus] = {}
        self._marks: dict[str, SkipReason] = {}  # skips decided by branches, first one wins

    def execute(self) -> CompositionResult:
        traces: list[StepTrace] = []
        failure: RunFailure | None = None
        for step in self._composition.steps:
            if failure is not None:
                trace = _skipped(step, "not-run")
            else:
                reason = self._marks.get(step.id)
                if reason is None and _skipped_by_dependencies(step, self._statuses):
                    reason = "dependencies-skipped"
                trace = _skipped(step, reason) if reason else self._run(step, self._scope())[0]
            self._record(step, trace)
            traces.append(trace)
            if trace.status == "failed" and trace.error is not None:
                failure = RunFailure(trace.error.code, trace.error.message, step.id)
        if failure is None:
            output, failure = self._output(traces)
            if failure is None:
                return CompositionResult(output, "completed", None, tuple(traces))
        return CompositionResult(None, "failed", failure, tuple(traces))

    def _scope(self) -> Scope:
        # Copies: parallel branches read the scope from other threads while nothing changes it.
        return Scope(self._input, dict(self._outputs), dict(self._statuses))

    def _record(self, step: Step, trace: StepTrace) -> None:
        for done in (trace, *trace.members):
            self._statuses[done.step] = done.status
            if done.produced_output:
                self._outputs[done.step] = done.output
        if isinstance(step, BranchStep):
            if trace.status == "skipped":
                # A branch that never decided takes neither path.
                for target in (step.then, step.otherwise):
                    if target is not None:
                        self._marks.setdefault(target, "branch-skipped")
            elif trace.decision is not None and trace.decision.skipped is not None:
                self._marks.setdefault(trace.decision.skipped, "branch-not-taken")

    def _output(self, traces: Sequence[StepTrace]) -> tuple[Any, RunFailure | None]:
        """C10: the ``output`` step's output, else the last top-level step that produced one."""
        named = self._composition.output
        if named is not None:
            if named in self._outputs:
                return self._outputs[named], None
            status = self._statuses.get(named)
            why = "was skipped" if status == "skipped" else "produces no output (a branch)"
            return None, RunFailure(
                "composition-no-output", f"the output step {named!r} {why}", named
            )
        for trace in reversed(traces):
            if trace.produced_output:
                return trace.output, None
        return None, RunFailure(
            "composition-no-output", "no step produced output (branches have none)", None
        )

    # -- one step, with retries (C7) -----------------------------------------------------------

    def _run(self, step: Step, scope: Scope) -> tuple[StepTrace, bool]:
        """Run a step until an attempt completes, ``max_attempts`` attempts failed, or one
        failed finally (another attempt would fail the same way).

        Returns the trace and, for a failed step, whether its failure was final.
        """
        number = 0
        while True:
            number += 1
            attempt = _Attempt()
            try:
                output = self._attempt(step, scope, attempt)
            except StepFailure as failure:
                if number < step.max_attempts and not failure.final:
                    continue
                error = RunFailure(failure.code, failure.message, step.id)
                return attempt.trace(step, "failed", number, error=error), failure.final
            return attempt.trace(step, "completed", number, output=output), False

    def _attempt(self, step: Step, scope: Scope, attempt: _Attempt) -> Any:
        if isinstance(step, BranchStep):
            attempt.decision = _decide(step, scope)
            return None
        if isinstance(step, ParallelStep):
            return self._parallel(step, scope, attempt)
        if isinstance(step, AgentStep):
            return self._agent(step, scope, attempt)
        assert isinstance(step, CallStep)
        if step.mock_key is None:
            return self._vendor(step, scope, attempt)
        attempt.input = resolve(step.binding, scope) if step.has_binding else None
        call = f"{step.kind} step {step.id!r}"
        response = self._book.draw(self._book.key_for(step.id, step.mock_key), call)
        return _answer(response, call)

    def _vendor(self, step: CallStep, scope: Scope, attempt: _Attempt) -> Any:
        """C12: a namespaced kind runs its registered function, else fails unsupported."""
        run = self._extensions.kind(step.kind)
        if run is None:
            raise StepFailure(
                "step-kind-unsupported",
                f"step kind {step.kind!r} is a vendor extension this runtime does not support",
                final=True,
            )
        attempt.input = resolve(step.binding, scope) if step.has_binding else None
        return _call_extension(step.kind, lambda: run(step.raw, attempt.input))

    def _agent(self, step: AgentStep, scope: Scope, attempt: _Attempt) -> Any:
        """C9: model rounds until a round calls ``tool_called`` or ``max_steps`` rounds ran.

        The output is the last ``output`` a round gave (``None`` if none did). A tool that
        answers with an error does not fail the step: the model sees the error and goes on.
        """
        attempt.input = resolve(step.binding, scope) if step.has_binding else None
        key = self._book.key_for(step.id, step.prompt_task)
        output: Any = None
        while True:
            if step.max_steps is not None and attempt.rounds >= step.max_steps:
                attempt.exit = "max_steps"
                return output
            number = attempt.rounds + 1
            response = self._book.draw(key, f"round {number} of agent step {step.id!r}")
            attempt.rounds = number
            if "error" in response:
                raise StepFailure("call-failed", f"round {number}: {response['error']}")
            finished = False
            for call in response.get("tool_calls", []):
                finished = self._tool_call(step, number, call, attempt) or finished
            if "output" in response:
                output = response["output"]
            if finished:
                attempt.exit = "tool_called"
                return output

    def _tool_call(
        self, step: AgentStep, number: int, call: Mapping[str, Any], attempt: _Attempt
    ) -> bool:
        """Run one tool call of an agent round; True when it is a successful ``tool_called``."""
        tool: str = call["tool"]
        args = call.get("args", {})
        if tool not in step.offered:
            offered = ", ".join(sorted(step.offered)) or "none"
            raise StepFailure(
                "tool-not-offered",
                f"round {number} calls tool {tool!r}, which the step does not offer ({offered})",
            )
        what = f"tool call {tool!r} in round {number} of agent step {step.id!r}"
        reply = self._book.draw(tool, what, own=False)
        if "error" in reply:
            attempt.tool_calls.append(ToolCallTrace(number, tool, args, error=reply["error"]))
            return False
        output = _answer(reply, what)
        attempt.tool_calls.append(ToolCallTrace(number, tool, args, output))
        return tool == step.tool_called

    # -- parallel (C3) -------------------------------------------------------------------------

    def _parallel(self, step: ParallelStep, scope: Scope, attempt: _Attempt) -> Any:
        reducer = None
        if step.strategy not in V1_REDUCERS:
            reducer = self._extensions.reducer(step.strategy)
            if reducer is None:
                # Refused before any branch runs: nothing could merge their work.
                attempt.members = tuple(_skipped(member, "not-run") for member in step.members)
                raise StepFailure(
                    "reduce-strategy-unsupported",
                    f"reduce strategy {step.strategy!r} is a vendor extension this runtime "
                    "does not support",
                    final=True,
                )
        # Which branches are skipped is known before any starts: in branch order, so that a
        # branch whose depends_on names skipped siblings is skipped too (C1).
        statuses = dict(scope.statuses)
        skips: dict[str, SkipReason] = {}
        for member in step.members:
            reason = self._marks.get(member.id)
            if reason is None and _skipped_by_dependencies(member, statuses):
                reason = "dependencies-skipped"
            if reason is not None:
                skips[member.id] = reason
                statuses[member.id] = "skipped"
        runnable = [member for member in step.members if member.id not in skips]
        ran = dict(
            zip((m.id for m in runnable), self._run_concurrently(runnable, scope), strict=True)
        )
        members = tuple(
            ran[member.id][0] if member.id in ran else _skipped(member, skips[member.id])
            for member in step.members
        )
        attempt.members = members
        failed = [m for m in members if m.status == "failed" and m.error is not None]
        if failed:
            final = all(ran[m.step][1] for m in failed)
            listed = "; ".join(
                f"{m.step} ({m.error.code}: {m.error.message})" for m in failed if m.error
            )
            raise StepFailure("parallel-branch-failed", f"branches failed: {listed}", final=final)
        outputs = [(m.step, m.output) for m in members if m.produced_output]
        if reducer is not None:
            merged = _call_extension(step.strategy, lambda: reducer(outputs, step.reduce))
        elif step.strategy == "append":
            merged = [output for _, output in outputs]
        elif step.strategy == "replace":
            merged = outputs[-1][1] if outputs else None
        else:  # barrier
            merged = dict(outputs)
        return {step.into: merged}

    def _run_concurrently(self, members: list[Step], scope: Scope) -> list[tuple[StepTrace, bool]]:
        """Run branches in threads, all from the same scope; results in branch order.

        Branches that draw from the same mock list would take responses in whatever order
        they happen to run, so a branch that shares a mock key with earlier branches waits
        for them to finish: responses go out in branch order, as in a sequential run.
        """
        if not members:
            return []
        keys = [self._mock_keys(member) for member in members]
        done = [threading.Event() for _ in members]

        def run(index: int) -> tuple[StepTrace, bool]:
            try:
                for earlier in range(index):
                    if keys[index] & keys[earlier]:
                        done[earlier].wait()
                return self._run(members[index], scope)
            finally:
                done[index].set()

        with ThreadPoolExecutor(len(members), thread_name_prefix="ppconf-parallel") as pool:
            futures = [pool.submit(run, index) for index in range(len(members))]
            # Leaving the block waits for every branch, so a failure is reported after all.
            return [future.result() for future in futures]

    def _mock_keys(self, step: Step) -> frozenset[str]:
        if isinstance(step, AgentStep):
            return step.offered | {self._book.key_for(step.id, step.prompt_task)}
        if isinstance(step, CallStep) and step.mock_key is not None:
            return frozenset((self._book.key_for(step.id, step.mock_key),))
        return frozenset()


def _decide(step: BranchStep, scope: Scope) -> BranchDecision:
    """C2, C6: evaluate the predicate and name the target taken and the one skipped."""
    value = evaluate(step.predicate, scope)
    taken, other = (step.then, step.otherwise) if value else (step.otherwise, step.then)
    skipped = None if other is None or other == taken else other
    return BranchDecision(value, taken, skipped)


def _answer(response: Mapping[str, Any], call: str) -> Any:
    """The output of a one-shot response (a prompt call or a tool call)."""
    if "error" in response:
        raise StepFailure("call-failed", f"{call}: {response['error']}")
    if "tool_calls" in response or "output" not in response:
        raise StepFailure(
            "mock-invalid",
            f"{call} takes a response {{output}} or {{error}}, got {sorted(response)}",
        )
    return response["output"]


def _call_extension(name: str, run: Callable[[], Any]) -> Any:
    try:
        return run()
    except StepFailure:
        raise
    except Exception as error:  # a vendor's bug must fail the step, not the interpreter
        raise StepFailure(
            "extension-failed", f"{name} raised {type(error).__name__}: {error}"
        ) from error
