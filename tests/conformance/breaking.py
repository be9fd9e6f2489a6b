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
``FiresTerminalTransitions``    takes an event a terminal state declares in ``on_event`` (X2)
``AcceptsEverything``           a validator that finds nothing wrong, ever
``StartReturnsNone``            ``start()`` returns ``None`` instead of a session or a refusal
``SkipsEverything``             answers ``Unsupported`` to everything but ``capabilities``
``Flaky``                       every other ``send`` is refused: the outcome depends on the run
``ExitsTheProcess``             calls ``sys.exit(3)`` while validating
``RaisesBaseException``         raises a ``BaseException`` subclass while starting a session
``IgnoresInsideNot``            never checks the predicate a ``not`` wraps (RFC 0010 rule 14)
``AcceptsBooleansAsIntegers``   a validator that takes ``true`` for the integer ``max_visits``
                                (Python's ``bool`` is an ``int``; R16)
``RefusesVendorKinds``          claims the kit's test extensions but fails their steps and
                                reducers when run (RFC 0010 Level 3)
``HandsOnAnotherValue``         runs the kit's test extensions, but later steps read a vendor
                                step's input, not its output, and a vendor reducer's first
                                branch, not the merged value under ``into`` (RFC 0010 Level 3)
=============================  ====================================================================

The fakes of :data:`CONTEXT_BUGS` each break one statement in one context only (SEMANTICS R16):
a budget ignored at an agent start, at a start at a named state or beside another budget kind,
an agent's event taken after a visit guard ended the workflow, an agent's redirect target not
counted, the agent given the turn by a host event, extensions refused at an agent start or, on a
parallel branch, at load, an agent step's loop left unbounded and a prompt step's tool calls run
in a parallel block.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from fakes import SessionWrapper, WrapsSessions, workflow_of
from mini_runtime import MiniRuntime, with_bugs

from conformance import (
    Capabilities,
    PackInput,
    PackRejected,
    ReferenceAdapter,
    Rejected,
    Unsupported,
)
from conformance._basics.areas import TOP_LEVEL
from conformance._fuzz.oracle import extension_pointers
from reference import Extensions

OneLevelRedirects = with_bugs("OneLevelRedirects", one_level_redirects=True)
BudgetOffByOne = with_bugs("BudgetOffByOne", budget_off_by_one=True)
EntryNotCounted = with_bugs("EntryNotCounted", entry_not_counted=True)
NeverBudgetExhausted = with_bugs("NeverBudgetExhausted", never_budget_exhausted=True)
IgnoresUnknownEvents = with_bugs("IgnoresUnknownEvents", ignores_unknown_events=True)
AppendReplaces = with_bugs("AppendReplaces", append_replaces=True)
FiresTerminalTransitions = with_bugs("FiresTerminalTransitions", terminal_transitions_fire=True)

SESSION_BUGS = (
    "OneLevelRedirects",
    "BudgetOffByOne",
    "EntryNotCounted",
    "NeverBudgetExhausted",
    "IgnoresUnknownEvents",
    "AppendReplaces",
)

__all__ = [
    "AcceptsBooleansAsIntegers",
    "AcceptsEverything",
    "AppendReplaces",
    "BudgetOffByOne",
    "EntryNotCounted",
    "ExitsTheProcess",
    "FiresTerminalTransitions",
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


class AcceptsBooleansAsIntegers(_Reference):
    NAME = "accepts-booleans-as-integers"

    def validate(self, pack: PackInput) -> Sequence[Mapping[str, Any]]:
        return [
            d
            for d in super().validate(pack)
            if not (
                d["severity"] == "error"
                and str(d["path"]).endswith("/max_visits")
                and isinstance(_value_at(pack, d["path"]), bool)
            )
        ]


def _value_at(pack: PackInput, pointer: str | None) -> Any:
    """The value at a JSON pointer of the pack (``None``: nothing there)."""
    node: Any = pack.document
    for part in (pointer or "").split("/")[1:]:
        if isinstance(node, dict):
            node = node.get(part.replace("~1", "/").replace("~0", "~"))
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return node if pointer else None


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


class IgnoresControl(WrapsSessions, _Reference):
    """Ignores RFC 0014 ``control``: the turn is the user's after every event, agent-sourced
    ones into ``control: agent`` states included (X18)."""

    NAME = "ignores-control"
    CLAIMS: Mapping[str, int] = {"workflow": 2, "loops": 2, "control": 2, "state-agents": 2}

    def wrap(self, pack: PackInput, session: Any) -> Any:
        return _Patched(session, _user_turn)


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


# -- RFC 0016, RFC 0017, and RFC 0014 at terminal states: what the fuzzer must find ---------------


def _slots(document: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """Every ``extensions`` slot the kit's areas have (states, prompts, agents members,
    compositions), as ``(JSON pointer, value)``, in document order."""
    found = []
    workflow = document.get("workflow")
    places = {
        "/prompts": document.get("prompts"),
        "/workflow/states": workflow.get("states") if isinstance(workflow, dict) else None,
        "/agents/members": (document.get("agents") or {}).get("members")
        if isinstance(document.get("agents"), dict)
        else None,
        "/compositions": document.get("compositions"),
    }
    for where, parts in places.items():
        if not isinstance(parts, dict):
            continue
        for key, part in parts.items():
            if isinstance(part, dict) and "extensions" in part:
                found.append((f"{where}/{key}/extensions", part["extensions"]))
    return found


class _AllAreas(_Reference):
    CLAIMS: ClassVar[Mapping[str, int]] = dict(TOP_LEVEL)


class ValidatesExtensions(_AllAreas):
    """Checks what ``extensions`` objects hold: a key that is not namespaced (``vendor/...`` or
    ``vendor.name``) is an error. RFC 0016 rule 12: contents "MUST NOT be validated"; keys
    without a namespace are a SHOULD for pack authors, never an error."""

    NAME = "validates-extensions"

    def validate(self, pack: PackInput) -> Sequence[Mapping[str, Any]]:
        found = list(super().validate(pack))
        for where, value in _slots(pack.document or {}):
            if not isinstance(value, dict):
                continue
            for key in value:
                if "/" not in key and "." not in key:
                    found.append(
                        {
                            "code": "schema",
                            "severity": "error",
                            "path": where,
                            "message": f"extensions key {key!r} is not namespaced",
                        }
                    )
        return found


class RefusesExtensions(_AllAreas):
    """Refuses every pack that carries ``extensions``, as an unknown field: RFC 0016 Level 0,
    "Packs carrying them remain valid and execute identically"."""

    NAME = "refuses-extensions"

    def _refuse(self, pack: PackInput) -> None:
        if _slots(pack.document or {}):
            raise PackRejected("extensions is not a known field")

    def validate(self, pack: PackInput) -> Sequence[Mapping[str, Any]]:
        found = list(super().validate(pack))
        for where, _ in _slots(pack.document or {}):
            found.append(
                {"code": "schema", "severity": "error", "path": where, "message": "unknown"}
            )
        return found

    def load(self, pack: PackInput) -> None:
        self._refuse(pack)
        super().load(pack)

    def start(self, pack: PackInput) -> Any:
        self._refuse(pack)
        return super().start(pack)

    def start_at(
        self, pack: PackInput, *, state: str | None = None, agent: str | None = None
    ) -> Any:
        self._refuse(pack)
        return super().start_at(pack, state=state, agent=agent)

    def run_composition(
        self, pack: PackInput, name: str, input: Any, mocks: Mapping[str, Any]
    ) -> Mapping[str, Any]:
        self._refuse(pack)
        return super().run_composition(pack, name, input, mocks)


class InterpretsExtensions(_AllAreas):
    """Reads a state's ``extensions`` as overrides of its fields: ``terminal`` and
    ``max_visits`` found there apply to the state. RFC 0016 rule 12: contents "MUST NOT be
    ... interpreted"; the pack must run as it would without them."""

    NAME = "interprets-extensions"
    FIELDS = ("terminal", "max_visits")

    def _interpreted(self, pack: PackInput) -> PackInput:
        document = pack.document or {}
        workflow = document.get("workflow")
        if not isinstance(workflow, dict) or not isinstance(workflow.get("states"), dict):
            return pack
        states = {}
        for name, state in workflow["states"].items():
            extra = state.get("extensions") if isinstance(state, dict) else None
            overrides = {k: extra[k] for k in self.FIELDS if k in extra} if extra else {}
            states[name] = {**state, **overrides} if isinstance(extra, dict) else state
        changed = {**document, "workflow": {**workflow, "states": states}}
        return PackInput(json.dumps(changed), "json", changed, pack.source)

    def start(self, pack: PackInput) -> Any:
        return super().start(self._interpreted(pack))

    def start_at(
        self, pack: PackInput, *, state: str | None = None, agent: str | None = None
    ) -> Any:
        return super().start_at(self._interpreted(pack), state=state, agent=agent)


def _providers_declared(document: Mapping[str, Any]) -> set[str]:
    requires = document.get("requires")
    listed = requires.get("providers") if isinstance(requires, dict) else None
    keys = set()
    for entry in listed if isinstance(listed, list) else []:
        key = entry.get("key") if isinstance(entry, dict) else entry
        if isinstance(key, str):
            keys.add(key)
    return keys


def _provider_fields(document: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """Every ``provider`` field of prompts and of prompt and agent steps, as ``(JSON pointer,
    value)``."""
    found = []
    for key, prompt in (document.get("prompts") or {}).items():
        if isinstance(prompt, dict) and "provider" in prompt:
            found.append((f"/prompts/{key}/provider", prompt["provider"]))
    for name, composition in (document.get("compositions") or {}).items():
        steps = composition.get("steps") if isinstance(composition, dict) else None
        for index, step in enumerate(steps if isinstance(steps, list) else []):
            members = [(f"/steps/{index}", step)]
            if isinstance(step, dict) and isinstance(step.get("branches"), list):
                members += [
                    (f"/steps/{index}/branches/{i}", b) for i, b in enumerate(step["branches"])
                ]
            for where, member in members:
                if isinstance(member, dict) and "provider" in member:
                    found.append((f"/compositions/{name}{where}/provider", member["provider"]))
    return found


class AcceptsUnknownProvider(_AllAreas):
    """Never reports ``provider-unknown``: a provider naming no requirement passes. RFC 0017
    rule 1: it "MUST equal the key of an entry in requires.providers"."""

    NAME = "accepts-unknown-provider"

    def validate(self, pack: PackInput) -> Sequence[Mapping[str, Any]]:
        return [d for d in super().validate(pack) if d["code"] != "provider-unknown"]

    def load(self, pack: PackInput) -> None:
        if not any(d["severity"] == "error" for d in self.validate(pack)):
            return
        super().load(pack)


class RejectsUndeclaredDefault(_AllAreas):
    """Reports ``provider: default`` as ``provider-unknown`` unless ``requires.providers``
    declares ``default``. RFC 0017 rule 1: "default is always valid"."""

    NAME = "rejects-undeclared-default"

    def validate(self, pack: PackInput) -> Sequence[Mapping[str, Any]]:
        found = list(super().validate(pack))
        document = pack.document or {}
        if "default" in _providers_declared(document):
            return found
        for where, value in _provider_fields(document):
            if value == "default":
                found.append(
                    {
                        "code": "provider-unknown",
                        "severity": "error",
                        "path": where,
                        "message": "default is not declared",
                    }
                )
        return found


ErrorsOnOptionalProvider = warning_as_error("provider-optional-referenced")
"""Reports a provider naming a ``required: false`` requirement as an error. RFC 0017 rule 4:
such a reference "is valid"."""


class _TerminalAgentTurn(SessionWrapper):
    """A reference session that keeps the agent's turn after an agent event enters a terminal
    ``control: agent`` state."""

    def __init__(self, session: Any, states: Mapping[str, Any]) -> None:
        super().__init__(session)
        self._states = states
        self._kept = False

    def send(self, event: str, source: str) -> Mapping[str, Any]:
        moved = self._session.send(event, source)
        entered = self._states.get(moved["to"]) or {}
        self._kept = (
            source == "agent"
            and entered.get("terminal") is True
            and entered.get("control") == "agent"
        )
        return moved  # type: ignore[no-any-return]

    def user_turn(self) -> None:
        self._kept = False
        self._session.user_turn()

    def agent_text(self, text: str) -> None:
        self._kept = False
        self._session.agent_text(text)

    def state(self) -> Mapping[str, Any]:
        data = dict(self._session.state())
        if self._kept:
            data["turn"] = "agent"
        return data


class KeepsAgentTurnAtTerminal(WrapsSessions, _AllAreas):
    """Keeps the agent's turn when an agent event enters a terminal ``control: agent`` state.
    RFC 0014 rule 3: "a terminal state ends the conversation regardless"; the loop ends there
    (Detailed Design), so the turn is the user's."""

    NAME = "keeps-agent-turn-at-terminal"

    def wrap(self, pack: PackInput, session: Any) -> Any:
        return _TerminalAgentTurn(session, workflow_of(pack).get("states") or {})


class IgnoresInsideNot(_AllAreas):
    """Finds nothing wrong inside a ``not`` predicate: a validator that checks the top of a
    branch's predicate but not what ``not`` wraps, as a mutant of the reference did. RFC 0010
    rule 14: "BranchStep.predicate MUST conform to the constrained Predicate shape", and
    ``NotPredicate`` wraps a ``Predicate``."""

    NAME = "ignores-inside-not"

    def validate(self, pack: PackInput) -> Sequence[Mapping[str, Any]]:
        return [d for d in super().validate(pack) if "/predicate/not" not in (d["path"] or "")]

    def load(self, pack: PackInput) -> None:
        if not any(d["severity"] == "error" for d in self.validate(pack)):
            return
        super().load(pack)


MUTANT_BUGS = {
    "IgnoresInsideNot": "compositions",
    "RefusesVendorKinds": "compositions",
    "HandsOnAnotherValue": "compositions",
}
"""Fakes the catalog must catch, each with the area whose level it must lose: a rule broken the
way a surviving mutant of the reference did (tools/mutation), or the kit's Level 3 test
extensions mishandled. The fuzzer finds the first two too (``test_fuzz_goal.CAUGHT``); its
compositions never read a step's output through a reference, which ``HandsOnAnotherValue``
changes."""


class RefusesVendorKinds(_AllAreas):
    """Claims Level 3 and the kit's test extensions, yet runs with none registered: a
    ``ppconf.upper`` step or ``ppconf.join`` reducer fails when reached. RFC 0010 Level 3 is a
    registered vendor kind or reducer taking part in the step graph: compositions loses it."""

    NAME = "refuses-vendor-kinds"

    def __init__(self) -> None:
        super().__init__()
        self._claimed = self._extensions
        self._extensions = Extensions()

    def capabilities(self) -> Capabilities:
        claimed = (*self._claimed.kinds, *self._claimed.reducers)
        return Capabilities(self.NAME, "0.0", "python", self.CLAIMS, claimed)


class HandsOnAnotherValue(_AllAreas):
    """Runs the kit's test extensions, and its trace reports what they give, but hands later
    steps another value: a ``ppconf.upper`` step's own input in place of its output, and a
    ``ppconf.join`` parallel's first branch in place of the value merged under ``into``. RFC
    0010: "${stepId.output.X} — a prior step's structured output", a reducer's ``into`` is the
    "Name under which the merged result is exposed to subsequent steps": compositions loses
    Level 3, though every value it gives is one the MUST checks accept alone."""

    NAME = "hands-on-another-value"

    def run_composition(
        self, pack: PackInput, name: str, input: Any, mocks: Mapping[str, Any]
    ) -> Mapping[str, Any]:
        text = json.dumps(pack.document)
        for composition in ((pack.document or {}).get("compositions") or {}).values():
            for step in composition.get("steps") or []:
                if step.get("kind") == "ppconf.upper" and isinstance(step.get("input"), str):
                    text = text.replace("${" + step["id"] + ".output}", step["input"])
                reduce, branches = step.get("reduce") or {}, step.get("branches") or [{}]
                if reduce.get("strategy") == "ppconf.join":
                    merged = "${" + f"{step['id']}.output.{reduce.get('into')}" + "}"
                    text = text.replace(merged, "${" + f"{branches[0].get('id')}.output" + "}")
        document = json.loads(text)
        return super().run_composition(
            PackInput(json.dumps(document), "json", document, pack.source), name, input, mocks
        )


AREA_BUGS = {
    "ValidatesExtensions": "extensions",
    "RefusesExtensions": "extensions",
    "InterpretsExtensions": "extensions",
    "AcceptsUnknownProvider": "providers",
    "RejectsUndeclaredDefault": "providers",
    "ErrorsOnOptionalProvider": "providers",
    "KeepsAgentTurnAtTerminal": "control",
}
"""The RFC 0016, RFC 0017 and RFC 0014 (terminal state) fakes, each with the area of the rule
it breaks (where the fuzzer must find it, once it generates that area)."""


# -- R16: a statement broken in one context only -------------------------------------------------
# Each keeps every statement everywhere else, as the reference does, so only a case exercising
# the statement in that context (cases/statements/contexts/) can tell it apart.


def _without_budget(pack: PackInput, kinds: Sequence[str]) -> PackInput:
    """The pack with the budget ``kinds`` taken out of ``workflow.engine.budget``."""
    document = json.loads(json.dumps(pack.document))
    budget = ((document.get("workflow") or {}).get("engine") or {}).get("budget")
    if isinstance(budget, dict):
        for kind in kinds:
            budget.pop(kind, None)
    return PackInput(json.dumps(document), "json", document, pack.source)


class _BudgetIgnoredAtOneStart(_AllAreas):
    """Enforces the budget ``KIND`` at every start but one: as an agent (``AT = "agent"``) or at
    a named state (``AT = "state"``)."""

    KIND: ClassVar[str]
    AT: ClassVar[str]

    def start_at(
        self, pack: PackInput, *, state: str | None = None, agent: str | None = None
    ) -> Any:
        if (agent if self.AT == "agent" else state) is not None:
            pack = _without_budget(pack, (self.KIND,))
        return super().start_at(pack, state=state, agent=agent)


class WallTimeIgnoredAtAgentStart(_BudgetIgnoredAtOneStart):
    """Enforces ``max_wall_time_sec`` on a session started at the entry or at a named state,
    never on one started as an agent (RFC 0011): RFC 0009 "Maximum wall-clock time in seconds
    for the entire workflow execution", however it started."""

    NAME = "wall-time-ignored-at-agent-start"
    KIND, AT = "max_wall_time_sec", "agent"


class WallTimeIgnoredAtStateStart(_BudgetIgnoredAtOneStart):
    """Enforces ``max_wall_time_sec`` on a session started at the entry or as an agent, never on
    one started at a named state (``at_state``), as a mutant of the reference did."""

    NAME = "wall-time-ignored-at-state-start"
    KIND, AT = "max_wall_time_sec", "state"


class VisitBudgetIgnoredAtAgentStart(_BudgetIgnoredAtOneStart):
    """Enforces ``max_total_visits`` on a session started at the entry or at a named state, never
    on one started as an agent."""

    NAME = "visit-budget-ignored-at-agent-start"
    KIND, AT = "max_total_visits", "agent"


class VisitBudgetIgnoredAtStateStart(_BudgetIgnoredAtOneStart):
    """Enforces ``max_total_visits`` on a session started at the entry or as an agent, never on
    one started at a named state."""

    NAME = "visit-budget-ignored-at-state-start"
    KIND, AT = "max_total_visits", "state"


class ToolCallsIgnoredBesideOtherLimits(_AllAreas):
    """Enforces ``max_tool_calls`` when it is the only budget kind, never beside another one:
    RFC 0009 "When any budget limit is reached, the workflow terminates"."""

    NAME = "tool-calls-ignored-beside-other-limits"

    def _pack(self, pack: PackInput) -> PackInput:
        budget = (workflow_of(pack).get("engine") or {}).get("budget") or {}
        others = {"max_total_visits", "max_wall_time_sec"} & set(budget)
        return _without_budget(pack, ("max_tool_calls",)) if others else pack

    def start(self, pack: PackInput) -> Any:
        return super().start(self._pack(pack))

    def start_at(
        self, pack: PackInput, *, state: str | None = None, agent: str | None = None
    ) -> Any:
        return super().start_at(self._pack(pack), state=state, agent=agent)

    def restore(self, pack: PackInput, snapshot: Any) -> Any:
        return super().restore(self._pack(pack), snapshot)


class _Reopens(SessionWrapper):
    """A reference session that, once ``max-visits-exceeded`` has ended the workflow, still
    refuses host events but takes the next agent event as if the workflow had not ended."""

    def __init__(self, session: Any, adapter: ReferenceAdapter, pack: PackInput) -> None:
        super().__init__(session)
        self._adapter = adapter
        self._pack = pack
        self._before: Any = None

    def send(self, event: str, source: str) -> Mapping[str, Any]:
        if self._before is not None and source == "agent":
            self._session = self._adapter.restore(self._pack, self._before)
        before = self._session.snapshot()
        try:
            moved = self._session.send(event, source)
        except Rejected as rejection:
            if rejection.code == "max-visits-exceeded" and self._before is None:
                self._before = before
            raise
        self._before = None
        return moved  # type: ignore[no-any-return]


class EndedByMaxVisitsTakesAgentEvents(_AllAreas):
    """When ``max_visits`` is reached without ``on_max_visits``, ends the workflow and refuses
    host events, but takes the agent's next transition: RFC 0009 "If on_max_visits is not set,
    the workflow terminates", whoever sends the next event."""

    NAME = "ended-by-max-visits-takes-agent-events"

    def _wrapped(self, pack: PackInput, session: Any) -> Any:
        return _Reopens(session, ReferenceAdapter(), pack)

    def start(self, pack: PackInput) -> Any:
        return self._wrapped(pack, super().start(pack))

    def start_at(
        self, pack: PackInput, *, state: str | None = None, agent: str | None = None
    ) -> Any:
        return self._wrapped(pack, super().start_at(pack, state=state, agent=agent))


class _RedirectCounts(SessionWrapper):
    """A reference session that leaves a redirect target's first visit out of ``visit_counts``
    when an agent's transition was redirected."""

    def __init__(self, session: Any) -> None:
        super().__init__(session)
        self._uncounted: set[str] = set()

    def send(self, event: str, source: str) -> Mapping[str, Any]:
        counts = dict(self._session.state()["visit_counts"])
        moved = self._session.send(event, source)
        if source == "agent" and moved.get("redirected") and moved["to"] not in counts:
            self._uncounted.add(moved["to"])
        return moved  # type: ignore[no-any-return]

    def state(self) -> Mapping[str, Any]:
        data = dict(self._session.state())
        counts = dict(data["visit_counts"])
        for name in self._uncounted:
            counts[name] -= 1
            if not counts[name]:
                del counts[name]
        return {**data, "visit_counts": counts}


class AgentRedirectTargetUncounted(WrapsSessions, _AllAreas):
    """Enters the ``on_max_visits`` target of an agent's redirected transition but does not
    count that first entry as a visit (a host's redirect counts):
    RFC 0009 ``max_visits`` counts every time a state "can be entered"."""

    NAME = "agent-redirect-target-uncounted"

    def wrap(self, pack: PackInput, session: Any) -> Any:
        return _RedirectCounts(session)


class _HostIntoAgentState(SessionWrapper):
    """A reference session that gives the agent the turn after a host event from an internal
    state into an external ``control: agent`` state."""

    def __init__(self, session: Any, states: Mapping[str, Any]) -> None:
        super().__init__(session)
        self._states = states
        self._agent = False

    def send(self, event: str, source: str) -> Mapping[str, Any]:
        moved = self._session.send(event, source)
        came = self._states.get(moved["from"]) or {}
        entered = self._states.get(moved["to"]) or {}
        self._agent = (
            source == "host"
            and came.get("orchestration", "internal") == "internal"
            and entered.get("orchestration") == "external"
            and entered.get("control") == "agent"
            and entered.get("terminal") is not True
        )
        return moved  # type: ignore[no-any-return]

    def user_turn(self) -> None:
        self._agent = False
        self._session.user_turn()

    def state(self) -> Mapping[str, Any]:
        data = dict(self._session.state())
        if self._agent and data.get("status") == "active":
            data["turn"] = "agent"
        return data


class HostEventFromInternalGivesAgentTurn(WrapsSessions, _AllAreas):
    """Gives the agent the turn when a host event moves from an internal state into an external
    ``control: agent`` state: RFC 0014 "`control` is only consulted on an agent-initiated
    transition"."""

    NAME = "host-event-from-internal-gives-agent-turn"

    def wrap(self, pack: PackInput, session: Any) -> Any:
        return _HostIntoAgentState(session, workflow_of(pack).get("states") or {})


class RefusesExtensionsAtAgentStart(_AllAreas):
    """Loads, validates and starts at the entry a pack carrying ``extensions``, but refuses to
    start it as an agent: RFC 0016 Level 0, "Packs carrying them remain valid and execute
    identically"."""

    NAME = "refuses-extensions-at-agent-start"

    def start_at(
        self, pack: PackInput, *, state: str | None = None, agent: str | None = None
    ) -> Any:
        if agent is not None and _slots(pack.document or {}):
            raise Rejected("extensions-unsupported", message="extensions at an agent start")
        return super().start_at(pack, state=state, agent=agent)


class RefusesExtensionsAtLoad(_AllAreas):
    """Validates a pack carrying ``extensions`` on a step inside a parallel block as valid, but
    refuses to load it: RFC 0016 Level 0, in every slot RFC 0016 allows."""

    NAME = "refuses-extensions-at-load"

    def load(self, pack: PackInput) -> None:
        if any("/branches/" in where for where in extension_pointers(pack.document or {})):
            raise PackRejected("extensions are not supported here")
        super().load(pack)


class MaxStepsIgnoredInParallel(_AllAreas):
    """Bounds an agent step's loop by ``termination.max_steps`` in sequence, never when the step
    is a branch of a parallel block: RFC 0010 "AgentStep (kind: "agent") — a bounded LLM-tool
    loop", wherever the step stands."""

    NAME = "max-steps-ignored-in-parallel"

    def run_composition(
        self, pack: PackInput, name: str, input: Any, mocks: Mapping[str, Any]
    ) -> Mapping[str, Any]:
        document = json.loads(json.dumps(pack.document))
        for composition in (document.get("compositions") or {}).values():
            for step in composition.get("steps") or []:
                for branch in step.get("branches") or [] if step.get("kind") == "parallel" else []:
                    termination = branch.get("termination")
                    if branch.get("kind") == "agent" and isinstance(termination, dict):
                        termination["max_steps"] = 1_000
        unbounded = PackInput(json.dumps(document), "json", document, pack.source)
        return super().run_composition(unbounded, name, input, mocks)


class PromptBranchRunsToolCalls(_AllAreas):
    """Runs the tool calls a prompt step's model answer asks for when the step is a branch of a
    parallel block (each call takes the tool's next answer), never in sequence: RFC 0010 a prompt
    step is "a one-shot LLM invocation ... No tool calls", wherever the step stands."""

    NAME = "prompt-branch-runs-tool-calls"

    def run_composition(
        self, pack: PackInput, name: str, input: Any, mocks: Mapping[str, Any]
    ) -> Mapping[str, Any]:
        steps = ((pack.document or {}).get("compositions") or {}).get(name, {}).get("steps")
        changed = json.loads(json.dumps(mocks))
        for step in steps if isinstance(steps, list) else []:
            for branch in step.get("branches") or [] if step.get("kind") == "parallel" else []:
                answers = changed.get(branch.get("id")) if branch.get("kind") == "prompt" else None
                first = answers[0] if isinstance(answers, list) and answers else None
                calls = first.pop("tool_calls", None) if isinstance(first, dict) else None
                for call in calls if isinstance(calls, list) else []:
                    tool = changed.get(call.get("tool"))
                    if isinstance(tool, list) and tool:
                        tool.pop(0)  # the tool ran, and took its answer
        return super().run_composition(pack, name, input, changed)


CONTEXT_BUGS = {
    "WallTimeIgnoredAtAgentStart": ("state-agents", "start:agent"),
    "VisitBudgetIgnoredAtAgentStart": ("state-agents", "start:agent"),
    "WallTimeIgnoredAtStateStart": ("state-agents", "start:state"),
    "VisitBudgetIgnoredAtStateStart": ("state-agents", "start:state"),
    "ToolCallsIgnoredBesideOtherLimits": ("loops", "budget:all"),
    "EndedByMaxVisitsTakesAgentEvents": ("loops", "source:agent"),
    "AgentRedirectTargetUncounted": ("loops", "source:agent"),
    "HostEventFromInternalGivesAgentTurn": ("control", "orchestration:external"),
    "RefusesExtensionsAtAgentStart": ("state-agents", "start:agent"),
    "RefusesExtensionsAtLoad": ("extensions", "check:load"),
    "MaxStepsIgnoredInParallel": ("compositions", "step:parallel"),
    "PromptBranchRunsToolCalls": ("compositions", "step:parallel"),
}
"""The fakes breaking a statement in one context only (R16): each with the area that loses a
level, and the context every case part it fails at MUST exercises."""
