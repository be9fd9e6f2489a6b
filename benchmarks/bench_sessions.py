"""Events per second on many fresh short sessions, beside the floor of doing it in plain Python.

Run: python benchmarks/bench_sessions.py [--repeat N] [--sessions N] [--events N]

Fuzzing and the catalog run many short sessions, so starting one costs as much as its events.
Both loops run ``--sessions`` sessions (default 1,000) of ``--events`` events (default 999) on
a 3-state loop a -> b -> c -> a with all three budgets set (high enough never to stop it), a
session clock, and the start of each session included:

* the floor: plain dicts and a list doing the same bookkeeping as a session (current state,
  status, visit counts and their total, history, the budget checks before every event, the
  loop-guard check on the state entered, the status on entering a terminal state), written as
  directly as Python allows, in one loop with no call per event;
* the reference: ``reference.start_session(workflow)`` from a compiled ``Workflow``, then
  ``session.send("Next")`` for each event.

The two run in turn, N times each, so that a busy machine slows both alike. Prints the median
rate of each in events per second and the median, over the N pairs, of the floor's rate over
the reference's (the target is at most 1.1), both in CPU time: on a shared machine the wall
clock also counts the time other processes took. Then the floor plus a call per event of a
``send`` that does nothing (what any interface taking one event per call costs on top: the part
of the gap that is the call, not the bookkeeping); the same without a budget (the floor drops
its budget checks and the clock); and one long session (200,000 events), where the history
grows: the reference must not lose its speed there either.

Last, a long session read as a driver reads it: the time of one ``state()`` after 10 events and
after ``--state-events`` (default 1,000,000), which must be the same (the records are made when
first read, not on every call), the time of reading the whole history once, and the memory each
event adds (``tracemalloc``), without artifacts and with one artifact written once.
"""

from __future__ import annotations

import argparse
import statistics
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

from _timing import alternating_seconds, median_seconds

import reference

TARGET_RATIO = 1.1  # floor events/s over reference events/s, on short sessions
BUDGET = {"max_total_visits": 10**9, "max_tool_calls": 10**9, "max_wall_time_sec": 10**9}
# The floors' workflow, as plain dicts: the loop a -> b -> c -> a of loop_pack.
ON_EVENT = {"a": {"Next": "b"}, "b": {"Next": "c"}, "c": {"Next": "a"}}
MAX_VISITS: dict[str, int | None] = {"a": None, "b": None, "c": None}
TERMINAL = {"a": False, "b": False, "c": False}


def loop_pack(budget: bool = True) -> dict[str, Any]:
    """Three states in a loop a -> b -> c -> a, no max_visits, all budgets set or none."""
    states = {
        name: {"prompt_task": "work", "on_event": {"Next": target}}
        for name, target in (("a", "b"), ("b", "c"), ("c", "a"))
    }
    workflow: dict[str, Any] = {"version": 2, "entry": "a", "states": states}
    if budget:
        workflow["engine"] = {"budget": BUDGET}
    return {
        "id": "bench",
        "name": "Benchmark",
        "version": "1.0.0",
        "template_engine": {"version": "v1", "syntax": "{{variable}}"},
        "prompts": {
            "work": {"id": "work", "name": "Work", "version": "1.0.0", "system_template": "Work."}
        },
        "workflow": workflow,
    }


def floor(sessions: int, events: int, clock: Callable[[], float]) -> None:
    """The bookkeeping of ``sessions`` sessions of ``events`` events, in plain Python."""
    on_event, max_visits, terminal = ON_EVENT, MAX_VISITS, TERMINAL
    max_total, max_tools, max_wall = (BUDGET[k] for k in BUDGET)
    for _ in range(sessions):
        current, status, visits, total = "a", "active", {"a": 1}, 1
        history: list[tuple[str, str, str]] = []
        tool_calls, origin = 0, clock()
        for _ in range(events):
            if status != "active":
                raise RuntimeError("not active")
            if total >= max_total or tool_calls >= max_tools or clock() - origin >= max_wall:
                raise RuntimeError("budget")
            target = on_event[current].get("Next")
            if target is None:
                raise RuntimeError("unknown event")
            limit = max_visits[target]
            if limit is not None and visits.get(target, 0) >= limit:
                raise RuntimeError("guard")
            history.append((current, target, "Next"))
            visits[target] = visits.get(target, 0) + 1
            total += 1
            current = target
            if terminal[target]:
                status = "completed"


class Idle:
    """A session whose ``send`` does nothing: only the cost of calling it."""

    def send(self, event: str, source: str = "host") -> None:
        """Take ``event`` and do nothing with it."""


def floor_called(sessions: int, events: int, clock: Callable[[], float]) -> None:
    """:func:`floor`, plus a call per event of a ``send`` with the reference's signature that
    does nothing (:class:`Idle`): the floor of any interface taking one event per call."""
    on_event, max_visits, terminal = ON_EVENT, MAX_VISITS, TERMINAL
    max_total, max_tools, max_wall = (BUDGET[k] for k in BUDGET)
    for _ in range(sessions):
        current, status, visits, total = "a", "active", {"a": 1}, 1
        history: list[tuple[str, str, str]] = []
        tool_calls, origin = 0, clock()
        send = Idle().send
        for _ in range(events):
            send("Next")
            if status != "active":
                raise RuntimeError("not active")
            if total >= max_total or tool_calls >= max_tools or clock() - origin >= max_wall:
                raise RuntimeError("budget")
            target = on_event[current].get("Next")
            if target is None:
                raise RuntimeError("unknown event")
            limit = max_visits[target]
            if limit is not None and visits.get(target, 0) >= limit:
                raise RuntimeError("guard")
            history.append((current, target, "Next"))
            visits[target] = visits.get(target, 0) + 1
            total += 1
            current = target
            if terminal[target]:
                status = "completed"


