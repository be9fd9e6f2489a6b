"""A small workflow runtime written apart from the reference, with switchable bugs.

It runs RFC 0005/0009 sessions (X1-X12 of SEMANTICS section 3) on plain dicts and shares no
code with ``reference``: with no bug switched on it is a second implementation, and the kit
must measure it exactly as it measures the reference in the areas it covers. Each switch breaks
one rule the way real runtimes have broken it, so the tests can show that the kit (levels and
the fuzzer) notices. Loading, validation and compositions are the reference's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from conformance import Capabilities, PackInput, ReferenceAdapter, Rejected


@dataclass(frozen=True)
class Bugs:
    """Ways to break the rules, one switch each (all off: a conforming runtime).

    Attributes:
        one_level_redirects: follow ``on_max_visits`` one level only, ignoring the redirect
            target's own limit; at a limit without ``on_max_visits``, refuse but go on
            (breaks X5).
        budget_off_by_one: a budget is reached when the count is *above* its limit, not at it
            (``>`` for ``>=``; breaks X8).
        entry_not_counted: the entry state starts with no visit (breaks X1).
        never_budget_exhausted: status stays ``active`` when a budget or a limit ends the
            workflow (breaks X3, X5, X8).
        ignores_unknown_events: an event the state does not declare is accepted as a no-op
            (breaks X4).
        append_replaces: ``mode: append`` overwrites like ``replace`` (breaks X9).
        terminal_transitions_fire: an event a terminal state declares in ``on_event`` is taken
            as if the state were not terminal (breaks X2: the workflow completes there).
    """

    one_level_redirects: bool = False
    budget_off_by_one: bool = False
    entry_not_counted: bool = False
    never_budget_exhausted: bool = False
    ignores_unknown_events: bool = False
    append_replaces: bool = False
    terminal_transitions_fire: bool = False


LIMITS = ("max_total_visits", "max_tool_calls", "max_wall_time_sec")


class MiniSession:
    """One session: the whole state is the dict ``self.data``."""

    def __init__(self, pack: Mapping[str, Any], bugs: Bugs, data: dict[str, Any] | None = None):
        workflow = pack["workflow"]
        self.bugs = bugs
        self.states: dict[str, dict[str, Any]] = workflow["states"]
        self.budget: dict[str, Any] = (workflow.get("engine") or {}).get("budget") or {}
        self.modes: dict[str, str] = {}
        for state in self.states.values():
            for name, spec in (state.get("artifacts") or {}).items():
                self.modes.setdefault(name, spec.get("mode", "replace"))
        entry = workflow["entry"]
        self.data = data or {
            "current": entry,
            "status": "completed" if self._terminal(entry) else "active",
            "visits": {} if bugs.entry_not_counted else {entry: 1},
            "history": [],
            "artifacts": {},
            "artifact_history": [],
            "tool_calls": 0,
            "elapsed": 0.0,
        }

    def _terminal(self, name: str) -> bool:
        state = self.states[name]
        return state.get("terminal") is True or not state.get("on_event")

    def _reached(self, count: float, limit: Any) -> bool:
        if limit is None:
            return False
        return count > limit if self.bugs.budget_off_by_one else count >= limit

    def _end(self) -> None:
        if not self.bugs.never_budget_exhausted:
            self.data["status"] = "budget_exhausted"

    def send(self, event: str, source: str) -> Mapping[str, Any]:
        data = self.data
        current = data["current"]
        declared = event in (self.states[current].get("on_event") or {})
        if data["status"] == "completed" and not (self.bugs.terminal_transitions_fire and declared):
            raise Rejected("terminal-state")
        if data["status"] == "budget_exhausted":
            raise Rejected("budget-exhausted", limit=data.get("limit"))
        counts = (sum(data["visits"].values()), data["tool_calls"], data["elapsed"])
        for limit, count in zip(LIMITS, counts, strict=True):
            if self._reached(count, self.budget.get(limit)):
                data["limit"] = limit
                self._end()
                raise Rejected("budget-exhausted", limit=limit)
        state = self.states[current]
        if source == "agent" and state.get("orchestration") == "external":
            raise Rejected("event-source-not-allowed")
        target = (state.get("on_event") or {}).get(event)
        if target is None:
            if self.bugs.ignores_unknown_events:
                return {"from": current, "to": current, "event": event}
            raise Rejected("unknown-event")
        entered = self._guarded(target)
        data["history"].append({"from": current, "to": entered, "event": event})
        data["visits"][entered] = data["visits"].get(entered, 0) + 1
        data["current"] = entered
        if self._terminal(entered):
            data["status"] = "completed"
        if self.modes:
            data["artifact_history"].append(
                {
                    "from_state": current,
                    "to_state": entered,
                    "event": event,
                    "values": dict(sorted(data["artifacts"].items())),
                }
            )
        transition: dict[str, Any] = {"from": current, "to": entered, "event": event}
        if entered != target:
            transition.update(redirected=True, original_target=target)
        return transition

    def _guarded(self, target: str) -> str:
        visits = self.data["visits"]
        tried: list[str] = []
        name = target
        while True:
            state = self.states[name]
            limit = state.get("max_visits")
            if limit is None or visits.get(name, 0) < limit:
                return name
            redirect = state.get("on_max_visits")
            if self.bugs.one_level_redirects:
                if redirect is None:
                    raise Rejected("max-visits-exceeded")
                return str(redirect)
            tried.append(name)
            if redirect is None or redirect in tried:
                self._end()
                raise Rejected("max-visits-exceeded")
            name = redirect

    def set_artifact(self, name: str, value: str) -> None:
        state = self.states[self.data["current"]]
        declared = (state.get("artifacts") or {}).get(name)
        mode = declared.get("mode", "replace") if declared is not None else self.modes.get(name)
        if mode is None:
            raise Rejected("artifact-undeclared")
        artifacts = self.data["artifacts"]
        if mode == "append" and not self.bugs.append_replaces:
            artifacts[name] = artifacts.get(name, "") + value
        else:
            artifacts[name] = value

    def record_tool_calls(self, count: int) -> None:
        self.data["tool_calls"] += count

    def advance_clock(self, seconds: float) -> None:
        self.data["elapsed"] += seconds

    def state(self) -> Mapping[str, Any]:
        data = self.data
        current = data["current"]
        state = self.states[current]
        active = data["status"] == "active"
        artifacts = dict(sorted(data["artifacts"].items()))
        return {
            "current_state": current,
            "status": data["status"],
            "terminal": self._terminal(current),
            "available_events": sorted(state.get("on_event") or {}) if active else [],
            "prompt_task": state.get("prompt_task"),
            "visit_counts": dict(sorted(data["visits"].items())),
            "history": [dict(h) for h in data["history"]],
            "artifacts": artifacts,
            "artifact_history": [dict(h) for h in data["artifact_history"]],
            "tool_calls": data["tool_calls"],
            "elapsed_sec": data["elapsed"],
            "prompt_variables": {"artifacts": artifacts},
        }

    def snapshot(self) -> Any:
        return {key: _copy(value) for key, value in self.data.items()}


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


class MiniRuntime:
    """The adapter: sessions by :class:`MiniSession`, the rest by the reference."""

    NAME = "mini-runtime"
    BUGS = Bugs()
    CLAIMS: Mapping[str, int] = {"workflow": 2, "loops": 2}

    def __init__(self) -> None:
        self.reference = ReferenceAdapter()

    def capabilities(self) -> Capabilities:
        return Capabilities(name=self.NAME, version="0.1", language="python", claims=self.CLAIMS)

    def load(self, pack: PackInput) -> None:
        self.reference.load(pack)

    def validate(self, pack: PackInput) -> Sequence[Mapping[str, Any]]:
        return self.reference.validate(pack)

    def start(self, pack: PackInput) -> MiniSession:
        document = pack.document or {}
        version = (document.get("workflow") or {}).get("version")
        if version not in (1, 2):
            raise Rejected("workflow-version-unsupported")
        return MiniSession(document, self.BUGS)

    def restore(self, pack: PackInput, snapshot: Any) -> MiniSession:
        return MiniSession(pack.document or {}, self.BUGS, _copy(snapshot))

    def run_composition(
        self, pack: PackInput, name: str, input: Any, mocks: Mapping[str, Any]
    ) -> Mapping[str, Any]:
        return self.reference.run_composition(pack, name, input, mocks)


def with_bugs(name: str, **bugs: bool) -> type[MiniRuntime]:
    """A :class:`MiniRuntime` subclass with some bugs switched on."""
    return type(name, (MiniRuntime,), {"NAME": name, "BUGS": replace(Bugs(), **bugs)})
