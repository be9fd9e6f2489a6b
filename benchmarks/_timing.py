"""Timing shared by the benchmark scripts (each is run as ``python benchmarks/bench_X.py``, so
this module is importable beside them)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def median_seconds(action: Callable[[], object], repeat: int) -> float:
    """The median wall time of ``repeat`` calls of ``action``."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def alternating_seconds(
    first: Callable[[], object],
    second: Callable[[], object],
    repeat: int,
    clock: Callable[[], float] = time.perf_counter,
) -> tuple[list[float], list[float]]:
    """The times of ``repeat`` calls of each of two actions, called in turn, so that a machine
    busy with other work slows both alike (pair them up for ratios). ``clock`` is the wall clock
    unless told otherwise (``time.process_time`` counts only this process's CPU time)."""
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(repeat):
        for action, kept in ((first, times[0]), (second, times[1])):
            start = clock()
            action()
            kept.append(clock() - start)
    return times
