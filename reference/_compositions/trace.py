"""The result of running a composition: status, output, failure and a trace of every step."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, Literal

StepStatus = Literal["completed", "skipped", "failed"]
ResultStatus = Literal["completed", "failed"]
SkipReason = Literal[
    "branch-not-taken",  # the target a branch did not take (C2)
    "branch-skipped",  # a target of a branch that was itself skipped
    "dependencies-skipped",  # every step in depends_on was skipped (C1)
    "parallel-skipped",  # a member of a skipped parallel step
    "not-run",  # a failure ended the run (or its parallel step) before this step
]


@dataclass(frozen=True, slots=True)
class RunFailure:
    """Why a step, or a whole run, failed.

    Attributes:
        code: a stable code, e.g. ``reference-unresolved`` (see docs/semantics.md section 5).
        message: a sentence for people; compare codes, never messages.
        step: the step that failed (for a run: the top-level step that ended it; ``None`` for
            ``composition-no-output`` without an ``output`` step).
    """

    code: str
    message: str
    step: str | None

    def to_dict(self) -> dict[str, Any]:
        """Return ``{code, message, step}``."""
        return {"code": self.code, "message": self.message, "step": self.step}


@dataclass(frozen=True, slots=True)
class BranchDecision:
    """What a branch step decided (C2).

    Attributes:
        value: the predicate's value.
        taken: the target chosen (``then`` or ``else``); ``None`` when false without ``else``.
        skipped: the target not taken; ``None`` when there is none (``then == else``, or true
            without ``else``).
    """

    value: bool
    taken: str | None
    skipped: str | None

    def to_dict(self) -> dict[str, Any]:
        """Return ``{value, taken, skipped}``."""
        return {"value": self.value, "taken": self.taken, "skipped": self.skipped}


@dataclass(frozen=True, slots=True)
class ToolCallTrace:
    """One tool call an agent round made (C9) and its mocked answer.

    Attributes:
        round: the 1-based round that made the call.
        tool: the tool name.
        args: the arguments, as the round gave them.
        output: the tool's output (``None`` when it failed).
        error: the tool's error message, if it failed (the model sees it; the step goes on).
    """

    round: int
    tool: str
    args: Any
    output: Any = None
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Return ``{round, tool, args}`` plus ``output`` or ``error``."""
        data: dict[str, Any] = {"round": self.round, "tool": self.tool, "args": _copy(self.args)}
        if self.error is None:
            data["output"] = _copy(self.output)
        else:
            data["error"] = self.error
        return data


@dataclass(frozen=True, slots=True)
class StepTrace:
    """What happened to one step. Fields that do not apply to the step keep their defaults.

    Attributes:
        step: the step id.
        kind: the step kind as written (``prompt`` ... or a vendor kind such as
            ``ppconf.upper``).
        status: ``completed``, ``skipped`` or ``failed``.
        attempts: attempts made (C7): 0 when skipped, else 1 to ``retry.max_attempts``.
        reason: why a skipped step was skipped.
        input: the resolved ``input`` (``args`` for a tool step) of the last attempt; ``None``
            when the step has none or it could not be resolved.
        output: the output of a completed step (branches have none).
        error: why a failed step failed (its last attempt).
        decision: a completed branch's decision.
        members: a parallel step's branches, in branch order.
        evals: the eval modifiers attached to the step, recorded but not executed (C8).
        rounds: an agent step's rounds in the last attempt.
        exit: how a completed agent step ended: ``tool_called`` or ``max_steps``.
        tool_calls: an agent step's tool calls in the last attempt, in order.
    """

    step: str
    kind: str
    status: StepStatus
    attempts: int = 0
    reason: SkipReason | None = None
    input: Any = None
    output: Any = None
    error: RunFailure | None = None
    decision: BranchDecision | None = None
    members: tuple[StepTrace, ...] = ()
    evals: tuple[str, ...] = ()
    rounds: int = 0
    exit: str | None = None
    tool_calls: tuple[ToolCallTrace, ...] = ()

    @property
    def produced_output(self) -> bool:
        """Whether the step has an output: completed and not a branch (C10)."""
        return self.status == "completed" and self.kind != "branch"

    def to_dict(self) -> dict[str, Any]:
        """Return the trace as plain JSON-able data with a fixed key order.

        Always ``step, kind, status, attempts``; then, where they apply, ``reason`` (skipped),
        ``evals``, ``input`` (steps other than branch and parallel that ran), ``rounds``,
        ``exit`` and ``tool_calls`` (agent steps that ran), ``decision`` (completed branch),
        ``members`` (parallel), ``output`` (completed, not a branch), ``error`` (failed).
        """
        data: dict[str, Any] = {
            "step": self.step,
            "kind": self.kind,
            "status": self.status,
            "attempts": self.attempts,
        }
        if self.reason is not None:
            data["reason"] = self.reason
        if self.evals:
            data["evals"] = list(self.evals)
        ran = self.attempts > 0
        if ran and self.kind not in ("branch", "parallel"):
            data["input"] = _copy(self.input)
        if ran and self.kind == "agent":
            data["rounds"] = self.rounds
            if self.exit is not None:
                data["exit"] = self.exit
            data["tool_calls"] = [call.to_dict() for call in self.tool_calls]
        if self.decision is not None:
            data["decision"] = self.decision.to_dict()
        if self.kind == "parallel":
            data["members"] = [member.to_dict() for member in self.members]
        if self.produced_output:
            data["output"] = _copy(self.output)
        if self.error is not None:
            data["error"] = {"code": self.error.code, "message": self.error.message}
        return data


@dataclass(frozen=True, slots=True)
class CompositionResult:
    """The result of :func:`run_composition`.

    Attributes:
        output: the composition's output (C10); ``None`` when the run failed.
        status: ``completed`` or ``failed``.
        error: why the run failed: ``{code, message, step}``; ``None`` when it completed.
        trace: one entry per top-level step in array order; parallel members are nested in
            their parallel step's ``members``. Every step id appears exactly once.
    """

    output: Any
    status: ResultStatus
    error: RunFailure | None
    trace: tuple[StepTrace, ...]

    def step(self, step_id: str) -> StepTrace:
        """The trace of step ``step_id``, parallel members included.

        Raises:
            KeyError: no step has that id.
        """
        for trace in self.trace:
            if trace.step == step_id:
                return trace
            for member in trace.members:
                if member.step == step_id:
                    return member
        raise KeyError(step_id)

    def to_dict(self) -> dict[str, Any]:
        """Return ``{status, output, error, trace}`` as plain JSON-able data."""
        return {
            "status": self.status,
            "output": _copy(self.output),
            "error": self.error.to_dict() if self.error is not None else None,
            "trace": [trace.to_dict() for trace in self.trace],
        }


def _copy(value: Any) -> Any:
    # Results hand out copies: a caller editing one dict must not change another, or the run.
    return copy.deepcopy(value)
