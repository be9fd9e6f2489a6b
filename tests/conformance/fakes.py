"""Deliberately broken runtimes, to prove that the harness measures what it claims to.

Each class is an adapter (``module:Class``, built with no arguments) for ``ppconf run --adapter
fakes:Name`` or ``pytest --ppconf-adapter=fakes:Name`` with this folder on ``sys.path``. Most
wrap the reference adapter and break one thing, so the level they reach follows from SEMANTICS
section 5 alone, whatever cases the catalog gains:

=========================  =================================================================
``IgnoresWorkflows``        loads packs with the workflow fields ignored; no validation, no
                            sessions (``Unsupported``): Level 0 in workflow and loops
``IgnoresWorkflowsSilently`` the same, but ``validate`` answers ``[]``: still Level 0
``WorkflowsOnly``           the reference without compositions: it validates them (the
                            reference validator) but cannot run them: compositions Level 1
``ValidatesOnly``           loads and validates like the reference; sessions start but never
                            transition (every event ``unknown-event``): workflow 1, loops 0
``ValidatesOnlyNoSessions`` the same, but ``start`` is ``Unsupported``
``RejectsWorkflows``        refuses every pack with a ``workflow`` field (like promptpack-python):
                            below Level 0
``AlwaysWrong``             does the opposite of the reference in every operation: every case
                            fails
``RaisesSometimes``         raises ``RuntimeError`` for packs whose id contains ``LETTER``
``Hangs``                   sleeps past any sane timeout on the pack ``HANG_PACK_ID``
``InterruptedOnThirdCase``  the reference, until Ctrl-C arrives during the third case
``BrokenCapabilities``      the reference, but it cannot describe itself
``NotAnAdapter``            a class without the adapter methods
``Sleeps``                  not broken: the reference, sleeping ``DELAY`` (2 ms) in each call,
                            its sessions' included: a runtime slower than pytest's own handling
                            of an item (``benchmarks/bench_plugin.py``)
=========================  =================================================================
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any

from conformance import (
    Capabilities,
    PackInput,
    PackRejected,
    ReferenceAdapter,
    Rejected,
    Unsupported,
)

__all__ = [
    "AlwaysWrong",
    "BrokenCapabilities",
    "Hangs",
    "IgnoresWorkflows",
    "IgnoresWorkflowsSilently",
    "InterruptedOnThirdCase",
    "NotAnAdapter",
    "RaisesSometimes",
    "RejectsWorkflows",
    "Sleeps",
    "ValidatesOnly",
    "ValidatesOnlyNoSessions",
    "WorkflowsOnly",
]

WORKFLOW_FIELDS = ("workflow", "compositions")


def without_workflows(document: Mapping[str, Any]) -> dict[str, Any]:
    """``document`` as a runtime that predates workflows reads it: no workflow, no compositions,
    and no RFC 0011 ``state`` on agent members (a field it does not know either)."""
    stripped = {k: v for k, v in document.items() if k not in WORKFLOW_FIELDS}
    agents = stripped.get("agents")
    if isinstance(agents, Mapping) and isinstance(agents.get("members"), Mapping):
        members = {
            name: {k: v for k, v in member.items() if k != "state"}
            if isinstance(member, Mapping)
            else member
            for name, member in agents["members"].items()
        }
        stripped["agents"] = {**agents, "members": members}
    return stripped


def pack_id(pack: PackInput) -> str:
    """The pack's own ``id`` ('' when the kit could not parse the pack)."""
    document = pack.document or {}
    value = document.get("id", "")
    return value if isinstance(value, str) else ""


class Delegating:
    """The reference adapter, under another name; subclasses break parts of it (and the
    kit's own tests build their recording and faulty adapters on it)."""

    NAME = "fake"
    CLAIMS: Mapping[str, int] = {}

    def __init__(self) -> None:
        self.reference = ReferenceAdapter()

    def capabilities(self) -> Capabilities:
        return Capabilities(name=self.NAME, version="0.0", language="python", claims=self.CLAIMS)

    def load(self, pack: PackInput) -> None:
        self.reference.load(pack)

    def validate(self, pack: PackInput) -> Sequence[Mapping[str, Any]]:
        return self.reference.validate(pack)

    def start(self, pack: PackInput) -> Any:
        return self.reference.start(pack)

    def restore(self, pack: PackInput, snapshot: Any) -> Any:
        return self.reference.restore(pack, snapshot)

    def run_composition(
        self, pack: PackInput, name: str, input: Any, mocks: Mapping[str, Any]
    ) -> Mapping[str, Any]:
        return self.reference.run_composition(pack, name, input, mocks)