def floor_without_budget(sessions: int, events: int) -> None:
    """:func:`floor` for a workflow without a budget: no budget checks, no clock."""
    on_event, max_visits, terminal = ON_EVENT, MAX_VISITS, TERMINAL
    for _ in range(sessions):
        current, status, visits = "a", "active", {"a": 1}
        history: list[tuple[str, str, str]] = []
        for _ in range(events):
            if status != "active":
                raise RuntimeError("not active")
            target = on_event[current].get("Next")
            if target is None:
                raise RuntimeError("unknown event")
            limit = max_visits[target]
            if limit is not None and visits.get(target, 0) >= limit:
                raise RuntimeError("guard")
            history.append((current, target, "Next"))
            visits[target] = visits.get(target, 0) + 1
            current = target
            if terminal[target]:
                status = "completed"


def run_reference(
    workflow: reference.Workflow, sessions: int, events: int, clock: Callable[[], float]
) -> None:
    """``sessions`` sessions of ``events`` events on the reference, each started afresh."""
    for _ in range(sessions):
        send = reference.start_session(workflow, clock=clock).send
        for _ in range(events):
            send("Next")


def compare(
    label: str,
    sessions: int,
    events: int,
    repeat: int,
    *,
    budget: bool = True,
    called: bool = False,
) -> None:
    """Print the floor's and the reference's events/s, and the floor's rate over the
    reference's; ``called``: the floor with a call per event (:func:`floor_called`)."""
    workflow = reference.compile_workflow(loop_pack(budget))
    clock = reference.ManualClock()
    total = sessions * events
    if called:
        floor_action = lambda: floor_called(sessions, events, clock)  # noqa: E731
    elif budget:
        floor_action = lambda: floor(sessions, events, clock)  # noqa: E731
    else:
        floor_action = lambda: floor_without_budget(sessions, events)  # noqa: E731
    floor_seconds, seconds = alternating_seconds(
        floor_action,
        lambda: run_reference(workflow, sessions, events, clock),
        repeat,
        time.process_time,
    )
    ratio = statistics.median(r / f for f, r in zip(floor_seconds, seconds, strict=True))
    name = "floor with a call" if called else "floor"
    target = "" if called else f" (target <= {TARGET_RATIO:g})"
    print(
        f"{label}: {name} {total / statistics.median(floor_seconds):,.0f} events/s, "
        f"reference {total / statistics.median(seconds):,.0f} events/s, "
        f"{name}/reference {ratio:.2f}{target}"
    )


def artifact_pack() -> dict[str, Any]:
    """:func:`loop_pack` whose state ``a`` declares one artifact, so every event records them."""
    pack = loop_pack()
    pack["workflow"]["states"]["a"]["artifacts"] = {"notes": {"type": "text", "mode": "replace"}}
    return pack


def long_session(label: str, pack: dict[str, Any], counts: tuple[int, ...], repeat: int) -> None:
    """Print, after each count of events, one state()'s median time, the time to read its
    history once, and the memory each event added."""
    workflow = reference.compile_workflow(pack)
    for events in counts:
        session = reference.start_session(workflow, clock=reference.ManualClock())
        if workflow.declares_artifacts:
            session.set_artifact("notes", "written once")
        send = session.send
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(events):
            send("Next")
        grown = tracemalloc.get_traced_memory()[0] - before
        tracemalloc.stop()
        call = median_seconds(session.state, repeat)
        start = time.perf_counter()
        read = len(list(session.state()["history"]))
        reading = time.perf_counter() - start
        print(
            f"{label}, after {events:,} events: state() {call * 1e6:,.1f} us, "
            f"reading its {read:,} history entries {reading * 1e3:,.1f} ms, "
            f"{grown / events:,.0f} bytes per event"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--sessions", type=int, default=1_000)
    parser.add_argument("--events", type=int, default=999)
    parser.add_argument("--long", type=int, default=200_000, help="events of the long session")
    parser.add_argument("--state-events", type=int, default=1_000_000)
    args = parser.parse_args()
    print(f"medians of {args.repeat} runs in turn; 3-state loop, a manual clock")
    short = f"{args.sessions:,} fresh sessions of {args.events:,} events"
    compare(f"{short}, all budgets", args.sessions, args.events, args.repeat)
    compare(f"{short}, all budgets", args.sessions, args.events, args.repeat, called=True)
    compare(f"{short}, no budget", args.sessions, args.events, args.repeat, budget=False)
    compare(f"one session of {args.long:,} events, all budgets", 1, args.long, args.repeat)
    counts = (10, args.state_events)
    long_session("no artifact", loop_pack(), counts, args.repeat)
    long_session("one artifact", artifact_pack(), counts, args.repeat)


if __name__ == "__main__":
    main()
