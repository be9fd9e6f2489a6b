"""Hypothesis strategies for PromptPack workflow packs and the scripts that drive them.

For runtime authors' own property-based tests, and the generators behind ``ppconf fuzz``::

    from hypothesis import given, strategies as st
    from conformance import assert_matches_reference, strategies

    @given(st.data())
    def test_my_runtime_matches_the_reference(data):
        pack = data.draw(strategies.packs())
        script = data.draw(strategies.scripts(pack))
        assert_matches_reference(MyRuntimeAdapter(), pack, script)

- :func:`packs` draws valid packs (plain dicts), valid by construction: every ``on_event``
  target, ``on_max_visits``, ``prompt_task``, composition step and reference resolves. Knobs
  switch features on and off (loops, redirect chains, budgets, artifacts, orchestration,
  compositions, RFC 0014 ``control``, RFC 0011 state-backed ``agents``).
- :func:`near_valid_packs` draws a valid pack with one targeted mutation, as a
  :class:`NearValid` that names the rule the mutation breaks, the requirement a validator is
  held to (MUST, SHOULD or MAY: SEMANTICS section 0), and the catalog case pinning it.
- :func:`scripts` draws a script for a pack: steps in the case-file format (``{"event": "Go",
  "source": "agent"}``, ``{"set_artifact": {...}}``, ``{"tool_calls": 1}``,
  ``{"advance_clock": 2}``, ``{"snapshot_restore": True}``, ``{"run_composition": {...}}``,
  ``{"agent_text": "hi"}``, ``{"user_turn": True}``), declared and undeclared events from both
  sources, with scripted mocks for compositions. A script for a pack with ``agents`` may begin
  with where the session starts, ``{"start": {"at_state": "work"}}`` or ``{"start": {"agent":
  "main"}}`` (the case file's scenario ``start``).

Shrinking gives small, readable examples: few states named ``start``, ``work``, ``check`` ...,
PascalCase events ``Go``, ``Next`` ..., one prompt ``main``, composition steps ``a``, ``b`` ...,
agents ``main`` and ``aide``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, TypeVar

from hypothesis import strategies as st

from conformance._basics.contract import Requirement

try:
    from hypothesis.strategies._internal.lazy import unwrap_strategies as _unwrapped
except ImportError:  # another Hypothesis: strategies are drawn as its functions return them

    def _unwrapped(strategy: Any) -> Any:
        return strategy


_T = TypeVar("_T")

__all__ = [
    "AGENTS",
    "ARTIFACTS",
    "EVENTS",
    "MUTATIONS",
    "PROMPT",
    "STATES",
    "STRAY_EVENT",
    "TEXTS",
    "TOOLS",
    "UNKNOWN_AGENT",
    "UNKNOWN_STATE",
    "Mutation",
    "NearValid",
    "near_valid_packs",
    "packs",
    "scripts",
    "steps",
]

STATES = ("start", "work", "check", "fix", "review", "ship", "wait", "park")
"""State names, in the order packs use them (the entry shrinks to ``start``)."""
EVENTS = ("Go", "Next", "Back", "Retry")
"""Event names (PascalCase, RFC 0005 rule 3)."""
STRAY_EVENT = "Stray"
"""An event no pack declares: scripts send it to see it refused."""
ARTIFACTS = ("log", "note")
"""Artifact names; a pack declares each in one mode, ``append`` or ``replace``, throughout."""
PROMPT = "main"
"""The one prompt every pack has; every prompt-mode state and composition step uses it."""
TOOLS = ("search", "fetch")
"""The tools of packs with compositions."""
AGENTS = (PROMPT, "aide")
"""The ``agents.members`` of packs with state-backed agents; each is also a prompt (the schema:
"Each key must match a prompt defined in the pack's prompts object")."""
TEXTS = ("hi", "ok")
"""What the agent says in ``agent_text`` steps (RFC 0014 rounds)."""
UNKNOWN_STATE = "nowhere"
"""A state no pack has: scripts start there to see the start refused."""
UNKNOWN_AGENT = "stranger"
"""An agent no pack has: scripts start as it to see the start refused."""
VALUES = ("a", "b")
"""Artifact values scripts write (short, so an exported case reads at a glance)."""
_OUTPUTS: tuple[Any, ...] = ("x", "y", 1, 2, {"n": 1})
"""Mocked step outputs: no lists (whether ``append`` spreads a list is not pinned) and no
``null`` (kept apart from "no output")."""


def _prompt(name: str) -> dict[str, Any]:
    return {"id": name, "name": name.title(), "version": "1.0.0", "system_template": "Work."}


def _pack() -> dict[str, Any]:
    """The smallest valid pack, with the prompt ``main``."""
    return {
        "id": "fuzz",
        "name": "Fuzz",
        "version": "1.0.0",
        "template_engine": {"version": "v1", "syntax": "{{variable}}"},
        "prompts": {PROMPT: _prompt(PROMPT)},
    }


# -- packs ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Features:
    """What :func:`packs` puts in a pack (hashable, so strategies are built once per set)."""

    min_states: int
    max_states: int
    workflow: bool
    loops: bool
    redirects: bool
    budgets: bool
    artifacts: bool
    orchestration: bool
    terminal_states: bool
    dead_ends: bool
    compositions: bool
    control: bool
    state_agents: bool
    extensions: bool = False
    providers: bool = False
    vendor: bool = False


def packs(
    *,
    min_states: int = 1,
    max_states: int = 4,
    workflow: bool = True,
    loops: bool = True,
    redirects: bool = True,
    budgets: bool = True,
    artifacts: bool = True,
    orchestration: bool = True,
    terminal_states: bool = True,
    dead_ends: bool = True,
    compositions: bool = False,
    control: bool = False,
    state_agents: bool = False,
    extensions: bool = False,
    providers: bool = False,
    vendor: bool = False,
) -> st.SearchStrategy[dict[str, Any]]:
    """Valid packs (plain dicts, JSON-shaped).

    Arguments:
        min_states, max_states: how many workflow states (1 to 8).
        workflow: give the pack a workflow (off: a pack of compositions only).
        loops: ``max_visits`` on some states (RFC 0009).
        redirects: ``on_max_visits`` on some of them, so redirect chains and cycles occur.
        budgets: an ``engine.budget``: one of ``max_total_visits``, ``max_tool_calls``,
            ``max_wall_time_sec`` alone, or some of them together.
        artifacts: artifact declarations, ``log`` and ``note``, each in one mode (``append``
            or ``replace``) wherever it is declared.
        orchestration: ``orchestration`` on some states (``internal``, ``external``,
            ``hybrid``).
        terminal_states: ``terminal: true`` on some states.
        dead_ends: some states without ``on_event`` (absent or empty): terminal only by the
            v1.3 convention.
        compositions: one or two compositions (RFC 0010) of prompt, tool, agent, branch and
            parallel steps over the prompt ``main`` and the tools ``search`` (tool steps) and
            ``fetch`` (agent steps, bounded by ``termination.max_steps``).
        control: RFC 0014 ``control`` on some states, ``agent`` (about half of them) or
            ``user`` written out; absent on the others.
        state_agents: RFC 0011 ``agents``: the member ``main``, perhaps ``aide`` too (with a
            prompt of that name), each backed by a workflow state or, now and then, by none
            (a single-prompt agent). Needs the workflow.
        extensions: RFC 0016 ``extensions`` objects (any keys, nested, schema-keyword look-alikes
            included) on the prompt and on some states, and on the agents members, the
            compositions and their steps (parallel branches included) where the pack has them:
            valid, and never interpreted.
        providers: RFC 0017 ``provider`` on the prompt, with ``requires.providers`` declared
            by shorthand or by objects, or not at all (``default`` needs no declaration), an
            optional (``required: false``) requirement referenced now and then (valid, warned).
        vendor: with ``compositions``, the kit's test extensions (RFC 0010 Level 3, which a
            runtime claiming it registers: :func:`reference.test_extensions`) now and then: a
            ``ppconf.upper`` step with a literal input at the end of a composition or as one
            more branch of a parallel, a parallel merged by ``ppconf.join``.

    Raises:
        ValueError: a knob out of range, a pack with neither workflow nor compositions, or
            agents without a workflow.
    """
    if not 1 <= min_states <= max_states <= len(STATES):
        raise ValueError(
            f"packs(min_states={min_states}, max_states={max_states}): "
            f"give 1 <= min_states <= max_states <= {len(STATES)}"
        )
    if not workflow and not compositions:
        raise ValueError("packs(workflow=False): ask for compositions=True, or keep the workflow")
    if state_agents and not workflow:
        raise ValueError("packs(state_agents=True) needs the workflow its agents start in")
    return _packs(
        _Features(
            min_states,
            max_states,
            workflow,
            loops,
            redirects,
            budgets,
            artifacts,
            orchestration,
            terminal_states,
            dead_ends,
            compositions,
            control,
            state_agents,
            extensions,
            providers,
            vendor and compositions,
        )
    )


# Every pack and script is decoded from a few strings, one Hypothesis choice each: a choice
# costs far more than decoding, and a run draws thousands of examples. A byte picks one of a
# list of options (byte modulo its length; repeated options are likelier), and zero bytes,
# where Hypothesis shrinks to, pick the simplest option: an open state with one event ``Go``,
# no loop guard, no orchestration, no artifact. Every byte string has the same, fixed size:
# Hypothesis draws their bytes at random, and when it copies one into another while exploring
# (it does so between draws of the same kind), the copy fits instead of decaying to zeros.
# Script steps are picked by the characters of short strings (a different kind of draw),
# which Hypothesis shrinks by deleting characters anywhere, towards ``0``: the first step.

_BYTES = 64
"""Enough for four states, or a composition, or the mocks of a script's runs (bytes past the
end read as zeros: the simplest choices). Hypothesis' shrinker works harder the longer they
are."""
_PICKS = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ+-"
_SEGMENT = 6


_EXTRA_BYTES = 8 + 4 + 8
"""Bytes past the states for RFC 0014 ``control`` (one per state), RFC 0011 ``agents``, and
the orchestration of ``control: agent`` states (one per state)."""


def _extras_at(features: _Features) -> int:
    """Where the bytes of ``control`` and ``agents`` start: past every state the pack could
    have, so that they mean the same whatever the number of states became while shrinking."""
    return 8 + 13 * features.max_states


class _Bytes:
    """Reads options from a byte string, then zeros once it is used up."""

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._at = 0

    def seek(self, at: int) -> None:
        """Read on from ``at``."""
        self._at = at

    @property
    def position(self) -> int:
        """Where the next pick reads."""
        return self._at

    def pick(self, options: Sequence[_T]) -> _T:
        at = self._at
        self._at += 1
        return options[(self._data[at] if at < len(self._data) else 0) % len(options)]


@cache
def _packs(features: _Features) -> st.SearchStrategy[dict[str, Any]]:
    counts = st.integers(features.min_states, features.max_states)
    if not features.workflow:
        counts = st.just(0)
    size = _size(features) + (_VENDOR_BYTES if features.vendor else 0)
    return st.builds(
        lambda count, data: _decode_pack(features, count, _Bytes(data)),
        counts,
        st.binary(min_size=size, max_size=size),
    )


def _size(features: _Features) -> int:
    """The bytes a pack is decoded from, the kit's test extensions aside (they come last)."""
    size = max(_BYTES, _extras_at(features)) if features.workflow else _BYTES
    if features.control or features.state_agents:
        size = max(_BYTES, _extras_at(features) + _EXTRA_BYTES)
    if features.extensions or features.providers:
        size = max(size, _extras_at(features) + _EXTRA_BYTES + _SLOT_BYTES + _MORE_SLOT_BYTES)
    return size


