"""The workflow of a valid pack, compiled once into the plain form sessions run on."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import Any

from reference._errors import PackInvalidError, Rejection
from reference._json import is_integer
from reference._validation import validate
from reference._workflow.rules import SUPPORTED_WORKFLOW_VERSIONS, agent_members


@dataclass(frozen=True, slots=True)
class StateSpec:
    """One state as the session sees it.

    Attributes:
        name: the key in ``workflow.states``.
        prompt_task: the prompt run in this state (``None`` in composition mode).
        on_event: event name -> target state.
        terminal: X2: ``terminal: true`` or no ``on_event`` entries.
        max_visits: the loop guard, if any.
        on_max_visits: where a guarded entry is redirected, if anywhere.
        orchestration: ``internal`` (the default), ``external``, ``hybrid`` or ``composition``.
        composition: the composition run in composition mode.
        artifacts: artifact name -> mode, as this state declares them.
        control: RFC 0014: who holds the next turn after an agent-sourced entry, ``user``
            (the default, also when absent) or ``agent``.
    """

    name: str
    prompt_task: str | None
    on_event: Mapping[str, str]
    terminal: bool
    max_visits: int | None
    on_max_visits: str | None
    orchestration: str
    composition: str | None
    artifacts: Mapping[str, str]
    control: str = "user"


@dataclass(frozen=True, slots=True)
class Transition:
    """What an accepted event did (X6).

    Attributes:
        from_state: the state the event was sent in.
        to_state: the state actually entered.
        event: the event name.
        redirected: whether a loop guard sent the session elsewhere (X5).
        original_target: the event's own target when redirected.
    """

    from_state: str
    to_state: str
    event: str
    redirected: bool = False
    original_target: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Return the transition as ``{from, to, event}``, plus the redirect data if any."""
        data: dict[str, Any] = {"from": self.from_state, "to": self.to_state, "event": self.event}
        if self.redirected:
            data["redirected"] = True
            data["original_target"] = self.original_target
        return data


@dataclass(frozen=True, slots=True)
class Budget:
    """``workflow.engine.budget``; ``None`` means no limit on that resource."""

    max_total_visits: int | None = None
    max_tool_calls: int | None = None
    max_wall_time_sec: int | None = None

    @property
    def is_set(self) -> bool:
        """Whether any limit is set."""
        return (
            self.max_total_visits is not None
            or self.max_tool_calls is not None
            or self.max_wall_time_sec is not None
        )


@dataclass(eq=False, slots=True)
class Node:
    """One state as a session steps through it: what ``Session.send`` reads on every event,
    computed once per workflow so that an event costs a few lookups and no allocation.

    Attributes:
        spec: the state.
        name: its name.
        terminal: X2.
        external: whether agent-sourced events are refused (X13).
        max_visits: the loop guard, if any.
        keeps_turn: RFC 0014: whether an agent-sourced entry leaves the turn with the agent
            (``control: agent`` on a state that is not terminal, X18).
        moves: event -> (the target's node, the :class:`Transition` of an unredirected move,
            the history entry ``(from, to, event)``). Both are immutable, so every session
            shares them.
    """

    spec: StateSpec
    name: str
    terminal: bool
    external: bool
    max_visits: int | None
    keeps_turn: bool
    moves: dict[str, tuple[Node, Transition, tuple[str, str, str]]]


