"""Scenario steps and what is expected after them, as types.

Each step kind of a case file is one class here, which says what it is (:meth:`Step.describe`)
and does it against a session (:meth:`Step.perform`); :data:`STEP_TYPES` is the one table of
them, read by the case loader, the runner and the fuzzer, and tied to the case schema by a test.
Each expectation checks an observation itself (:meth:`Expectation.check`, as Bowtie's
expectations do), with or without the kit's vocabulary: the codes a rejection, a refused start
or a failed composition step carries, and where a failure is reported, are the kit's words, which
no RFC defines (SEMANTICS R9), so a check of them is separate from, and weaker than, the check of
what happened.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from functools import cache, cached_property
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from conformance._basics.contract import Requirement
from conformance._basics.errors import Rejected
from conformance._basics.matchers import Mismatch, compare, differences, missing

if TYPE_CHECKING:
    from conformance._runtime.adapter import PackInput
    from conformance._runtime.boundary import Guard, GuardedSession

StepKind = Literal[
    "event",
    "set_artifact",
    "tool_calls",
    "advance_clock",
    "snapshot_restore",
    "run_composition",
    "run_state",
    "agent_text",
    "user_turn",
]

OBSERVATIONS = {
    "state": "current_state",
    "status": "status",
    "terminal": "terminal",
    "available_events": "available_events",
    "prompt_task": "prompt_task",
    "visit_counts": "visit_counts",
    "history": "history",
    "artifacts": "artifacts",
    "artifact_history": "artifact_history",
    "tool_calls": "tool_calls",
    "turn": "turn",
    "reply": "reply",
    "prompt_variables": "prompt_variables",
}
"""Expectation key -> key of the runtime's observable session data."""

ADVISORY: dict[str, tuple[str, Requirement]] = {
    "history": ("RFC0009.question-2.lean.1", "SHOULD"),
    "artifact_history": ("RFC0009.question-2.lean.1", "SHOULD"),
    "available_events": ("kit.pick.available-events", "MAY"),
}
"""Observables no RFC requires, each with the statement that weighs a check of it and what that
gives: the record of transitions, which the RFCs recommend keeping (RFC 0009 Question 2 leans to
recommending history capture), and the list of events a state offers, which no RFC defines (the
kit's pick: whether an event fires is what the RFCs decide, and a case checks that by sending
it; a terminal state may still list the transitions it declares, as PromptKit's
``AvailableEvents`` does). A check of them is a detail check of its own, as the kit's codes are,
never the scenario's."""


def without_advisory(expected: Mapping[str, Any]) -> dict[str, Any]:
    """Expected session data without the observables of :data:`ADVISORY`."""
    return {key: value for key, value in expected.items() if key not in ADVISORY}


# -- what a step did --------------------------------------------------------------------------


class Observed:
    """What one step did: refused or not, its transition or composition result, and the session
    (whose data is read once, when an expectation first asks for it)."""

    def __init__(
        self,
        rejection: Rejected | None = None,
        transition: Mapping[str, Any] | None = None,
        composition: Mapping[str, Any] | None = None,
        session: GuardedSession | None = None,
    ) -> None:
        self.rejection = rejection
        self.transition = transition
        self.composition = composition
        self.session = session
        self._state: Mapping[str, Any] | None = None

    def state(self) -> Mapping[str, Any] | None:
        if self._state is None and self.session is not None:
            self._state = self.session.state()
        return self._state


@dataclass(frozen=True)
class Miss:
    """How an observation misses an expectation: a sentence, and the first difference found."""

    message: str
    mismatch: Mismatch | None = None


# -- expectations -----------------------------------------------------------------------------