_NO = (None,)
_SHAPES = ("open",) * 16 + ("terminal",) * 2 + ("absent", "empty")
_EVENT_COUNTS = (1, 1, 2, 2, 3)
_EVENT_NAMES = (EVENTS[0],) * 3 + (EVENTS[1],) * 2 + EVENTS[2:]
"""Mostly ``Go``, so that most states declare the events a script sends."""
_MAX_VISITS = (None, None, 1, 1, 2, 3)
_ORCHESTRATIONS = (None, None, None, None, None, "internal", "external", "hybrid")
_DECLARED = ((), (ARTIFACTS[0],), (ARTIFACTS[1],), ARTIFACTS)
_EXTRAS = (None,) * 6 + ("terminal: false", "on_max_visits alone")
"""Valid oddities: ``terminal: false`` written out; ``on_max_visits`` without ``max_visits``
(it never applies)."""
_MODES = ("append", "replace")
_LIMITS = {
    "max_total_visits": (None, 2, 2, 3, 3, 4, 5, 6),
    "max_tool_calls": (None, 1, 1, 2, 3),
    "max_wall_time_sec": (None, 1, 2, 2, 3, 4),
}
"""The options of each budget limit: low ones likelier, so that runs reach them exactly."""
_BUDGET_KINDS = (None, "together", "together", *_LIMITS)
"""Which budget a workflow has: none, the limits drawn together, or one kind alone (each kind
is a context a runtime may handle apart, SEMANTICS R16; drawn together, a tool-call or
wall-time limit mostly ends a session before the visits reach theirs)."""


def _decode_pack(features: _Features, count: int, data: _Bytes) -> dict[str, Any]:
    pack = _pack()
    if count:
        pack["workflow"] = _decode_workflow(features, STATES[:count], data)
        if features.control or features.state_agents:
            data.seek(_extras_at(features))
            _decode_extras(features, pack, STATES[:count], data)
    if features.compositions:
        pack["tools"] = {tool: {"name": tool, "description": f"The {tool} tool."} for tool in TOOLS}
        names = ("review", "triage")[: data.pick((1, 1, 2))]
        pack["compositions"] = {name: _decode_composition(data) for name in names}
        if features.vendor:
            data.seek(_size(features))
            _decode_vendor(pack["compositions"], data)
    if features.extensions or features.providers:
        data.seek(_extras_at(features) + _EXTRA_BYTES)
        if features.extensions:
            _decode_extensions(pack, data)
        if features.providers:
            _decode_providers(pack, data)
        if features.extensions:
            data.seek(_extras_at(features) + _EXTRA_BYTES + _SLOT_BYTES)
            _decode_more_extensions(pack, data)
    return pack


_SLOT_BYTES = 1 + len(STATES) + 1
"""Bytes past ``control`` and ``agents`` for RFC 0016 slots (the prompt's, one per state) and
the RFC 0017 provider choice."""
_EXTENSION_VALUES: tuple[Any, ...] = (
    None,
    None,
    {},
    {"acme.review": {"mode": "strict", "level": 2}},
    {"type": 7, "$schema": "not a schema", "required": "no"},
    {"x": {"y": [1, {"z": None}]}, "": True},
    {"terminal": True, "max_visits": 1, "on_event": {}},
)
"""What a slot holds (``None``: no slot): any object is valid and changes nothing (RFC 0016),
keys a validator might mistake for schema keywords, or a runtime for the state's own fields,
included."""
_PROVIDERS: tuple[tuple[Any, str | None], ...] = (
    (None, None),
    (None, "default"),
    (["default", "drafter"], "drafter"),
    (["drafter"], "default"),
    (["default", "drafter"], None),
    (
        [
            {"key": "default", "role": "llm"},
            {
                "key": "digest",
                "role": "llm",
                "required": False,
                "capabilities": {"modalities": ["text"], "min_context_tokens": 1000},
            },
        ],
        "digest",
    ),
)
"""``requires.providers`` (``None``: none) and the prompt's ``provider``: each valid (RFC 0017
rules 1 and 4; ``default`` always is, declared or not; an optional one referenced is warned),
with ``capabilities`` now and then (declared, never matched against a provider here)."""


def _decode_extensions(pack: dict[str, Any], data: _Bytes) -> None:
    slots = [pack["prompts"][PROMPT]]
    slots += list((pack.get("workflow") or {}).get("states", {}).values())
    for slot in slots:
        value = data.pick(_EXTENSION_VALUES)
        if value is not None:
            slot["extensions"] = _copy(value)


