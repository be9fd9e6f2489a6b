"""The fuzzing loop: Hypothesis draws examples, the reference and the runtime run side by side.

Hypothesis generates each example (a pack and a script, or a near-valid pack), the oracle
writes down what the RFCs require of it, and the runner judges the runtime on it. The first
divergence or fault is shrunk by Hypothesis to a minimal example.

Runs are deterministic for a seed (given the same example database: earlier failures are tried
first). A time limit is kept by running in rounds of at most :data:`ROUND` examples, each a
Hypothesis run with a seed derived from the given one; once the time is up the remaining
examples of the round are drawn but not run.

With ``keep_going``, a finding does not end the run: it is shrunk, kept, and the rounds go on,
an example that fails the same way as one already kept (:meth:`FuzzFinding.signature`) counting
as passed, until the examples or the time are spent. A part that hangs is a fault kept as
found, not shrunk (each try would take the whole time limit). A stop signal ends the run
between two examples (see :mod:`conformance._basics.stopping`).
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any, Generic, TypeVar

from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st
from hypothesis.database import DirectoryBasedExampleDatabase, ExampleDatabase
from hypothesis.errors import Flaky

import reference
from conformance import strategies
from conformance._basics.areas import AREAS as REGISTERED
from conformance._basics.stopping import STOP
from conformance._catalog.cases import Case
from conformance._fuzz.judge import FuzzFinding, Verdict, as_case, judge
from conformance._fuzz.local_constants import no_local_constants
from conformance._fuzz.oracle import Expected, expect_broken, expect_invalid, expect_run
from conformance._fuzz.schema_breakers import Broken, Target, broken, targets
from conformance._judging.runner import Runner
from conformance._runtime.adapter import Adapter, Capabilities

__all__ = [
    "AREAS",
    "BASE_AREAS",
    "BATCH",
    "DEFAULT_DATABASE",
    "FEATURES",
    "KNOWN",
    "MAX_RUNS",
    "MAX_STEPS",
    "REPLAYS",
    "ROUND",
    "Example",
    "Found",
    "FuzzResult",
    "Progress",
    "Tally",
    "database_at",
    "default_areas",
    "examples",
    "expect",
    "expect_all",
    "fuzz",
    "other_breakers",
    "other_starts",
    "vendor_claimed",
]

AREAS = REGISTERED
"""The areas the fuzzer generates examples for: every area of the registry."""
BASE_AREAS = ("workflow", "loops", "compositions")
"""What every runtime is fuzzed on when it claims no area: RFC 0014 and RFC 0011 add
observables (``turn``, ``reply``) and calls (``agent_text``, starts at a state) a runtime
without them does not answer."""


def default_areas(claims: Mapping[str, int]) -> tuple[str, ...]:
    """The areas to fuzz when none is asked for: those the runtime claims, else
    :data:`BASE_AREAS`."""
    return tuple(a for a in AREAS if a in claims) or BASE_AREAS


BATCH = 6
"""At most this many examples per Hypothesis test case (shrunk to the one that fails): what
Hypothesis spends on a test case is several times what drawing one example costs."""
ROUND = 40
"""Test cases per Hypothesis run when a time limit is set (once the time is up, the rest of a
round is drawn but not run)."""
REPLAYS = 2
"""How many more times a finding is run, to tell a divergence from a runtime that does not
answer the same way twice (SEMANTICS R5)."""
DEFAULT_DATABASE = Path(".ppconf") / "fuzz"
MAX_STEPS = 20
MAX_RUNS = 4
"""Composition runs per example: each takes far longer than an event, and a fresh composition
finds more than another run of the same one."""


@dataclass(frozen=True)
class Example:
    """One generated example: a pack and its script, a near-valid pack, or a pack with one
    schema breaker applied (``broken``).

    ``uses`` names the other areas whose fields the pack carries (see :func:`examples`).
    """

    area: str
    pack: dict[str, Any]
    script: tuple[dict[str, Any], ...] = ()
    near_valid: strategies.NearValid | None = None
    uses: tuple[str, ...] = ()
    broken: Broken | None = None
    breakers: tuple[Broken, ...] = ()
    """The pack ``broken`` was drawn from with each other breaker of the same constraint (see
    :func:`other_breakers`)."""
    starts: tuple[dict[str, Any] | None, ...] = ()
    """The other starts the script runs from, besides its own (``None``: the entry), derived
    from the pack, not drawn (see :func:`other_starts`)."""


_OWN: dict[str, dict[str, bool]] = {
    # RFC 0005: states, events, orchestration, terminal states
    "workflow": {"loops": False, "redirects": False, "budgets": False, "artifacts": False},
    # RFC 0009: loop guards, redirect chains, budgets, artifacts
    "loops": {"orchestration": False},
    # RFC 0014: control on states, with loops, budgets, orchestration
    "control": {"control": True, "artifacts": False},
    # RFC 0011: starts at a state or as an agent, then RFC 0009
    "state-agents": {"state_agents": True, "orchestration": False, "artifacts": False},
    # RFC 0016: slots anywhere, run as if they were not there
    "extensions": {"extensions": True},
    # RFC 0017: provider references, declared or default
    "providers": {"providers": True},
    # RFC 0010: compositions only
    "compositions": {"workflow": False, "compositions": True},
}
"""What each area's packs hold (the arguments of :func:`strategies.packs`)."""