class _NoCompositions:
    """Mixed in by fakes that cannot run compositions."""

    def run_composition(
        self, pack: PackInput, name: str, input: Any, mocks: Mapping[str, Any]
    ) -> Mapping[str, Any]:
        raise Unsupported("this runtime does not run compositions")


# -- Level 0: loads packs, knows nothing of workflows -------------------------------------------


class IgnoresWorkflows(_NoCompositions, Delegating):
    """A runtime that predates workflows: it drops the fields it does not know and runs prompts."""

    NAME = "ignores-workflows"
    CLAIMS: Mapping[str, int] = {"workflow": 0, "loops": 0}

    def load(self, pack: PackInput) -> None:
        if pack.document is None:
            raise PackRejected("the pack is not a well-formed document")
        stripped = without_workflows(pack.document)
        self.reference.load(PackInput(json.dumps(stripped), "json", stripped, pack.source))

    def validate(self, pack: PackInput) -> Sequence[Mapping[str, Any]]:
        raise Unsupported("this runtime does not validate workflows")

    def start(self, pack: PackInput) -> Any:
        raise Unsupported("this runtime does not run workflows")

    def start_at(
        self, pack: PackInput, *, state: str | None = None, agent: str | None = None
    ) -> Any:
        raise Unsupported("this runtime does not run workflows")

    def restore(self, pack: PackInput, snapshot: Any) -> Any:
        raise Unsupported("this runtime does not run workflows")


class IgnoresWorkflowsSilently(IgnoresWorkflows):
    """Like :class:`IgnoresWorkflows`, but claims every pack is free of problems."""

    NAME = "ignores-workflows-silently"

    def validate(self, pack: PackInput) -> Sequence[Mapping[str, Any]]:
        return []


# -- workflows and loops in full, compositions not run -----------------------------------------


class SessionWrapper:
    """A reference session under a fake that changes part of it: whatever the fake does not
    override goes to the wrapped session, so the fake offers all that the reference offers."""

    def __init__(self, session: Any) -> None:
        self._session = session

    def __getattr__(self, name: str) -> Any:
        if name == "_session":  # not set yet (a copy in the making): no recursion
            raise AttributeError(name)
        return getattr(self._session, name)


class WrapsSessions:
    """A fake whose every session, started (at the entry or at a state) or restored, is the
    reference's wrapped by :meth:`wrap`. Put it before the adapter it wraps in the bases."""

    def wrap(self, pack: PackInput, session: Any) -> Any:
        raise NotImplementedError

    def start(self, pack: PackInput) -> Any:
        return self.wrap(pack, super().start(pack))

    def start_at(
        self, pack: PackInput, *, state: str | None = None, agent: str | None = None
    ) -> Any:
        return self.wrap(pack, super().start_at(pack, state=state, agent=agent))

    def restore(self, pack: PackInput, snapshot: Any) -> Any:
        return self.wrap(pack, super().restore(pack, snapshot))


def workflow_of(pack: PackInput) -> Mapping[str, Any]:
    """The pack's ``workflow`` object (empty when it has none)."""
    return (pack.document or {}).get("workflow") or {}


class SessionDelegate:
    """A reference session without ``run_state``: no composition can run in it."""

    def __init__(self, session: Any) -> None:
        self.session = session

    def send(self, event: str, source: str) -> Mapping[str, Any]:
        return self.session.send(event, source)  # type: ignore[no-any-return]

    def set_artifact(self, name: str, value: str) -> None:
        self.session.set_artifact(name, value)

    def record_tool_calls(self, count: int) -> None:
        self.session.record_tool_calls(count)

    def advance_clock(self, seconds: float) -> None:
        self.session.advance_clock(seconds)

    def state(self) -> Mapping[str, Any]:
        return self.session.state()  # type: ignore[no-any-return]

    def snapshot(self) -> Any:
        return self.session.snapshot()