_MORE_SLOT_BYTES = len(AGENTS) + 2 * 2
"""Bytes past the prompt's and the states' slots for the other slots RFC 0016 allows: each
agents member, then each composition and its steps (one value for all of them, parallel
branches included)."""


def _decode_more_extensions(pack: dict[str, Any], data: _Bytes) -> None:
    """``extensions`` on the agents members and on the compositions and their steps, where
    the pack has them (a fixed layout, so shrinking one slot moves no other)."""
    agents = pack.get("agents")
    members = agents.get("members") if isinstance(agents, dict) else None
    for member in AGENTS:
        value = data.pick(_EXTENSION_VALUES)
        if isinstance(members, dict) and member in members and value is not None:
            members[member]["extensions"] = _copy(value)
    compositions = pack.get("compositions") or {}
    for name in ("review", "triage"):
        on_composition, on_steps = data.pick(_EXTENSION_VALUES), data.pick(_EXTENSION_VALUES)
        composition = compositions.get(name)
        if not isinstance(composition, dict):
            continue
        if on_composition is not None:
            composition["extensions"] = _copy(on_composition)
        if on_steps is not None:
            for step in composition.get("steps") or []:
                for slot in [step, *(step.get("branches") or [])]:
                    slot["extensions"] = _copy(on_steps)


def _decode_providers(pack: dict[str, Any], data: _Bytes) -> None:
    requires, provider = data.pick(_PROVIDERS)
    if requires is not None:
        pack["requires"] = {"providers": _copy(requires)}
    if provider is not None:
        pack["prompts"][PROMPT]["provider"] = provider


def _decode_workflow(features: _Features, names: Sequence[str], data: _Bytes) -> dict[str, Any]:
    """A workflow from a fixed layout: 8 bytes for the workflow, then 13 per state, so that
    the bytes of a state mean the same whatever the states before it became while shrinking."""
    workflow: dict[str, Any] = {"version": data.pick((2, 1)), "entry": data.pick(names)}
    budget = {
        limit: value
        for limit, options in _LIMITS.items()
        if (value := data.pick(options)) is not None
    }
    kept = data.pick(_BUDGET_KINDS)
    if kept in _LIMITS:
        budget = {kept: budget.get(kept) or _LIMITS[kept][1] or 1}
    modes = {artifact: data.pick(_MODES) for artifact in ARTIFACTS}
    allowed = {"open"}
    allowed |= {"terminal"} if features.terminal_states else set()
    allowed |= {"absent", "empty"} if features.dead_ends else set()
    shapes = [shape for shape in _SHAPES if shape in allowed]
    if features.control and features.terminal_states:
        # Terminal states with control: agent (which gives the turn back all the same, RFC
        # 0014) are reached by agent events often enough to be tried.
        shapes += ["terminal"] * 2
    states: dict[str, Any] = {}
    for name in names:
        shape = data.pick(shapes)
        count = data.pick(_EVENT_COUNTS)
        events = [(data.pick(_EVENT_NAMES), data.pick(names)) for _ in range(3)][:count]
        max_visits = data.pick(_MAX_VISITS if features.loops else _NO)
        # Mostly the next state: a state redirecting to itself is a cycle the guard refuses.
        following = names[(names.index(name) + 1) % len(names)]
        redirect = data.pick((None, following, following, *names) if features.redirects else _NO)
        orchestration = data.pick(_ORCHESTRATIONS if features.orchestration else _NO)
        declared = data.pick(_DECLARED if features.artifacts else ((),))
        extra = data.pick(_EXTRAS)
        state: dict[str, Any] = {"prompt_task": PROMPT}
        if shape == "open" or (shape == "terminal" and count == 3):
            on_event: dict[str, str] = {}
            for event, target in events:
                on_event.setdefault(event, target)
            state["on_event"] = on_event
        elif shape == "empty":
            state["on_event"] = {}
        if shape == "terminal":
            state["terminal"] = True
        elif extra == "terminal: false":
            state["terminal"] = False
        if max_visits is not None:
            state["max_visits"] = max_visits
        if redirect is not None and (max_visits is not None or extra == "on_max_visits alone"):
            state["on_max_visits"] = redirect
        if orchestration is not None:
            state["orchestration"] = orchestration
        if declared:
            state["artifacts"] = {
                artifact: {"type": "text/plain", "mode": "append"}
                if modes[artifact] == "append"
                else {"type": "text/plain"}
                for artifact in declared
            }
        states[name] = state
    workflow["states"] = states
    if features.budgets and kept is not None:
        workflow["engine"] = {"budget": budget}
    return workflow


_CONTROLS = (None, "agent", None, "agent", "user")
_MEMBER_COUNTS = (1, 1, 2)
_AGENT_STATE_MODES = (None, None, "external", "external", "hybrid")
"""The orchestration a ``control: agent`` state is given (``None``: as decoded with the
state): host events into such states from internal and external ones, and the agent's into
hybrid ones, are the contexts RFC 0014 decides apart (SEMANTICS R16)."""


def _decode_extras(
    features: _Features, pack: dict[str, Any], names: Sequence[str], data: _Bytes
) -> None:
    """RFC 0014 ``control`` on the states (one byte each, in the order of :data:`STATES`),
    then RFC 0011 ``agents`` (a fixed four bytes), then the orchestration of each
    ``control: agent`` state (one byte each)."""
    states = pack["workflow"]["states"]
    for name in STATES[: features.max_states]:
        control = data.pick(_CONTROLS if features.control else _NO)
        if name in states and control is not None:
            states[name]["control"] = control
    modes_at = data.position + 4  # past the agents' bytes, used or not
    if features.state_agents:
        _decode_agents(pack, names, data)
    if features.control and features.orchestration:
        data.seek(modes_at)
        for name in STATES[: features.max_states]:
            mode = data.pick(_AGENT_STATE_MODES)
            state = states.get(name)
            if state is not None and state.get("control") == "agent" and mode is not None:
                state["orchestration"] = mode


def _decode_agents(pack: dict[str, Any], names: Sequence[str], data: _Bytes) -> None:
    """RFC 0011 ``agents`` (four bytes)."""
    members: dict[str, Any] = {}
    for member in AGENTS[: data.pick(_MEMBER_COUNTS)]:
        # Mostly a state (the entry first, where zeros shrink to); now and then none.
        state = data.pick((*names, *names, None))
        members[member] = {} if state is None else {"state": state}
        pack["prompts"].setdefault(member, _prompt(member))
    pack["agents"] = {"entry": PROMPT, "members": members}


# -- compositions -----------------------------------------------------------------------------

_STEP_IDS = tuple("abcdefghijklmnopqrstuvwxyz")
_BLOCK_COUNTS = (1, 1, 2, 2, 3)
_BLOCKS = ("leaf", "leaf", "parallel", "parallel", "branch")
"""A step in sequence or in a parallel block is a context a runtime may handle apart (R16):
the blocks draw about as many leaves of each."""
_ATTEMPTS = (1, 1, 2, 3)
_LEAF_KINDS = ("prompt", "tool", "agent")
"""An agent step stands only where what it did can be told (a top-level step or a parallel
branch); elsewhere (a branch's targets and join) the pick reads as a prompt step."""
_MAX_STEPS = (1, 2, 2, 3)
_COMPARE_OPS = ("equals", "not_equals", "less_than", "greater_than_or_equals")
_PREDICATES = ("compare", "compare", "member", "exists", "not", "all_of", "any_of")
_REDUCERS = ("append", "replace", "barrier")


