"""The ppconf adapter for tinyflow: a runtime with its own API, mapped onto ``conformance.Adapter``.

Run the catalog against it (from the repository root)::

    PYTHONPATH=examples/tinyflow ppconf run --adapter ppconf_adapter:TinyflowAdapter

What the mapping has to decide, and where it is done:

- **Pack text** (:func:`_parse`): tinyflow reads the text itself, as its users do, so a pack
  tinyflow cannot read is refused by tinyflow, not by the kit. (A runtime that takes a mapping
  parsed elsewhere can use ``pack.document`` instead: a fresh copy for every call, ``None`` when
  the kit's own loader refused the text.)
- **Diagnostics** (:data:`CODES`, :meth:`TinyflowAdapter.validate`): tinyflow's problem kinds
  become the kit's codes, its fatal flag the severity (``"error"`` or ``"warning"``, nothing
  else), its key path a JSON pointer, or ``None`` where tinyflow cannot say (a null path matches
  no expected path: a MAY finding, never a failure).
- **Refusals** (:meth:`TinyflowSession.send` ...): tinyflow's exceptions become
  ``Rejected(code, limit=..., message=...)``; a pack it cannot load ``PackRejected``; what it
  does not do ``Unsupported`` (the part is skipped, which counts as not passed).
- **Time**: every session gets a :class:`ManualClock`, so ``advance_clock`` moves tinyflow's
  wall-time budget exactly.
- **Status**: tinyflow has none; :meth:`TinyflowSession.state` derives it (see there).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import tinyflow

from conformance import Capabilities, PackInput, PackRejected, Rejected, Unsupported

CODES = {
    "bad-shape": "schema",
    "version": "workflow-version-unsupported",
    "no-such-entry": "entry-unknown",
    "no-prompt": "prompt-task-missing",
    "no-such-prompt": "prompt-task-unknown",
    "no-such-target": "event-target-unknown",
    "no-such-fallback": "on-max-visits-unknown",
    "bad-mode": "orchestration-invalid",
    "needs-composition": "composition-missing",
    "composition-here": "composition-not-allowed",
    "no-such-composition": "composition-unknown",
    "unreachable": "unreachable-state",
    "events-on-terminal": "terminal-with-transitions",
    "event-name": "event-name-style",
}
"""tinyflow problem kind -> the kit's diagnostic code (docs/semantics.md section 2)."""

SOURCES = {"host": "user", "agent": "agent"}
"""The kit's event source -> tinyflow's ``by``."""


class ManualClock:
    """A clock that moves only when the kit says so."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def _parse(pack: PackInput) -> dict[str, Any]:
    """The pack as tinyflow reads it (raises ``tinyflow.PackError``)."""
    return tinyflow.loads(pack.text, pack.format)


def _pointer(where: Sequence[str] | None) -> str | None:
    """tinyflow's key path as a JSON pointer (``~`` and ``/`` escaped)."""
    if where is None:
        return None
    return "".join("/" + key.replace("~", "~0").replace("/", "~1") for key in where)


def _refusal(error: tinyflow.TinyflowError) -> Rejected:
    """A refused start: the kit's code for tinyflow's reason."""
    if isinstance(error, tinyflow.VersionError):
        return Rejected("workflow-version-unsupported", message=str(error))
    problems = getattr(error, "problems", ())
    code = CODES.get(problems[0].kind, problems[0].kind) if problems else "schema"
    return Rejected(code, message=str(error))