FEATURES: dict[str, str] = {
    "control": "control",
    "state-agents": "state_agents",
    "extensions": "extensions",
    "providers": "providers",
}
"""The areas whose fields an example of another area may carry too, each drawn on its own
(SEMANTICS R16: a statement is tested in every context a runtime may specialise, so an agent
start, ``control`` or ``extensions`` is not kept to its own area's examples)."""
_NEED_WORKFLOW = ("control", "state-agents")


@cache
def _area_packs(
    area: str, mixed: frozenset[str], vendor: bool = False
) -> st.SearchStrategy[dict[str, Any]]:
    arguments = dict(_OWN[area])
    for other in sorted(mixed):
        arguments[FEATURES[other]] = True
    if vendor:
        arguments["vendor"] = True
    return strategies.packs(**arguments)


_BREAKER_BASES: dict[str, dict[str, bool]] = {
    # RFC 0016 slots on agents members and compositions (their constraints are the area's)
    "extensions": {"state_agents": True, "compositions": True},
    # RFC 0017 references from prompt and agent steps
    "providers": {"compositions": True},
}
"""What an area's packs hold besides their own when a schema breaker is applied to them: the
parts where the area's constraints stand too (a breaker example is validated, never run)."""


@cache
def _breaker_packs(area: str) -> st.SearchStrategy[dict[str, Any]]:
    return strategies.packs(**{**_OWN[area], **_BREAKER_BASES.get(area, {})})


def vendor_claimed(capabilities: Capabilities) -> bool:
    """Whether a runtime claims RFC 0010 Level 3 with the kit's test extensions registered
    (``ppconf.upper``, ``ppconf.join``): only then are they drawn in its compositions, since
    without them an unsupported vendor kind is refused (SEMANTICS C12)."""
    kit = reference.test_extensions()
    wanted = {*kit.kinds, *kit.reducers}
    return capabilities.claims.get("compositions", 0) >= 3 and wanted <= set(
        capabilities.extensions
    )


def _mixable(area: str, others: Sequence[str]) -> tuple[str, ...]:
    """The other areas whose fields ``area``'s packs may carry: those fuzzed too, of those a
    pack of this area can hold (a pack of compositions only has no states for ``control``)."""
    return tuple(
        other
        for other in FEATURES
        if other in others
        and other != area
        and (area != "compositions" or other not in _NEED_WORKFLOW)
    )


_KINDS = ("valid",) * 5 + ("mutation", "breaker", "breaker")
"""Which kind of example is drawn (shrinking to a valid pack with a script)."""
_PICKS = 4095
"""Which (breaker, place) pair a broken pack takes: this number modulo the pairs it offers."""