def _decode_composition(data: _Bytes) -> dict[str, Any]:
    """A composition whose every run is decided by RFC MUST rules alone.

    Blocks, in array order: a leaf step (prompt or tool, perhaps with ``retry``, or an agent
    step bounded by ``max_steps`` whose tool is ``fetch``); a ``parallel`` of two or three
    leaves (one agent step at most) merged by ``append``, ``replace`` or ``barrier``; or
    a ``branch`` whose ``then`` and ``else`` are the next two steps, followed by a join step
    that ``depends_on`` both (what follows a skipped step without ``depends_on``, and whether
    a branch jumps, are left open by RFC 0010). Predicates read the input ``k`` (0 to 2, always
    given). ``output`` names a step that produces output, or is omitted.
    """
    ids = iter(_STEP_IDS)
    steps: list[dict[str, Any]] = []
    outputs: list[str] = []

    def leaf(agent: bool = False) -> dict[str, Any]:
        kind, attempts = data.pick(_LEAF_KINDS), data.pick(_ATTEMPTS)
        max_steps = data.pick(_MAX_STEPS)
        step: dict[str, Any] = {"id": next(ids), "kind": kind}
        if kind == "agent" and agent:
            # Its rounds draw from its own mocks, its tool calls from those of the tool
            # ``fetch``, which no other kind of step calls. No retry: a second attempt would
            # take rounds scripted for the first.
            step.update(prompt_task=PROMPT, input="${input.k}", tools=[TOOLS[1]])
            step["termination"] = {"max_steps": max_steps}
            outputs.append(step["id"])
            return step
        if kind == "tool":
            step.update(tool=TOOLS[0], args={"q": "${input.k}"})
        else:
            step.update(kind="prompt", prompt_task=PROMPT, input="${input.k}")
        if attempts > 1:
            step["modifiers"] = {"retry": {"max_attempts": attempts}}
        outputs.append(step["id"])
        return step

    for _ in range(data.pick(_BLOCK_COUNTS)):
        block = data.pick(_BLOCKS)
        if block == "leaf":
            steps.append(leaf(agent=True))
        elif block == "parallel":
            parallel_id = next(ids)
            branches: list[dict[str, Any]] = []
            for _ in range(data.pick((2, 2, 3))):
                # One agent branch at most: branches run at once, and two agents would
                # take the answers of ``fetch`` in whatever order they run (C3).
                branches.append(leaf(agent=not any(b["kind"] == "agent" for b in branches)))
            reduce = {"strategy": data.pick(_REDUCERS), "into": "out"}
            steps.append(
                {"id": parallel_id, "kind": "parallel", "branches": branches, "reduce": reduce}
            )
            outputs.append(parallel_id)
        else:
            branch_id = next(ids)
            then, otherwise = leaf(), leaf()
            predicate = _decode_predicate(data)
            steps.append(
                {
                    "id": branch_id,
                    "kind": "branch",
                    "predicate": predicate,
                    "then": then["id"],
                    "else": otherwise["id"],
                }
            )
            join = leaf()
            join["depends_on"] = [then["id"], otherwise["id"]]
            steps += [then, otherwise, join]
    composition: dict[str, Any] = {"version": 1, "steps": steps}
    named = data.pick((*outputs, *outputs, None))
    if named is not None:
        composition["output"] = named
    return composition


_VENDOR_KIND = "ppconf.upper"
"""The kit's test vendor step kind (its output: the step's string input, upper-cased)."""
_VENDOR_REDUCER = "ppconf.join"
"""The kit's test vendor reducer (the branches' string outputs, joined)."""
_VENDOR_BYTES = 2 * 2
"""Two bytes per composition: where a ``ppconf.upper`` step goes, and whether a parallel is
merged by ``ppconf.join``."""
_VENDOR_STEPS = (None, None, "step", "step", "branch")
_VENDOR_JOINS = (None, None, "", "-")
"""``None``: the reducer as drawn; else ``ppconf.join`` with that ``separator`` (``""``: none
written)."""


def _decode_vendor(compositions: dict[str, Any], data: _Bytes) -> None:
    """The kit's test extensions in the compositions (a fixed layout past every other byte, so
    a pack decodes as without them when they shrink to none). A ``ppconf.upper`` step takes a
    literal text: it fails on anything but a string, and the compositions' inputs are numbers.
    """
    for name in ("review", "triage"):
        where, join = data.pick(_VENDOR_STEPS), data.pick(_VENDOR_JOINS)
        composition = compositions.get(name)
        if composition is None:
            continue
        steps = composition["steps"]
        used = {s["id"] for s in steps} | {b["id"] for s in steps for b in s.get("branches", [])}
        upper = {
            "id": next(i for i in _STEP_IDS if i not in used),
            "kind": _VENDOR_KIND,
            "input": TEXTS[len(steps) % len(TEXTS)],
        }
        parallels = [s for s in steps if s["kind"] == "parallel"]
        if where == "branch" and parallels:
            parallels[0]["branches"].append(upper)
        elif where is not None:
            steps.append(upper)
        if join is not None and parallels:
            reduce = parallels[-1]["reduce"]
            reduce["strategy"] = _VENDOR_REDUCER
            if join:
                reduce["separator"] = join


def _decode_predicate(data: _Bytes) -> dict[str, Any]:
    def compare() -> dict[str, Any]:
        return {"path": "${input.k}", "op": data.pick(_COMPARE_OPS), "value": data.pick((0, 1, 2))}

    form = data.pick(_PREDICATES)
    if form == "compare":
        return compare()
    if form == "member":
        values = [data.pick((0, 1, 2)) for _ in range(data.pick((0, 1, 2)))]
        return {"path": "${input.k}", "op": data.pick(("in", "not_in")), "value": values}
    if form == "exists":
        return {"path": "${input.k}", "exists": True}
    if form == "not":
        return {"not": compare()}
    return {form: [compare() for _ in range(data.pick((0, 1, 2)))]}


# -- scripts ----------------------------------------------------------------------------------


def steps(
    pack: dict[str, Any],
    *,
    snapshots: bool = True,
    undeclared_artifacts: bool = False,
    turns: bool | None = None,
) -> st.SearchStrategy[dict[str, Any]]:
    """One step of a script for ``pack``, in the case-file format.

    Events declared anywhere in the workflow and one declared nowhere (``Stray``), from the
    host or the agent; artifact writes of the declared artifacts; tool calls and clock
    advances (for budgets); ``snapshot_restore``; composition runs with scripted mocks; the
    agent's text and the user's turn (RFC 0014).

    Arguments:
        pack: a pack drawn from :func:`packs` (or any valid pack).
        snapshots: include ``snapshot_restore`` steps (RFC 0009 X15, SHOULD).
        undeclared_artifacts: also write an artifact no state declares (refusing it is MAY).
        turns: include ``agent_text`` and ``user_turn`` steps, and agent events twice as
            often (default: when a state of the pack declares ``control``).
    """
    menu = _menu(pack, snapshots, undeclared_artifacts, turns)
    return _raw_step().map(menu.one)


def scripts(
    pack: dict[str, Any],
    *,
    max_steps: int = 12,
    snapshots: bool = True,
    undeclared_artifacts: bool = False,
    turns: bool | None = None,
    starts: bool | None = None,
) -> st.SearchStrategy[list[dict[str, Any]]]:
    """Scripts of up to ``max_steps`` steps for ``pack`` (see :func:`steps`).

    A script is one character per step (which step), drawn as strings of at most six (so
    scripts are long on average, and Hypothesis shrinks one by deleting characters anywhere),
    and bytes the composition runs take their inputs and mocks from.

    Arguments:
        starts: begin most scripts with ``{"start": ...}`` (RFC 0011): at a state of the
            workflow or at ``nowhere``, as an agents member or as ``stranger`` (default: when
            the pack has ``agents``; ``ppconf fuzz`` asks for them in every pack with a
            workflow when it fuzzes ``state-agents``). One character more says which start,
            shrinking to none (the entry).
    """
    menu = _script_menu(pack, snapshots, undeclared_artifacts, turns, starts)
    return _raw_script(max_steps, bool(menu.runs), bool(menu.starts)).map(menu.script)


def _draw_script(
    draw: st.DrawFn,
    pack: dict[str, Any],
    *,
    max_steps: int = 12,
    snapshots: bool = True,
    undeclared_artifacts: bool = False,
    turns: bool | None = None,
    starts: bool | None = None,
) -> list[dict[str, Any]]:
    """``draw(scripts(pack, ...))``: the same choices, the same spans, the same script, without
    a strategy built for the pack (Hypothesis works out and checks a new strategy's
    properties before its first draw, which costs more than the draw)."""
    menu = _script_menu(pack, snapshots, undeclared_artifacts, turns, starts)
    return menu.script(draw(_raw_script_mapped(max_steps, bool(menu.runs), bool(menu.starts))))


