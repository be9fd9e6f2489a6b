"""The pytest plugin beside `ppconf run`: the same catalog against the same runtime.

Runs, in fresh interpreters and in turn so that a busy machine slows all alike: ``ppconf run``
(the CLI), ``pytest --ppconf-adapter=reference`` serially (``-n 0``) and on two workers
(``-n 2``), pytest's own start in an empty folder (with the plugins this environment has,
Hypothesis among them, which the kit does not control), and pytest's own floor: as many empty
test functions as the plugin has items, serially and on two workers, which is what pytest and
xdist cost per item before the plugin does anything; and the plugin with an item per area
(``--ppconf-items area``) serially and on two workers. Then, where ``-n 2`` starts to pay: the
plugin serially and on two workers against slower runtimes, the reference behind ``ppconf
serve`` (the adapter protocol, one process per worker) and ``fakes:Sleeps`` (the reference
sleeping 2 ms in each call, ``tests/conformance/fakes.py``).

Prints the median wall time and CPU time (of the process and its children: on a shared machine
CPU time is the steadier of the two) of each, then, as the medians over the rounds of each
round's ratios: the plugin serial over the CLI (target at most 2x), the same less pytest's own
cost of as many items (the plugin's own share), and ``-n 2`` over serial (below 1 is a
speed-up). The load average is printed before and after: ratios taken at a load above the
number of cores say more about the machine than about the plugin. Bytecode is cached in a
temporary folder for all of them, as it is on any machine that keeps its ``__pycache__``, and
pytest keeps its cache (``.pytest_cache``, where the plugin keeps the loaded catalog) in the
empty folder, but for one serial run of the plugin without it (``-p no:cacheprovider``).

    python benchmarks/bench_plugin.py [--rounds N] [--runtime reference] [--no-slow]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from conformance._catalog.cases import Selection, load_catalog

ROOT = Path(__file__).resolve().parents[1]
TARGET = 2.0  # the plugin's serial time over the CLI's
FAKES = ROOT / "tests" / "conformance"  # fakes:Sleeps


def items() -> int:
    """How many items the plugin collects: the parts of the newest spec version's cases."""
    catalog = load_catalog()
    return sum(len(case.parts) for case in catalog.select(Selection()))


PYTEST = [sys.executable, "-m", "pytest", "-q"]


def plugin(empty: str, runtime: str, *more: str) -> list[str]:
    """The plugin against ``runtime``, in the empty folder ``empty``."""
    return [*PYTEST, "--rootdir", empty, f"--ppconf-adapter={runtime}", empty, *more]


def commands(empty: str, floor: str, runtime: str) -> dict[str, list[str]]:
    """The commands timed: ``empty`` is an empty folder, ``floor`` one with the empty tests."""
    tests = [*PYTEST, "--rootdir", floor, floor]
    return {
        "ppconf run": [sys.executable, "-m", "conformance", "run", "--adapter", runtime],
        "pytest, empty folder": [*PYTEST, "--rootdir", empty, empty],
        "plugin -n 0": plugin(empty, runtime, "-n", "0"),
        "plugin -n 0, no cache": plugin(empty, runtime, "-n", "0", "-p", "no:cacheprovider"),
        "plugin -n 2": plugin(empty, runtime, "-n", "2"),
        "empty tests -n 0": [*tests, "-n", "0"],
        "empty tests -n 2": [*tests, "-n", "2"],
        "area items -n 0": plugin(empty, runtime, "-n", "0", "--ppconf-items", "area"),
        "area items -n 2": plugin(empty, runtime, "-n", "2", "--ppconf-items", "area"),
    }


SLOW = {
    "ppconf serve": f"cmd:{sys.executable} -m conformance serve",
    "fakes:Sleeps": "fakes:Sleeps",
}
"""Runtimes slower than the reference in process, by the names the output gives them."""


def slow_commands(empty: str) -> dict[str, list[str]]:
    """The plugin serially and on two workers against each of :data:`SLOW`."""
    runs = {}
    for name, runtime in SLOW.items():
        runs[f"{name} -n 0"] = plugin(empty, runtime, "-n", "0")
        runs[f"{name} -n 2"] = plugin(empty, runtime, "-n", "2")
        runs[f"{name} area -n 2"] = plugin(empty, runtime, "-n", "2", "--ppconf-items", "area")
    return runs