class TinyflowSession:
    """A tinyflow run, as the kit drives a session."""

    def __init__(self, run: tinyflow.Run, clock: ManualClock) -> None:
        self._run = run
        self._clock = clock

    def send(self, event: str, source: str) -> Mapping[str, Any]:
        run = self._run
        try:
            move = run.fire(event, by=SOURCES[source])
        except tinyflow.Halted as halted:
            # Refused because an earlier budget or loop limit ended the run.
            limit = getattr(halted.cause, "limit", None)
            raise Rejected("budget-exhausted", limit=limit, message=str(halted)) from None
        except tinyflow.BudgetSpent as spent:
            raise Rejected("budget-exhausted", limit=spent.limit, message=str(spent)) from None
        except tinyflow.LoopLimit as limit:
            raise Rejected("max-visits-exceeded", message=str(limit)) from None
        except tinyflow.WrongCaller as wrong:
            raise Rejected("event-source-not-allowed", message=str(wrong)) from None
        except tinyflow.NoSuchEvent as unknown:
            # tinyflow has one error for both; in a terminal state it means the run is over.
            code = "terminal-state" if run.at_end else "unknown-event"
            raise Rejected(code, message=str(unknown)) from None
        transition: dict[str, Any] = {"from": move.src, "to": move.dst, "event": move.event}
        if move.rerouted_from is not None:
            transition.update(redirected=True, original_target=move.rerouted_from)
        return transition

    def set_artifact(self, name: str, value: str) -> None:
        try:
            self._run.put(name, value)
        except tinyflow.UnknownSlot as unknown:
            raise Rejected("artifact-undeclared", message=str(unknown)) from None

    def record_tool_calls(self, count: int) -> None:
        self._run.count_tools(count)

    def advance_clock(self, seconds: float) -> None:
        self._clock.advance(seconds)

    def state(self) -> Mapping[str, Any]:
        """The session data the kit compares.

        ``status``: tinyflow has no status, but the facts it keeps decide it: a run in a
        terminal state is ``completed``; a run that a budget or a ``max_visits`` limit halted
        (``halted_by``) is ``budget_exhausted``; any other run is ``active``. An adapter derives
        status from its runtime's own state like this; it never tracks one of its own (say, by
        remembering a refusal it saw), which would certify the adapter rather than the runtime.
        A runtime that keeps no such facts leaves ``status`` out, and the cases checking it fail
        with "not reported".

        ``artifact_history`` is left out the same way: tinyflow keeps no per-transition copy of
        the artifacts (RFC 0009 SHOULD; those cases fail as findings, not as MUST failures).
        """
        run = self._run
        status = (
            "completed"
            if run.at_end
            else "budget_exhausted"
            if run.halted_by is not None
            else "active"
        )
        return {
            "current_state": run.here,
            "status": status,
            "terminal": run.at_end,
            "available_events": run.events(),
            "prompt_task": run.task,
            "visit_counts": dict(run.visits),
            "history": [{"from": src, "to": dst, "event": event} for src, event, dst in run.log],
            "artifacts": dict(run.memory),
            "tool_calls": run.tools_used,
            "prompt_variables": run.template_vars(),
        }

    def snapshot(self) -> Any:
        return self._run.save()


class TinyflowAdapter:
    """tinyflow, as ppconf drives a runtime (``conformance.Adapter``)."""

    def capabilities(self) -> Capabilities:
        # Compositions are not claimed: the headline level covers workflow and loops only,
        # and composition cases are measured and shown without counting against it.
        return Capabilities(
            name="tinyflow",
            version=tinyflow.__version__,
            language="python",
            claims={"workflow": 2, "loops": 2},
        )

    def load(self, pack: PackInput) -> None:
        """Refuse only what tinyflow cannot load to run the pack's prompts: a valid pack with
        a workflow, compositions or anything else tinyflow ignores must load (Level 0)."""
        try:
            tinyflow.Engine(_parse(pack))
        except tinyflow.PackError as error:
            raise PackRejected(str(error)) from None

    def validate(self, pack: PackInput) -> Sequence[Mapping[str, Any]]:
        try:
            problems = tinyflow.check(_parse(pack))
        except tinyflow.PackError:
            return [{"code": "schema", "severity": "error", "path": None}]
        return [
            {
                "code": CODES.get(problem.kind, problem.kind),
                "severity": "error" if problem.fatal else "warning",
                "path": _pointer(problem.where),
            }
            for problem in problems
        ]

    def start(self, pack: PackInput) -> TinyflowSession:
        """A run at the entry, on a clock the kit moves. tinyflow refuses to start a workflow
        with fatal problems; that is allowed (starting anyway would be too)."""
        clock = ManualClock()
        try:
            run = tinyflow.Engine(_parse(pack), clock=clock).start()
        except tinyflow.NotSupported as error:
            raise Unsupported(str(error)) from None
        except tinyflow.TinyflowError as error:
            raise _refusal(error) from None
        return TinyflowSession(run, clock)

    def restore(self, pack: PackInput, snapshot: Any) -> TinyflowSession:
        clock = ManualClock()
        try:
            run = tinyflow.Engine(_parse(pack), clock=clock).resume(snapshot)
        except tinyflow.NotSupported as error:
            raise Unsupported(str(error)) from None
        except (tinyflow.VersionError, tinyflow.PackError) as error:
            raise _refusal(error) from None
        return TinyflowSession(run, clock)