class Expectation(ABC):
    """What must be observed after a step."""

    @abstractmethod
    def check(self, observed: Observed, *, details: bool = True) -> Miss | None:
        """How the observation misses the expectation (``None``: it matches).

        Arguments:
            details: also check the details weaker than what happened: the kit's vocabulary
                (codes, where a failure is reported: any code will do without it) and the
                observables the RFCs only recommend (:data:`ADVISORY`).
        """

    @property
    @abstractmethod
    def codes(self) -> tuple[str, ...]:
        """The kit's codes the expectation names (sorted, each once)."""

    @property
    @abstractmethod
    def advisory(self) -> tuple[str, ...]:
        """The observables of :data:`ADVISORY` the expectation names (sorted, each once)."""


@dataclass(frozen=True)
class RejectionWanted:
    """An expected rejection: the codes any of which is right, and the budget limit named."""

    codes: tuple[str, ...]
    limit: str | None = None

    @classmethod
    def parse(cls, data: Any) -> RejectionWanted:
        if isinstance(data, Mapping):
            code, limit = data["code"], data.get("limit")
        else:
            code, limit = data, None
        return cls((code,) if isinstance(code, str) else tuple(code), limit)

    def matches(self, rejection: Rejected) -> bool:
        return rejection.code in self.codes and (
            self.limit is None or rejection.limit == self.limit
        )

    def __str__(self) -> str:
        return " or ".join(self.codes) + (f" ({self.limit})" if self.limit else "")


def describe_rejection(rejection: Rejected) -> str:
    """``budget-exhausted (max_tool_calls)``: a rejection's code and limit."""
    return str(rejection.code) + (f" ({rejection.limit})" if rejection.limit else "")


@dataclass(frozen=True)
class Expect(Expectation):
    """One expectation: acceptance or a rejection, and what must then be observed.

    Attributes:
        rejection: the rejection expected (``None``: the input must be accepted).
        transition: the transition expected (a subset of what is reported).
        composition: the composition result expected (``missing()``: not checked).
        observations: session data expected, by expectation key (see :data:`OBSERVATIONS`).
    """

    rejection: RejectionWanted | None = None
    transition: Mapping[str, Any] | None = None
    composition: Any = field(default_factory=missing)
    observations: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def parse(cls, data: Mapping[str, Any]) -> Expect:
        wanted = data.get("rejection")
        return cls(
            rejection=None if wanted is None else RejectionWanted.parse(wanted),
            transition=data.get("transition"),
            composition=data["composition"] if "composition" in data else missing(),
            observations={k: v for k, v in data.items() if k in OBSERVATIONS},
        )

    @property
    def codes(self) -> tuple[str, ...]:
        found = set(self.rejection.codes if self.rejection else ())
        found |= _codes_in(self.composition)
        return tuple(sorted(found))

    def check(self, observed: Observed, *, details: bool = True) -> Miss | None:
        rejection, transition, wanted = observed.rejection, observed.transition, self.rejection
        if rejection is not None:
            if wanted is None:
                return Miss(f"rejected with {describe_rejection(rejection)}, expected acceptance")
            if details and not wanted.matches(rejection):
                return Miss(f"expected rejection {wanted}, got {describe_rejection(rejection)}")
        elif wanted is not None:
            shown = f" ({transition.get('from')} -> {transition.get('to')})" if transition else ""
            expected = f"rejection {wanted}" if details else f"a rejection ({wanted})"
            return Miss(f"accepted{shown}, expected {expected}")
        if self.transition is not None:
            seen = {"redirected": False, **(transition or {})}
            mismatch = compare({"$subset": self.transition}, seen, "transition")
            if mismatch:
                return Miss(str(mismatch), mismatch)
        if self.composition is not missing():
            expected = self.composition if details else _without_vocabulary(self.composition)
            mismatch = compare(expected, observed.composition or missing(), "composition")
            if mismatch:
                return Miss(str(mismatch), mismatch)
        wanted_state = self.observations if details else without_advisory(self.observations)
        if wanted_state:
            state = observed.state()
            if state is None:
                return Miss("the case checks session data, but no session runs")
            mismatch = compare_observations(wanted_state, state)
            if mismatch:
                return Miss(str(mismatch), mismatch)
        return None

    @property
    def advisory(self) -> tuple[str, ...]:
        return tuple(sorted(key for key in self.observations if key in ADVISORY))


