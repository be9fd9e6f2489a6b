"""Throughput of the whole catalog through ``ppconf serve``: the adapter protocol's overhead.

Run: python benchmarks/bench_protocol.py [--repeat N]

A "scenario" is one case part, as in ``bench_catalog.py``: a load check, a validation check or
an event script. Each protocol repeat starts a fresh ``python -m conformance serve``, says hello
and only then starts the clock, so interpreter start-up and imports are excluded; what is timed
is every request and answer (JSON encoding, the pipes, the client's checks) and the served
reference's own work, which starts cold each time, as a fresh in-process adapter does. The same
cases run in process (fresh ``ReferenceAdapter`` per repeat, no timeout thread) for the ratio.
Through the protocol they run with ``run_script`` (a scenario in one request), with it and every
message checked against the schema, and with one request per step (``--no-scripts``).

Then ``ppconf run`` itself, in fresh processes: the whole catalog against
``--adapter 'cmd:python -m conformance serve'`` and against the same with ``--no-scripts``,
start-up of both processes included.

Everything runs in turn (in the reverse order every other round), ``--repeat`` rounds, so that
a busy machine slows it alike; prints medians.
"""

from __future__ import annotations

import argparse
import shlex
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence

from conformance._catalog.cases import Case, load_catalog
from conformance._judging.runner import DEFAULT_TIMEOUT, Runner
from conformance._protocol import SubprocessAdapter
from conformance._runtime.adapter import Adapter
from conformance._runtime.reference_adapter import ReferenceAdapter

TARGET = 300  # scenarios per second through the protocol
SERVE = (sys.executable, "-m", "conformance", "serve")


def _time_run(cases: Sequence[Case], adapter: Adapter, timeout: float | None) -> float:
    runner = Runner(adapter, timeout=timeout)
    start = time.perf_counter()
    results = runner.run_all(cases)
    elapsed = time.perf_counter() - start
    assert all(r.passed for r in results), [r.case.id for r in results if not r.passed]
    return elapsed


def _protocol(cases: Sequence[Case], validate: bool, scripts: bool) -> float:
    """Seconds for one run through a fresh server (its start and hello not counted)."""
    adapter = SubprocessAdapter(SERVE, validate_protocol=validate, scripts=scripts)
    adapter.capabilities()  # starts the process and says hello
    try:
        return _time_run(cases, adapter, DEFAULT_TIMEOUT)
    finally:
        adapter.close()


def _cli(*serve_options: str) -> float:
    """Seconds for ``ppconf run`` through ``ppconf serve SERVE_OPTIONS``, in a fresh process."""
    adapter = "cmd:" + shlex.join([*SERVE, *serve_options])
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "conformance", "run", "--adapter", adapter],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    cases = load_catalog().cases
    parts = sum(len(c.parts) for c in cases)
    print(f"catalog: {len(cases)} cases, {parts} scenarios; medians of {args.repeat} rounds")
    runs: dict[str, Callable[[], float]] = {
        "in process:": lambda: _time_run(cases, ReferenceAdapter(), None),
        "protocol, run_script:": lambda: _protocol(cases, False, True),
        "protocol, validated:": lambda: _protocol(cases, True, True),
        "protocol, per step:": lambda: _protocol(cases, False, False),
        "ppconf run, run_script:": _cli,
        "ppconf run, per step:": lambda: _cli("--no-scripts"),
    }
    seconds: dict[str, list[float]] = {label: [] for label in runs}
    for round in range(args.repeat):
        order = list(runs) if round % 2 == 0 else list(reversed(runs))
        for label in order:
            seconds[label].append(runs[label]())
    in_process = statistics.median(seconds["in process:"])
    print(f"{'in process:':24} {in_process * 1000:7.1f} ms, {parts / in_process:7,.0f} scenarios/s")
    for label in list(runs)[1:4]:
        elapsed = statistics.median(seconds[label])
        rate = parts / elapsed
        print(
            f"{label:24} {elapsed * 1000:7.1f} ms, {rate:7,.0f} scenarios/s (target >= "
            f"{TARGET:,}, ratio {rate / TARGET:.2f}; {in_process / elapsed:.2f} x in process; "
            "start-up and hello not counted)"
        )
    for label in list(runs)[4:]:
        elapsed = statistics.median(seconds[label])
        print(
            f"{label:24} {elapsed * 1000:7.1f} ms, {parts / elapsed:7,.0f} scenarios/s "
            "(both processes' start-up included)"
        )
    scripted, per_step = (seconds[label] for label in list(runs)[4:])
    ratio = statistics.median(p / s for s, p in zip(scripted, per_step, strict=True))
    print(f"ppconf run with run_script: {ratio:.2f} x as fast as per step (median of the rounds)")


if __name__ == "__main__":
    main()