def _script_menu(
    pack: dict[str, Any],
    snapshots: bool,
    undeclared_artifacts: bool,
    turns: bool | None,
    starts: bool | None,
) -> _Menu:
    menu = _menu(pack, snapshots, undeclared_artifacts, turns)
    if starts is None:
        starts = isinstance(pack.get("agents"), dict)
    menu.starts = _starts(pack) if starts else []
    return menu


# The raw draws do not depend on the pack, so they are built once: building a strategy costs
# more than drawing from it. They are built at once, not lazily as Hypothesis' functions return
# them: ``.map`` on a lazy strategy gives another lazy one, which builds and validates the whole
# strategy again at its first draw, once for every pack; on a built one, it only wraps it.


@cache
def _raw_step() -> st.SearchStrategy[tuple[str, bytes]]:
    return _built(st.tuples(st.sampled_from(_PICKS), st.binary(min_size=_BYTES, max_size=_BYTES)))


@cache
def _raw_script(
    max_steps: int, runs: bool, starts: bool
) -> st.SearchStrategy[tuple[str, bytes, str]]:
    sizes = [min(_SEGMENT, max_steps - start) for start in range(0, max_steps, _SEGMENT)]
    picks = st.tuples(*(st.text(_PICKS, max_size=size) for size in sizes)).map("".join)
    pool = st.binary(min_size=_BYTES, max_size=_BYTES) if runs else st.just(b"")
    start = st.sampled_from(_PICKS) if starts else st.just(_PICKS[0])
    return _built(st.tuples(picks, pool, start))


@cache
def _raw_script_mapped(
    max_steps: int, runs: bool, starts: bool
) -> st.SearchStrategy[tuple[str, bytes, str]]:
    # Mapped as scripts() maps the raw draws (by a function Hypothesis does not take for the
    # identity), so that a draw makes the same spans, which Hypothesis' mutations and shrinking
    # go by: the script is decoded from what it gives.
    return _raw_script(max_steps, runs, starts).map(_as_drawn)


def _as_drawn(raw: tuple[str, bytes, str]) -> tuple[str, bytes, str]:
    picks, pool, start = raw
    return picks, pool, start


def _built(strategy: st.SearchStrategy[_T]) -> st.SearchStrategy[_T]:
    """``strategy`` built and validated, drawing the same as it."""
    strategy.validate()
    return _unwrapped(strategy)  # type: ignore[no-any-return,no-untyped-call]


