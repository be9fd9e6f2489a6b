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