@dataclass(frozen=True)
class AnyOf(Expectation):
    """Several allowed results: the observation must match one of them."""

    alternatives: tuple[Expect, ...]

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(sorted({code for a in self.alternatives for code in a.codes}))

    @property
    def advisory(self) -> tuple[str, ...]:
        return tuple(sorted({key for a in self.alternatives for key in a.advisory}))

    def check(self, observed: Observed, *, details: bool = True) -> Miss | None:
        misses = [a.check(observed, details=details) for a in self.alternatives]
        if any(miss is None for miss in misses):
            return None
        shown = "; ".join(f"({i}) {miss.message}" for i, miss in enumerate(misses, 1) if miss)
        return Miss(f"matches none of the {len(misses)} allowed results: {shown}")


ACCEPTED = Expect()
"""A step with no ``expect``: its input must be accepted, nothing else is checked."""


def parse_expectation(data: Mapping[str, Any] | None) -> Expectation:
    """The expectation a step's ``expect`` block states."""
    if data is None:
        return ACCEPTED
    if "any_of" in data:
        return AnyOf(tuple(Expect.parse(a) for a in data["any_of"]))
    return Expect.parse(data)


@dataclass(frozen=True)
class Observation(Mismatch):
    """The first mismatch of a session observable, with every other one of the same field (a
    report points at every state whose count or artifact differs)."""

    all: tuple[Mismatch, ...] = ()


def compare_observations(expected: Mapping[str, Any], state: Mapping[str, Any]) -> Mismatch | None:
    """The first difference between expected session data and the runtime's."""
    for key, value in expected.items():
        observed = state.get(OBSERVATIONS[key], missing())
        mismatch = compare(value, observed, key)
        if mismatch:
            found = differences(value, observed, key)
            return Observation(
                mismatch.path, mismatch.expected, mismatch.actual, mismatch.reason, found
            )
    return None


def _codes_in(expected: Any) -> set[str]:
    """The ``code`` values anywhere in an expected composition result (failure codes)."""
    found: set[str] = set()
    stack = [expected]
    while stack:
        value = stack.pop()
        if isinstance(value, Mapping):
            code = value.get("code")
            if isinstance(code, str):
                found.add(code)
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    return found


_ANY = {"$any": True}


def _without_vocabulary(expected: Any) -> Any:
    """An expected composition result with every ``error`` that names a code (and where it was
    reported) replaced by "some error": that a step or run failed is what the RFC fixes."""
    if isinstance(expected, Mapping):
        return {
            key: _ANY if key == "error" and _codes_in(value) else _without_vocabulary(value)
            for key, value in expected.items()
        }
    if isinstance(expected, list):
        return [_without_vocabulary(item) for item in expected]
    return expected


# -- steps ------------------------------------------------------------------------------------


class Context:
    """What a step acts on: the runtime (through its guard), the case's pack, the session."""

    def __init__(self, guard: Guard, pack: PackInput, session: GuardedSession | None) -> None:
        self.guard = guard
        self.pack = pack
        self.session = session

    def live(self) -> GuardedSession:
        assert self.session is not None, "a session step runs in a scenario that starts one"
        return self.session