class WorkflowsOnly(_NoCompositions, Delegating):
    """A runtime with workflows and agent loops in full that cannot run compositions."""

    NAME = "workflows-only"
    CLAIMS: Mapping[str, int] = {"workflow": 2, "loops": 2, "compositions": 1}

    def start(self, pack: PackInput) -> Any:
        return SessionDelegate(self.reference.start(pack))

    def restore(self, pack: PackInput, snapshot: Any) -> Any:
        return SessionDelegate(self.reference.restore(pack, snapshot))


# -- Level 1 in workflow: validates, never runs -------------------------------------------------


class StuckSession:
    """A reference session that refuses every event as ``unknown-event``."""

    def __init__(self, session: Any) -> None:
        self.session = session

    def send(self, event: str, source: str) -> Mapping[str, Any]:
        raise Rejected("unknown-event", message=f"{event}: this runtime never transitions")

    def set_artifact(self, name: str, value: str) -> None:
        self.session.set_artifact(name, value)

    def record_tool_calls(self, count: int) -> None:
        self.session.record_tool_calls(count)

    def advance_clock(self, seconds: float) -> None:
        self.session.advance_clock(seconds)

    def state(self) -> Mapping[str, Any]:
        return self.session.state()

    def snapshot(self) -> Any:
        return self.session.snapshot()


class ValidatesOnly(_NoCompositions, Delegating):
    """Validates exactly like the reference, and claims Level 2, but its sessions are stuck."""

    NAME = "validates-only"
    CLAIMS: Mapping[str, int] = {"workflow": 2, "loops": 2}

    def start(self, pack: PackInput) -> Any:
        return StuckSession(self.reference.start(pack))

    def restore(self, pack: PackInput, snapshot: Any) -> Any:
        return StuckSession(self.reference.restore(pack, snapshot))


class ValidatesOnlyNoSessions(ValidatesOnly):
    """Validates like the reference and says so: sessions are ``Unsupported``."""

    NAME = "validates-only-no-sessions"

    def start(self, pack: PackInput) -> Any:
        raise Unsupported("this runtime validates workflows but does not run them")

    def restore(self, pack: PackInput, snapshot: Any) -> Any:
        raise Unsupported("this runtime validates workflows but does not run them")


# -- below Level 0: refuses packs carrying workflows --------------------------------------------


class RejectsWorkflows(Delegating):
    """Refuses any pack with a ``workflow`` field, as promptpack-python does (SEMANTICS L3)."""

    NAME = "rejects-workflows"

    def _refuse(self, pack: PackInput) -> None:
        if pack.document is None or "workflow" in pack.document:
            raise PackRejected("unknown field 'workflow' in pack")

    def load(self, pack: PackInput) -> None:
        self._refuse(pack)
        self.reference.load(pack)

    def validate(self, pack: PackInput) -> Sequence[Mapping[str, Any]]:
        raise Unsupported("this runtime does not validate workflows")

    def start(self, pack: PackInput) -> Any:
        raise Unsupported("this runtime does not run workflows")

    def restore(self, pack: PackInput, snapshot: Any) -> Any:
        raise Unsupported("this runtime does not run workflows")


# -- wrong in everything ------------------------------------------------------------------------

WRONG_STATE: dict[str, Any] = {
    "current_state": "__wrong__",
    "status": "__wrong__",
    "terminal": None,
    "available_events": ["__Wrong__"],
    "prompt_task": "__wrong__",
    "visit_counts": {"__wrong__": 99},
    "history": [{"from": "__wrong__", "to": "__wrong__", "event": "__Wrong__"}],
    "artifacts": {"__wrong__": "__wrong__"},
    "artifact_history": [{"from_state": "__wrong__"}],
    "tool_calls": -1,
}


