"""tinyflow's engine: a pack's workflow, compiled, and the runs started from it."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from tinyflow.check import VERSIONS, check, is_int
from tinyflow.errors import (
    BadSave,
    BudgetSpent,
    Halted,
    LoopLimit,
    NoSuchEvent,
    NotSupported,
    PackError,
    UnknownSlot,
    VersionError,
    WrongCaller,
)

Clock = Callable[[], float]
SAVE_FORMAT = "tinyflow-run/1"
CALLERS = ("user", "agent")
_SLOT = re.compile(r"\{\{\s*artifacts\.([A-Za-z0-9_-]+)\s*\}\}")


def loads(text: str, format: str = "json") -> dict[str, Any]:
    """Read pack text: JSON with the standard library, YAML with PyYAML; a key twice in one
    mapping is an error in both (artifact names, events and states are keys).

    Raises:
        PackError: the text does not parse, repeats a key, or is not a mapping.
    """
    if format == "json":
        try:
            data = json.loads(text, object_pairs_hook=_unique_keys)
        except ValueError as error:
            raise PackError(f"the pack is not JSON: {error}") from None
    else:
        import yaml  # noqa: PLC0415 (only YAML packs need PyYAML)

        class UniqueKeyLoader(yaml.SafeLoader):
            def construct_mapping(self, node: Any, deep: bool = False) -> dict[Any, Any]:
                pairs = [
                    (self.construct_object(k, deep=deep), self.construct_object(v, deep=deep))
                    for k, v in node.value
                ]
                return _unique_keys(pairs)

        try:
            data = yaml.load(text, Loader=UniqueKeyLoader)  # a SafeLoader: no tags run
        except yaml.YAMLError as error:
            raise PackError(f"the pack is not YAML: {error}") from None
    if not isinstance(data, dict):
        raise PackError("a pack is a mapping")
    return data


def _unique_keys(pairs: list[tuple[Any, Any]]) -> dict[Any, Any]:
    data: dict[Any, Any] = {}
    for key, value in pairs:
        if key in data:
            raise PackError(f"the key {key!r} appears twice in one mapping")
        data[key] = value
    return data


@dataclass(frozen=True)
class Move:
    """What one event did: ``src`` -> ``dst``; ``rerouted_from`` is the state the event named
    when a ``max_visits`` limit sent the run elsewhere."""

    src: str
    dst: str
    event: str
    rerouted_from: str | None = None


@dataclass(frozen=True)
class _State:
    name: str
    task: str | None
    events: Mapping[str, str]
    terminal: bool
    limit: int | None
    fallback: str | None
    user_only: bool


@dataclass(frozen=True)
class _Plan:
    entry: str
    states: Mapping[str, _State]
    budget: Mapping[str, int]
    slots: Mapping[str, str] = field(default_factory=dict)
    """Artifact name -> mode, from the first state declaring it."""


class Engine:
    """A pack, ready to run its prompts and its workflow.

    Arguments:
        pack: the pack as a mapping (see :func:`loads`).
        clock: seconds, for the wall-time budget (default ``time.monotonic``).

    Raises:
        PackError: the pack has no usable prompts.
    """

    def __init__(self, pack: Mapping[str, Any], *, clock: Clock = time.monotonic) -> None:
        prompts = pack.get("prompts") if isinstance(pack, Mapping) else None
        if not isinstance(prompts, Mapping) or not prompts:
            raise PackError("a pack needs a mapping of prompts")
        self.prompts: dict[str, str] = {}
        for key, prompt in prompts.items():
            template = prompt.get("system_template") if isinstance(prompt, Mapping) else None
            if not isinstance(template, str):
                raise PackError(f"prompt {key!r} has no system_template")
            self.prompts[key] = template
        self.pack = pack
        self.clock = clock
        self._plan: _Plan | None = None

    def start(self) -> Run:
        """A new run at the workflow's entry.

        Raises:
            VersionError: a workflow version tinyflow does not run.
            PackError: no workflow, or one with fatal problems (``problems`` lists them).
            NotSupported: a state runs a composition.
        """
        return Run(self._compile(), self.clock, self.prompts)

    def resume(self, saved: Mapping[str, Any]) -> Run:
        """A run continuing from :meth:`Run.save` data, on this engine's clock.

        Raises:
            BadSave: the data is not a saved tinyflow run of this workflow.
        """
        plan = self._compile()
        if not isinstance(saved, Mapping) or saved.get("format") != SAVE_FORMAT:
            raise BadSave(f"not a {SAVE_FORMAT} save")
        if saved.get("here") not in plan.states:
            raise BadSave(f"the save is at {saved.get('here')!r}, not a state of this workflow")
        run = Run(plan, self.clock, self.prompts)
        run.here = saved["here"]
        run.visits = dict(saved["visits"])
        run.log = [(src, event, dst) for src, event, dst in saved["log"]]
        run.memory = dict(saved["memory"])
        run.tools_used = int(saved["tools_used"])
        run.started = self.clock() - float(saved["elapsed"])
        halted = saved.get("halted")
        if halted is not None:
            run.halted_by = (
                BudgetSpent(halted["budget"]) if "budget" in halted else LoopLimit(halted["loop"])
            )
        return run

    def _compile(self) -> _Plan:
        if self._plan is None:
            self._plan = _compile(self.pack)
        return self._plan


def _compile(pack: Mapping[str, Any]) -> _Plan:
    workflow = pack.get("workflow")
    if not isinstance(workflow, Mapping):
        raise PackError("the pack has no workflow to run")
    version = workflow.get("version")
    if is_int(version) and version not in VERSIONS:
        raise VersionError(version)
    fatal = [p for p in check(pack) if p.fatal]
    if fatal:
        raise PackError(f"the workflow cannot run: {fatal[0].text}", fatal)
    states: dict[str, _State] = {}
    slots: dict[str, str] = {}
    for name, state in workflow["states"].items():
        mode = state.get("orchestration", "internal")
        if mode == "composition":
            raise NotSupported(f"state {name!r} runs a composition; tinyflow runs prompts only")
        events = state.get("on_event") or {}
        states[name] = _State(
            name=name,
            task=state.get("prompt_task"),
            events=dict(events),
            terminal=state.get("terminal") is True or not events,
            limit=state.get("max_visits"),
            fallback=state.get("on_max_visits"),
            user_only=mode == "external",
        )
        for slot, declaration in (state.get("artifacts") or {}).items():
            slots.setdefault(slot, declaration.get("mode", "replace"))
    budget = (workflow.get("engine") or {}).get("budget") or {}
    return _Plan(workflow["entry"], states, dict(budget), slots)


class Run:
    """One run of a workflow: where it is, what it has seen, what it holds.

    Attributes:
        here: the current state.
        visits: state -> times entered (the entry counts once at the start).
        log: ``(src, event, dst)`` per move, oldest first.
        memory: artifact name -> text written so far.
        tools_used: tool calls the host reported.
        halted_by: the :class:`BudgetSpent` or :class:`LoopLimit` that halted the run, if any;
            a halted run refuses every event.
        started: the clock's reading when the run started.
    """

    def __init__(self, plan: _Plan, clock: Clock, prompts: Mapping[str, str]) -> None:
        self._plan = plan
        self._clock = clock
        self._prompts = prompts
        self.here = plan.entry
        self.visits: dict[str, int] = {plan.entry: 1}
        self.log: list[tuple[str, str, str]] = []
        self.memory: dict[str, str] = {}
        self.tools_used = 0
        self.halted_by: BudgetSpent | LoopLimit | None = None
        self.started = clock()

    @property
    def at_end(self) -> bool:
        """Whether the run is in a terminal state (nothing leaves it)."""
        return self._plan.states[self.here].terminal

    @property
    def task(self) -> str | None:
        """The prompt the current state runs."""
        return self._plan.states[self.here].task

    def events(self) -> list[str]:
        """The events the current state takes, as declared (none once halted or at the end)."""
        if self.halted_by is not None or self.at_end:
            return []
        return list(self._plan.states[self.here].events)

    def elapsed(self) -> float:
        """Seconds since the run started, on the engine's clock."""
        return self._clock() - self.started

    def fire(self, event: str, by: str = "user") -> Move:
        """Move on ``event``, sent by the ``user`` (the host application) or the ``agent``.

        Raises:
            Halted: the run halted earlier.
            NoSuchEvent: the state does not take the event (a terminal state takes none).
            BudgetSpent: a budget is used up; the run halts.
            WrongCaller: the agent fired in a state that only the user moves on.
            LoopLimit: the target is at its ``max_visits`` with no way out; the run halts.
        """
        if by not in CALLERS:
            raise ValueError(f"by is one of {CALLERS}, not {by!r}")
        if self.halted_by is not None:
            raise Halted(self.halted_by)
        state = self._plan.states[self.here]
        if state.terminal:
            raise NoSuchEvent(self.here, event)
        spent = self._spent()
        if spent is not None:
            self.halted_by = BudgetSpent(spent)
            raise self.halted_by
        if by == "agent" and state.user_only:
            raise WrongCaller(self.here, by)
        if event not in state.events:
            raise NoSuchEvent(self.here, event)
        named = state.events[event]
        target, tried = named, []
        while (limit := self._plan.states[target].limit) is not None and (
            self.visits.get(target, 0) >= limit
        ):
            fallback = self._plan.states[target].fallback
            tried.append(target)
            if fallback is None or fallback in tried:
                self.halted_by = LoopLimit(target)
                raise self.halted_by
            target = fallback
        move = Move(self.here, target, event, named if target != named else None)
        self.log.append((self.here, event, target))
        self.visits[target] = self.visits.get(target, 0) + 1
        self.here = target
        return move

    def _spent(self) -> str | None:
        budget = self._plan.budget
        used = {
            "max_total_visits": sum(self.visits.values()),
            "max_tool_calls": self.tools_used,
            "max_wall_time_sec": self.elapsed(),
        }
        return next(
            (key for key, value in used.items() if key in budget and value >= budget[key]), None
        )

    def put(self, name: str, text: str) -> None:
        """Write artifact ``name``: ``replace`` keeps the new text, ``append`` adds a line.

        The mode is the one of the first state declaring the artifact.

        Raises:
            UnknownSlot: no state declares it.
        """
        mode = self._plan.slots.get(name)
        if mode is None:
            raise UnknownSlot(name)
        if mode == "append" and self.memory.get(name):
            self.memory[name] += "\n" + text
        else:
            self.memory[name] = text

    def count_tools(self, count: int) -> None:
        """Record ``count`` more tool calls, for the ``max_tool_calls`` budget."""
        self.tools_used += count

    def template_vars(self) -> dict[str, Any]:
        """The variables the current state's prompt is rendered with."""
        return {"artifacts": dict(self.memory)}

    def render(self) -> str:
        """The current state's prompt, with ``{{artifacts.X}}`` filled in."""
        task = self.task
        template = self._prompts.get(task, "") if task is not None else ""
        return _SLOT.sub(lambda m: self.memory.get(m.group(1), ""), template)

    def save(self) -> dict[str, Any]:
        """The run as plain data, for :meth:`Engine.resume`."""
        halted = self.halted_by
        return {
            "format": SAVE_FORMAT,
            "here": self.here,
            "visits": dict(self.visits),
            "log": [list(entry) for entry in self.log],
            "memory": dict(self.memory),
            "tools_used": self.tools_used,
            "elapsed": self.elapsed(),
            "halted": (
                None
                if halted is None
                else {"budget": halted.limit}
                if isinstance(halted, BudgetSpent)
                else {"loop": halted.state}
            ),
        }
