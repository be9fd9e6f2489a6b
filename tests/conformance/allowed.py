"""Runtimes that make choices the RFCs allow: the kit must give them the reference's levels.

Each wraps the reference adapter and changes one thing SEMANTICS section 0 leaves open (R2-R4).
``ppconf run --adapter allowed:Name`` with this folder on ``sys.path``.

=============================  ====================================================================
``BudgetStatusAtOnce``          reports ``budget_exhausted`` as soon as a tool-call or wall-time
                                limit is reached, before the next event (R4, X8)
``SchemaErrorsWithoutPointers``  reports ``schema`` errors with no JSON pointer (R2: pointers MAY)
``SchemaErrorsAtParent``        reports ``schema`` errors at the object holding the offending value
                                (R19: at or above the constraint's place)
``RedundantErrors``             reports every error twice, the second time as ``schema`` (R2:
                                extra errors on an invalid pack are fine)
``EveryErrorCode``              reports every error code of the kit's vocabulary on an invalid
                                pack, beside its own (R2: extra errors on an invalid pack are
                                allowed)
``NoKitLints``                  never reports the kit's own lints (R3: MAY)
``Version3AsVersion2``          starts a ``version: 3`` workflow as version 2 (R4, X16: refusing
                                at start is SHOULD)
``OtherMergeOrder``             merges parallel branches in reverse branch order (R4, C3)
``BranchJumps``                 a branch jumps to its taken target, skipping the steps between
                                (R4, C2)
``OtherTurnChoices``            the turn choices RFC 0014 leaves open made the other way
``EndsAtVisitLimit``            ends the workflow as soon as the visits reach
                                ``max_total_visits`` (R12)
``IgnoresProviderAndExtensions``  RFC 0016/0017 Level 0: ``provider`` and ``extensions`` are
                                unknown fields; claims neither area (R11)
``StepTextAsString``            a prompt or agent step without ``output_schema`` hands on the
                                model's text as a string (R13)
``OneCodeForRefusedStarts``     refuses every start it refuses with one code of its own (R9)
``DropsFailingBranch``          a parallel step goes on without a failing branch (R15)
``WarningsInMapOrder``          puts each ``cycle-unbounded`` warning at another state of its loop
                                on each call, as a map read in random order does (R20)
``NoRetries``                   runs every step once, whatever its ``retry`` modifier says (R18:
                                modifier semantics are runtime-defined)
``LooseEquality``               compares predicate values as a loosely typed language does: a
                                numeric string equals its number, lists in any order (R18)
``GenericSchemaCode``           reports every schema violation with the generic ``schema`` code in
                                place of the kit's more specific one (R19)
``RenamesCodes``                reports an RFC-named warning and an unknown step kind under codes
                                of its own (the kit's codes are never MUST): a strict run fails it
``OneCodeAfterTheEnd``          refuses every event after the workflow has ended with one code
                                of its own, at every start and from every source (R9, R12)
``OtherTestExtensions``         defines the kit's test extensions otherwise (``ppconf.upper``
                                lower-cases): the kit's pick, MAY; a strict run fails it
``FailsAtMaxSteps``             fails an agent step reaching ``max_steps``, in sequence or in a
                                parallel block (the kit's pick: it completes, MAY)
``FewerAttempts``               makes one attempt fewer than ``retry.max_attempts`` allows (R18)
``ListsDeclaredEvents``         lists the events the current state declares as available, at a
                                terminal state and after the workflow ended too, as PromptKit's
                                ``AvailableEvents`` does (the list is the kit's pick, MAY)
``StartsOnlyAsAgents``          refuses every start at a named state, starting only at the entry
                                and as an agent (RFC 0011; kit.pick.start-at-state, MAY)
``NoStartAtState``              says a start at a named state is unsupported (the same choice
                                through ``Unsupported``)
=============================  ====================================================================
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from fakes import SessionWrapper, WrapsSessions, workflow_of

from conformance import Capabilities, PackInput, ReferenceAdapter, Rejected, Unsupported
from conformance._basics.contract import KIT_LINTS
from conformance._catalog.codes import ERRORS
from reference import Extensions


class Variant(ReferenceAdapter):
    """The reference under another name."""

    NAME = "variant"

    def capabilities(self) -> Capabilities:
        real = super().capabilities()
        return Capabilities(self.NAME, "0.0", "python", real.claims, real.extensions)


def _with_document(pack: PackInput, document: dict[str, Any]) -> PackInput:
    return PackInput(json.dumps(document), "json", document, pack.source)


class _RunsAnotherPack(Variant):
    """Starts, restores and runs every pack as :meth:`altered` makes it; validates and loads it
    as :meth:`altered` makes it too when ``VALIDATES_ALTERED`` (else as written)."""

    VALIDATES_ALTERED = False

    def altered(self, pack: PackInput) -> PackInput:
        return pack

    def _read(self, pack: PackInput) -> PackInput:
        return self.altered(pack) if self.VALIDATES_ALTERED else pack

    def validate(self, pack: PackInput) -> Sequence[Mapping[str, Any]]:
        return super().validate(self._read(pack))

    def load(self, pack: PackInput) -> None:
        super().load(self._read(pack))

    def start(self, pack: PackInput) -> Any:
        return super().start(self.altered(pack))

    def start_at(
        self, pack: PackInput, *, state: str | None = None, agent: str | None = None
    ) -> Any:
        return super().start_at(self.altered(pack), state=state, agent=agent)

    def restore(self, pack: PackInput, snapshot: Any) -> Any:
        return super().restore(self.altered(pack), snapshot)

    def run_composition(
        self, pack: PackInput, name: str, input: Any, mocks: Mapping[str, Any]
    ) -> Mapping[str, Any]:
        return super().run_composition(self.altered(pack), name, input, mocks)


def _with_modifiers(
    pack: PackInput, change: Callable[[dict[str, Any]], dict[str, Any]]
) -> PackInput:
    """``pack`` with every composition step's ``modifiers`` mapping as ``change`` makes it, at
    any depth (parallel branches too)."""

    def rewrite(value: Any) -> Any:
        if isinstance(value, list):
            return [rewrite(item) for item in value]
        if not isinstance(value, dict):
            return value
        changed = {key: rewrite(item) for key, item in value.items()}
        if isinstance(changed.get("modifiers"), dict):
            changed["modifiers"] = change(changed["modifiers"])
        return changed

    document = pack.document or {}
    if not isinstance(document.get("compositions"), dict):
        return pack
    return _with_document(pack, {**document, "compositions": rewrite(document["compositions"])})


# -- sessions ----------------------------------------------------------------------------------


class _EagerBudgetSession(SessionWrapper):
    """A reference session whose status turns ``budget_exhausted`` as soon as the tool-call or
    wall-time limit is reached (the RFC's "the workflow terminates" taken at once)."""

    def __init__(self, session: Any, budget: Mapping[str, Any]) -> None:
        super().__init__(session)
        self._budget = budget

    def state(self) -> Mapping[str, Any]:
        state = dict(self._session.state())
        tools, wall = self._budget.get("max_tool_calls"), self._budget.get("max_wall_time_sec")
        reached = (tools is not None and state["tool_calls"] >= tools) or (
            wall is not None and state["elapsed_sec"] >= wall
        )
        if state["status"] == "active" and reached:
            state["status"] = "budget_exhausted"
            state["available_events"] = []
            if "turn" in state:  # an ended workflow hands the turn back, as the reference's does
                state["turn"] = "user"
        return state


class BudgetStatusAtOnce(WrapsSessions, Variant):
    NAME = "budget-status-at-once"

    def wrap(self, pack: PackInput, session: Any) -> Any:
        budget = (workflow_of(pack).get("engine") or {}).get("budget") or {}
        return _EagerBudgetSession(session, budget)


# -- validation --------------------------------------------------------------------------------


class SchemaErrorsWithoutPointers(Variant):
    NAME = "schema-errors-without-pointers"

    def validate(self, pack: PackInput) -> Sequence[Mapping[str, Any]]:
        return [{**d, "path": None} if d["code"] == "schema" else d for d in super().validate(pack)]


class SchemaErrorsAtParent(Variant):
    NAME = "schema-errors-at-parent"

    def validate(self, pack: PackInput) -> Sequence[Mapping[str, Any]]:
        return [
            {**d, "path": d["path"].rsplit("/", 1)[0]} if d["code"] == "schema" and d["path"] else d
            for d in super().validate(pack)
        ]


class RedundantErrors(Variant):
    NAME = "redundant-errors"

    def validate(self, pack: PackInput) -> Sequence[Mapping[str, Any]]:
        found = list(super().validate(pack))
        extra = [
            {**d, "code": "schema", "message": "again, as a schema violation"}
            for d in found
            if d["severity"] == "error"
        ]
        return found + extra


class EveryErrorCode(Variant):
    NAME = "every-error-code"

    def validate(self, pack: PackInput) -> Sequence[Mapping[str, Any]]:
        found = list(super().validate(pack))
        if not any(d["severity"] == "error" for d in found):
            return found
        first = next(d for d in found if d["severity"] == "error")
        given = {d["code"] for d in found}
        extra = [{**first, "code": code, "message": "also"} for code in ERRORS if code not in given]
        return found + extra


class NoKitLints(Variant):
    NAME = "no-kit-lints"

    def validate(self, pack: PackInput) -> Sequence[Mapping[str, Any]]:
        return [d for d in super().validate(pack) if d["code"] not in KIT_LINTS]


# -- starting ----------------------------------------------------------------------------------


class Version3AsVersion2(Variant):
    NAME = "version-3-as-version-2"

    def start(self, pack: PackInput) -> Any:
        document = pack.document or {}
        workflow = document.get("workflow")
        if isinstance(workflow, dict) and workflow.get("version") == 3:
            pack = _with_document(pack, {**document, "workflow": {**workflow, "version": 2}})
        return super().start(pack)


# -- compositions ------------------------------------------------------------------------------


class OtherMergeOrder(Variant):
    """Merges parallel branches last-first: as if ``branches`` were listed the other way round."""

    NAME = "other-merge-order"

    def run_composition(
        self, pack: PackInput, name: str, input: Any, mocks: Mapping[str, Any]
    ) -> Mapping[str, Any]:
        return super().run_composition(_reversed_branches(pack), name, input, mocks)


def _reversed_branches(pack: PackInput) -> PackInput:
    document = pack.document or {}
    compositions = document.get("compositions")
    if not isinstance(compositions, dict):
        return pack
    changed = {}
    for key, composition in compositions.items():
        steps = composition.get("steps") if isinstance(composition, dict) else None
        if not isinstance(steps, list):
            changed[key] = composition
            continue
        changed[key] = {
            **composition,
            "steps": [
                {**step, "branches": list(reversed(step["branches"]))}
                if isinstance(step, dict)
                and step.get("kind") == "parallel"
                and isinstance(step.get("branches"), list)
                else step
                for step in steps
            ],
        }
    return _with_document(pack, {**document, "compositions": changed})


class BranchJumps(Variant):
    """A taken branch jumps to its target: the steps between the branch and the target are
    skipped, as if they depended on the arm not taken."""

    NAME = "branch-jumps"

    def run_composition(
        self, pack: PackInput, name: str, input: Any, mocks: Mapping[str, Any]
    ) -> Mapping[str, Any]:
        first = super().run_composition(pack, name, input, mocks)
        jumped = _jumping(pack, name, first.get("trace") or [])
        if jumped is None:
            return first
        return super().run_composition(jumped, name, input, mocks)


def _jumping(pack: PackInput, name: str, trace: list[Any]) -> PackInput | None:
    """The pack with every step between a branch and its taken target made to depend on the
    arm not taken (so it is skipped), or None when no branch jumped over anything."""
    document = pack.document or {}
    composition = (document.get("compositions") or {}).get(name)
    steps = composition.get("steps") if isinstance(composition, dict) else None
    if not isinstance(steps, list):
        return None
    index = {s.get("id"): i for i, s in enumerate(steps) if isinstance(s, dict)}
    changed = list(steps)
    for entry in trace:
        decision = entry.get("decision") if isinstance(entry, dict) else None
        if not isinstance(decision, dict) or entry.get("step") not in index:
            continue
        taken, skipped = decision.get("taken"), decision.get("skipped")
        start, end = index[entry["step"]], index.get(taken)
        if skipped is None or end is None:
            continue
        for i in range(start + 1, end):
            step = changed[i]
            if isinstance(step, dict) and step.get("id") != skipped:
                changed[i] = {**step, "depends_on": [skipped]}
    if changed == steps:
        return None
    compositions = {**document["compositions"], name: {**composition, "steps": changed}}
    return _with_document(pack, {**document, "compositions": compositions})


# -- RFC 0014 turns (kept at the end: they are the newest) ---------------------------------------


class _TurnChoices(SessionWrapper):
    """A reference session that makes the turn and reply choices SEMANTICS 6.1 leaves open:
    the entry state's ``control`` taken at the start (X17 is SHOULD), a refused agent event or
    an agent move into an ``external`` state handing the turn back (MAY), rounds joined by a
    space (the join is SHOULD)."""

    def __init__(self, session: Any, states: Mapping[str, Any]) -> None:
        super().__init__(session)
        self._states = states
        start = states.get(session.state()["current_state"]) or {}
        self._agent_at_start = start.get("control") == "agent" and not start.get("terminal")

    def send(self, event: str, source: str) -> Mapping[str, Any]:
        self._agent_at_start = False
        try:
            moved = self._session.send(event, source)
        except Rejected:
            if source == "agent":
                self._session.agent_text("")  # the agent's round ends: the user's turn
            raise
        entered = self._states.get(moved["to"]) or {}
        if source == "agent" and entered.get("orchestration") == "external":
            self._session.agent_text("")
        return moved  # type: ignore[no-any-return]

    def agent_text(self, text: str) -> None:
        self._agent_at_start = False
        self._session.agent_text(text)

    def user_turn(self) -> None:
        self._agent_at_start = False
        self._session.user_turn()

    def state(self) -> Mapping[str, Any]:
        data = dict(self._session.state())
        data["reply"] = data["reply"].replace("\n", " ")
        if self._agent_at_start and data["status"] == "active":
            data["turn"] = "agent"
        return data


class OtherTurnChoices(WrapsSessions, Variant):
    NAME = "other-turn-choices"

    def wrap(self, pack: PackInput, session: Any) -> Any:
        return _TurnChoices(session, workflow_of(pack).get("states") or {})


# -- SEMANTICS 0b (R11-R13): choices the RFCs allow that the kit once charged --------------------


class _VisitLimitSession(SessionWrapper):
    """A reference session that ends the workflow as soon as the visits reach
    ``max_total_visits`` (the RFC's "the workflow terminates" taken at once, R12)."""

    def __init__(self, session: Any, limit: int | None) -> None:
        super().__init__(session)
        self._limit = limit

    def state(self) -> Mapping[str, Any]:
        state = dict(self._session.state())
        visits = sum(state["visit_counts"].values())
        if state["status"] == "active" and self._limit is not None and visits >= self._limit:
            state["status"] = "budget_exhausted"
            state["available_events"] = []
            if "turn" in state:  # an ended workflow hands the turn back, as the reference's does
                state["turn"] = "user"
        return state


class EndsAtVisitLimit(WrapsSessions, Variant):
    """Ends the workflow when the count of visits reaches ``max_total_visits``, not at the next
    event: status ``budget_exhausted`` at once (R12 allows it, as R4 does for the other
    budgets)."""

    NAME = "ends-at-visit-limit"

    def wrap(self, pack: PackInput, session: Any) -> Any:
        budget = (workflow_of(pack).get("engine") or {}).get("budget") or {}
        limit = budget.get("max_total_visits")
        return _VisitLimitSession(session, limit if isinstance(limit, int) else None)


def _without(value: Any, keys: frozenset[str]) -> Any:
    """A document with every mapping's ``keys`` left out, at any depth."""
    if isinstance(value, dict):
        return {k: _without(v, keys) for k, v in value.items() if k not in keys}
    if isinstance(value, list):
        return [_without(v, keys) for v in value]
    return value


class IgnoresProviderAndExtensions(_RunsAnotherPack):
    """A runtime at Level 0 of RFC 0016 and RFC 0017: it treats ``provider`` and ``extensions``
    as unknown fields, validating and running as if they were not there, and claims neither
    area (R11: it keeps its workflow and compositions levels)."""

    NAME = "ignores-provider-and-extensions"
    IGNORED = frozenset(("provider", "extensions"))

    def capabilities(self) -> Capabilities:
        real = super().capabilities()
        claims = {k: v for k, v in real.claims.items() if k not in ("providers", "extensions")}
        return Capabilities(self.NAME, "0.0", "python", claims, real.extensions)

    VALIDATES_ALTERED = True

    def altered(self, pack: PackInput) -> PackInput:
        if pack.document is None:
            return pack
        return _with_document(pack, _without(pack.document, self.IGNORED))


def _text_steps(pack: PackInput, name: str) -> tuple[set[str], set[str]]:
    """The ids and prompt tasks of the prompt and agent steps of composition ``name`` without
    ``output_schema``: the calls whose output a runtime may hand on as the model's text (R13).
    Only that composition's: another may give the same id to a tool step."""
    ids: set[str] = set()
    tasks: set[str] = set()
    structured: set[str] = set()
    stack: list[Any] = [((pack.document or {}).get("compositions") or {}).get(name)]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if item.get("kind") in ("prompt", "agent") and isinstance(item.get("id"), str):
                target = structured if item.get("output_schema") else ids
                target.add(item["id"])
                if isinstance(item.get("prompt_task"), str):
                    (structured if item.get("output_schema") else tasks).add(item["prompt_task"])
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return ids, tasks - structured


def _as_text(response: Any) -> Any:
    if (
        isinstance(response, dict)
        and "output" in response
        and not isinstance(response["output"], str)
    ):
        return {**response, "output": json.dumps(response["output"], sort_keys=True)}
    return response


class StepTextAsString(Variant):
    """Hands on a prompt or agent step's output as the model's text (a JSON string) unless the
    step declares ``output_schema``: RFC 0010 leaves output parsing to runtimes (R13)."""

    NAME = "step-text-as-string"

    def run_composition(
        self, pack: PackInput, name: str, input: Any, mocks: Mapping[str, Any]
    ) -> Mapping[str, Any]:
        ids, tasks = _text_steps(pack, name)
        texts = (
            {
                key: [_as_text(r) for r in responses] if key in ids or key in tasks else responses
                for key, responses in mocks.items()
            }
            if isinstance(mocks, Mapping)
            else mocks
        )
        return super().run_composition(pack, name, input, texts)


# -- SEMANTICS 0b (R9, R15): what the fuzzer once charged ----------------------------------------


class OneCodeForRefusedStarts(Variant):
    """Refuses every start it refuses with one code of its own, ``start-refused``: no RFC names
    the codes of a refused start (R9), so only the refusal itself is required."""

    NAME = "one-code-for-refused-starts"
    CODE = "start-refused"

    def start(self, pack: PackInput) -> Any:
        try:
            return super().start(pack)
        except Rejected as refused:
            raise Rejected(self.CODE, message=str(refused)) from None

    def start_at(
        self, pack: PackInput, *, state: str | None = None, agent: str | None = None
    ) -> Any:
        try:
            return super().start_at(pack, state=state, agent=agent)
        except Rejected as refused:
            raise Rejected(self.CODE, message=str(refused)) from None


class StartsOnlyAsAgents(Variant):
    """Refuses a start at a named state (``at_state``) that is not an agent start: RFC 0011
    starts a session at a state only as an agent backed by it, and starting at any named state
    is the kit's adapter contract (kit.pick.start-at-state, MAY)."""

    NAME = "starts-only-as-agents"

    def start_at(
        self, pack: PackInput, *, state: str | None = None, agent: str | None = None
    ) -> Any:
        if state is not None:
            raise Rejected("start-state-unsupported", message="this runtime starts as agents")
        return super().start_at(pack, state=state, agent=agent)


class NoStartAtState(Variant):
    """The same choice as :class:`StartsOnlyAsAgents`, said as ``Unsupported``."""

    NAME = "no-start-at-state"

    def start_at(
        self, pack: PackInput, *, state: str | None = None, agent: str | None = None
    ) -> Any:
        if state is not None:
            raise Unsupported("this runtime does not start at a named state")
        return super().start_at(pack, state=state, agent=agent)


class NoRetries(_RunsAnotherPack):
    """Runs every composition step once: ``retry`` is declared, and what it does is the
    runtime's ("Modifier semantics are runtime-defined", R18). Validation still reads the
    modifier's shape."""

    NAME = "no-retries"

    def altered(self, pack: PackInput) -> PackInput:
        return _with_modifiers(pack, lambda given: {k: v for k, v in given.items() if k != "retry"})


def _loose(value: Any) -> Any:
    """``value`` as a loosely typed comparison sees it: a numeric string is its number, a
    list's items are sorted (by their JSON text), at any depth."""
    if isinstance(value, str):
        try:
            return float(value) if "." in value else int(value)
        except ValueError:
            return value
    if isinstance(value, list):
        return sorted((_loose(item) for item in value), key=lambda v: json.dumps(v, sort_keys=True))
    if isinstance(value, dict):
        return {key: _loose(item) for key, item in value.items()}
    return value


class LooseEquality(Variant):
    """Reads a composition's input loosely before comparing: a numeric string is its number and
    a list's order does not count. RFC 0010 names the predicate operators, not their comparison
    rules (R18): coercion and deep equality are the kit's MAY pick, so every level holds."""

    NAME = "loose-equality"

    def run_composition(
        self, pack: PackInput, name: str, input: Any, mocks: Mapping[str, Any]
    ) -> Mapping[str, Any]:
        return super().run_composition(pack, name, _loose(input), mocks)


class GenericSchemaCode(Variant):
    """Reports each schema violation with the generic ``schema`` code, where the reference
    names it more precisely (R19: the generic code is an accepted answer at every requirement,
    the specific one a MAY pick): every level holds, and so does a strict run."""

    NAME = "generic-schema-code"
    SCHEMA_VIOLATIONS = frozenset(
        (
            "agent-termination-missing",
            "composition-missing",
            "composition-version-unsupported",
            "control-invalid",
            "parallel-branches-too-few",
            "parallel-reduce-missing",
            "predicate-invalid",
            "prompt-task-missing",
            "step-field-missing",
            "step-id-invalid",
            "step-kind-unknown",
        )
    )

    def validate(self, pack: PackInput) -> Sequence[Mapping[str, Any]]:
        return [
            {**d, "code": "schema"} if d["code"] in self.SCHEMA_VIOLATIONS else d
            for d in super().validate(pack)
        ]


class RenamesCodes(Variant):
    """Reports ``budget-below-max-visits`` and ``step-kind-unknown`` under codes of its own.

    The RFCs name the condition, not the kit's code for it: every level holds, and only a
    strict run, where every check counts, fails on the weaker code checks."""

    NAME = "renames-codes"
    RENAMED: Mapping[str, str] = {
        "budget-below-max-visits": "x-visit-budget-low",
        "step-kind-unknown": "x-unknown-kind",
    }

    def validate(self, pack: PackInput) -> Sequence[Mapping[str, Any]]:
        return [
            {**d, "code": self.RENAMED.get(d["code"], d["code"])} for d in super().validate(pack)
        ]


def _loop_of(states: Mapping[str, Any], name: str) -> list[str]:
    """The states on a loop with ``name`` (its strongly connected component), sorted."""

    def reach(start: str) -> set[str]:
        seen, todo = {start}, [start]
        while todo:
            state = states.get(todo.pop())
            events = state.get("on_event") if isinstance(state, Mapping) else None
            for target in (events or {}).values() if isinstance(events, Mapping) else ():
                if isinstance(target, str) and target not in seen:
                    seen.add(target)
                    todo.append(target)
        return seen

    return sorted(other for other in reach(name) if name in reach(other))


class WarningsInMapOrder(Variant):
    """Puts each ``cycle-unbounded`` warning at another state of its loop on each call (a Go
    runtime walking a map, whose order changes from run to run). Where on the loop the warning
    goes is a MAY kit pick: the MUST checks agree on every run, so under ``repeat`` nothing is
    a MUST flake (R20) and every level holds."""

    NAME = "warnings-in-map-order"
    _calls = 0

    def validate(self, pack: PackInput) -> Sequence[Mapping[str, Any]]:
        WarningsInMapOrder._calls += 1
        workflow = workflow_of(pack)
        states = workflow.get("states") if isinstance(workflow, Mapping) else None
        prefix = "/workflow/states/"
        moved = []
        for found in super().validate(pack):
            path = found.get("path")
            if (
                found["code"] == "cycle-unbounded"
                and isinstance(states, Mapping)
                and isinstance(path, str)
                and path.startswith(prefix)
                and path[len(prefix) :] in states
            ):
                loop = _loop_of(states, path[len(prefix) :])
                moved.append({**found, "path": prefix + loop[self._calls % len(loop)]})
            else:
                moved.append(found)
        return moved


_GATE, _NEVER = "dropgate", "dropnever"
"""The steps :class:`DropsFailingBranch` puts first: a branch that is never taken, and its
target, which is therefore skipped (so that what depends on it alone is skipped too)."""


class DropsFailingBranch(Variant):
    """A parallel step whose branch fails goes on without that branch: the branch's output is
    left out of the merge, and the run continues (R15: error recovery is the runtime's). The
    trace still shows the branch as failed."""

    NAME = "drops-failing-branch"

    def run_composition(
        self, pack: PackInput, name: str, input: Any, mocks: Mapping[str, Any]
    ) -> Mapping[str, Any]:
        dropped: dict[str, Any] = {}
        result = super().run_composition(pack, name, input, mocks)
        # Each run drops the branches the last one saw fail, until no parallel step fails.
        while True:
            failed = _failed_branches(result)
            if not failed or failed.keys() <= dropped.keys():
                break
            dropped.update(failed)
            result = super().run_composition(_dropping(pack, name, dropped), name, input, mocks)
        return _as_dropped(result, dropped) if dropped else result


def _failed_branches(result: Mapping[str, Any]) -> dict[str, Any]:
    """The failed branches of the failed parallel steps of a run, by id, with their trace."""
    if result.get("status") != "failed":
        return {}
    return {
        member["step"]: member
        for entry in result.get("trace") or []
        if entry.get("kind") == "parallel" and entry.get("status") == "failed"
        for member in entry.get("members") or []
        if member.get("status") == "failed"
    }


def _dropping(pack: PackInput, name: str, dropped: Mapping[str, Any]) -> PackInput:
    """The pack with the composition's ``dropped`` branches skipped: each depends on a step no
    branch ever takes."""
    document = pack.document or {}
    composition = document["compositions"][name]
    prompt = next(iter(document.get("prompts") or {}))
    steps = [
        {"id": _GATE, "kind": "branch", "predicate": {"any_of": []}, "then": _NEVER},
        {"id": _NEVER, "kind": "prompt", "prompt_task": prompt},
    ]
    for step in composition["steps"]:
        if step.get("kind") != "parallel":
            steps.append(step)
            continue
        branches = [
            {**b, "depends_on": [_NEVER]} if b.get("id") in dropped else b for b in step["branches"]
        ]
        steps.append({**step, "branches": branches})
    compositions = {**document["compositions"], name: {**composition, "steps": steps}}
    return _with_document(pack, {**document, "compositions": compositions})


def _as_dropped(result: Mapping[str, Any], dropped: Mapping[str, Any]) -> dict[str, Any]:
    """The run as this runtime reports it: without the two added steps, each dropped branch
    shown with the failure it had."""
    trace = []
    for entry in result.get("trace") or []:
        if entry.get("step") in (_GATE, _NEVER):
            continue
        if entry.get("kind") != "parallel":
            trace.append(entry)
            continue
        members = [dropped.get(m.get("step"), m) for m in entry.get("members") or []]
        trace.append({**entry, "members": members})
    return {**result, "trace": trace}


# -- R16: contexts -----------------------------------------------------------------------------


class _EndedInOwnWords(SessionWrapper):
    """A reference session that refuses every event after the workflow has ended (completed, or
    ended by a budget or a visit guard) with one code of its own."""

    CODE = "workflow-ended"

    def send(self, event: str, source: str) -> Mapping[str, Any]:
        ended = self._session.state()["status"] != "active"
        try:
            return self._session.send(event, source)  # type: ignore[no-any-return]
        except Rejected as refused:
            if not ended:
                raise
            raise Rejected(self.CODE, message=str(refused)) from None


class OneCodeAfterTheEnd(WrapsSessions, Variant):
    """Refuses every event after the workflow has ended with one code of its own,
    ``workflow-ended``, whoever sends it and however the session started: RFC 0009 says the
    workflow terminates, never which code refuses what comes after (R9, R12)."""

    NAME = "one-code-after-the-end"

    def wrap(self, pack: PackInput, session: Any) -> Any:
        return _EndedInOwnWords(session)


def _lower(step: Mapping[str, Any], input: Any) -> Any:
    return input.lower() if isinstance(input, str) else input


def _join_backwards(outputs: Sequence[tuple[str, Any]], reduce: Mapping[str, Any]) -> Any:
    return "+".join(str(output) for _, output in reversed(outputs))


class OtherTestExtensions(Variant):
    """Registers the kit's test namespace with other definitions: ``ppconf.upper`` lower-cases,
    ``ppconf.join`` joins in reverse with ``+`` whatever the separator. What they give is the
    kit's definition (kit.pick.test-extensions, MAY); RFC 0010 asks only that a registered
    vendor kind or reducer runs and its output is read as any step's is: every level holds, and
    only a strict run fails."""

    NAME = "other-test-extensions"

    def __init__(self) -> None:
        super().__init__()
        self._extensions = Extensions()
        self._extensions.register_kind("ppconf.upper", _lower)
        self._extensions.register_reducer("ppconf.join", _join_backwards)


def _failed_at_max_steps(trace: Mapping[str, Any]) -> dict[str, Any]:
    """``trace`` as a runtime failing an agent step at ``max_steps`` would show it."""
    failed = {k: v for k, v in trace.items() if k not in ("exit", "output")}
    error = {"code": "agent-max-steps", "message": "max_steps reached", "step": trace["step"]}
    return {**failed, "status": "failed", "output": None, "error": error}


def _not_run(trace: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "step": trace["step"],
        "kind": trace.get("kind"),
        "status": "skipped",
        "reason": "not-run",
    }


def _at_max_steps(step: Mapping[str, Any]) -> bool:
    return step.get("status") == "completed" and step.get("exit") == "max_steps"


def _failing_at_max_steps(step: Mapping[str, Any]) -> dict[str, Any] | None:
    """A top-level trace entry as a runtime failing an agent step at ``max_steps`` shows it: the
    step itself, or a parallel block one of whose branches reached it (its siblings as run);
    ``None`` when neither did."""
    if _at_max_steps(step):
        return _failed_at_max_steps(step)
    members = step.get("members")
    if step.get("kind") != "parallel" or not isinstance(members, list):
        return None
    failing = [m["step"] for m in members if isinstance(m, Mapping) and _at_max_steps(m)]
    if not failing:
        return None
    error = {
        "code": "parallel-branch-failed",
        "message": f"branches failed: {', '.join(failing)} (agent-max-steps)",
        "step": step["step"],
    }
    return {
        **{k: v for k, v in step.items() if k != "output"},
        "status": "failed",
        "output": None,
        "error": error,
        "members": [
            _failed_at_max_steps(m) if isinstance(m, Mapping) and _at_max_steps(m) else m
            for m in members
        ],
    }


class FailsAtMaxSteps(Variant):
    """Fails a composition's agent step that reaches ``max_steps`` rounds without its
    termination tool, in sequence or as a branch of a parallel block (which then fails, its
    other branches run), and so the run (the steps after it are not run). RFC 0010 names
    ``max_steps`` as the loop's exit, not how the step ends: completing is the kit's pick
    (kit.pick.agent-max-steps-completes, MAY), so every level holds."""

    NAME = "fails-at-max-steps"

    def run_composition(
        self, pack: PackInput, name: str, input: Any, mocks: Mapping[str, Any]
    ) -> Mapping[str, Any]:
        result = dict(super().run_composition(pack, name, input, mocks))
        trace = list(result.get("trace") or [])
        for index, step in enumerate(trace):
            failed_step = _failing_at_max_steps(step)
            if failed_step is not None:
                trace = [
                    *trace[:index],
                    failed_step,
                    *(_not_run(later) for later in trace[index + 1 :]),
                ]
                error = failed_step["error"]
                failed = {"status": "failed", "output": None, "error": error, "trace": trace}
                return {**result, **failed}
        return result


def _fewer_attempts(modifiers: dict[str, Any]) -> dict[str, Any]:
    """``modifiers`` with a ``retry.max_attempts`` above 1 lowered by one."""
    retry = modifiers.get("retry")
    attempts = retry.get("max_attempts") if isinstance(retry, dict) else None
    if isinstance(retry, dict) and isinstance(attempts, int) and attempts > 1:
        return {**modifiers, "retry": {**retry, "max_attempts": attempts - 1}}
    return modifiers


class FewerAttempts(_RunsAnotherPack):
    """Gives up one attempt early: at most ``retry.max_attempts - 1`` attempts where the
    modifier allows more than one, still within the bound. Attempt counts are the runtime's
    ("Modifier semantics are runtime-defined", R18), so every level holds."""

    NAME = "fewer-attempts"

    def altered(self, pack: PackInput) -> PackInput:
        return _with_modifiers(pack, _fewer_attempts)


# -- the kit's observables ---------------------------------------------------------------------


class _DeclaredEvents(SessionWrapper):
    """A reference session whose ``available_events`` are the current state's ``on_event``
    keys, sorted, whatever the session's status."""

    def __init__(self, session: Any, states: Mapping[str, Any]) -> None:
        super().__init__(session)
        self._states = states

    def state(self) -> Mapping[str, Any]:
        state = dict(self._session.state())
        declared = (self._states.get(state["current_state"]) or {}).get("on_event") or {}
        state["available_events"] = sorted(declared)
        return state


class ListsDeclaredEvents(WrapsSessions, Variant):
    """Lists the events the current state declares as its available events, at a terminal
    state and after the workflow has ended too, as PromptKit's ``AvailableEvents`` does. No RFC
    defines the list (kit.pick.available-events, MAY); what RFC 0009 binds is that a terminal
    state's transitions never fire, which the cases check by sending them: every level holds,
    and only a strict run fails."""

    NAME = "lists-declared-events"

    def wrap(self, pack: PackInput, session: Any) -> Any:
        return _DeclaredEvents(session, workflow_of(pack).get("states") or {})