class WrongSession:
    """Mirrors a reference session and answers the opposite of it every time."""

    def __init__(self, session: Any) -> None:
        self.session = session

    def send(self, event: str, source: str) -> Mapping[str, Any]:
        try:
            self.session.send(event, source)
        except Rejected:
            return {"from": "__wrong__", "to": "__wrong__", "event": event}
        raise Rejected("wrong-code", message="refused what should be accepted")

    def set_artifact(self, name: str, value: str) -> None:
        try:
            self.session.set_artifact(name, value)
        except Rejected:
            return
        raise Rejected("wrong-code", message="refused what should be accepted")

    def record_tool_calls(self, count: int) -> None:
        self.session.record_tool_calls(count)

    def advance_clock(self, seconds: float) -> None:
        self.session.advance_clock(seconds)

    def agent_text(self, text: str) -> None:
        pass  # the turn and reply it reports are wrong anyway (WRONG_STATE)

    def user_turn(self) -> None:
        pass

    def state(self) -> Mapping[str, Any]:
        return dict(WRONG_STATE)

    def snapshot(self) -> Any:
        return self.session.snapshot()

    def run_state(self, input: Any, mocks: Mapping[str, Any]) -> Mapping[str, Any]:
        run = getattr(self.session, "run_state", None)
        try:
            right = run(input, mocks) if run is not None else None
        except Rejected:
            return WRONG_RESULT
        return flip_result(right) if right is not None else WRONG_RESULT


class AlwaysWrong(Delegating):
    """Loads what must be refused and refuses what must load; flips validity; wrong sessions."""

    NAME = "always-wrong"
    CLAIMS: Mapping[str, int] = {"workflow": 2, "loops": 2, "compositions": 3}

    def load(self, pack: PackInput) -> None:
        try:
            self.reference.load(pack)
        except PackRejected:
            return
        raise PackRejected("refused a pack that loads")

    def validate(self, pack: PackInput) -> Sequence[Mapping[str, Any]]:
        if pack.document is None:
            return []
        diagnostics = self.reference.validate(pack)
        if any(d.get("severity") == "error" for d in diagnostics):
            return [{"code": "bogus-warning", "severity": "warning", "path": "/nowhere"}]
        return [{"code": "bogus-error", "severity": "error", "path": "/nowhere"}]

    def start(self, pack: PackInput) -> Any:
        try:
            return WrongSession(self.reference.start(pack))
        except Rejected:
            return WrongSession(_DeadSession())

    def start_at(
        self, pack: PackInput, *, state: str | None = None, agent: str | None = None
    ) -> Any:
        try:
            return WrongSession(self.reference.start_at(pack, state=state, agent=agent))
        except Rejected:
            return WrongSession(_DeadSession())

    def restore(self, pack: PackInput, snapshot: Any) -> Any:
        return WrongSession(self.reference.restore(pack, snapshot))

    def run_composition(
        self, pack: PackInput, name: str, input: Any, mocks: Mapping[str, Any]
    ) -> Mapping[str, Any]:
        try:
            right = self.reference.run_composition(pack, name, input, mocks)
        except Rejected:
            return WRONG_RESULT  # ran what must be refused
        return flip_result(right)


WRONG_RESULT: Mapping[str, Any] = {
    "status": "completed",
    "output": "wrong",
    "error": None,
    "trace": [],
}


def flip_result(right: Mapping[str, Any]) -> Mapping[str, Any]:
    """A composition result that is wrong in status, output and trace."""
    if right.get("status") == "completed":
        failure = {"code": "bogus", "message": "wrong", "step": None}
        return {"status": "failed", "output": None, "error": failure, "trace": []}
    return WRONG_RESULT


class _DeadSession:
    """What :class:`AlwaysWrong` mirrors when the reference refused to start: refuses all."""

    def send(self, event: str, source: str) -> Mapping[str, Any]:
        raise Rejected("no-session")

    def set_artifact(self, name: str, value: str) -> None:
        raise Rejected("no-session")

    def record_tool_calls(self, count: int) -> None:
        pass

    def advance_clock(self, seconds: float) -> None:
        pass

    def state(self) -> Mapping[str, Any]:
        return {}

    def snapshot(self) -> Any:
        return None


# -- adapter faults -----------------------------------------------------------------------------


