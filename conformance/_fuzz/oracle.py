"""What the RFCs require of a runtime on one generated example, written as case data.

The reference runs the example. Each step's expectation keeps only what RFC text makes MUST
(SEMANTICS section 0, R1), with the alternatives the catalog's MUST cases accept:

- a step whose outcome the RFCs leave open is left out of the script, on both sides: an agent
  event in an ``external`` state (refusing it is SHOULD), a host event in an explicitly
  ``internal`` state (MAY, X13), an artifact write the current state does not declare or after
  the workflow may have ended (X11, MAY), tool calls and clock advances once the session may
  have ended, ``snapshot_restore`` (X15, SHOULD), ``run_state`` (C11, MAY);
- a step after which the RFCs allow different futures ends the script: entering a state that
  is terminal only by having no ``on_event`` (only ``terminal: true`` completes a workflow at
  MUST), a redirect chain that returns to a state already tried (the status is left open), a
  budget reached by an event no state-declared (the order of those checks is SHOULD);
- the status may be ``active`` or ``budget_exhausted`` once a budget limit is reached (R4,
  R12), and ``completed`` or ``budget_exhausted`` in a terminal state past a limit;
- ``append`` artifacts hold every written part in order (the joined text is SHOULD);
- a composition run is judged on its status, and on its output where the composition names
  ``output``: ``append`` as a multiset, ``replace`` as any one branch output, ``barrier`` by
  branch id (C3, C10), unless it holds a structured output of a prompt step without
  ``output_schema`` (a runtime may hand on the model's text, R13); a run in which a step or a
  parallel branch fails, retries aside, is left out: what follows a failure is the runtime's
  error recovery (R15, MAY);
- a composition run holding the kit's test extensions (``ppconf.upper`` steps, ``ppconf.join``
  reducers; drawn only for a runtime that claims RFC 0010 Level 3 and lists them) is judged
  on its status, as the catalog's Level 3 MUST cases do; what they give is the kit's own
  definition (MAY), so no output holding it is compared;
- RFC 0014 (packs with ``control``): ``turn`` is compared wherever SEMANTICS 6.1 makes it MUST:
  after an accepted agent transition (X18, X19), an accepted host transition when the turn was
  the user's (X20), the end of the workflow (X21), and the agent's text (the round ends).
  Left open, so not compared: the turn at the start (X17, SHOULD), after a host event while
  the agent may hold the turn (SHOULD), after a refused event that does not end the workflow
  (MAY), in a state the agent entered that is external or composition-mode (MAY), or where a
  budget reached by the transition may end the workflow at once (R4). ``reply`` is compared as
  the texts since the last user turn, each present and in order (``$contains_in_order``): the
  join is SHOULD, so any join passes; an empty reply after a user turn is not compared;
- the record of transitions (``history``) is never compared: it is SHOULD (RFC 0009 Question 2
  leans towards it; SEMANTICS 0b);
- RFC 0011 (a script beginning with ``start``): the state and the visit counts ``{S: 1}``
  after a start as an agent (X24), and the refusal ``agent-unknown``; a start at a named state
  (the kit's adapter contract, MAY) and as a member without ``state`` (its refusal is MAY) are
  left out: the session starts at the entry. After a start as an agent every rule above holds
  as from the entry (SEMANTICS R16: the start is a context, not an exception), and a budget
  reached there cites the catalog's agent-start case for that limit;
- RFC 0016 (a pack carrying ``extensions`` anywhere): the runtime must load it (Level 0, "Packs
  carrying them remain valid and execute identically"), validate it as valid, and start it at
  the entry or as an agent and run it as the same pack without them. A pack without
  ``extensions`` is not loaded: the kit asks ``load`` only where an RFC statement decides it.

Every expectation carries the catalog case that pins its rule, so a divergence can quote the
RFC sentence it breaks.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import reference
from conformance._fuzz.schema_breakers import Broken

__all__ = [
    "RULES",
    "RULE_AGENT_EVENT",
    "RULE_ARTIFACTS",
    "RULE_BUDGET",
    "RULE_BUDGET_ORDER",
    "RULE_CHAIN_CYCLE",
    "RULE_CHAIN_END",
    "RULE_COMPOSITION",
    "RULE_ENTRY_VISIT",
    "RULE_EVENT",
    "RULE_HOST_EVENT",
    "RULE_LOAD",
    "RULE_NO_REDIRECT",
    "RULE_REDIRECT",
    "RULE_REPLY",
    "RULE_START_AGENT",
    "RULE_START_ENTRY",
    "RULE_START_REFUSED",
    "RULE_START_STATE",
    "RULE_START_VISIT",
    "RULE_TERMINAL",
    "RULE_TURN",
    "RULE_UNKNOWN_EVENT",
    "RULE_VALID",
    "RULE_VISITS",
    "Expected",
    "Rules",
    "expect_broken",
    "expect_invalid",
    "expect_run",
    "extension_pointers",
]

# The catalog's MUST cases that pin each rule the oracle asserts (their `spec` quotes the RFC).
RULE_EVENT = "workflow.execution.event-per-state"
RULE_AGENT_EVENT = {
    None: "workflow.orchestration.default-internal",
    "internal": "workflow.orchestration.internal-agent-event",
    "hybrid": "workflow.orchestration.hybrid-agent-event",
}
RULE_HOST_EVENT = {
    "external": "workflow.orchestration.external-host-event",
    "hybrid": "workflow.orchestration.hybrid-host-event",
}
RULE_REDIRECT = "loops.max-visits.redirect-chain"
RULE_UNKNOWN_EVENT = "workflow.execution.unknown-event-mid-run"
RULE_TERMINAL = "loops.terminal.accepts-no-events"
RULE_NO_REDIRECT = "loops.max-visits.without-on-max-visits"
RULE_CHAIN_END = "loops.max-visits.chain-end-without-on-max-visits"
RULE_CHAIN_CYCLE = "loops.max-visits.chain-returns-to-tried-state"
RULE_BUDGET = {
    "max_total_visits": "loops.budget.max-total-visits-boundary",
    "max_tool_calls": "loops.budget.max-tool-calls-boundary",
    "max_wall_time_sec": "loops.budget.max-wall-time-boundary",
}
RULE_BUDGET_AT_AGENT_START = {
    "max_total_visits": "state-agents.execution.agent-start-total-visits",
    "max_tool_calls": "state-agents.execution.agent-start-tool-calls",
    "max_wall_time_sec": "state-agents.execution.agent-start-wall-time",
}
"""The same limits in a session started as an agent (SEMANTICS R16: the start's context)."""
RULE_BUDGET_AT_STATE_START = {
    "max_total_visits": "state-agents.execution.state-start-total-visits",
    "max_tool_calls": "state-agents.execution.state-start-tool-calls",
    "max_wall_time_sec": "state-agents.execution.state-start-wall-time",
}
"""The same limits in a session started at a named state (the kit's ``at_state``)."""
RULE_BUDGET_TOGETHER = "loops.budget.all-kinds-agent-events"
"""A limit reached while other budget kinds are set too."""
RULE_ENDED_BY_GUARD = "loops.max-visits.agent-events"
"""An agent's event after a visit guard ended the workflow."""
RULE_BUDGET_ORDER = "loops.budget.before-loop-guard"
RULE_VISITS = "workflow.execution.visit-counts-run"
RULE_ENTRY_VISIT = "workflow.execution.start-entry-counts-as-visit"
RULE_START_ENTRY = "workflow.execution.start-at-entry"
RULE_ARTIFACTS = "loops.artifacts.replace-vs-append"
RULE_VALID = {
    "workflow": "workflow.validation.cycle-not-an-error",
    "loops": "loops.version-1.valid",
    "compositions": "compositions.validation.rfc0010-example1",
    "control": "control.validation.control-values-valid",
    "state-agents": "state-agents.validation.agent-state-known",
    "extensions": "extensions.validation.any-object",
    "providers": "providers.validation.prompt-provider-declared-shorthand",
}
RULE_START_AGENT = "state-agents.execution.start-as-agent"
RULE_START_STATE = "state-agents.execution.state-start-every-mode"
"""A session started at a named state moves on from there (the kit's ``at_state``)."""
RULE_START_VISIT = "state-agents.execution.start-at-state-counts-visit"
RULE_START_REFUSED = {"agent-unknown": "state-agents.execution.agent-unknown"}
RULE_START_AGENT_EXTENSIONS = "state-agents.execution.agent-start-extensions"
"""A start as an agent of a pack carrying ``extensions`` (RFC 0016 in RFC 0011's context)."""
RULE_LOAD = {
    "compositions": "extensions.load.composition-and-steps",
    "slots": "extensions.load.prompt-state-agent-slots",
}
"""Loading a pack with ``extensions`` on a composition or its steps, or elsewhere."""
RULE_TURN = {
    "agent": "control.turn.agent-transition-into-agent-state",
    "user": "control.turn.agent-transition-into-user-state",
    None: "control.turn.absent-control-is-user",
    "host": "control.turn.host-transition-into-agent-state",
    "terminal": "control.turn.terminal-agent-state",
    "max-visits": "control.turn.max-visits-exceeded-ends",
    "budget": "control.turn.budget-tool-calls-and-time-stop",
    "text": "control.turn.agent-text-ends-round",
    "host-external": "control.turn.host-and-agent-in-every-mode",
}
RULE_REPLY = "control.reply.rounds-in-order"
RULE_COMPOSITION = {
    "order": "compositions.execution.order-array",
    "branch": "compositions.execution.branch-then-taken",
    "output": "compositions.execution.output-named-step",
    "append": "compositions.execution.parallel-append",
    "replace": "compositions.execution.parallel-replace",
    "barrier": "compositions.execution.parallel-barrier",
}
RULE_VENDOR = {
    "step": "compositions.extension.upper-between-steps",
    "branch": "compositions.extension.upper-inside-parallel",
    "reducer": "compositions.extension.join-without-separator",
}
"""A run with the kit's test extensions (RFC 0010 Level 3): a vendor step among the others, a
vendor step as a parallel branch, a parallel merged by a vendor reducer."""
RULE_PROMPT_CALLS = {
    "sequence": "compositions.prompt.no-tool-calls",
    "parallel": "compositions.prompt.no-tool-calls-in-parallel",
}
"""A prompt step whose model answer asks for tool calls, in sequence or as a parallel branch."""
RULE_AGENT_BOUND = {
    "sequence": "compositions.agent.max-steps-bounds-rounds",
    "parallel": "compositions.agent.in-parallel",
}
"""An agent step that stopped at its ``max_steps``, in sequence or as a parallel branch."""
RULES = (
    RULE_EVENT,
    *RULE_AGENT_EVENT.values(),
    *RULE_HOST_EVENT.values(),
    RULE_REDIRECT,
    RULE_UNKNOWN_EVENT,
    RULE_TERMINAL,
    RULE_NO_REDIRECT,
    RULE_CHAIN_END,
    RULE_CHAIN_CYCLE,
    *RULE_BUDGET.values(),
    *RULE_BUDGET_AT_AGENT_START.values(),
    *RULE_BUDGET_AT_STATE_START.values(),
    RULE_BUDGET_TOGETHER,
    RULE_ENDED_BY_GUARD,
    RULE_BUDGET_ORDER,
    RULE_VISITS,
    RULE_ENTRY_VISIT,
    RULE_START_ENTRY,
    RULE_ARTIFACTS,
    *RULE_VALID.values(),
    *RULE_COMPOSITION.values(),
    *RULE_AGENT_BOUND.values(),
    *RULE_PROMPT_CALLS.values(),
    *RULE_VENDOR.values(),
    RULE_START_AGENT,
    RULE_START_STATE,
    RULE_START_VISIT,
    *RULE_START_REFUSED.values(),
    RULE_START_AGENT_EXTENSIONS,
    *RULE_LOAD.values(),
    *RULE_TURN.values(),
    RULE_REPLY,
)
"""Every catalog case the oracle cites (a test checks each is a MUST case with a quote)."""

_EITHER_ENDED = {"$one_of": ["active", "budget_exhausted"]}
_BUDGET_LIMITS = ("max_total_visits", "max_tool_calls", "max_wall_time_sec")

Rules = dict[str, str]
"""Observation key (``outcome`` for acceptance or refusal, ``status``, ``visit_counts``,
``visit_counts.<entry>``, ``composition.output`` ...) -> the catalog case that pins it."""


@dataclass
class Expected:
    """A generated example as the case the reference says a runtime must pass.

    Attributes:
        area: the area of the example.
        pack: the pack.
        valid: whether a validator must find the pack valid.
        validity_rule: the catalog case pinning that verdict.
        load: whether the runtime must load the pack (``None``: not asked).
        load_rule: the catalog case pinning that.
        uses: the other areas whose fields the pack carries (an example of ``state-agents``
            may carry ``extensions`` too).
        start: how the session starts, as the scenario's ``start`` (``None``: at the entry).
        start_rules: which catalog case pins the start (its refusal, or its state).
        steps: the compared steps, in the case-file format, each with its ``expect``.
        step_rules: for each step, which catalog case pins each observation.
        final: what the session must show at the end (``None`` without a session).
        final_rules: as ``step_rules``, for ``final``.
        left_out: script steps left out because the RFCs leave their outcome open.
        exercised: what the example touched, for the run's summary.
    """

    area: str
    pack: dict[str, Any]
    valid: bool
    validity_rule: str
    load: bool | None = None
    load_rule: str = ""
    uses: tuple[str, ...] = ()
    start: dict[str, Any] | None = None
    start_rules: Rules = field(default_factory=dict)
    steps: list[dict[str, Any]] = field(default_factory=list)
    step_rules: list[Rules] = field(default_factory=list)
    final: dict[str, Any] | None = None
    final_rules: Rules = field(default_factory=dict)
    left_out: int = 0
    exercised: Counter[str] = field(default_factory=Counter)
    level: int = 2
    """The support level of what is compared (3: the kit's test extensions, RFC 0010 Level 3)."""

    def rule_at(self, step: int | None, observation: str | None) -> str:
        """The catalog case behind the observation ``observation`` (a mismatch path such as
        ``visit_counts.start``, or ``None`` for acceptance or refusal) of step ``step``
        (1-based; one past the last: ``final``; 0: the start; ``None``: the validity
        verdict)."""
        if step is None:
            return self.validity_rule
        if step == 0:
            return self.start_rules.get("outcome", self.validity_rule)
        rules = self.step_rules[step - 1] if step <= len(self.steps) else self.final_rules
        if observation is not None:
            # The most precise key first: visit_counts.start, then visit_counts.
            key = observation.split("[")[0]
            while key:
                if key in rules:
                    return rules[key]
                key = key.rpartition(".")[0]
        return rules.get("outcome") or next(iter(rules.values()), self.validity_rule)


def expect_invalid(area: str, pack: dict[str, Any], rule: str) -> Expected:
    """A near-valid pack: a validator must find it invalid (the rule is MUST)."""
    expected = Expected(area, pack, valid=False, validity_rule=rule)
    expected.exercised["near-valid packs"] += 1
    return expected


def expect_broken(area: str, broken: Broken) -> Expected:
    """A pack with one schema breaker applied: a validator must find it invalid, or for a
    breaker that keeps it valid, valid (the constraint's statement is MUST; which code and
    which pointer are the runtime's, R19)."""
    expected = Expected(area, broken.pack, valid=broken.valid, validity_rule=broken.target.case)
    expected.exercised["schema breakers"] += 1
    return expected


def expect_run(
    area: str, pack: dict[str, Any], script: list[dict[str, Any]], uses: tuple[str, ...] = ()
) -> Expected:
    """Run ``script`` on the reference and write down what a runtime must do (``uses``: the
    other areas whose fields the pack carries).

    Raises:
        reference.PackInvalidError, reference.CompositionRunError: the pack or a composition
            run is not valid, which a generator must never produce (a bug of the kit).
    """
    expected = Expected(area, pack, valid=True, validity_rule=RULE_VALID[area], uses=uses)
    slots = extension_pointers(pack)
    if slots:
        # RFC 0016 Level 0: loaded as any pack, wherever its extensions stand.
        expected.load = True
        on_compositions = any(p.startswith("/compositions/") for p in slots)
        expected.load_rule = RULE_LOAD["compositions" if on_compositions else "slots"]
        expected.exercised["loads (extensions)"] += 1
    start: Mapping[str, Any] | None = None
    if script and "start" in script[0]:
        start, script = script[0]["start"], script[1:]
    walk = _Walk(pack, expected, start) if isinstance(pack.get("workflow"), Mapping) else None
    for step in script:
        if walk is not None and walk.ended:
            break
        kind = next(iter(step))
        if kind == "run_composition":
            found = _composition_step(pack, step["run_composition"], expected.exercised)
        elif walk is not None and kind in _Walk.HANDLED:
            found = walk.step(kind, step)
        else:
            found = None
        if found is None:
            expected.left_out += 1
            continue
        expected.steps.append(found[0])
        expected.step_rules.append(found[1])
    runs = [s["run_composition"]["name"] for s in expected.steps if "run_composition" in s]
    if any(_vendor_parts(pack["compositions"][name]) for name in runs):
        expected.level = 3  # RFC 0010 Level 3: the kit's test extensions took part
    refused = expected.start is not None and "rejection" in expected.start
    if walk is not None and not refused:
        expected.final, expected.final_rules = walk.final()
    return expected


class _Walk:
    """A reference session walked step by step, with the expectations it gives."""

    HANDLED = ("event", "set_artifact", "tool_calls", "advance_clock", "agent_text", "user_turn")

    def __init__(
        self, pack: Mapping[str, Any], expected: Expected, start: Mapping[str, Any] | None = None
    ) -> None:
        workflow = reference.compile_workflow(pack)
        self.workflow = workflow
        self.raw: Mapping[str, Any] = pack["workflow"]["states"]
        self.clock = reference.ManualClock()
        self.exercised = expected.exercised
        self.entry_rule = RULE_ENTRY_VISIT
        self.start_rule = RULE_START_ENTRY
        self.session = self._start(expected, start)
        self.entry = self.session.current_state
        self.ended = expected.start is not None and "rejection" in expected.start
        self.ended = self.ended or self._dead_end(self.entry)
        self.status: Any = None if self.ended else self._status()
        self.status_rule = RULE_TERMINAL if self.status == "completed" else self.start_rule
        # RFC 0014: the turn where it is pinned at MUST (None: open; never at the start, X17),
        # and the texts of the rounds since the last user turn. Compared in packs that
        # declare control only: other runtimes need not report turns at all.
        self.turns = any("control" in state for state in self.raw.values())
        self.turn: str | None = None
        self.texts: list[str] = []
        # Artifact name -> (whether the value is exact, the parts written since the last
        # replace): MUST is "every part present, in order" for append (X10's join is SHOULD).
        self.artifacts: dict[str, tuple[bool, list[str]]] = {}
        self.exercised["states"] += len(workflow.states)
        self.exercised["sessions"] += 1

    def _start(self, expected: Expected, start: Mapping[str, Any] | None) -> reference.Session:
        """The session, started where ``start`` says (RFC 0011), and what the start must do.

        A refused start (``agent-unknown``, MUST) is the whole example. A start at a named
        state (``at_state``) is the kit's adapter contract: a runtime that refuses it or lacks
        it skips the example (the runner weighs its checks MAY), one that starts there is held
        to what follows. Left out, the session starting at the entry instead: a member without
        ``state`` (its refusal is MAY), and a start at a state the pack lacks.
        """
        agent = None if start is None else start.get("agent")
        if start is not None and agent is None:
            state = start.get("at_state")
            if state not in self.raw:
                self.exercised["left out: start at an unknown state"] += 1
                return reference.start_session(self.workflow, clock=self.clock)
            expected.start = dict(start)
            expected.start_rules = {"outcome": RULE_START_STATE}
            self.exercised["starts (state)"] += 1
            self.start_rule = RULE_START_STATE
            self.entry_rule = RULE_START_VISIT
            return reference.start_session(self.workflow, clock=self.clock, at_state=state)
        if start is not None and agent is not None:
            try:
                session = reference.start_session(self.workflow, clock=self.clock, agent=agent)
            except reference.Rejection as rejection:
                rule = RULE_START_REFUSED.get(rejection.code)
                if rule is not None:
                    expected.start = {**start, "rejection": rejection.code}
                    expected.start_rules = {"outcome": rule}
                    self.exercised[f"start refused: {rejection.code}"] += 1
                    return reference.start_session(self.workflow, clock=self.clock)
                self.exercised["left out: start as an agent without state"] += 1
            else:
                expected.start = dict(start)
                carried = expected.load is not None
                rule = RULE_START_AGENT_EXTENSIONS if carried else RULE_START_AGENT
                expected.start_rules = {"outcome": rule}
                self.exercised["starts (agent)"] += 1
                if carried:
                    self.exercised["starts (agent, extensions)"] += 1
                self.start_rule = RULE_START_AGENT
                self.entry_rule = RULE_START_VISIT
                return session
        return reference.start_session(self.workflow, clock=self.clock)

    # -- what is certain ---------------------------------------------------------------------

    def _dead_end(self, name: str) -> bool:
        """Terminal only by the v1.3 convention (no ``on_event``): completing there is MAY."""
        raw = self.raw[name]
        return raw.get("terminal") is not True and not raw.get("on_event")

    def _reached(self, limits: tuple[str, ...]) -> bool:
        budget = self.workflow.budget
        if not budget.is_set:
            return False
        data = self.session.state()
        counts = {
            "max_total_visits": sum(data["visit_counts"].values()),
            "max_tool_calls": data["tool_calls"],
            "max_wall_time_sec": data["elapsed_sec"],
        }
        return any(
            getattr(budget, limit) is not None and counts[limit] >= getattr(budget, limit)
            for limit in limits
        )

    def _may_have_ended(self) -> bool:
        """R4, R12: once any budget limit is reached, the workflow may end at once."""
        return self._reached(_BUDGET_LIMITS)

    def _status(self) -> Any:
        status = self.session.status
        if status == "active" and self._may_have_ended():
            return _EITHER_ENDED
        if status == "completed" and self._reached(_BUDGET_LIMITS):
            # Past a limit in a terminal state: the RFC says neither which wins (MAY case
            # loops.budget.terminal-state-first).
            return {"$one_of": ["completed", "budget_exhausted"]}
        return status

    def _observed(self) -> dict[str, Any]:
        return {
            "state": self.session.current_state,
            "visit_counts": self.session.state()["visit_counts"],
        }

    def _visit_rules(self, rules: Rules) -> Rules:
        # Started at a state, every count follows from the start's {S: 1} (X23).
        started = self.entry_rule == RULE_START_VISIT
        rules.setdefault("visit_counts", RULE_START_VISIT if started else RULE_VISITS)
        rules[f"visit_counts.{self.entry}"] = self.entry_rule
        if started:
            # Started at a state: a count for the workflow's entry is the start's mistake.
            rules[f"visit_counts.{self.workflow.entry}"] = RULE_START_VISIT
        return rules

    def _turn_expected(self, expect: dict[str, Any], rules: Rules, rule: str) -> None:
        """Add the pinned turn (if any) to a step's expectation, under ``rule``."""
        if self.turns and self.turn is not None:
            expect["turn"] = self.turn
            rules["turn"] = rule

    def _turn_after_move(self, source: str, entered: str) -> str:
        """Pin the turn after an accepted transition into ``entered``; return the rule."""
        raw = self.raw[entered]
        control = raw.get("control")
        if _has_ended(self.status):
            self.turn = "user"  # X21: the workflow ended
            return RULE_TURN["terminal"]
        if source == "host":
            # X20 is MUST from the user's turn; while the agent may hold it, SHOULD.
            self.turn = "user" if self.turn == "user" else None
            external = raw.get("orchestration") == "external" and control == "agent"
            return RULE_TURN["host-external" if external else "host"]
        if control != "agent":
            self.turn = "user"  # X18, X19
            return RULE_TURN[control]
        open_ = raw.get("orchestration") in ("external", "composition") or self._reached(
            _BUDGET_LIMITS
        )
        # The agent keeps the floor (X18), unless entering an external or composition state
        # (MAY) or reaching a budget that may end the workflow at once (R4).
        self.turn = None if open_ or self.status != "active" else "agent"
        return RULE_TURN["agent"]

    # -- steps -------------------------------------------------------------------------------

    def step(self, kind: str, step: Mapping[str, Any]) -> tuple[dict[str, Any], Rules] | None:
        if kind == "event":
            return self._event(step["event"], step.get("source", "host"))
        if kind == "set_artifact":
            return self._artifact(step["set_artifact"]["name"], step["set_artifact"]["value"])
        if kind in ("agent_text", "user_turn"):
            return self._round(kind, step["agent_text"] if kind == "agent_text" else None)
        return self._budget_input(kind, step[kind])

    def _event(self, event: str, source: str) -> tuple[dict[str, Any], Rules] | None:
        current = self.session.current_state
        orchestration = self.raw[current].get("orchestration")
        if orchestration == "composition":
            return None
        if source == "agent" and orchestration == "external":
            self.exercised["left out: agent event in an external state"] += 1
            return None
        if source == "host" and orchestration == "internal":
            self.exercised["left out: host event in an internal state"] += 1
            return None
        was = self.session.status
        target = self.workflow.states[current].on_event.get(event)
        written: dict[str, Any] = {"event": event}
        if source == "agent":
            written["source"] = "agent"
            self.exercised["agent events"] += 1
        try:
            transition = self.session.send(event, source)  # type: ignore[arg-type]
        except reference.Rejection as rejection:
            found = self._refused(rejection, event, current, was, target, source=source)
            if found is None:
                return None
            expect, rules = found
            self.exercised[f"refused: {rejection.code}"] += 1
        else:
            entered = transition.to_state
            seen: dict[str, Any] = {"from": current, "to": entered, "event": event}
            seen["redirected"] = transition.redirected
            if transition.redirected:
                seen["original_target"] = transition.original_target
                self.exercised["redirects"] += 1
            self.exercised["transitions"] += 1
            outcome = (
                RULE_REDIRECT
                if transition.redirected
                else RULE_AGENT_EVENT.get(orchestration, RULE_EVENT)
                if source == "agent"
                else RULE_HOST_EVENT.get(orchestration, RULE_EVENT)
            )
            expect = {"transition": seen, **self._observed()}
            rules = {"outcome": outcome}
            if self._dead_end(entered):
                self.exercised["ended: state without on_event"] += 1
                self.ended, self.status = True, None
                self.turn = None  # implicitly terminal: X21 names terminal: true only (SHOULD)
            else:
                self.status = self._status()
                expect["status"] = self.status
                if self.status == "completed":
                    self.exercised["completed"] += 1
                    self.status_rule = RULE_TERMINAL
                elif self._reached(_BUDGET_LIMITS[:1]):
                    self.status_rule = self._budget_rule("max_total_visits")
                else:
                    self.status_rule = outcome
                rules["status"] = self.status_rule
                if self.turns:
                    rule = self._turn_after_move(source, entered)
                    self._turn_expected(expect, rules, rule)
                    if self.turn is not None:
                        self.exercised[f"turn after {source} event: {self.turn}"] += 1
        written["expect"] = expect
        return written, self._visit_rules(rules)

    def _refused(
        self,
        rejection: reference.Rejection,
        event: str,
        current: str,
        was: str,
        target: Any,
        *,
        source: str = "host",
    ) -> tuple[dict[str, Any], Rules] | None:
        code = rejection.code
        expect: dict[str, Any] = {}
        if code == "terminal-state":
            codes = ["terminal-state", "unknown-event"]
            if self._reached(_BUDGET_LIMITS):
                codes.append("budget-exhausted")
            rule = RULE_TERMINAL
        elif code == "budget-exhausted" and was == "budget_exhausted":
            codes = [code]
            limit = self.session.state()["exhausted_by"]
            if limit:
                rule = self._budget_rule(limit)
            else:
                rule = RULE_ENDED_BY_GUARD if source == "agent" else RULE_NO_REDIRECT
        elif code == "budget-exhausted":
            codes = [code]
            rule = self._budget_rule(rejection.limit or "")
            if target is None:
                # The limit and the unknown event: which is checked first is SHOULD (X4), and
                # with it whether the workflow ends now.
                codes.append("unknown-event")
                self.ended = True
        elif code == "unknown-event":
            codes, rule = [code], RULE_UNKNOWN_EVENT
        elif code == "max-visits-exceeded":
            ending, redirects = self._chain(target)
            if ending == "cycle":
                # RFC 0009 does not say whether a forced exit that never exits ends the
                # workflow: the status is open, and so is everything after.
                codes, rule = [code], RULE_CHAIN_CYCLE
                self.ended = True
            else:
                codes = [code, "budget-exhausted"]
                rule = RULE_CHAIN_END if redirects else RULE_NO_REDIRECT
        else:
            return None  # event-source-not-allowed: agent events in external states are left out
        expect["rejection"] = codes[0] if len(codes) == 1 else codes
        expect.update(self._observed())
        self.status = None if self.ended else self._status()
        self.status_rule = rule
        rules = {"outcome": rule, "status": rule, "state": rule}
        if self.status is not None:
            expect["status"] = self.status
        if _has_ended(self.status):
            self.turn = "user"  # X21: the workflow has ended
            turn_rule = RULE_TURN["max-visits" if code == "max-visits-exceeded" else "budget"]
            if code == "terminal-state":
                turn_rule = RULE_TURN["terminal"]
            self._turn_expected(expect, rules, turn_rule)
        else:
            self.turn = None  # a refused event leaves the turn unchanged: MAY
        return expect, rules

    def _budget_rule(self, limit: str) -> str:
        """The catalog case pinning a reached ``limit`` in this session's context: started as
        an agent, the kind set with others, or alone (SEMANTICS R16)."""
        if limit not in RULE_BUDGET:
            return RULE_BUDGET_ORDER
        if self.start_rule == RULE_START_AGENT:
            return RULE_BUDGET_AT_AGENT_START[limit]
        if self.start_rule == RULE_START_STATE:
            return RULE_BUDGET_AT_STATE_START[limit]
        budget = self.workflow.budget
        if sum(getattr(budget, kind) is not None for kind in _BUDGET_LIMITS) > 1:
            return RULE_BUDGET_TOGETHER
        return RULE_BUDGET[limit]

    def _chain(self, target: str) -> tuple[str, int]:
        """How the loop guard refused an event into ``target``: ``("end", redirects)`` at a
        state at its limit without ``on_max_visits``, or ``("cycle", redirects)`` when the
        chain came back to a state already tried (every state on it is at its limit)."""
        tried: list[str] = []
        name = target
        while True:
            tried.append(name)
            redirect = self.workflow.states[name].on_max_visits
            if redirect is None:
                return "end", len(tried) - 1
            if redirect in tried:
                return "cycle", len(tried) - 1
            name = redirect

    def _artifact(self, name: str, value: str) -> tuple[dict[str, Any], Rules] | None:
        current = self.session.current_state
        declared = (self.raw[current].get("artifacts") or {}).get(name)
        if self.session.status != "active" or self._may_have_ended() or declared is None:
            self.exercised["left out: artifact write the RFCs leave open"] += 1
            return None
        self.session.set_artifact(name, value)
        mode = declared.get("mode", "replace")
        self.exercised[f"artifact writes ({mode})"] += 1
        parts = self.artifacts.get(name, (True, []))[1]
        if mode == "append":
            self.artifacts[name] = (False, [*parts, value])
        else:
            self.artifacts[name] = (True, [value])
        expect = {"artifacts": {"$subset": self._artifact_values()}}
        return {"set_artifact": {"name": name, "value": value}, "expect": expect}, {
            "outcome": RULE_ARTIFACTS,
            "artifacts": RULE_ARTIFACTS,
        }

    def _artifact_values(self) -> dict[str, Any]:
        values: dict[str, Any] = {}
        for name, (exact, parts) in sorted(self.artifacts.items()):
            if exact:
                values[name] = parts[0]
            else:
                values[name] = {"$contains_in_order": [part for part in parts if part]}
        return values

    def _budget_input(self, kind: str, amount: Any) -> tuple[dict[str, Any], Rules] | None:
        if self.session.status != "active" or self._may_have_ended():
            return None  # the workflow may have ended: what tool calls do then is not pinned
        if kind == "tool_calls":
            self.session.record_tool_calls(amount)
            rule = self._budget_rule("max_tool_calls")
        else:
            self.clock.advance(amount)
            rule = self._budget_rule("max_wall_time_sec")
        self.exercised[kind.replace("_", " ")] += 1
        self.status = self._status()
        self.status_rule = rule
        if self.turn != "user" and self.status != "active":
            self.turn = None  # the workflow may end now (X21: user) or at the next event
        expect = {"state": self.session.current_state, "status": self.status}
        return {kind: amount, "expect": expect}, {"outcome": rule, "status": rule}

    def _round(self, kind: str, text: str | None) -> tuple[dict[str, Any], Rules] | None:
        """The agent's text (its round ends: the turn is the user's) or the user's turn."""
        if self.session.status != "active" or self._may_have_ended():
            self.exercised["left out: a turn after the workflow may have ended"] += 1
            return None
        expect: dict[str, Any] = {}
        rules: Rules = {}
        if text is None:
            self.session.user_turn()
            self.texts = []
            written: dict[str, Any] = {"user_turn": True}
            rules["outcome"] = RULE_REPLY
            self.exercised["user turns"] += 1
        else:
            self.session.agent_text(text)
            self.texts.append(text)
            written = {"agent_text": text}
            rules["outcome"] = RULE_TURN["text"]
            self.exercised["agent texts"] += 1
        self.turn = "user"
        self._turn_expected(expect, rules, rules["outcome"])
        self._reply_expected(expect, rules)
        if not expect:
            return None
        written["expect"] = expect
        return written, rules

    def _reply_expected(self, expect: dict[str, Any], rules: Rules) -> None:
        """The texts since the last user turn, each in the reply, in order (the join is
        SHOULD: any join passes)."""
        if self.texts:
            expect["reply"] = {"$contains_in_order": list(self.texts)}
            rules["reply"] = RULE_REPLY

    def final(self) -> tuple[dict[str, Any], Rules]:
        """What the session must show at the end of the compared steps."""
        data = self.session.state()
        final: dict[str, Any] = {"state": data["current_state"]}
        if self.status is not None:
            final["status"] = self.status
        final["visit_counts"] = data["visit_counts"]
        if self.artifacts:
            final["artifacts"] = {"$subset": self._artifact_values()}
        rules = {
            "outcome": RULE_EVENT,
            "state": RULE_EVENT if data["history"] else self.start_rule,
            "status": self.status_rule,
            "artifacts": RULE_ARTIFACTS,
        }
        self._turn_expected(final, rules, RULE_TURN["text"])
        self._reply_expected(final, rules)
        return final, self._visit_rules(rules)


def extension_pointers(value: Any, where: str = "") -> list[str]:
    """The JSON pointer of every ``extensions`` member of a pack, never looking inside one."""
    found = []
    if isinstance(value, Mapping):
        for key, item in value.items():
            pointer = f"{where}/{str(key).replace('~', '~0').replace('/', '~1')}"
            if key == "extensions":
                found.append(pointer)
            else:
                found += extension_pointers(item, pointer)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += extension_pointers(item, f"{where}/{index}")
    return found


def _has_ended(status: Any) -> bool:
    """Whether the workflow has certainly ended (a status, or the statuses it may have)."""
    if isinstance(status, dict):
        return "active" not in status["$one_of"]
    return status in ("completed", "budget_exhausted")


# -- compositions -----------------------------------------------------------------------------


def _composition_step(
    pack: Mapping[str, Any], run: Mapping[str, Any], exercised: Counter[str]
) -> tuple[dict[str, Any], Rules] | None:
    name = run["name"]
    composition = pack["compositions"][name]
    asking = _asking_prompts(composition, run["mocks"])
    if asking:
        return _prompt_calls_step(pack, run, asking, exercised)
    result = reference.run_composition(
        pack, name, run["input"], run["mocks"], extensions=_TEST_EXTENSIONS
    ).to_dict()
    status = result["status"]
    exercised[f"composition runs ({status})"] += 1
    wanted: dict[str, Any] = {"status": status}
    rules: Rules = {"outcome": RULE_COMPOSITION["order"]}
    steps = _steps_by_id(composition)
    traces = _traces_by_id(result["trace"])
    kinds = {step["kind"] for step in steps.values()}
    for kind in ("branch", "parallel"):
        if kind in kinds:
            exercised[f"composition {kind} steps"] += 1
    if status == "failed":
        error = result["error"] or {}
        if error.get("code") == "composition-no-output":
            return None  # the named step was skipped: what then is SHOULD (C10)
        # What follows a failed step or branch is the runtime's error recovery (R15), and how
        # many attempts a retry makes is the runtime's too (R18): nothing MUST to compare.
        exercised["left out: composition runs after a failure"] += 1
        return None
    bounded = _first_bounded_agent(result["trace"])
    if bounded is not None:
        # An agent step that ran to its max_steps: how it then ends (completed or failed) is
        # the kit's pick (MAY), and so is the rest of the run. What is MUST is that the loop
        # stopped there: its rounds and the tool calls they made (RFC 0010 AgentStep, "a
        # bounded LLM-tool loop", in sequence and as a parallel branch alike, R16).
        wanted, rule = bounded
        exercised[f"composition agent steps at max_steps ({rule.rpartition('.')[2]})"] += 1
        written = {
            "run_composition": {"name": name, "input": run["input"], "mocks": run["mocks"]},
            "expect": {"composition": {"$subset": wanted}},
        }
        return written, {"outcome": rule, "composition.trace": rule}
    if any(t.get("attempts", 1) > 1 for t in traces.values()):
        # A step that succeeded only on a retry: a runtime that retries otherwise (R18)
        # may end the run another way.
        exercised["left out: composition runs that needed a retry"] += 1
        return None
    rules["composition.status"] = RULE_COMPOSITION["branch" if "branch" in kinds else "order"]
    vendor = _vendor_parts(composition)
    if vendor:
        # A runtime claiming Level 3 with the kit's test extensions runs them as any step:
        # the run completes. What they give is the kit's definition (MAY): not compared.
        rule = RULE_VENDOR[vendor[0]]
        rules.update(outcome=rule, **{"composition.status": rule})
        exercised["composition runs with the kit's test extensions"] += 1
    named = composition.get("output")
    if named is not None:
        trace = traces.get(named, {})
        if trace.get("status") != "completed":
            return None  # the named step was skipped: SHOULD (C10)
        found = _output(steps[named], trace, steps)
        if found is None:
            exercised["left out: a prompt step's output without output_schema"] += 1
        else:
            wanted["output"], rule = found
            rules["composition.output"] = RULE_COMPOSITION[rule]
    written = {
        "run_composition": {"name": name, "input": run["input"], "mocks": run["mocks"]},
        "expect": {"composition": {"$subset": wanted}},
    }
    return written, rules


_TEST_EXTENSIONS = reference.test_extensions()
"""The kit's test vendor namespace, which a runtime claiming RFC 0010 Level 3 registers (the
fuzzer draws it only for such a runtime)."""


def _vendor(name: Any) -> bool:
    """Whether a step kind or reducer strategy is a vendor one (``namespace.name``)."""
    return isinstance(name, str) and "." in name


def _vendor_parts(composition: Mapping[str, Any]) -> list[str]:
    """Which of :data:`RULE_VENDOR`'s parts the composition holds, in that order."""
    found = set()
    for step in composition.get("steps") or []:
        if _vendor(step.get("kind")):
            found.add("step")
        if any(_vendor(member.get("kind")) for member in step.get("branches") or []):
            found.add("branch")
        if _vendor((step.get("reduce") or {}).get("strategy")):
            found.add("reducer")
    return [part for part in RULE_VENDOR if part in found]


def _asking_prompts(composition: Mapping[str, Any], mocks: Mapping[str, Any]) -> list[str]:
    """The prompt steps whose scripted model answers ask for tool calls, sorted."""
    steps = _steps_by_id(composition)
    return sorted(
        key
        for key, responses in mocks.items()
        if steps.get(key, {}).get("kind") == "prompt"
        and any(isinstance(r, Mapping) and "tool_calls" in r for r in responses)
    )


def _prompt_calls_step(
    pack: Mapping[str, Any], run: Mapping[str, Any], asking: list[str], exercised: Counter[str]
) -> tuple[dict[str, Any], Rules] | None:
    """A run in which a prompt step's model answer asks for tool calls. RFC 0010: a prompt
    step is "a one-shot LLM invocation ... No tool calls". A runtime may ignore the calls (the
    run is then the run of the answers without them) or fail the step (and what follows is its
    error recovery, R15): either is accepted, as the catalog's cases do; running a call is not
    (it takes the answer another step waits for)."""
    mocks = run["mocks"]
    ignored = {
        key: [{k: v for k, v in r.items() if k != "tool_calls"} for r in responses]
        if key in asking
        else responses
        for key, responses in mocks.items()
    }
    found = _composition_step(pack, {**run, "mocks": ignored}, exercised)
    if found is None:
        return None
    written, rules = found
    composition = pack["compositions"][run["name"]]
    parents = {
        member["id"]: step["id"]
        for step in composition.get("steps") or []
        for member in step.get("branches") or []
    }
    failed = []
    for step_id in asking:
        entry: dict[str, Any] = {"$subset": {"step": step_id, "status": "failed"}}
        if step_id in parents:
            entry = {"$subset": {"step": parents[step_id], "members": {"$contains": [entry]}}}
        failed.append({"$subset": {"trace": {"$contains": [entry]}}})
    rule = RULE_PROMPT_CALLS["parallel" if any(s in parents for s in asking) else "sequence"]
    exercised["composition runs with a prompt answer asking for tools"] += 1
    expect = {"composition": {"$one_of": [written["expect"]["composition"], *failed]}}
    written = {"run_composition": {**written["run_composition"], "mocks": mocks}, "expect": expect}
    return written, {**rules, "outcome": rule, "composition": rule}


def _first_bounded_agent(trace: list[Mapping[str, Any]]) -> tuple[dict[str, Any], str] | None:
    """What the first agent step of the run that stopped at its ``max_steps`` must show (as a
    ``$subset`` of the run), and the rule: ``None`` if no agent step did. Only the first: a
    runtime that fails the step there (MAY) may run nothing after it."""
    for entry in trace:
        members = entry.get("members") or [] if entry.get("kind") == "parallel" else []
        for member in members:
            if member.get("kind") == "agent" and member.get("exit") == "max_steps":
                inner = {
                    "$subset": {"step": entry["step"], "members": {"$contains": [_rounds(member)]}}
                }
                return {"trace": {"$contains": [inner]}}, RULE_AGENT_BOUND["parallel"]
        if entry.get("kind") == "agent" and entry.get("exit") == "max_steps":
            return {"trace": {"$contains": [_rounds(entry)]}}, RULE_AGENT_BOUND["sequence"]
        if entry.get("kind") == "agent" or any(m.get("kind") == "agent" for m in members):
            return None  # an agent step that ended otherwise: what follows is not bounded
    return None


def _rounds(trace: Mapping[str, Any]) -> dict[str, Any]:
    """An agent step's rounds and tool calls (their answers aside), as a ``$subset``."""
    calls = [
        {"$subset": {"round": c["round"], "tool": c["tool"], "args": c["args"]}}
        for c in trace.get("tool_calls") or []
    ]
    return {"$subset": {"step": trace["step"], "rounds": trace["rounds"], "tool_calls": calls}}


def _output(
    step: Mapping[str, Any], trace: Mapping[str, Any], steps: Mapping[str, Mapping[str, Any]]
) -> tuple[Any, str] | None:
    """The output a named step must have given, and the rule that pins it; ``None`` when it
    holds what a prompt step without ``output_schema`` gave that is not text: a runtime may
    hand on the model's text as it is (R13), or what the kit's test extensions gave (their
    definition is the kit's, MAY)."""
    if _vendor_parts({"steps": [step]}):
        return None
    if step["kind"] != "parallel":
        if _unparsed(step, trace.get("output")):
            return None
        return trace["output"], "output"
    reduce = step["reduce"]
    into, strategy = reduce["into"], reduce["strategy"]
    members = [m for m in trace.get("members", []) if m.get("status") == "completed"]
    if any(_unparsed(steps.get(m.get("step"), {}), m.get("output")) for m in members):
        return None
    if strategy == "append":
        return {into: {"$unordered": [m["output"] for m in members]}}, strategy
    if strategy == "replace":
        return {into: {"$one_of": [m["output"] for m in members]}}, strategy
    return {into: {m["step"]: m["output"] for m in members}}, strategy


def _unparsed(step: Mapping[str, Any], output: Any) -> bool:
    """Whether ``output`` is a structured value of a prompt or agent step that declares no
    ``output_schema`` (parsing the model's text is left to runtimes, R13)."""
    return (
        step.get("kind") in ("prompt", "agent")
        and "output_schema" not in step
        and not isinstance(output, str)
    )


def _steps_by_id(composition: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    found: dict[str, Mapping[str, Any]] = {}
    for step in composition.get("steps") or []:
        found[step["id"]] = step
        for member in step.get("branches") or []:
            found[member["id"]] = member
    return found


def _traces_by_id(trace: list[Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    found: dict[str, Mapping[str, Any]] = {}
    for entry in trace:
        found[entry["step"]] = entry
        for member in entry.get("members") or []:
            found[member["step"]] = member
    return found