def _starts(pack: dict[str, Any]) -> list[dict[str, Any] | None]:
    """Where a script may start: the entry (``None``, first: what starts shrink to), each
    state, a state no pack has, each agents member, an agent no pack has. The entry takes as
    many places as the named states together, and the members (where the pack has them) twice
    as many: each start is a context every execution statement is checked in (SEMANTICS R16),
    so none is drawn rarely, whatever the number of states."""
    workflow = pack.get("workflow")
    states = sorted((workflow.get("states") or {}) if isinstance(workflow, dict) else {})
    agents = pack.get("agents")
    members = sorted((agents.get("members") or {}) if isinstance(agents, dict) else {})
    places = max(1, len(states))
    found: list[dict[str, Any] | None] = [None] * places
    found += [{"at_state": state} for state in states] + [{"at_state": UNKNOWN_STATE}]
    if members:
        each = -(-2 * places // len(members))
        found += [{"agent": member} for member in members for _ in range(each)]
        found.append({"agent": UNKNOWN_AGENT})
    return found


class _Menu:
    """The steps a pack's scripts choose from: fixed steps, and composition runs."""

    def __init__(self, fixed: list[dict[str, Any]], runs: list[tuple[str, list[Any]]]) -> None:
        self.fixed = fixed
        self.runs = runs
        self.starts: list[dict[str, Any] | None] = []
        self.size = len(fixed) + len(runs)
        if not self.size:
            raise ValueError("the pack has neither a workflow nor compositions: no step to draw")

    def script(self, raw: tuple[str, bytes, str]) -> list[dict[str, Any]]:
        picks, pool, start = raw
        data = _Bytes(pool)
        found = [self.step(_PICKS.index(pick), data) for pick in picks]
        where = self.starts[_PICKS.index(start) % len(self.starts)] if self.starts else None
        return found if where is None else [{"start": dict(where)}, *found]

    def one(self, raw: tuple[str, bytes]) -> dict[str, Any]:
        pick, data = raw
        return self.step(_PICKS.index(pick), _Bytes(data))

    def step(self, pick: int, data: _Bytes) -> dict[str, Any]:
        index = pick % self.size
        if index < len(self.fixed):
            return _copy(self.fixed[index])  # type: ignore[no-any-return]
        name, leaves = self.runs[index - len(self.fixed)]
        mocks: dict[str, list[Any]] = {}
        k = data.pick((0, 1, 2))
        by_tool = False
        waits = any(kind == "tool" and attempts == 1 for _, attempts, _, kind in leaves)
        for step_id, attempts, max_steps, kind in leaves:
            if max_steps:
                _agent_mocks(mocks, step_id, max_steps, data)
                continue
            # A failure is scripted only where a retry may mend it: a run in which a step
            # fails for good is left out by the oracle (what follows is error recovery, R15).
            fails = data.pick((0,) if attempts == 1 else (0, 0, 1, attempts))
            output = data.pick(_OUTPUTS)
            asks = data.pick(_ASKS_FOR_TOOLS)
            # Without retry a step gets exactly one response: how many attempts a step makes
            # by default is left to runtimes, so a second response could be taken or not.
            ok: dict[str, Any] = {"output": _copy(output)}
            if kind == "prompt" and asks and waits and fails == 0:
                # A model answer asking for a tool call, which a prompt step never runs (RFC
                # 0010): the call would take the answer a tool step of the run waits for. With
                # retry too: its one answer is all a retry of a step failed on it would find.
                ok["tool_calls"] = [{"tool": TOOLS[0], "args": {"q": k}}]
            key = step_id
            if kind == "tool" and attempts == 1 and not by_tool:
                # The first tool step without retry takes its answers from the tool's own
                # list (no other step does, so no order between branches decides them).
                key, by_tool = TOOLS[0], True
            responses = [ok] if attempts > 1 or fails == 0 else []
            mocks[key] = [{"error": "failed"}] * fails + responses
        return {"run_composition": {"name": name, "input": {"k": k}, "mocks": mocks}}


def _menu(
    pack: dict[str, Any], snapshots: bool, undeclared_artifacts: bool, turns: bool | None
) -> _Menu:
    runs = [(name, _leaf_attempts(c)) for name, c in _compositions_of(pack)]
    return _Menu(_fixed_steps(pack, snapshots, undeclared_artifacts, turns), runs)


def _fixed_steps(
    pack: dict[str, Any], snapshots: bool, undeclared_artifacts: bool, turns: bool | None
) -> list[dict[str, Any]]:
    """The steps that take no data: events, artifact writes, tool calls, clock advances,
    snapshots, turns (declared host events first, and twice as likely)."""
    workflow = pack.get("workflow")
    if not isinstance(workflow, dict):
        return []
    states = workflow.get("states") or {}
    if turns is None:
        turns = any(isinstance(s, dict) and "control" in s for s in states.values())
    declared = sorted(
        {event for state in states.values() for event in (state.get("on_event") or {})},
        key=lambda e: (EVENTS.index(e) if e in EVENTS else len(EVENTS), e),
    )
    artifacts = sorted(
        {name for state in states.values() for name in (state.get("artifacts") or {})},
        key=lambda a: (ARTIFACTS.index(a) if a in ARTIFACTS else len(ARTIFACTS), a),
    )
    events = [{"event": event} for event in declared]
    found: list[dict[str, Any]] = [*events, *events]
    found += [{"event": event, "source": "agent"} for event in declared]
    found += [{"event": STRAY_EVENT}, {"event": STRAY_EVENT, "source": "agent"}]
    writes = [{"set_artifact": {"name": a, "value": v}} for a in artifacts for v in VALUES]
    found += writes + writes
    if undeclared_artifacts:
        found.append({"set_artifact": {"name": "stray", "value": VALUES[0]}})
    found += [{"tool_calls": 1}, {"tool_calls": 2}, {"advance_clock": 1}, {"advance_clock": 2}]
    if snapshots:
        found.append({"snapshot_restore": True})
    if turns:
        # Agent events again, so that the agent moves as often as the host does.
        found += [{"event": event, "source": "agent"} for event in declared]
        found += [{"agent_text": text} for text in TEXTS] + [{"user_turn": True}]
    return found


def _compositions_of(pack: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    compositions = pack.get("compositions")
    if not isinstance(compositions, dict):
        return []
    return [(name, c) for name, c in sorted(compositions.items()) if isinstance(c, dict)]


def _leaf_attempts(composition: dict[str, Any]) -> list[tuple[str, int, int, str]]:
    """``(id, max_attempts, max_steps, kind)`` of every prompt, tool and agent step, parallel
    branches included (``max_steps`` 0 but for an agent step)."""
    found = []
    for step in composition.get("steps") or []:
        members = step.get("branches") or [] if step.get("kind") == "parallel" else [step]
        for member in members:
            if member.get("kind") in ("prompt", "tool"):
                retry = (member.get("modifiers") or {}).get("retry") or {}
                attempts = int(retry.get("max_attempts", 1))
                found.append((member["id"], attempts, 0, member["kind"]))
            elif member.get("kind") == "agent":
                bound = int((member.get("termination") or {}).get("max_steps", 1))
                found.append((member["id"], 1, bound, "agent"))
    return found


_ASKS_FOR_TOOLS = (False, True, True)
"""How often a prompt step's model answer asks for a tool call beside its output."""


_EXTRA_ROUNDS = (0, 1, 1, 2)
"""Model rounds scripted past an agent step's ``max_steps``: a runtime must stop at the bound
and never ask for them (with none past it, one that does not stop runs out of rounds at the
same count)."""


def _agent_mocks(mocks: dict[str, list[Any]], step_id: str, bound: int, data: _Bytes) -> None:
    """An agent step's model rounds, each calling ``fetch``, and the answers of those calls
    (added to the tool's list, which every agent step of the run shares, in step order)."""
    rounds = bound + data.pick(_EXTRA_ROUNDS)
    answers = mocks.setdefault(TOOLS[1], [])
    script = []
    for _ in range(rounds):
        answers.append({"output": f"r{len(answers) + 1}"})
        call = {"tool": TOOLS[1], "args": {"n": len(answers)}}
        script.append({"tool_calls": [call], "output": data.pick(_OUTPUTS)})
    mocks[step_id] = script


# -- near-valid packs -------------------------------------------------------------------------


@dataclass(frozen=True)
class Mutation:
    """One targeted way to break a valid pack.

    Attributes:
        name: what the mutation does, e.g. ``entry names no state``.
        area: the area of the rule (``workflow``, ``loops``, ``compositions``).
        code: the diagnostic code a validator reports (the kit's vocabulary, SEMANTICS R2).
        requirement: how firmly a validator must call the pack invalid: MUST (RFC text or the
            published schema), or SHOULD / MAY where SEMANTICS section 0 says so.
        case: the catalog case that pins the rule (its ``spec`` quotes the RFC).
    """

    name: str
    area: str
    code: str
    requirement: Requirement
    case: str
    apply: Callable[[st.DrawFn, dict[str, Any]], str]
    """Changes the pack in place; returns the JSON pointer of what it changed."""


@dataclass(frozen=True)
class NearValid:
    """A valid pack with one targeted mutation.

    Attributes:
        pack: the mutated pack.
        mutation: what was done to it.
        pointer: where (a JSON pointer).
    """

    pack: dict[str, Any]
    mutation: Mutation
    pointer: str

    @property
    def code(self) -> str:
        return self.mutation.code

    @property
    def requirement(self) -> Requirement:
        return self.mutation.requirement


def _state(draw: st.DrawFn, pack: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    states = pack["workflow"]["states"]
    name = draw(st.sampled_from(sorted(states, key=STATES.index)))
    return name, states[name]


def _set(field: str, value: Any) -> Callable[[st.DrawFn, dict[str, Any]], str]:
    """Set a field of a drawn state."""

    def apply(draw: st.DrawFn, pack: dict[str, Any]) -> str:
        name, state = _state(draw, pack)
        state[field] = value
        return f"/workflow/states/{name}/{field}"

    return apply


def _entry_unknown(draw: st.DrawFn, pack: dict[str, Any]) -> str:
    pack["workflow"]["entry"] = "nowhere"
    return "/workflow/entry"


def _event_target_unknown(draw: st.DrawFn, pack: dict[str, Any]) -> str:
    name, state = _state(draw, pack)
    state.pop("terminal", None)
    events = state.setdefault("on_event", {})
    event = draw(st.sampled_from(sorted(events) or [EVENTS[0]]))
    events[event] = "nowhere"
    return f"/workflow/states/{name}/on_event/{event}"


def _prompt_task_missing(draw: st.DrawFn, pack: dict[str, Any]) -> str:
    name, state = _state(draw, pack)
    del state["prompt_task"]
    return f"/workflow/states/{name}"


def _version(value: Any) -> Callable[[st.DrawFn, dict[str, Any]], str]:
    def apply(draw: st.DrawFn, pack: dict[str, Any]) -> str:
        pack["workflow"]["version"] = value
        return "/workflow/version"

    return apply


def _workflow_unknown_property(draw: st.DrawFn, pack: dict[str, Any]) -> str:
    pack["workflow"]["start"] = pack["workflow"]["entry"]
    return "/workflow/start"


def _composition_missing(draw: st.DrawFn, pack: dict[str, Any]) -> str:
    name, state = _state(draw, pack)
    state["orchestration"] = "composition"
    state.pop("composition", None)
    return f"/workflow/states/{name}/orchestration"


def _on_max_visits_unknown(draw: st.DrawFn, pack: dict[str, Any]) -> str:
    name, state = _state(draw, pack)
    state.setdefault("max_visits", 1)
    state["on_max_visits"] = "nowhere"
    return f"/workflow/states/{name}/on_max_visits"


def _budget(field: str, value: Any) -> Callable[[st.DrawFn, dict[str, Any]], str]:
    def apply(draw: st.DrawFn, pack: dict[str, Any]) -> str:
        engine = pack["workflow"].setdefault("engine", {})
        engine.setdefault("budget", {})[field] = value
        return f"/workflow/engine/budget/{field}"

    return apply


def _artifact(field: str, value: Any) -> Callable[[st.DrawFn, dict[str, Any]], str]:
    """Declare ``log`` on a drawn state with ``field`` set to ``value`` (``None``: removed)."""

    def apply(draw: st.DrawFn, pack: dict[str, Any]) -> str:
        name, state = _state(draw, pack)
        declaration: dict[str, Any] = {"type": "text/plain", field: value}
        if value is None:
            del declaration[field]
        state.setdefault("artifacts", {})[ARTIFACTS[0]] = declaration
        return f"/workflow/states/{name}/artifacts/{ARTIFACTS[0]}"

    return apply


def _composition(draw: st.DrawFn, pack: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    name = draw(st.sampled_from(sorted(pack["compositions"])))
    return name, pack["compositions"][name]


def _top_step(draw: st.DrawFn, pack: dict[str, Any]) -> tuple[str, int, dict[str, Any]]:
    """A drawn top-level step that is a leaf (every composition has one: a join or a leaf,
    or a parallel's first branch, which is then lifted to the top for the mutation)."""
    name, composition = _composition(draw, pack)
    steps_ = composition["steps"]
    leaves = [i for i, s in enumerate(steps_) if s["kind"] in ("prompt", "tool")]
    if not leaves:
        first = steps_[0]["branches"][0] if steps_[0]["kind"] == "parallel" else None
        steps_.append(
            {"id": "z", "kind": "prompt", "prompt_task": PROMPT}
            if first is None
            else {**first, "id": "z"}
        )
        leaves = [len(steps_) - 1]
    index = draw(st.sampled_from(leaves))
    return f"/compositions/{name}/steps/{index}", index, steps_[index]


def _composition_version(draw: st.DrawFn, pack: dict[str, Any]) -> str:
    name, composition = _composition(draw, pack)
    composition["version"] = 2
    return f"/compositions/{name}/version"


def _step_field(field: str, value: Any) -> Callable[[st.DrawFn, dict[str, Any]], str]:
    """Set (``value``) or remove (``None``) a field of a drawn leaf step; a field of the tool
    or the prompt kind (``tool``; ``prompt_task``, ``input``) turns the step into that kind
    first (a tool step's binding is ``args``, so its ``input`` would not be read)."""

    def apply(draw: st.DrawFn, pack: dict[str, Any]) -> str:
        pointer, _, step = _top_step(draw, pack)
        if field == "tool" and step["kind"] != "tool":
            step.pop("prompt_task", None)
            step.pop("input", None)
            step.update(kind="tool", tool=TOOLS[0])
        if field in ("prompt_task", "input") and step["kind"] != "prompt":
            step.pop("tool", None)
            step.pop("args", None)
            step.update(kind="prompt", prompt_task=PROMPT)
        if value is None:
            step.pop(field, None)
        else:
            step[field] = value
        return f"{pointer}/{field}"

    return apply


def _step_id_duplicate(draw: st.DrawFn, pack: dict[str, Any]) -> str:
    name, composition = _composition(draw, pack)
    steps_ = composition["steps"]
    steps_.append({"id": steps_[0]["id"], "kind": "prompt", "prompt_task": PROMPT})
    return f"/compositions/{name}/steps/{len(steps_) - 1}/id"


def _parallel(draw: st.DrawFn, pack: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """A drawn parallel step (one is added at the end when the composition has none)."""
    name, composition = _composition(draw, pack)
    steps_ = composition["steps"]
    found = [i for i, s in enumerate(steps_) if s["kind"] == "parallel"]
    if not found:
        steps_.append(
            {
                "id": "z",
                "kind": "parallel",
                "branches": [
                    {"id": "y", "kind": "prompt", "prompt_task": PROMPT},
                    {"id": "x", "kind": "tool", "tool": TOOLS[0]},
                ],
                "reduce": {"strategy": "append", "into": "out"},
            }
        )
        found = [len(steps_) - 1]
    index = draw(st.sampled_from(found))
    return f"/compositions/{name}/steps/{index}", steps_[index]


def _parallel_one_branch(draw: st.DrawFn, pack: dict[str, Any]) -> str:
    pointer, step = _parallel(draw, pack)
    del step["branches"][1:]
    return f"{pointer}/branches"


def _parallel_reduce_missing(draw: st.DrawFn, pack: dict[str, Any]) -> str:
    pointer, step = _parallel(draw, pack)
    del step["reduce"]
    return pointer


def _reduce_strategy(draw: st.DrawFn, pack: dict[str, Any]) -> str:
    pointer, step = _parallel(draw, pack)
    step["reduce"]["strategy"] = "merge"
    return f"{pointer}/reduce/strategy"


def _branch(predicate: dict[str, Any]) -> Callable[[st.DrawFn, dict[str, Any]], str]:
    """Put a branch with ``predicate`` before the first step (which it targets)."""

    def apply(draw: st.DrawFn, pack: dict[str, Any]) -> str:
        name, composition = _composition(draw, pack)
        steps_ = composition["steps"]
        steps_.insert(
            0, {"id": "z", "kind": "branch", "predicate": predicate, "then": steps_[0]["id"]}
        )
        return f"/compositions/{name}/steps/0/predicate"

    return apply


def _depends_on_later(draw: st.DrawFn, pack: dict[str, Any]) -> str:
    name, composition = _composition(draw, pack)
    steps_ = composition["steps"]
    steps_.append({"id": "z", "kind": "prompt", "prompt_task": PROMPT})
    steps_[0]["depends_on"] = ["z"]
    return f"/compositions/{name}/steps/0/depends_on"


def _reserved_name(draw: st.DrawFn, pack: dict[str, Any]) -> str:
    name, composition = _composition(draw, pack)
    del pack["compositions"][name]
    pack["compositions"]["workflow__transition"] = composition
    return "/compositions/workflow__transition"


def _output_unknown(draw: st.DrawFn, pack: dict[str, Any]) -> str:
    name, composition = _composition(draw, pack)
    composition["output"] = "nowhere"
    return f"/compositions/{name}/output"


def _member(draw: st.DrawFn, pack: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    members = pack["agents"]["members"]
    name = draw(st.sampled_from(sorted(members, key=AGENTS.index)))
    return name, members[name]


def _agent_state(value: Any) -> Callable[[st.DrawFn, dict[str, Any]], str]:
    """Set the ``state`` of a drawn agents member."""

    def apply(draw: st.DrawFn, pack: dict[str, Any]) -> str:
        name, member = _member(draw, pack)
        member["state"] = value
        return f"/agents/members/{name}/state"

    return apply


def _agent_state_without_workflow(draw: st.DrawFn, pack: dict[str, Any]) -> str:
    name, member = _member(draw, pack)
    member["state"] = member.get("state") or STATES[0]
    del pack["workflow"]
    return f"/agents/members/{name}/state"


def _prompt_field(field: str, value: Any) -> Callable[[st.DrawFn, dict[str, Any]], str]:
    """Set a field of the prompt every state runs."""

    def apply(draw: st.DrawFn, pack: dict[str, Any]) -> str:
        pack["prompts"][PROMPT][field] = _copy(value)
        return f"/prompts/{PROMPT}/{field}"

    return apply


def _provider_unknown(draw: st.DrawFn, pack: dict[str, Any]) -> str:
    """The prompt names a provider the pack's requirements do not declare (RFC 0017 rule 1)."""
    pack["requires"] = {"providers": draw(st.sampled_from((["default"], ["default", "triage"])))}
    pack["prompts"][PROMPT]["provider"] = "drafter"
    return f"/prompts/{PROMPT}/provider"


_W, _L, _C, _CT, _SA = "workflow", "loops", "compositions", "control", "state-agents"
_EX, _PR = "extensions", "providers"

MUTATIONS: tuple[Mutation, ...] = (
    Mutation(
        "entry names no state", _W, "entry-unknown", "MUST",
        "workflow.validation.entry-unknown", _entry_unknown,
    ),
    Mutation(
        "an on_event target names no state", _W, "event-target-unknown", "MUST",
        "workflow.validation.event-target-unknown", _event_target_unknown,
    ),
    Mutation(
        "a prompt_task names no prompt", _W, "prompt-task-unknown", "MUST",
        "workflow.validation.prompt-task-unknown", _set("prompt_task", "nothing"),
    ),
    Mutation(
        "a state without prompt_task", _W, "prompt-task-missing", "MUST",
        "workflow.validation.prompt-task-missing", _prompt_task_missing,
    ),
    Mutation(
        "orchestration outside the enum", _W, "orchestration-invalid", "MUST",
        "workflow.validation.orchestration-invalid", _set("orchestration", "Internal"),
    ),
    Mutation(
        "workflow version 3", _W, "workflow-version-unsupported", "MAY",
        "workflow.validation.workflow-version-3", _version(3),
    ),
    Mutation(
        "workflow version as a string", _W, "schema", "MUST",
        "workflow.validation.schema-version-string", _version("1"),
    ),
    Mutation(
        "an unknown property on a state", _W, "schema", "MUST",
        "workflow.validation.schema-state-unknown-property", _set("on_enter", "start"),
    ),
    Mutation(
        "an unknown property on the workflow", _W, "schema", "MUST",
        "workflow.validation.schema-workflow-unknown-property", _workflow_unknown_property,
    ),
    Mutation(
        "orchestration composition without a composition", _W, "composition-missing", "MUST",
        "workflow.validation.composition-missing", _composition_missing,
    ),
    Mutation(
        "on_max_visits names no state", _L, "on-max-visits-unknown", "MUST",
        "loops.validation.on-max-visits-unknown", _on_max_visits_unknown,
    ),
    Mutation(
        "max_visits 0", _L, "schema", "MUST",
        "loops.validation.max-visits-zero", _set("max_visits", 0),
    ),
    Mutation(
        "terminal not a boolean", _L, "schema", "MUST",
        "loops.validation.terminal-not-boolean", _set("terminal", "yes"),
    ),
    Mutation(
        "a budget of 0 tool calls", _L, "schema", "MUST",
        "loops.validation.budget-zero", _budget("max_tool_calls", 0),
    ),
    Mutation(
        "an unknown budget field", _L, "schema", "MUST",
        "loops.validation.budget-unknown-key", _budget("max_tokens", 100),
    ),
    Mutation(
        "an artifact without type", _L, "schema", "MUST",
        "loops.validation.artifact-without-type", _artifact("type", None),
    ),
    Mutation(
        "an artifact mode outside replace and append", _L, "schema", "MUST",
        "loops.validation.artifact-mode-invalid", _artifact("mode", "merge"),
    ),
    Mutation(
        "control outside user and agent", _CT, "control-invalid", "MUST",
        "control.validation.control-invalid-capitalised", _set("control", "Agent"),
    ),
    Mutation(
        "control not a string", _CT, "schema", "MUST",
        "control.validation.control-boolean", _set("control", True),
    ),
    Mutation(
        "an agent state naming no state", _SA, "agent-state-unknown", "MUST",
        "state-agents.validation.agent-state-unknown", _agent_state(UNKNOWN_STATE),
    ),
    Mutation(
        "an agent state not a string", _SA, "schema", "MUST",
        "state-agents.validation.agent-state-non-string", _agent_state(1),
    ),
    Mutation(
        "an agent state in a pack without workflow", _SA, "agent-state-without-workflow", "MUST",
        "state-agents.validation.agent-state-without-workflow", _agent_state_without_workflow,
    ),
    Mutation(
        "composition version 2", _C, "composition-version-unsupported", "MUST",
        "compositions.validation.version-unsupported", _composition_version,
    ),
    Mutation(
        "two steps with one id", _C, "step-id-duplicate", "MUST",
        "compositions.validation.step-id-duplicate", _step_id_duplicate,
    ),
    Mutation(
        "a step id starting with a digit", _C, "step-id-invalid", "MUST",
        "compositions.validation.step-id-invalid", _step_field("id", "9z"),
    ),
    Mutation(
        "a kind outside the five and not namespaced", _C, "step-kind-unknown", "MUST",
        "compositions.validation.step-kind-unknown", _step_field("kind", "summarize"),
    ),
    Mutation(
        "a tool step without tool", _C, "step-field-missing", "MUST",
        "compositions.validation.field-missing-tool", _step_field("tool", None),
    ),
    Mutation(
        "a prompt step naming no prompt", _C, "step-prompt-task-unknown", "MUST",
        "compositions.validation.prompt-task-unknown", _step_field("prompt_task", "nothing"),
    ),
    Mutation(
        "a tool step naming no tool", _C, "step-tool-unknown", "MUST",
        "compositions.validation.tool-unknown-by-name", _step_field("tool", "nothing"),
    ),
    Mutation(
        "depends_on names no step", _C, "step-target-unknown", "MUST",
        "compositions.validation.target-unknown-depends-on", _step_field("depends_on", ["zz"]),
    ),
    Mutation(
        "a reference to an unknown root", _C, "reference-unresolved", "MUST",
        "compositions.validation.reference-unknown-root",
        _step_field("input", "${nowhere.output}"),
    ),
    Mutation(
        "retry with max_attempts 0", _C, "schema", "MUST",
        "compositions.validation.retry-max-attempts-zero",
        _step_field("modifiers", {"retry": {"max_attempts": 0}}),
    ),
    Mutation(
        "a parallel with one branch", _C, "parallel-branches-too-few", "MUST",
        "compositions.validation.parallel-one-branch", _parallel_one_branch,
    ),
    Mutation(
        "a parallel without reduce", _C, "parallel-reduce-missing", "MUST",
        "compositions.validation.parallel-reduce-missing", _parallel_reduce_missing,
    ),
    Mutation(
        "a predicate with an unknown op", _C, "predicate-invalid", "MUST",
        "compositions.validation.predicate-unknown-op",
        _branch({"path": "${input.k}", "op": "like", "value": 1}),
    ),
    Mutation(
        "depends_on a later step", _C, "step-graph-cycle", "MUST",
        "compositions.validation.cycle-depends-on-later", _depends_on_later,
    ),
    Mutation(
        "a reduce strategy outside the three and not namespaced", _C,
        "reduce-strategy-unknown", "MAY",
        "compositions.validation.reduce-strategy-unknown", _reduce_strategy,
    ),
    Mutation(
        "a predicate path without ${...}", _C, "predicate-invalid", "MAY",
        "compositions.validation.predicate-bare-path",
        _branch({"path": "input.k", "op": "equals", "value": 1}),
    ),
    Mutation(
        "a composition named workflow__transition", _C, "composition-name-reserved", "MAY",
        "compositions.validation.name-reserved-transition", _reserved_name,
    ),
    Mutation(
        "output names no step", _C, "composition-output-unknown", "MAY",
        "compositions.validation.output-unknown", _output_unknown,
    ),
    Mutation(
        "a state's extensions a list", _EX, "schema", "MUST",
        "extensions.validation.state-non-object", _set("extensions", ["x"]),
    ),
    Mutation(
        "the prompt's extensions a string", _EX, "schema", "MUST",
        "extensions.validation.prompt-non-object", _prompt_field("extensions", "x"),
    ),
    Mutation(
        "the prompt's provider declared nowhere", _PR, "provider-unknown", "MUST",
        "providers.validation.prompt-provider-unknown-shorthand", _provider_unknown,
    ),
    Mutation(
        "the prompt's provider an object", _PR, "schema", "MUST",
        "providers.validation.prompt-provider-non-string",
        _prompt_field("provider", {"key": "default"}),
    ),
)  # fmt: skip
"""Every mutation :func:`near_valid_packs` applies, with its rule and requirement."""


def near_valid_packs(
    *,
    areas: Sequence[str] = (
        "workflow",
        "loops",
        "compositions",
        "control",
        "state-agents",
        "extensions",
        "providers",
    ),
    requirements: Sequence[Requirement] = ("MUST", "SHOULD", "MAY"),
    max_states: int = 3,
) -> st.SearchStrategy[NearValid]:
    """Packs with one targeted mutation each (see :data:`MUTATIONS`).

    Arguments:
        areas: only mutations of these areas.
        requirements: only mutations whose rule has one of these requirements (``("MUST",)``
            for what every runtime must refuse).
        max_states: the size of the valid pack mutated.

    Raises:
        ValueError: no mutation matches.
    """
    chosen = tuple(m for m in MUTATIONS if m.area in areas and m.requirement in requirements)
    if not chosen:
        raise ValueError(
            f"near_valid_packs(areas={list(areas)}, requirements={list(requirements)}): no "
            "mutation matches; areas are workflow, loops, compositions, control, state-agents, "
            "extensions and providers"
        )
    return _near_valid(chosen, max_states)


@cache
def _near_valid(chosen: tuple[Mutation, ...], max_states: int) -> st.SearchStrategy[NearValid]:
    bases = {
        _C: packs(max_states=max_states, workflow=False, compositions=True),
        _CT: packs(max_states=max_states, dead_ends=False, control=True),
        _SA: packs(max_states=max_states, dead_ends=False, state_agents=True),
        _EX: packs(max_states=max_states, dead_ends=False, extensions=True),
        _PR: packs(max_states=max_states, dead_ends=False, providers=True),
    }
    workflow_packs = packs(max_states=max_states, dead_ends=False)

    @st.composite
    def build(draw: st.DrawFn) -> NearValid:
        mutation = draw(st.sampled_from(chosen))
        base = bases.get(mutation.area, workflow_packs)
        pack = _copy(draw(base))
        pointer = mutation.apply(draw, pack)
        return NearValid(pack, mutation, pointer)

    return build()


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value