@dataclass(frozen=True)
class Workflow:
    """A validated workflow, ready to start sessions from.

    Build it with :func:`compile_workflow`; it is immutable and can be shared by any number
    of sessions.
    """

    version: int
    entry: str
    states: Mapping[str, StateSpec]
    budget: Budget
    artifact_modes: Mapping[str, str]
    """Artifact name -> mode of its first declaration in document order (X11's fallback)."""
    source: Mapping[str, Any] = field(repr=False)
    nodes: Mapping[str, Node] = field(repr=False, compare=False)
    """The states as sessions step through them (see :class:`Node`)."""
    agent_states: Mapping[str, str | None] = field(default_factory=lambda: MappingProxyType({}))
    """RFC 0011: each ``agents.members`` key -> its ``state``, or ``None`` for a member
    without one (a prompt-backed agent)."""

    @cached_property
    def tracks_turns(self) -> bool:
        """Whether some state can keep the turn with the agent (RFC 0014 ``control: agent``).

        Without one, ``turn`` is ``user`` after every transition, so sessions skip the
        bookkeeping on their events.
        """
        return any(node.keeps_turn for node in self.nodes.values())

    @property
    def declares_artifacts(self) -> bool:
        """Whether any state declares an artifact (then transitions record artifact history)."""
        return bool(self.artifact_modes)

    @cached_property
    def digest(self) -> str:
        """A fingerprint of the workflow definition, so snapshots are restored into the same one."""
        canonical = json.dumps(self.source, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def compile_workflow(pack: Mapping[str, Any]) -> Workflow:
    """Validate a pack and compile its workflow.

    Raises:
        Rejection: ``workflow-version-unsupported`` for a workflow version other than 1 or 2
            (X16: the runtime refuses to start).
        PackInvalidError: for any other validation error, or a pack without a workflow.
    """
    workflow = pack.get("workflow") if isinstance(pack, Mapping) else None
    if isinstance(workflow, Mapping):
        version = workflow.get("version")
        if is_integer(version) and version not in SUPPORTED_WORKFLOW_VERSIONS:
            raise Rejection(
                "workflow-version-unsupported",
                f"workflow version {version} is not supported (supported: 1, 2)",
            )
    errors = [d for d in validate(pack) if d.severity == "error"]
    if errors:
        raise PackInvalidError(errors)
    if not isinstance(workflow, Mapping):
        raise PackInvalidError([], "the pack has no workflow to run")
    return _compile(workflow, dict(agent_members(pack)))


def _compile(
    workflow: Mapping[str, Any], agent_states: Mapping[str, str | None] | None = None
) -> Workflow:
    states: dict[str, StateSpec] = {}
    artifact_modes: dict[str, str] = {}
    for name, raw in workflow["states"].items():
        on_event = dict(raw.get("on_event") or {})
        artifacts = {
            artifact: definition.get("mode", "replace")
            for artifact, definition in (raw.get("artifacts") or {}).items()
        }
        for artifact, mode in artifacts.items():
            artifact_modes.setdefault(artifact, mode)
        max_visits = raw.get("max_visits")
        states[name] = StateSpec(
            name=name,
            prompt_task=raw.get("prompt_task"),
            on_event=MappingProxyType(on_event),
            terminal=raw.get("terminal") is True or not on_event,
            max_visits=int(max_visits) if max_visits is not None else None,
            on_max_visits=raw.get("on_max_visits"),
            orchestration=raw.get("orchestration", "internal"),
            composition=raw.get("composition"),
            artifacts=MappingProxyType(artifacts),
            control="agent" if raw.get("control") == "agent" else "user",
        )
    nodes = {
        name: Node(
            spec,
            name,
            spec.terminal,
            spec.orchestration == "external",
            spec.max_visits,
            spec.control == "agent" and not spec.terminal,
            {},
        )
        for name, spec in states.items()
    }
    for node in nodes.values():
        for event, target in node.spec.on_event.items():
            entry = (node.name, target, event)
            node.moves[event] = (nodes[target], Transition(*entry), entry)
    budget = (workflow.get("engine") or {}).get("budget") or {}
    return Workflow(
        version=int(workflow["version"]),
        entry=workflow["entry"],
        states=MappingProxyType(states),
        budget=Budget(
            max_total_visits=_optional_int(budget.get("max_total_visits")),
            max_tool_calls=_optional_int(budget.get("max_tool_calls")),
            max_wall_time_sec=_optional_int(budget.get("max_wall_time_sec")),
        ),
        artifact_modes=MappingProxyType(artifact_modes),
        source=workflow,
        nodes=MappingProxyType(nodes),
        agent_states=MappingProxyType(dict(agent_states or {})),
    )


def _optional_int(value: Any) -> int | None:
    return int(value) if value is not None else None