@dataclass(frozen=True)
class Step(ABC):
    """One scripted input of a scenario, and what must be observed after it.

    Attributes:
        expect: the step's expectations as written in the case (``None``: the input must be
            accepted, nothing else is checked).
        pointer: the step's JSON pointer in the case file.
    """

    kind: ClassVar[StepKind]
    operation: ClassVar[str | None]
    """The operation (:data:`~conformance._runtime.operations.OPERATIONS`) the step is, called with
    :attr:`arguments`; ``None`` for a step of several calls."""
    needs_session: ClassVar[bool] = True
    """Whether the step acts on a session (running a named composition does not)."""

    expect: Mapping[str, Any] | None = field(default=None, kw_only=True)
    pointer: str = field(default="", kw_only=True)

    @cached_property
    def expectation(self) -> Expectation:
        # Parsed once: the runner reads it when it plans, runs and judges the step.
        return parse_expectation(self.expect)

    @property
    def arguments(self) -> Mapping[str, Any]:
        """The input's data, its fields (e.g. ``{"event": "Go", "source": "host"}``): the
        arguments of its operation, in their order."""
        return {name: getattr(self, name) for name in _input_fields(type(self))}

    @abstractmethod
    def describe(self) -> str:
        """A short human description, e.g. ``event Go (agent)``."""

    @abstractmethod
    def perform(self, context: Context) -> Observed:
        """Do the step; what it did (a rejection propagates as :class:`Rejected`)."""

    @classmethod
    @abstractmethod
    def parse(cls, raw: Mapping[str, Any], pointer: str) -> Step:
        """The step a case file writes as ``{kind: value, expect: ...}`` (already checked
        against the case schema)."""


@dataclass(frozen=True)
class Event(Step):
    kind: ClassVar[StepKind] = "event"
    operation: ClassVar[str | None] = "send"
    event: str
    source: str = "host"

    def describe(self) -> str:
        return f"event {self.event}" + (" (agent)" if self.source == "agent" else "")

    def perform(self, context: Context) -> Observed:
        return Observed(transition=context.live().send(self.event, self.source))

    @classmethod
    def parse(cls, raw: Mapping[str, Any], pointer: str) -> Step:
        return cls(raw["event"], raw.get("source", "host"), **_common(raw, pointer))


@dataclass(frozen=True)
class SetArtifact(Step):
    kind: ClassVar[StepKind] = "set_artifact"
    operation: ClassVar[str | None] = "set_artifact"
    name: str
    value: str

    def describe(self) -> str:
        return f"set_artifact {self.name}={self.value!r}"

    def perform(self, context: Context) -> Observed:
        context.live().set_artifact(self.name, self.value)
        return Observed()

    @classmethod
    def parse(cls, raw: Mapping[str, Any], pointer: str) -> Step:
        value = raw[cls.kind]
        return cls(value["name"], value["value"], **_common(raw, pointer))


@dataclass(frozen=True)
class ToolCalls(Step):
    kind: ClassVar[StepKind] = "tool_calls"
    operation: ClassVar[str | None] = "tool_calls"
    count: int

    def describe(self) -> str:
        return f"tool_calls {self.count}"

    def perform(self, context: Context) -> Observed:
        context.live().record_tool_calls(self.count)
        return Observed()

    @classmethod
    def parse(cls, raw: Mapping[str, Any], pointer: str) -> Step:
        value = raw[cls.kind]
        return cls(value, **_common(raw, pointer))


@dataclass(frozen=True)
class AdvanceClock(Step):
    kind: ClassVar[StepKind] = "advance_clock"
    operation: ClassVar[str | None] = "advance_clock"
    seconds: float

    def describe(self) -> str:
        return f"advance_clock {self.seconds}"

    def perform(self, context: Context) -> Observed:
        context.live().advance_clock(self.seconds)
        return Observed()

    @classmethod
    def parse(cls, raw: Mapping[str, Any], pointer: str) -> Step:
        value = raw[cls.kind]
        return cls(value, **_common(raw, pointer))


@dataclass(frozen=True)
class SnapshotRestore(Step):
    kind: ClassVar[StepKind] = "snapshot_restore"
    operation: ClassVar[str | None] = None

    def describe(self) -> str:
        return "snapshot_restore"

    def perform(self, context: Context) -> Observed:
        session = context.live()
        restored = context.guard.restore(context.pack, session.snapshot())
        session.close()
        context.session = restored
        return Observed()

    @classmethod
    def parse(cls, raw: Mapping[str, Any], pointer: str) -> Step:
        return cls(**_common(raw, pointer))