@cache
def examples(
    area: str, others: tuple[str, ...] = (), vendor: bool = False
) -> st.SearchStrategy[Example]:
    """Examples of one area: five in eight a valid pack with a script, one in eight a pack
    with one mutation that a validator must refuse (MUST rules only), two in eight a valid pack
    with one standard breaker of a MUST schema constraint applied (see
    :mod:`conformance._fuzz.schema_breakers`).

    Arguments:
        area: the area.
        others: the other areas fuzzed: the fields of each of :data:`FEATURES` among them are
            in three in four of the valid packs, drawn independently (shrinking to none).
        vendor: the kit's test extensions in the valid packs' compositions (for a runtime
            that claims them, see :func:`vendor_claimed`).

    Raises:
        ValueError: not one of :data:`AREAS`.
    """
    if area not in AREAS:
        raise ValueError(f"no fuzzer area {area!r}: the areas are {', '.join(AREAS)}")
    mixable = _mixable(area, others)
    starting = "state-agents" in (area, *others)
    mutated = strategies.near_valid_packs(areas=(area,), requirements=("MUST",))
    breakers = tuple(t for t in targets() if t.area == area)
    # Built once, not at each draw: Hypothesis works out a new strategy's label and checks it
    # before its first draw, which costs more than the draw.
    kinds, picks, mixed = st.sampled_from(_KINDS), st.integers(0, _PICKS), st.integers(0, 3)

    @st.composite
    def draw(draw: st.DrawFn) -> Example:
        kind = draw(kinds)
        if kind == "mutation":
            near = draw(mutated)
            return Example(area, near.pack, near_valid=near)
        if kind == "breaker" and breakers:
            base = draw(_breaker_packs(area))
            # Each breaker as likely as another, whatever the places it has in the pack (a
            # state's artifacts would otherwise take most draws), and then the place, from one
            # draw (another draw would change every later example of a seed); then its
            # constraint's other breakers at the same place (see other_breakers).
            pick = draw(picks)
            target, place = breakers[pick % len(breakers)], pick // len(breakers)
            found = _BROKEN.of(base, (target,), place) or _BROKEN.of(base, breakers, pick)
            if found is not None:
                siblings = other_breakers(base, found, breakers, place)
                return Example(area, found.pack, broken=found, breakers=siblings)
        # Each in three of four packs (shrinking to none).
        uses = tuple(other for other in mixable if draw(mixed) > 0)
        pack = draw(_area_packs(area, frozenset(uses), vendor and area == "compositions"))
        steps = MAX_RUNS if area == "compositions" else MAX_STEPS
        # A start at a named state (the kit's adapter contract, which RFC 0011 runtimes have)
        # in every pack with a workflow when state-agents is fuzzed: every execution statement
        # holds from there too (SEMANTICS R16).
        starts = (starting and "workflow" in pack) or None
        script = strategies._draw_script(
            draw,
            pack,
            max_steps=steps,
            snapshots=False,
            turns=area == "control" or None,
            starts=starts,
        )
        also = other_starts(pack, script) if starts else ()
        return Example(area, pack, tuple(script), uses=uses, starts=also)

    return draw()


_K = TypeVar("_K")
_V = TypeVar("_V")


