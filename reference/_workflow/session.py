"""Running a workflow: one session, one active state, the rules X1-X16 of SEMANTICS.md,
turns and replies (RFC 0014 ``control``, X17-X22) and starting at a state or as a
state-backed agent (RFC 0011, X23-X24)."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from typing import Any, Literal, NoReturn

from reference._errors import Rejection, SnapshotError
from reference._workflow.model import Node, Transition, Workflow, compile_workflow
from reference._workflow.records import Records

Clock = Callable[[], float]
"""Returns seconds on a monotonic scale; sessions measure elapsed time with it."""

Source = Literal["host", "agent"]
Status = Literal["active", "completed", "budget_exhausted"]
Turn = Literal["user", "agent"]
"""RFC 0014: who holds the next turn."""

ACTIVE: Status = "active"
COMPLETED: Status = "completed"
BUDGET_EXHAUSTED: Status = "budget_exhausted"
_STATUSES = (ACTIVE, COMPLETED, BUDGET_EXHAUSTED)
USER: Turn = "user"
AGENT: Turn = "agent"
REPLY_JOIN = "\n"
"""X22: what the texts of several rounds are joined with in one reply."""
SNAPSHOT_FORMAT = "ppconf-session/1"
_SOURCES = frozenset(("host", "agent"))
_FAR = 2**30 - 1
"""The tripwire of a session with a budget but no visit limit (or one beyond this): a length
no history reaches in practice, kept a one-digit int in CPython so that the comparison on every
event stays on its fast path. A history that did reach it would go the careful way, which
checks again and lets the event through."""


class ManualClock:
    """A clock that only moves when told to, for deterministic budgets and tests."""

    def __init__(self, start: float = 0.0) -> None:
        self._now = start

    def __call__(self) -> float:
        return self._now

    def advance(self, seconds: float) -> None:
        """Move the clock forward by ``seconds`` (>= 0)."""
        if not seconds >= 0:  # also refuses NaN
            raise ValueError(f"a clock only moves forward by a finite time, not {seconds} s")
        if seconds == float("inf"):
            raise ValueError("a clock cannot move forward by an infinite time")
        self._now += seconds


def _limit(value: int | None) -> float:
    return math.inf if value is None else value


def start_session(
    workflow: Workflow | Mapping[str, Any],
    *,
    clock: Clock | None = None,
    at_state: str | None = None,
    agent: str | None = None,
) -> Session:
    """Start a session at the workflow's entry state (X1), or at another state (X23, X24).

    Arguments:
        workflow: a compiled :class:`Workflow`, or a pack to validate and compile.
        clock: the session clock (default: :func:`time.monotonic`); pass a
            :class:`ManualClock` to control ``max_wall_time_sec`` exactly.
        at_state: RFC 0011: start at this state instead of the entry. It counts as visited
            once; the entry does not.
        agent: RFC 0011: start as this ``agents.members`` key, i.e. at its ``state``.

    Raises:
        Rejection: ``workflow-version-unsupported`` (X16); ``start-state-unknown``,
            ``agent-unknown`` or ``agent-not-state-backed`` when the start is refused.
        PackInvalidError: the pack has validation errors or no workflow.
        ValueError: both ``at_state`` and ``agent`` are given.
    """
    if not isinstance(workflow, Workflow):
        workflow = compile_workflow(workflow)
    if at_state is None and agent is None:
        return Session(workflow, clock or time.monotonic)
    return Session(workflow, clock or time.monotonic, _start_state(workflow, at_state, agent))


def _start_state(workflow: Workflow, at_state: str | None, agent: str | None) -> str:
    """The state a session started at ``at_state`` or as ``agent`` begins in (X23, X24)."""
    if agent is not None:
        if at_state is not None:
            raise ValueError("start at a state or as an agent, not both")
        if agent not in workflow.agent_states:
            members = ", ".join(sorted(workflow.agent_states)) or "none"
            raise Rejection(
                "agent-unknown", f"the pack has no agents member {agent!r} (members: {members})"
            )
        at_state = workflow.agent_states[agent]
        if at_state is None:
            raise Rejection(
                "agent-not-state-backed",
                f"agents member {agent!r} has no 'state'; it runs its prompt, not the workflow",
            )
    if at_state is None or at_state not in workflow.nodes:
        raise Rejection("start-state-unknown", f"the workflow has no state {at_state!r}")
    return at_state


def restore_session(
    workflow: Workflow | Mapping[str, Any],
    snapshot: Mapping[str, Any],
    *,
    clock: Clock | None = None,
) -> Session:
    """Continue a session from :meth:`Session.snapshot` data (X15).

    Elapsed time carries over: the restored session's clock starts where the snapshot's was.

    Raises:
        SnapshotError: the snapshot is malformed or was taken from another workflow.
    """
    if not isinstance(workflow, Workflow):
        workflow = compile_workflow(workflow)
    session = Session(workflow, clock or time.monotonic)
    session._load(snapshot)
    return session


def _history_entry(entry: tuple[str, str, str]) -> dict[str, Any]:
    return {"from": entry[0], "to": entry[1], "event": entry[2]}


def _artifact_entry(entry: tuple[str, str, str, dict[str, str]]) -> dict[str, Any]:
    return {
        "from_state": entry[0],
        "to_state": entry[1],
        "event": entry[2],
        "values": dict(sorted(entry[3].items())),
    }


class Session:
    """One run of a workflow. Create it with :func:`start_session` or :func:`restore_session`."""

    def __init__(self, workflow: Workflow, clock: Clock, start: str | None = None) -> None:
        self.workflow = workflow
        self._nodes = workflow.nodes
        budget = workflow.budget
        # Unset limits are never reached; the wall clock is read only when it has a limit.
        self._max_total_visits = _limit(budget.max_total_visits)
        self._max_tool_calls = _limit(budget.max_tool_calls)
        wall = budget.max_wall_time_sec
        # Compared with a float elapsed time on every event: as a float when that is exact (as
        # for every int up to 2**53), CPython compares the two on its fast path.
        self._max_wall_time_sec = float(wall) if wall is not None and abs(wall) <= 2**53 else wall
        self._records_artifacts = workflow.declares_artifacts
        self._clock = clock
        self._origin = clock()
        entry = workflow.nodes[workflow.entry if start is None else start]
        self._node: Node = entry
        self._status: Status = COMPLETED if entry.terminal else ACTIVE
        self._visits: dict[str, int] = {entry.name: 1}
        self._history: list[tuple[str, str, str]] = []
        # Every accepted event adds one history entry and one visit, so the total of visits
        # is the history's length plus the visits it does not record (the start's); this is
        # the length at which max_total_visits is reached.
        self._visit_cap = self._max_total_visits - 1
        self._artifacts: dict[str, str] = {}
        self._artifact_history: list[tuple[str, str, str, dict[str, str]]] = []
        # The artifacts as the artifact history records them: one copy, shared by the entries
        # of every event until an artifact is written, and never changed.
        self._recorded: dict[str, str] | None = None
        self._tool_calls = 0
        self._exhausted_by: str | None = None  # the budget limit that ended the session
        # RFC 0014: only a workflow with a control: agent state ever gives the agent the turn;
        # for any other, send() leaves the turn alone (it is the user's after every event).
        self._tracks_turns = workflow.tracks_turns
        self._turn: Turn = USER  # X17: start is not a transition
        self._replies: list[str] = []  # the texts of the rounds since the last user turn
        self._bookkeeping = self._tracks_turns or self._records_artifacts
        self._budgeted = budget.is_set
        self._tripwire: int | None = 0
        self._rearm()

    # -- inputs --------------------------------------------------------------------------------

    def send(self, event: str, source: Source = "host") -> Transition:
        """Process one event (X4) and return the transition it made.

        Arguments:
            event: the event name.
            source: ``"host"`` (the application or an external orchestrator) or ``"agent"``
                (the model's transition tool).

        Raises:
            Rejection: ``terminal-state``, ``budget-exhausted`` (with the limit name),
                ``event-source-not-allowed``, ``unknown-event`` or ``max-visits-exceeded``.
                Current state, counts, history and artifacts stay as they were.
        """
        # Every event goes through here. An ended session and reached visit and tool-call
        # limits are folded into one number, the tripwire (see _rearm): a history at least
        # that long sends the event the careful way, through those checks in their order
        # (X3, X8); an active session without a budget has none and checks nothing. The wall
        # clock is read only with a wall-time limit; the rest reads precomputed data (Node),
        # and an unredirected move returns a Transition made once per workflow.
        agent = source != "host"
        if agent and source not in _SOURCES:
            raise ValueError(f"source must be 'host' or 'agent', not {source!r}")
        history = self._history
        tripwire = self._tripwire
        if tripwire is not None:  # a budget to watch, or the session has ended
            if len(history) >= tripwire:
                self._check_careful()
            wall = self._max_wall_time_sec
            if wall is not None:
                clock = self._clock
                if clock() - self._origin >= wall:
                    self._exhaust("max_wall_time_sec")
        node = self._node
        if agent and node.external:
            raise Rejection(
                "event-source-not-allowed",
                f"state {node.name!r} is externally orchestrated; only the host sends events",
            )
        try:  # a subscript, as a hit is the rule: no method call on every event
            target, transition, entry = node.moves[event]
        except KeyError:
            raise _unknown_event(node, event) from None
        guard = target.max_visits
        if guard is not None and self._visits.get(target.name, 0) >= guard:
            entered = self._redirect(target)  # X5, which may reject
            transition = Transition(node.name, entered.name, event, True, target.name)
            target, entry = entered, (node.name, entered.name, event)
        history.append(entry)
        visits, name = self._visits, target.name
        visits[name] = visits.get(name, 0) + 1
        self._node = target
        if target.terminal:
            self._status = COMPLETED
            self._tripwire = 0
        if self._bookkeeping:
            if self._tracks_turns:
                # X18, X20, X21: the agent keeps the turn only on its own move into a
                # control: agent state (keeps_turn is false for terminal states).
                self._turn = AGENT if target.keeps_turn and agent else USER
            if self._records_artifacts:
                recorded = self._recorded
                if recorded is None:
                    recorded = self._recorded = dict(self._artifacts)
                self._artifact_history.append((*entry, recorded))
        return transition

    def set_artifact(self, name: str, value: str) -> None:
        """Write an artifact (X9-X11): ``replace`` overwrites, ``append`` concatenates.

        The mode is the current state's declaration of ``name``, else the first declaring
        state's in document order.

        Raises:
            Rejection: ``artifact-undeclared`` when no state declares ``name``.
        """
        if not isinstance(value, str):
            raise TypeError(f"artifact values are strings, not {type(value).__name__}")
        mode = self._node.spec.artifacts.get(name) or self.workflow.artifact_modes.get(name)
        if mode is None:
            raise Rejection("artifact-undeclared", f"no state declares artifact {name!r}")
        if mode == "append":
            self._artifacts[name] = self._artifacts.get(name, "") + value
        else:
            self._artifacts[name] = value
        self._recorded = None

    def agent_text(self, text: str) -> None:
        """The agent emits ``text`` in the current round (RFC 0014, X22).

        A round that answers with text and no transition ends the agent's run of rounds: the
        turn is the user's. The text joins the reply the user gets (empty text adds nothing).
        """
        if not isinstance(text, str):
            raise TypeError(f"agent text is a string, not {type(text).__name__}")
        if text:
            self._replies.append(text)
        self._turn = USER

    def user_turn(self) -> None:
        """The user speaks: the reply so far has been delivered and is cleared (X22)."""
        self._replies.clear()
        self._turn = USER

    def record_tool_calls(self, count: int) -> None:
        """Add ``count`` host-reported tool calls to the session total (for ``max_tool_calls``)."""
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise ValueError(f"a tool call count is an integer >= 0, not {count!r}")
        self._tool_calls += count
        self._rearm()

    # -- observations --------------------------------------------------------------------------

    @property
    def current_state(self) -> str:
        """The name of the active state."""
        return self._node.name

    @property
    def status(self) -> Status:
        """``active``, ``completed`` or ``budget_exhausted`` (X3)."""
        return self._status

    @property
    def turn(self) -> Turn:
        """RFC 0014: who holds the next turn, ``user`` or ``agent`` (X17-X21)."""
        return self._turn

    @property
    def reply(self) -> str:
        """RFC 0014: the agent's text since the last user turn, rounds joined by a newline."""
        return REPLY_JOIN.join(self._replies)

    def elapsed(self) -> float:
        """Seconds since the session started, on its clock."""
        return self._clock() - self._origin

    def available_events(self) -> list[str]:
        """The events the current state accepts, sorted (none once the session is not active)."""
        if self._status != ACTIVE:
            return []
        return sorted(self._node.moves)

    def state(self) -> dict[str, Any]:
        """Return the observable session data of SEMANTICS section 3 as plain JSON-able data.

        It is the caller's: the session moving on does not change it. Its two records,
        ``history`` and ``artifact_history``, are lists made when first read (see
        :class:`~reference._workflow.records.Records`), so a call costs the same however long
        the session has run, and reading a record costs its length, once.
        """
        return {
            "current_state": self._node.name,
            "status": self._status,
            "terminal": self._node.terminal,
            "available_events": self.available_events(),
            "prompt_task": self._node.spec.prompt_task,
            "visit_counts": dict(sorted(self._visits.items())),
            "history": Records(self._history, len(self._history), _history_entry),
            "artifacts": dict(sorted(self._artifacts.items())),
            "artifact_history": Records(
                self._artifact_history, len(self._artifact_history), _artifact_entry
            ),
            "tool_calls": self._tool_calls,
            "elapsed_sec": self.elapsed(),
            "exhausted_by": self._exhausted_by,
            "turn": self._turn,
            "reply": REPLY_JOIN.join(self._replies),
            # RFC 0009 Level 2, template variable injection: what {{artifacts.X}} reads.
            "prompt_variables": {"artifacts": dict(sorted(self._artifacts.items()))},
        }

    def snapshot(self) -> dict[str, Any]:
        """Return everything needed to continue this session later, as JSON-able data (X15)."""
        return {
            "format": SNAPSHOT_FORMAT,
            "workflow_digest": self.workflow.digest,
            "current_state": self._node.name,
            "status": self._status,
            "visit_counts": dict(self._visits),
            "history": [list(entry) for entry in self._history],
            "artifacts": dict(self._artifacts),
            "artifact_history": [[f, t, e, dict(v)] for f, t, e, v in self._artifact_history],
            "tool_calls": self._tool_calls,
            "elapsed_sec": self.elapsed(),
            "exhausted_by": self._exhausted_by,
            "turn": self._turn,
            "reply": list(self._replies),
        }

    # -- internals -----------------------------------------------------------------------------

    def _inactive(self) -> Rejection:
        """X3: why a session that is not active rejects every event."""
        if self._status == COMPLETED:
            return Rejection(
                "terminal-state",
                f"state {self._node.name!r} is terminal; the workflow has completed",
            )
        limit = self._exhausted_by
        reason = f"{limit} was reached" if limit else "a max_visits limit ended it"
        return Rejection("budget-exhausted", f"the workflow's budget is exhausted: {reason}", limit)

    def _rearm(self) -> None:
        """Set the tripwire: the history length from which an event must go the careful way.

        Zero (every event) once the session is not active or its tool calls reached their
        limit; ``None`` (no event) for an active session without a budget; else the length at
        which its visits reach their limit. Called whenever the status or tool calls change,
        except where a change sets zero directly.
        """
        if self._status != ACTIVE or self._tool_calls >= self._max_tool_calls:
            self._tripwire = 0
        elif not self._budgeted:
            self._tripwire = None
        else:
            cap = self._visit_cap
            self._tripwire = _FAR if cap > _FAR else int(cap)

    def _check_careful(self) -> None:
        """X3, then X8's first two limits in order (visits, tool calls): raise if one holds."""
        if self._status != ACTIVE:
            raise self._inactive()
        if len(self._history) >= self._visit_cap:
            self._exhaust("max_total_visits")
        if self._tool_calls >= self._max_tool_calls:
            self._exhaust("max_tool_calls")

    def _exhaust(self, limit: str) -> NoReturn:
        """X8: ``limit`` is reached; the session ends and the event is rejected."""
        self._status = BUDGET_EXHAUSTED
        self._exhausted_by = limit
        self._tripwire = 0
        self._turn = USER  # X21
        raise Rejection("budget-exhausted", f"{limit} is reached", limit)

    def _redirect(self, target: Node) -> Node:
        """X5: follow ``on_max_visits`` from ``target``, at its limit, to a state below its own.

        A state at its limit without ``on_max_visits``, or a chain that comes back to a state
        it already left, ends the workflow: ``budget_exhausted`` and ``max-visits-exceeded``.
        """
        state = target
        tried: list[str] = []
        while state.max_visits is not None and self._visits.get(state.name, 0) >= state.max_visits:
            tried.append(state.name)
            redirect = state.spec.on_max_visits
            if redirect is None or redirect in tried:
                self._status = BUDGET_EXHAUSTED
                self._tripwire = 0
                self._turn = USER  # X21
                chain = " -> ".join(tried)
                raise Rejection(
                    "max-visits-exceeded",
                    f"max_visits reached ({chain}) with nowhere left to go; the workflow ends",
                )
            state = self._nodes[redirect]
        return state

    def _load(self, snapshot: Mapping[str, Any]) -> None:
        try:
            self._load_checked(snapshot)
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise SnapshotError(f"malformed snapshot: {error!r}") from None

    def _load_checked(self, snapshot: Mapping[str, Any]) -> None:
        states = self._nodes
        if snapshot.get("format") != SNAPSHOT_FORMAT:
            raise SnapshotError(f"not a {SNAPSHOT_FORMAT} snapshot")
        if snapshot.get("workflow_digest") != self.workflow.digest:
            raise SnapshotError("the snapshot was taken from a different workflow")
        status = snapshot["status"]
        if status not in _STATUSES:
            raise SnapshotError(f"unknown status {status!r}")
        visits = {str(k): int(v) for k, v in snapshot["visit_counts"].items()}
        history = [(str(f), str(t), str(e)) for f, t, e in snapshot["history"]]
        named = [snapshot["current_state"], *visits, *(n for f, t, _ in history for n in (f, t))]
        unknown = sorted({n for n in named if n not in states})
        if unknown:
            raise SnapshotError(f"the snapshot names unknown states: {', '.join(unknown)}")
        artifacts = {str(k): v for k, v in snapshot["artifacts"].items()}
        if not all(isinstance(v, str) for v in artifacts.values()):
            raise SnapshotError("artifact values must be strings")
        tool_calls = snapshot["tool_calls"]
        if not isinstance(tool_calls, int) or tool_calls < 0:
            raise SnapshotError("tool_calls must be an integer >= 0")
        self._node = states[snapshot["current_state"]]
        self._status = status
        self._visits = visits
        self._history = history
        self._visit_cap = self._max_total_visits - (sum(visits.values()) - len(history))
        self._artifacts = artifacts
        self._artifact_history = [
            (str(f), str(t), str(e), dict(v)) for f, t, e, v in snapshot["artifact_history"]
        ]
        self._recorded = None
        self._tool_calls = tool_calls
        exhausted_by = snapshot.get("exhausted_by")
        if exhausted_by not in (None, "max_total_visits", "max_tool_calls", "max_wall_time_sec"):
            raise SnapshotError(f"unknown budget limit {exhausted_by!r}")
        self._exhausted_by = exhausted_by
        # Snapshots taken before RFC 0014 support carry no turn: the user's, nothing said.
        turn = snapshot.get("turn", USER)
        replies = snapshot.get("reply", [])
        if turn not in (USER, AGENT):
            raise SnapshotError(f"unknown turn {turn!r}")
        if turn == AGENT and not (status == ACTIVE and self._node.keeps_turn):
            raise SnapshotError("only an active session in a control: agent state is the agent's")
        if not isinstance(replies, list) or not all(isinstance(r, str) for r in replies):
            raise SnapshotError("reply must be a list of texts")
        self._turn = turn
        self._replies = list(replies)
        self._origin = self._clock() - float(snapshot["elapsed_sec"])
        self._rearm()


def _unknown_event(node: Node, event: str) -> Rejection:
    """X4: ``node`` has no transition for ``event``."""
    return Rejection("unknown-event", f"state {node.name!r} has no transition for {event!r}")