@dataclass(frozen=True)
class RunComposition(Step):
    kind: ClassVar[StepKind] = "run_composition"
    operation: ClassVar[str | None] = "run_composition"
    needs_session: ClassVar[bool] = False
    name: str
    input: Any = None
    mocks: Mapping[str, Any] = field(default_factory=dict)

    def describe(self) -> str:
        return f"run_composition {self.name}"

    def perform(self, context: Context) -> Observed:
        result = context.guard.run_composition(context.pack, self.name, self.input, self.mocks)
        return Observed(composition=result)

    @classmethod
    def parse(cls, raw: Mapping[str, Any], pointer: str) -> Step:
        value = raw[cls.kind]
        return cls(
            value["name"],
            value.get("input"),
            value.get("mocks") or {},
            **_common(raw, pointer),
        )


@dataclass(frozen=True)
class RunState(Step):
    kind: ClassVar[StepKind] = "run_state"
    operation: ClassVar[str | None] = "run_state"
    input: Any = None
    mocks: Mapping[str, Any] = field(default_factory=dict)

    def describe(self) -> str:
        return "run_state"

    def perform(self, context: Context) -> Observed:
        return Observed(composition=context.live().run_state(self.input, self.mocks))

    @classmethod
    def parse(cls, raw: Mapping[str, Any], pointer: str) -> Step:
        value = raw[cls.kind] or {}
        return cls(value.get("input"), value.get("mocks") or {}, **_common(raw, pointer))


@dataclass(frozen=True)
class AgentText(Step):
    kind: ClassVar[StepKind] = "agent_text"
    operation: ClassVar[str | None] = "agent_text"
    text: str

    def describe(self) -> str:
        return f"agent_text {self.text!r}"

    def perform(self, context: Context) -> Observed:
        context.live().agent_text(self.text)
        return Observed()

    @classmethod
    def parse(cls, raw: Mapping[str, Any], pointer: str) -> Step:
        value = raw[cls.kind]
        return cls(value, **_common(raw, pointer))


@dataclass(frozen=True)
class UserTurn(Step):
    kind: ClassVar[StepKind] = "user_turn"
    operation: ClassVar[str | None] = "user_turn"

    def describe(self) -> str:
        return "user_turn"

    def perform(self, context: Context) -> Observed:
        context.live().user_turn()
        return Observed()

    @classmethod
    def parse(cls, raw: Mapping[str, Any], pointer: str) -> Step:
        return cls(**_common(raw, pointer))


STEP_TYPES: dict[StepKind, type[Step]] = {
    cls.kind: cls
    for cls in (
        Event,
        SetArtifact,
        ToolCalls,
        AdvanceClock,
        SnapshotRestore,
        RunComposition,
        RunState,
        AgentText,
        UserTurn,
    )
}
"""Every step kind a case file may write, by its key."""
STEP_KINDS: tuple[StepKind, ...] = tuple(STEP_TYPES)


@cache
def _input_fields(step: type[Step]) -> tuple[str, ...]:
    """A step class's own fields: all but ``expect`` and ``pointer``."""
    return tuple(f.name for f in fields(step) if f.name not in ("expect", "pointer"))


def _common(raw: Mapping[str, Any], pointer: str) -> dict[str, Any]:
    return {"expect": raw.get("expect"), "pointer": pointer}


def parse_step(raw: Mapping[str, Any], pointer: str) -> Step:
    """The step a case file's step mapping writes (already checked against the case schema)."""
    kind = next(k for k in STEP_KINDS if k in raw)
    return STEP_TYPES[kind].parse(raw, pointer)


__all__ = [
    "ACCEPTED",
    "ADVISORY",
    "OBSERVATIONS",
    "STEP_KINDS",
    "STEP_TYPES",
    "AnyOf",
    "Context",
    "Expect",
    "Expectation",
    "Miss",
    "Observation",
    "Observed",
    "RejectionWanted",
    "Step",
    "StepKind",
    "compare_observations",
    "describe_rejection",
    "parse_expectation",
    "parse_step",
    "without_advisory",
]