class _Recent(Generic[_K, _V]):
    """The values made last, by key, the oldest forgotten past ``size``: Hypothesis runs most
    examples several times (see :class:`_Expectations`), and what the reference makes of one
    is the same each time. Locked: one is shared by the runs of a process."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.lock = threading.Lock()
        self.known: OrderedDict[_K, _V] = OrderedDict()

    def of(self, key: _K, make: Callable[[], _V]) -> _V:
        """The value kept for ``key``, else ``make()`` kept."""
        with self.lock:
            if key in self.known:
                self.known.move_to_end(key)
                return self.known[key]
        made = make()
        with self.lock:
            self.known[key] = made
            if len(self.known) > self.size:
                self.known.popitem(last=False)
        return made


class _RecentlyBroken:
    """:func:`broken` of the packs broken last, by pack and pick: each try of a breaker asks
    the reference to validate the broken pack."""

    def __init__(self, size: int) -> None:
        self.recent: _Recent[tuple[str, tuple[str, ...], int], Broken | None] = _Recent(size)

    def of(self, pack: dict[str, Any], chosen: tuple[Target, ...], pick: int) -> Broken | None:
        key = (json.dumps(pack), tuple(t.case for t in chosen), pick)
        return self.recent.of(key, lambda: broken(pack, chosen, pick))


_BROKEN = _RecentlyBroken(256)


def other_breakers(
    base: Mapping[str, Any], found: Broken, chosen: Sequence[Target], pick: int
) -> tuple[Broken, ...]:
    """``base`` with each breaker of ``chosen`` of the constraint ``found`` breaks, other than
    ``found``'s, each at the same place (the ``pick``-th the constraint offers).

    A runtime may read a value wrongly in one of the standard ways only (a boolean taken for an
    integer, not a string): with each breaker of the drawn constraint judged, one drawn pack
    checks every way of breaking that constraint (SEMANTICS R16), instead of each breaker being
    one draw among the hundreds of targets. Derived, not drawn: they shrink with the pack.
    """
    siblings = [
        target
        for target in chosen
        if target.constraint == found.target.constraint and target != found.target
    ]
    return tuple(b for t in siblings if (b := _BROKEN.of(dict(base), (t,), pick)) is not None)


def other_starts(
    pack: Mapping[str, Any], script: Sequence[Mapping[str, Any]]
) -> tuple[dict[str, Any] | None, ...]:
    """The starts a script runs from besides the one it begins with: the entry (``None``), a
    named state (the first state after the entry in the pack's order, the entry itself in a
    pack of one state) and the first agents member backed by a state of the workflow, in that
    order (one member: each start costs a run of the script, and which member starts matters
    less than that one does; the drawn start tries the others).

    Each start is a context every execution statement holds in (SEMANTICS R16): run from each,
    one drawn pack and script checks every start, instead of each start being one draw among
    the others. Derived, not drawn, so Hypothesis shrinks the pack and the script alone. None
    for a script of composition runs only, which no start changes.
    """
    workflow = pack.get("workflow")
    if not isinstance(workflow, Mapping) or all("run_composition" in s for s in script):
        return ()
    states = list(workflow.get("states") or {})
    entry = workflow.get("entry")
    named = next((s for s in states if s != entry), entry)
    found: list[dict[str, Any] | None] = [None, {"at_state": named}]
    agents = pack.get("agents")
    members = agents.get("members") if isinstance(agents, Mapping) else None
    backed = (m for m, b in sorted((members or {}).items()) if _backed(b, states))
    found += [{"agent": member} for member in list(backed)[:1]]
    own = script[0].get("start") if script and "start" in script[0] else None
    return tuple(start for start in found if start != own)


def _backed(member: Any, states: Sequence[str]) -> bool:
    return isinstance(member, Mapping) and member.get("state") in states


def expect(example: Example) -> Expected:
    """What the RFCs require of a runtime on ``example`` (the reference as oracle)."""
    if example.near_valid is not None:
        return expect_invalid(example.area, example.pack, example.near_valid.mutation.case)
    if example.broken is not None:
        return expect_broken(example.area, example.broken)
    return expect_run(example.area, example.pack, list(example.script), example.uses)


def expect_all(example: Example) -> list[Expected]:
    """What the RFCs require of a runtime on ``example``, from its own start and then from each
    of its other starts (:attr:`Example.starts`), or with its breaker and then each other
    breaker of that constraint (:attr:`Example.breakers`). A start that comes to the same as one
    before it (a start the oracle leaves out begins at the entry) is not repeated."""
    first = expect(example)
    found = [first]
    found += [expect_broken(example.area, other) for other in example.breakers]
    if not example.starts:
        return found
    body = [s for s in example.script if "start" not in s]
    seen = {json.dumps(first.start, sort_keys=True)}
    for start in example.starts:
        script = body if start is None else [{"start": dict(start)}, *body]
        expected = expect_run(example.area, example.pack, script, example.uses)
        key = json.dumps(expected.start, sort_keys=True)
        if key not in seen:
            seen.add(key)
            found.append(expected)
    return found


# -- the run ----------------------------------------------------------------------------------


@dataclass
class Tally:
    """What the examples run so far exercised."""

    examples: int = 0
    by_area: Counter[str] = field(default_factory=Counter)
    states: Counter[int] = field(default_factory=Counter)
    steps: Counter[int] = field(default_factory=Counter)
    exercised: Counter[str] = field(default_factory=Counter)
    unsupported: int = 0
    unsupported_reason: str = ""
    _skipped: bool = field(default=False, repr=False)
    """Whether the example counted last is counted in ``unsupported`` already."""

    def add(self, expected: Expected, verdict: Verdict) -> None:
        self.examples += 1
        self.by_area[expected.area] += 1
        workflow = expected.pack.get("workflow")
        if expected.valid and isinstance(workflow, dict):
            self.states[len(workflow.get("states") or {})] += 1
        if expected.valid:
            self.steps[len(expected.steps)] += 1
        self.exercised.update(expected.exercised)
        self._skipped = False
        self._unsupported(verdict)

    def add_start(self, expected: Expected, verdict: Verdict) -> None:
        """The run of an example already counted from another of its starts."""
        self.exercised["runs from another start"] += 1
        self.exercised.update(expected.exercised)
        self._unsupported(verdict)

    def _unsupported(self, verdict: Verdict) -> None:
        if verdict.unsupported and not self._skipped:
            self.unsupported += 1
            self._skipped = True
            self.unsupported_reason = self.unsupported_reason or verdict.unsupported


@dataclass(frozen=True)
class Found:
    """One finding, minimal, with what it took.

    Attributes:
        finding: the divergence or fault.
        found_after: examples run (not counting shrinking) when it was first seen.
        shrink_runs: examples run while shrinking it.
    """

    finding: FuzzFinding
    found_after: int
    shrink_runs: int


@dataclass
class FuzzResult:
    """The outcome of :func:`fuzz`.

    Attributes:
        areas: the areas fuzzed.
        seed: the seed of the first round.
        tally: what the examples run exercised (before the first finding, unless
            ``keep_going``).
        found: every finding kept, in the order found (one at most, unless ``keep_going``).
        seconds: wall time; ``running``: the part of it spent running examples (the reference
            and the runtime); the rest went to generating them.
    """

    areas: tuple[str, ...]
    seed: int
    tally: Tally = field(default_factory=Tally)
    found: list[Found] = field(default_factory=list)
    seconds: float = 0.0
    running: float = 0.0

    @property
    def finding(self) -> FuzzFinding | None:
        """The first finding, if any."""
        return self.found[0].finding if self.found else None

    @property
    def found_after(self) -> int:
        """Examples run until the first finding (0 if none)."""
        return self.found[0].found_after if self.found else 0

    @property
    def shrink_runs(self) -> int:
        """Examples run while shrinking the first finding."""
        return self.found[0].shrink_runs if self.found else 0


Progress = Callable[[int, int, bool], None]
"""Called after each example: examples run, findings kept, whether a finding is being shrunk."""


@dataclass(frozen=True)
class _Ahead:
    """One start of an example, sent to the adapter and judged next: ``key`` (while shrinking,
    on the example's last start) marks the example passed once it is; ``first``: the example's
    own start, which the tally counts as the example."""

    key: str
    expected: Expected
    case: Case
    first: bool


class _Found(Exception):
    """Raised inside the Hypothesis test so that Hypothesis shrinks the example."""

    def __init__(self, finding: FuzzFinding) -> None:
        super().__init__(f"{finding.kind}: {finding.message}")
        self.finding = finding


class _Hung(BaseException):
    """Raised inside the Hypothesis test for an example that hung: a ``BaseException`` ends the
    Hypothesis run at once, without shrinking (each try would hang the whole time limit)."""

    def __init__(self, finding: FuzzFinding) -> None:
        super().__init__(f"{finding.kind}: {finding.message}")
        self.finding = finding


class _Namespaced(ExampleDatabase):
    """Another example database with every key prefixed, so that each area set keeps its own
    saved failures (an example of one area replayed as another would be thrown away)."""

    def __init__(self, inner: ExampleDatabase, prefix: bytes) -> None:
        super().__init__()
        self.inner = inner
        self.prefix = prefix

    def fetch(self, key: bytes) -> Iterable[bytes]:
        return self.inner.fetch(self.prefix + key)

    def save(self, key: bytes, value: bytes) -> None:
        self.inner.save(self.prefix + key, value)

    def delete(self, key: bytes, value: bytes) -> None:
        self.inner.delete(self.prefix + key, value)

    def move(self, src: bytes, dest: bytes, value: bytes) -> None:
        self.inner.move(self.prefix + src, self.prefix + dest, value)


def database_at(path: str | Path) -> ExampleDatabase:
    """A directory example database (created on first save)."""
    return DirectoryBasedExampleDatabase(str(path))


def fuzz(
    adapter: Adapter,
    *,
    areas: Sequence[str] = AREAS,
    examples_wanted: int | None = 1000,
    seed: int = 0,
    max_time: float | None = None,
    database: ExampleDatabase | None = None,
    timeout: float | None = None,
    keep_going: bool = False,
    shrink: bool = True,
    progress: Progress | None = None,
) -> FuzzResult:
    """Fuzz ``adapter`` against the reference until a divergence or fault, or the budget.

    Arguments:
        adapter: the runtime under test.
        areas: which areas' examples to draw (each example belongs to one).
        examples_wanted: how many examples (``None``: until ``max_time``).
        seed: the seed; the same seed draws the same examples.
        max_time: stop after about this many seconds.
        database: where Hypothesis keeps failing examples to try first next time (``None``:
            none).
        timeout: seconds each example part may take on an in-process adapter (``None``: no
            limit, and no thread switch per part; a ``cmd:`` adapter times out each request
            itself).
        keep_going: after a finding, go on until the budget, keeping each finding that fails
            another way than those kept (see the module docstring).
        shrink: shrink a finding to a minimal example (off: the first failing example is the
            finding, as drawn: what a check that the fuzzer finds a runtime at all needs).
        progress: called after each example (see :data:`Progress`).

    Raises:
        ValueError: neither ``examples_wanted`` nor ``max_time``.
        Stopped: a stop signal arrived.
    """
    if examples_wanted is None and max_time is None:
        raise ValueError("fuzz() needs examples_wanted or max_time")
    areas = tuple(areas)
    vendor = vendor_claimed(adapter.capabilities())
    each = [examples(area, areas, vendor) for area in areas]
    one = st.one_of(each) if len(each) > 1 else each[0]
    strategy = st.lists(one, min_size=1, max_size=BATCH)
    runner = Runner(adapter, timeout=timeout)
    result = FuzzResult(areas, seed)
    started = time.perf_counter()
    deadline = None if max_time is None else started + max_time
    keyed = None if database is None else _Namespaced(database, _prefix(areas))
    expectations = _Expectations()
    rounds = 0
    while keep_going or not result.found:
        done = result.tally.examples
        left = None if examples_wanted is None else examples_wanted - done
        if (left is not None and left <= 0) or (deadline and time.perf_counter() >= deadline):
            break
        # A round asks for as many test cases as would hold the examples left if each held
        # BATCH; most hold fewer, so rounds follow until the count is reached.
        size = ROUND if left is None else max(1, -(-left // BATCH))
        if deadline is not None:
            size = min(size, ROUND)
        found = _round(
            runner,
            strategy,
            result,
            wanted=examples_wanted,
            size=size,
            round_seed=_round_seed(seed, rounds),
            # An example kept from an earlier run is tried in the first round; later rounds
            # would find the findings kept by this one there, and Hypothesis would drop them
            # from the database as passing.
            database=keyed if rounds == 0 or not result.found else None,
            deadline=deadline,
            known={f.finding.signature() for f in result.found},
            shrinks=shrink,
            progress=progress,
            expectations=expectations,
        )
        rounds += 1
        if found is not None:
            if found.finding.kind == "divergence":
                replayed = _replayed(runner, found.finding)
                found = Found(replayed, found.found_after, found.shrink_runs)
            result.found.append(found)
            if progress is not None:
                progress(result.tally.examples, len(result.found), False)
        elif result.tally.examples == done:
            break  # nothing ran: the deadline passed while drawing
    result.seconds = time.perf_counter() - started
    return result


KNOWN = 128
"""How many of the examples run last a run keeps the expectations of (see
:class:`_Expectations`)."""


class _Expectations:
    """The expectations of the examples run last, each written as its case, by example.

    Hypothesis runs most examples several times: as it explores, it copies part of a test
    case into another and runs the copy, which holds the other examples of the first one
    unchanged (the same seed runs each example about two and a half times on average). The
    reference is deterministic, so what it requires of an example drawn again is what it
    required before; the runtime still runs every example drawn, again or not.
    """

    def __init__(self, size: int = KNOWN) -> None:
        self.recent: _Recent[str, list[tuple[Expected, Case]]] = _Recent(size)

    def of(self, key: str, example: Example) -> list[tuple[Expected, Case]]:
        """What the RFCs require of ``example`` (whose :func:`_key` is ``key``) from each of its
        starts or with each of its breakers (:func:`expect_all`), and their cases."""
        return self.recent.of(key, lambda: _cases(example))


def _cases(example: Example) -> list[tuple[Expected, Case]]:
    found: list[tuple[Expected, Case]] = []
    for expected in expect_all(example):
        case = as_case(expected)
        if found and expected.pack is example.pack:
            # The same pack from another start: its load and validity are judged.
            case = replace(case, load=None, validation=None)
        found.append((expected, case))
    return found


def _replayed(runner: Runner, finding: FuzzFinding) -> FuzzFinding:
    """The finding, or a fault if running its example again does not end the same way."""
    for _ in range(REPLAYS):
        again = judge(runner, finding.expected).finding
        if again is None or (again.step, again.message) != (finding.step, finding.message):
            return _flaky_finding(finding, "nothing wrong" if again is None else again.message)
    return finding


def _round(
    runner: Runner,
    strategy: st.SearchStrategy[list[Example]],
    result: FuzzResult,
    *,
    wanted: int | None,
    size: int,
    round_seed: int,
    database: ExampleDatabase | None,
    deadline: float | None,
    known: set[tuple[str, str, str, str]],
    progress: Progress | None,
    shrinks: bool = True,
    expectations: _Expectations | None = None,
) -> Found | None:
    """One Hypothesis run; the finding it shrank, if any."""
    if expectations is None:
        expectations = _Expectations()
    tally = result.tally
    passed: set[str] = set()
    """While shrinking, the examples that passed: Hypothesis tries many batches that differ
    from the failing one in one example only, and the others need not run again."""
    shrink = {"found_after": 0, "runs": 0}
    total = len(result.found)

    def run(batch: list[Example]) -> None:
        # Each example's calls go to the adapter before the next example's oracle runs, and
        # are judged after it: a runtime behind the protocol works meanwhile (see
        # Runner.prefetch). Examples are still judged one by one, in order.
        ahead: _Ahead | None = None
        for example in batch:
            shrinking = shrink["found_after"] > 0
            STOP.raise_if_requested()  # a stop signal: between two examples
            pending = ahead is not None and ahead.first
            if not shrinking and (
                (wanted is not None and tally.examples + pending >= wanted)
                or (deadline is not None and time.perf_counter() >= deadline)
            ):
                break  # enough: let Hypothesis draw the rest of the round without running it
            key = _key(example)
            if shrinking and key in passed:
                continue
            start = time.perf_counter()
            try:
                found = expectations.of(key, example)
            except BaseException:
                if ahead is not None:
                    settle(ahead)  # what would have been found before
                raise
            result.running += time.perf_counter() - start
            for index, (expected, case) in enumerate(found):
                if ahead is not None:
                    settle(ahead)
                start = time.perf_counter()
                runner.prefetch(case)
                last = shrinking and index == len(found) - 1
                ahead = _Ahead(key if last else "", expected, case, first=index == 0)
                result.running += time.perf_counter() - start
        if ahead is not None:
            settle(ahead)

    def settle(ahead: _Ahead) -> None:
        shrinking = shrink["found_after"] > 0
        start = time.perf_counter()
        expected = ahead.expected
        verdict = judge(runner, expected, ahead.case)
        result.running += time.perf_counter() - start
        if shrinking:
            shrink["runs"] += ahead.first
        elif ahead.first:
            tally.add(expected, verdict)
        else:
            tally.add_start(expected, verdict)
        finding = verdict.finding
        if finding is not None and finding.signature() in known:
            finding = None  # found and kept already (--keep-going)
        if progress is not None:
            progress(tally.examples, total + (finding is not None or shrinking), shrinking)
        if finding is not None:
            if not shrinking:
                shrink["found_after"] = tally.examples
            if finding.hung:
                raise _Hung(finding)
            raise _Found(finding)
        if ahead.key:
            passed.add(ahead.key)

    # @seed also turns the example database off; settings applied after it turn it back on,
    # so a seeded run still tries the failures saved before first.
    test = settings(
        max_examples=size,
        database=database,
        deadline=None,
        derandomize=False,
        report_multiple_bugs=False,
        verbosity=Verbosity.quiet,
        phases=(Phase.reuse, Phase.generate, Phase.shrink)[: 3 if shrinks else 2],
        suppress_health_check=list(HealthCheck),
    )(hypothesis_seed(round_seed)(given(strategy)(run)))
    finding: FuzzFinding | None = None
    try:
        with no_local_constants():  # the seed alone decides what is drawn
            test()
    except (_Found, _Hung) as found:
        finding = found.finding
    except Flaky as flaky:
        finding = _flaky(flaky)
    if finding is None:
        return None
    return Found(finding, shrink["found_after"], shrink["runs"])


def _flaky(error: Flaky) -> FuzzFinding:
    """Hypothesis saw a failure it could not reproduce: the runtime is not deterministic."""
    found = _found_in(error)
    if found is None:
        raise error  # not the runtime's doing: the kit's generators are not deterministic
    return _flaky_finding(found.finding, "something else")


def _flaky_finding(finding: FuzzFinding, then: str) -> FuzzFinding:
    return FuzzFinding(
        kind="fault",
        expected=finding.expected,
        part=finding.part,
        message="the runtime did not answer the same way when the example was run again "
        f"(flaky, SEMANTICS R5): first {finding.message}; then {then}",
        step=finding.step,
        field=finding.field,
        rule=finding.rule,
    )


def _found_in(error: BaseException) -> _Found | None:
    if isinstance(error, _Found):
        return error
    for inner in getattr(error, "exceptions", ()):
        found = _found_in(inner)
        if found is not None:
            return found
    return None


def _key(example: Example) -> str:
    mutation = example.near_valid.mutation.name if example.near_valid is not None else ""
    if example.broken is not None:
        mutation = example.broken.target.case
    return json.dumps([example.area, mutation, example.pack, example.script], sort_keys=True)


def _round_seed(seed: int, index: int) -> int:
    if index == 0:
        return seed
    digest = hashlib.sha256(f"{seed}/{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def _prefix(areas: Sequence[str]) -> bytes:
    return ("ppconf-fuzz/" + "+".join(areas) + "/").encode()
