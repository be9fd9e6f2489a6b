"""Runtimes that break what the RFCs require: each must lose a level or fail the run.

``ppconf run --adapter breaking:Name`` with this folder on ``sys.path``. The session bugs are
switched on in :mod:`mini_runtime`, a runtime written apart from the reference
(``MiniRuntime`` itself, with no bug, must reach the reference's workflow and loops levels).

=============================  ====================================================================
``OneLevelRedirects``           follows ``on_max_visits`` one level only (X5)
``BudgetOffByOne``              ``>`` for ``>=`` on every budget (X8)
``EntryNotCounted``             the entry state is not counted as a visit (X1)
``NeverBudgetExhausted``        status never becomes ``budget_exhausted`` (X3, X5, X8)
``IgnoresUnknownEvents``        accepts undeclared events as no-ops (X4)
``AppendReplaces``              ``mode: append`` overwrites (X9)
``AcceptsEverything``           a validator that finds nothing wrong, ever
``StartReturnsNone``            ``start()`` returns ``None`` instead of a session or a refusal
``SkipsEverything``             answers ``Unsupported`` to everything but ``capabilities``
``Flaky``                       every other ``send`` is refused: the outcome depends on the run
``ExitsTheProcess``             calls ``sys.exit(3)`` while validating
``RaisesBaseException``         raises a ``BaseException`` subclass while starting a session
=============================  ====================================================================
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from fakes import SessionWrapper
from mini_runtime import MiniRuntime, with_bugs

from conformance import Capabilities, PackInput, ReferenceAdapter, Rejected, Unsupported
from conformance._areas import TOP_LEVEL

OneLevelRedirects = with_bugs("OneLevelRedirects", one_level_redirects=True)
BudgetOffByOne = with_bugs("BudgetOffByOne", budget_off_by_one=True)
EntryNotCounted = with_bugs("EntryNotCounted", entry_not_counted=True)
NeverBudgetExhausted = with_bugs("NeverBudgetExhausted", never_budget_exhausted=True)
IgnoresUnknownEvents = with_bugs("IgnoresUnknownEvents", ignores_unknown_events=True)
AppendReplaces = with_bugs("AppendReplaces", append_replaces=True)

SESSION_BUGS = (
    "OneLevelRedirects",
    "BudgetOffByOne",
    "EntryNotCounted",
    "NeverBudgetExhausted",
    "IgnoresUnknownEvents",
    "AppendReplaces",
)

__all__ = [
    "AcceptsEverything",
    "AppendReplaces",
    "BudgetOffByOne",
    "EntryNotCounted",
    "ExitsTheProcess",
    "Flaky",
    "IgnoresUnknownEvents",
    "MiniRuntime",
    "NeverBudgetExhausted",
    "OneLevelRedirects",
    "RaisesBaseException",
    "SkipsEverything",
    "StartReturnsNone",
]


class _Reference(ReferenceAdapter):
    NAME = "breaking"
    CLAIMS: Mapping[str, int] = {"workflow": 2, "loops": 2}

    def capabilities(self) -> Capabilities:
        return Capabilities(self.NAME, "0.0", "python", self.CLAIMS)


class AcceptsEverything(_Reference):
    NAME = "accepts-everything"

    def validate(self, pack: PackInput) -> Sequence[Mapping[str, Any]]:
        return []


class StartReturnsNone(_Reference):
    NAME = "start-returns-none"

    def start(self, pack: PackInput) -> Any:
        return None

    def start_at(
        self, pack: PackInput, *, state: str | None = None, agent: str | None = None
    ) -> Any:
        return None


class SkipsEverything(_Reference):
    NAME = "skips-everything"

    def load(self, pack: PackInput) -> None:
        raise Unsupported("nothing here")

    def validate(self, pack: PackInput) -> Sequence[Mapping[str, Any]]:
        raise Unsupported("nothing here")

    def start(self, pack: PackInput) -> Any:
        raise Unsupported("nothing here")

    def restore(self, pack: PackInput, snapshot: Any) -> Any:
        raise Unsupported("nothing here")

    def run_composition(
        self, pack: PackInput, name: str, input: Any, mocks: Mapping[str, Any]
    ) -> Mapping[str, Any]:
        raise Unsupported("nothing here")


class _Flipping:
    """A session that refuses every other event it is sent (counted over the whole runtime)."""

    def __init__(self, session: Any, counter: list[int]) -> None:
        self._session = session
        self._counter = counter

    def __getattr__(self, name: str) -> Any:
        return getattr(self._session, name)

    def send(self, event: str, source: str) -> Mapping[str, Any]:
        self._counter[0] += 1
        if self._counter[0] % 2 == 0:
            raise Rejected("unknown-event", message="not this time")
        return self._session.send(event, source)  # type: ignore[no-any-return]

    def set_artifact(self, name: str, value: str) -> None:
        self._session.set_artifact(name, value)

    def record_tool_calls(self, count: int) -> None:
        self._session.record_tool_calls(count)

    def advance_clock(self, seconds: float) -> None:
        self._session.advance_clock(seconds)

    def state(self) -> Mapping[str, Any]:
        return self._session.state()  # type: ignore[no-any-return]

    def snapshot(self) -> Any:
        return self._session.snapshot()


class Flaky(_Reference):
    NAME = "flaky"

    def __init__(self) -> None:
        super().__init__()
        self._counter = [0]

    def start(self, pack: PackInput) -> Any:
        return _Flipping(super().start(pack), self._counter)

    def restore(self, pack: PackInput, snapshot: Any) -> Any:
        return _Flipping(super().restore(pack, snapshot), self._counter)


class ExitsTheProcess(_Reference):
    NAME = "exits-the-process"

    def validate(self, pack: PackInput) -> Sequence[Mapping[str, Any]]:
        sys.exit(3)


class Boom(BaseException):
    """Not an Exception: escapes ``except Exception`` blocks."""


class RaisesBaseException(_Reference):
    NAME = "raises-base-exception"

    def start(self, pack: PackInput) -> Any:
        raise Boom("out of nowhere")


# -- RFC 0014 and RFC 0011 ---------------------------------------------------------------------
# (kept apart at the end: ``IgnoresControl``, the turn always the user's (X18);
# ``CountsEntryOnStart``, a start at a state counting the entry as visited too (X23))


class _Patched(SessionWrapper):
    """A reference session whose reported ``state()`` is changed by ``patch``."""

    def __init__(self, session: Any, patch: Any) -> None:
        super().__init__(session)
        self._patch = patch

    def state(self) -> Mapping[str, Any]:
        return self._patch(dict(self._session.state()))  # type: ignore[no-any-return]


def _user_turn(data: dict[str, Any]) -> dict[str, Any]:
    return {**data, "turn": "user"}


class IgnoresControl(_Reference):
    """Ignores RFC 0014 ``control``: the turn is the user's after every event, agent-sourced
    ones into ``control: agent`` states included (X18)."""

    NAME = "ignores-control"
    CLAIMS: Mapping[str, int] = {"workflow": 2, "loops": 2, "control": 2, "state-agents": 2}

    def start(self, pack: PackInput) -> Any:
        return _Patched(super().start(pack), _user_turn)

    def start_at(
        self, pack: PackInput, *, state: str | None = None, agent: str | None = None
    ) -> Any:
        return _Patched(super().start_at(pack, state=state, agent=agent), _user_turn)


class CountsEntryOnStart(_Reference):
    """Started at a state (or as an agent) other than the entry, counts the entry as visited
    too: ``visit_counts`` ``{entry: 1, S: 1}`` (X23 says ``{S: 1}``)."""

    NAME = "counts-entry-on-start"
    CLAIMS: Mapping[str, int] = {"workflow": 2, "loops": 2, "control": 2, "state-agents": 2}

    def start_at(
        self, pack: PackInput, *, state: str | None = None, agent: str | None = None
    ) -> Any:
        session = super().start_at(pack, state=state, agent=agent)
        entry = (pack.document or {})["workflow"]["entry"]
        if session.state()["current_state"] == entry:
            return session

        def counted(data: dict[str, Any]) -> dict[str, Any]:
            counts = dict(data["visit_counts"])
            counts[entry] = counts.get(entry, 0) + 1
            return {**data, "visit_counts": counts}

        return _Patched(session, counted)


RFC0014_RFC0011_BUGS = ("IgnoresControl", "CountsEntryOnStart")
"""The fakes the fuzzer must find in the control and state-agents areas."""


# -- R10: an RFC-named warning is not an error ---------------------------------------------------


def warning_as_error(code: str) -> type[ReferenceAdapter]:
    """A runtime that reports the RFC-named warning ``code`` as an error: a pack with only
    that condition is valid, as the RFC says (R10), so it must lose a level in the warning's
    area."""

    class WarningAsError(_Reference):
        NAME = f"{code}-as-error"
        CLAIMS: ClassVar[Mapping[str, int]] = dict(TOP_LEVEL)

        def validate(self, pack: PackInput) -> Sequence[Mapping[str, Any]]:
            return [
                {**d, "severity": "error"} if d["code"] == code else d
                for d in super().validate(pack)
            ]

    WarningAsError.__name__ = WarningAsError.__qualname__ = f"WarningAsError_{code}"
    return WarningAsError


RFC_NAMED_WARNINGS = {
    "event-name-style": "workflow",
    "cycle-unbounded": "workflow",
    "unreachable-state": "workflow",
    "terminal-with-transitions": "loops",
    "redirect-cycle": "loops",
    "artifact-undeclared": "loops",
    "budget-below-max-visits": "loops",
    "dead-end-state": "loops",
    "control-agent-terminal": "control",
    "control-cycle-unbounded": "control",
    "provider-optional-referenced": "providers",
    "provider-role-not-llm": "providers",
}
"""Each warning an RFC names, and the area whose validation it belongs to."""

globals().update(
    {f"WarningAsError_{c.replace('-', '_')}": warning_as_error(c) for c in RFC_NAMED_WARNINGS}
)