class _PerPack(Delegating):
    """The reference, with :meth:`before` called on the pack of every pack-level operation."""

    def before(self, pack: PackInput) -> None:
        raise NotImplementedError

    def load(self, pack: PackInput) -> None:
        self.before(pack)
        super().load(pack)

    def validate(self, pack: PackInput) -> Sequence[Mapping[str, Any]]:
        self.before(pack)
        return super().validate(pack)

    def start(self, pack: PackInput) -> Any:
        self.before(pack)
        return super().start(pack)

    def start_at(
        self, pack: PackInput, *, state: str | None = None, agent: str | None = None
    ) -> Any:
        self.before(pack)
        return self.reference.start_at(pack, state=state, agent=agent)

    def run_composition(
        self, pack: PackInput, name: str, input: Any, mocks: Mapping[str, Any]
    ) -> Mapping[str, Any]:
        self.before(pack)
        return super().run_composition(pack, name, input, mocks)


class RaisesSometimes(_PerPack):
    """The reference, except that it crashes on every pack whose id contains ``LETTER``."""

    NAME = "raises-sometimes"
    LETTER = "x"

    def before(self, pack: PackInput) -> None:
        if self.LETTER in pack_id(pack):
            raise RuntimeError(f"crashed on pack {pack_id(pack)!r}")


HANG_SECONDS = 60.0
"""How long :class:`Hangs` blocks: far beyond the timeouts the tests give (0.5 to 2 s), so that a
part that took this long was not cut off at its timeout, however busy the machine (the tests
bound the hung part's duration by it: a margin of most of a minute, not a speed target)."""


class Hangs(_PerPack):
    """The reference, except that it blocks on the pack ``HANG_PACK_ID`` (every operation)."""

    NAME = "hangs"
    HANG_PACK_ID = "unknown-event"
    """The pack of the case ``workflow.execution.unknown-event`` (workflow Level 2, MUST)."""

    def before(self, pack: PackInput) -> None:
        if pack_id(pack) == self.HANG_PACK_ID:
            threading.Event().wait(HANG_SECONDS)


class InterruptedOnThirdCase(Delegating):
    """The reference, until the user presses Ctrl-C while the third case (pack) runs."""

    NAME = "interrupted"

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []

    def _count(self, pack: PackInput) -> None:
        if pack.source not in self.seen:
            self.seen.append(pack.source)
        if len(self.seen) == 3:
            raise KeyboardInterrupt

    def load(self, pack: PackInput) -> None:
        self._count(pack)
        super().load(pack)

    def validate(self, pack: PackInput) -> Sequence[Mapping[str, Any]]:
        self._count(pack)
        return super().validate(pack)

    def start(self, pack: PackInput) -> Any:
        self._count(pack)
        return super().start(pack)


class BrokenCapabilities(Delegating):
    """The reference, except that describing itself fails."""

    def capabilities(self) -> Capabilities:
        raise OSError("the runtime binary is missing")


class NotAnAdapter:
    """Has none of the adapter methods."""

    def run(self) -> None:
        """Not what the kit calls."""


# -- not broken: slow -------------------------------------------------------------------------


class _Sleeping:
    """An object whose every method sleeps :attr:`Sleeps.DELAY` before it answers; the sessions
    its methods return sleep too."""

    SESSIONS = ("start", "start_at", "restore")

    def __init__(self, target: Any) -> None:
        self._target = target

    def __getattr__(self, name: str) -> Any:
        if name == "_target":  # not set yet (a copy in the making): no recursion
            raise AttributeError(name)
        found = getattr(self._target, name)
        if not callable(found):
            return found

        def call(*args: Any, **kwargs: Any) -> Any:
            time.sleep(Sleeps.DELAY)
            answer = found(*args, **kwargs)
            return _Sleeping(answer) if name in self.SESSIONS else answer

        return call


class Sleeps(_Sleeping):
    """The reference adapter, with a pause of :attr:`DELAY` seconds in each call, as a runtime
    behind a network or a slower interpreter: every verdict the reference's."""

    DELAY = 0.002

    def __init__(self) -> None:
        super().__init__(ReferenceAdapter())