def write_floor(folder: Path, count: int) -> None:
    """``count`` test functions that do nothing, as the plugin's items are many."""
    (folder / "test_floor.py").write_text(
        "import pytest\n\n\n"
        f"@pytest.mark.parametrize('index', range({count}))\n"
        "def test_nothing(index):\n"
        "    pass\n",
        encoding="utf-8",
    )


def timed(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """The wall and CPU seconds of one run of ``command``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, check=False, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 5):
        raise SystemExit(f"{command} failed ({done.returncode}): {done.stdout.decode()[-500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def median_ratio(
    rounds: list[dict[str, float]], ratio: Callable[[dict[str, float]], float]
) -> float:
    """The median over the rounds of one ratio of each round's times (the runs of a round ran
    close together, so a change in the machine's load moves both sides of it alike)."""
    return statistics.median(ratio(times) for times in rounds)


def over(run: str, base: str) -> Callable[[dict[str, float]], float]:
    """The ratio of one run's time to another's, in a round."""
    return lambda times: times[run] / times[base]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--runtime", default="reference", help="the adapter of both")
    parser.add_argument(
        "--no-slow", action="store_true", help="leave out the runs against slower runtimes"
    )
    args = parser.parse_args()
    count = items()
    load = os.getloadavg()[0]
    with (
        tempfile.TemporaryDirectory() as empty,
        tempfile.TemporaryDirectory() as floor,
        tempfile.TemporaryDirectory() as cache,
    ):
        write_floor(Path(floor), count)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = cache
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(FAKES), env.get("PYTHONPATH")]))
        runs = commands(empty, floor, args.runtime)
        for command in runs.values():
            timed(command, env)  # warm the file and bytecode caches
        if not args.no_slow:
            runs |= slow_commands(empty)
        walls: dict[str, list[float]] = {name: [] for name in runs}
        cpus: dict[str, list[float]] = {name: [] for name in runs}
        for _ in range(args.rounds):
            for name, command in runs.items():
                wall, cpu = timed(command, env)
                walls[name].append(wall)
                cpus[name].append(cpu)
    print(
        f"median of {args.rounds} rounds, fresh interpreters in turn, runtime {args.runtime}, "
        f"{count} items; load average {load:.2f} before, {os.getloadavg()[0]:.2f} after, "
        f"{os.cpu_count()} cores"
    )
    for name in runs:
        wall, cpu = statistics.median(walls[name]), statistics.median(cpus[name])
        print(f"{name:26} wall {wall:6.2f} s   cpu {cpu:6.2f} s")
    for clock, times in (("wall", walls), ("cpu", cpus)):
        rounds = [{name: times[name][i] for name in runs} for i in range(args.rounds)]
        serial = median_ratio(rounds, lambda t: t["plugin -n 0"] / t["ppconf run"])
        own = median_ratio(
            rounds, lambda t: (t["plugin -n 0"] - t["empty tests -n 0"]) / t["ppconf run"]
        )
        parallel = median_ratio(rounds, lambda t: t["plugin -n 2"] / t["plugin -n 0"])
        floor_parallel = median_ratio(
            rounds, lambda t: t["empty tests -n 2"] / t["empty tests -n 0"]
        )
        cold = median_ratio(rounds, over("plugin -n 0, no cache", "ppconf run"))
        areas = median_ratio(rounds, lambda t: t["area items -n 2"] / t["plugin -n 0"])
        areas_serial = median_ratio(rounds, lambda t: t["area items -n 0"] / t["ppconf run"])
        print(
            f"{clock}: plugin -n 0 / ppconf run {serial:.2f} (target <= {TARGET:g}; "
            f"{cold:.2f} without pytest's cache); "
            f"less pytest's own cost of {count} items {own:.2f}; "
            f"-n 2 / -n 0: plugin {parallel:.2f}, empty tests {floor_parallel:.2f}; "
            f"area items: -n 0 / ppconf run {areas_serial:.2f}, -n 2 / part items -n 0 "
            f"{areas:.2f}"
        )
        for name in () if args.no_slow else SLOW:
            slow = median_ratio(rounds, over(f"{name} -n 2", f"{name} -n 0"))
            slow_areas = median_ratio(rounds, over(f"{name} area -n 2", f"{name} -n 0"))
            print(
                f"{clock}: {name}: -n 2 / -n 0 {slow:.2f}; area items -n 2 / part items -n 0 "
                f"{slow_areas:.2f}"
            )


if __name__ == "__main__":
    main()
