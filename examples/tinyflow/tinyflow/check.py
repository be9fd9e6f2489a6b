"""tinyflow's pack checker: what tinyflow needs to run a workflow, and a few friendly lints.

:func:`check` returns :class:`Problem` objects in tinyflow's own words. Fatal problems stop
:meth:`tinyflow.Engine.start`; the others are advice. tinyflow checks the pack's root and
prompts only as far as it reads them, and the ``workflow`` section in full; it does not look
at ``compositions`` beyond their names.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

Where = tuple[str, ...]
"""A place in the pack: the keys leading to it from the root."""

STATE_KEYS = frozenset(
    {
        "prompt_task",
        "description",
        "on_event",
        "persistence",
        "orchestration",
        "composition",
        "skills",
        "terminal",
        "max_visits",
        "on_max_visits",
        "artifacts",
    }
)
ABSENT = object()
"""A field the pack leaves out: ``null`` is a value (of the wrong type), not an absent field."""
WORKFLOW_KEYS = frozenset({"version", "entry", "states", "engine"})
SLOT_KEYS = frozenset({"type", "description", "mode"})
MODES = ("internal", "external", "hybrid", "composition")
BUDGETS = ("max_total_visits", "max_tool_calls", "max_wall_time_sec")
VERSIONS = (1, 2)
_EVENT_NAME = re.compile(r"[A-Z][a-zA-Z0-9]*")


@dataclass(frozen=True)
class Problem:
    """Something tinyflow has to say about a pack.

    Attributes:
        kind: what is wrong, e.g. ``bad-shape`` or ``no-such-entry``.
        text: the explanation.
        where: the keys leading to the offending value, or ``None`` when tinyflow cannot say.
        fatal: whether the workflow cannot run (``False``: advice only).
    """

    kind: str
    text: str
    where: Where | None = None
    fatal: bool = True


def check(pack: Any) -> list[Problem]:
    """Every problem tinyflow finds in a pack, fatal ones first."""
    checker = _Checker()
    checker.pack(pack)
    return sorted(checker.problems, key=lambda p: not p.fatal)


def is_int(value: Any) -> bool:
    """Whether a YAML/JSON value is an integer (booleans are not)."""
    return isinstance(value, int) and not isinstance(value, bool)


class _Checker:
    def __init__(self) -> None:
        self.problems: list[Problem] = []

    def add(self, kind: str, text: str, where: Where | None, fatal: bool = True) -> None:
        self.problems.append(Problem(kind, text, where, fatal))

    def shape(self, text: str, where: Where) -> None:
        self.add("bad-shape", text, where)

    def string(self, parent: Mapping[str, Any], key: str, where: Where, required: bool) -> None:
        if key not in parent:
            if required:
                self.shape(f"missing {key!r}", where)
        elif not isinstance(parent[key], str):
            self.shape(f"{key!r} must be text", (*where, key))

    def closed(self, value: Mapping[str, Any], keys: frozenset[str], where: Where) -> None:
        for key in value:
            if key not in keys:
                self.shape(f"unknown field {key!r}", (*where, key))

    # -- the root ------------------------------------------------------------------------------

    def pack(self, pack: Any) -> None:
        if not isinstance(pack, Mapping):
            self.shape("a pack is a mapping", ())
            return
        for key in ("id", "name", "version"):
            self.string(pack, key, (), required=True)
        engine = pack.get("template_engine")
        if engine is None:
            self.shape("missing 'template_engine'", ())
        elif not isinstance(engine, Mapping):
            self.shape("'template_engine' must be a mapping", ("template_engine",))
        else:
            for key in ("version", "syntax"):
                self.string(engine, key, ("template_engine",), required=True)
        prompts = pack.get("prompts")
        if not isinstance(prompts, Mapping) or not prompts:
            self.shape("a pack needs a mapping of prompts", () if prompts is None else ("prompts",))
            prompts = {}
        for key, prompt in prompts.items():
            where = ("prompts", key)
            if not isinstance(prompt, Mapping):
                self.shape("a prompt is a mapping", where)
                continue
            for field in ("id", "name", "version", "system_template"):
                self.string(prompt, field, where, required=True)
            if prompt.get("system_template") == "":
                self.shape("'system_template' is empty", (*where, "system_template"))
        if "workflow" in pack:
            compositions = pack.get("compositions")
            names = set(compositions) if isinstance(compositions, Mapping) else set()
            self.workflow(pack["workflow"], set(prompts), names)

    # -- the workflow --------------------------------------------------------------------------

    def workflow(self, workflow: Any, prompts: set[str], compositions: set[str]) -> None:
        where: Where = ("workflow",)
        if not isinstance(workflow, Mapping):
            self.shape("'workflow' must be a mapping", where)
            return
        self.closed(workflow, WORKFLOW_KEYS, where)
        version = workflow.get("version")
        if "version" not in workflow:
            self.shape("missing 'version'", where)
        elif not is_int(version):
            self.shape("'version' must be a whole number", (*where, "version"))
        elif version not in VERSIONS:
            self.add(
                "version", f"tinyflow runs versions 1 and 2, not {version}", (*where, "version")
            )
        self.string(workflow, "entry", where, required=True)
        self.engine(workflow.get("engine", ABSENT), (*where, "engine"))
        states = workflow.get("states")
        if states is None:
            self.shape("missing 'states'", where)
            states = {}
        elif not isinstance(states, Mapping) or not states:
            self.shape("'states' must be a non-empty mapping", (*where, "states"))
            states = states if isinstance(states, Mapping) else {}
        for name, state in states.items():
            self.state(name, state, set(states), prompts, compositions)
        entry = workflow.get("entry")
        if isinstance(entry, str) and entry not in states:
            self.add("no-such-entry", f"entry {entry!r} is not a state", (*where, "entry"))
        if isinstance(entry, str) and entry in states:
            self.lints(entry, states)

    def engine(self, engine: Any, where: Where) -> None:
        if engine is ABSENT:
            return
        if not isinstance(engine, Mapping):
            self.shape("'engine' must be a mapping", where)
            return
        budget = engine.get("budget", ABSENT)
        if budget is ABSENT:
            return
        if not isinstance(budget, Mapping):
            self.shape("'budget' must be a mapping", (*where, "budget"))
            return
        self.closed(budget, frozenset(BUDGETS), (*where, "budget"))
        for key in BUDGETS:
            if key in budget and not (is_int(budget[key]) and budget[key] >= 1):
                self.shape(f"{key!r} must be a whole number >= 1", (*where, "budget", key))

    def state(
        self, name: str, state: Any, states: set[str], prompts: set[str], compositions: set[str]
    ) -> None:
        where: Where = ("workflow", "states", name)
        if not isinstance(state, Mapping):
            self.shape(f"state {name!r} must be a mapping", where)
            return
        self.closed(state, STATE_KEYS, where)
        for key in (
            "prompt_task",
            "description",
            "persistence",
            "composition",
            "skills",
            "on_max_visits",
        ):
            self.string(state, key, where, required=False)
        if "terminal" in state and not isinstance(state["terminal"], bool):
            self.shape("'terminal' must be true or false", (*where, "terminal"))
        if "max_visits" in state and not (is_int(state["max_visits"]) and state["max_visits"] >= 1):
            self.shape("'max_visits' must be a whole number >= 1", (*where, "max_visits"))
        self.events(state.get("on_event", ABSENT), (*where, "on_event"), states)
        self.slots(state.get("artifacts", ABSENT), (*where, "artifacts"))

        mode = state.get("orchestration", "internal")
        if not isinstance(mode, str):
            self.shape("'orchestration' must be text", (*where, "orchestration"))
            mode = "internal"
        elif mode not in MODES:
            self.add("bad-mode", f"unknown orchestration {mode!r}", (*where, "orchestration"))
            mode = "internal"
        task, composition = state.get("prompt_task"), state.get("composition")
        if mode == "composition":
            if composition is None:
                self.add("needs-composition", "a composition state names no composition", where)
            elif isinstance(composition, str) and composition not in compositions:
                self.add(
                    "no-such-composition",
                    f"no composition {composition!r}",
                    (*where, "composition"),
                )
        else:
            if composition is not None:
                self.add(
                    "composition-here",
                    "only composition states run compositions",
                    (*where, "composition"),
                )
            if task is None:
                self.add("no-prompt", f"state {name!r} has no prompt_task", where)
            elif isinstance(task, str) and task not in prompts:
                self.add("no-such-prompt", f"no prompt {task!r}", (*where, "prompt_task"))
        fallback = state.get("on_max_visits")
        if isinstance(fallback, str) and fallback not in states:
            self.add("no-such-fallback", f"no state {fallback!r}", (*where, "on_max_visits"))

    def events(self, on_event: Any, where: Where, states: set[str]) -> None:
        if on_event is ABSENT:
            return
        if not isinstance(on_event, Mapping):
            self.shape("'on_event' maps events to states", where)
            return
        for event, target in on_event.items():
            if not isinstance(target, str):
                self.shape(f"event {event!r} must name one state", (*where, event))
            elif target not in states:
                self.add("no-such-target", f"event {event!r} leads to no state", (*where, event))
            if not _EVENT_NAME.fullmatch(event):
                self.add("event-name", f"write {event!r} in PascalCase", (*where, event), False)

    def slots(self, artifacts: Any, where: Where) -> None:
        if artifacts is ABSENT:
            return
        if not isinstance(artifacts, Mapping):
            self.shape("'artifacts' maps names to declarations", where)
            return
        for name, slot in artifacts.items():
            if not isinstance(slot, Mapping):
                self.shape(f"artifact {name!r} must be a mapping", (*where, name))
                continue
            self.closed(slot, SLOT_KEYS, (*where, name))
            self.string(slot, "type", (*where, name), required=True)
            self.string(slot, "description", (*where, name), required=False)
            if slot.get("mode", "replace") not in ("replace", "append"):
                self.shape("'mode' is replace or append", (*where, name, "mode"))

    # -- advice --------------------------------------------------------------------------------

    def lints(self, entry: str, states: Mapping[str, Any]) -> None:
        """States nothing leads to, and events declared where they can never fire."""
        seen, todo = {entry}, [entry]
        while todo:
            state = states[todo.pop()]
            if not isinstance(state, Mapping):
                continue
            targets: list[Any] = []
            on_event = state.get("on_event")
            if isinstance(on_event, Mapping) and state.get("terminal") is not True:
                targets.extend(on_event.values())
            targets.append(state.get("on_max_visits"))
            for target in targets:
                if isinstance(target, str) and target in states and target not in seen:
                    seen.add(target)
                    todo.append(target)
        for name, state in states.items():
            where: Where = ("workflow", "states", name)
            if name not in seen:
                self.add("unreachable", f"nothing leads to state {name!r}", where, False)
            if (
                isinstance(state, Mapping)
                and state.get("terminal") is True
                and state.get("on_event")
            ):
                self.add(
                    "events-on-terminal",
                    f"state {name!r} is terminal, so its events never fire",
                    (*where, "on_event"),
                    False,
                )
