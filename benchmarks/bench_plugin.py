"""The pytest plugin beside `ppconf run`: the same catalog against the same runtime.

Runs, in fresh interpreters and in turn so that a busy machine slows all alike: ``ppconf run``
(the CLI), ``pytest --ppconf-adapter=reference`` serially (``-n 0``) and on two workers
(``-n 2``), and pytest's own start in an empty folder (with the plugins this environment has,
Hypothesis among them, which the kit does not control). Prints the median wall time and CPU time
(of the process and its children: on a shared machine CPU time is the steadier of the two) of
each, then the plugin's ratios: serial over the CLI (target at most 2x), and ``-n 2`` over
serial (below 1 is a speed-up). Bytecode is cached in a temporary folder for all of them, as it
is on any machine that keeps its ``__pycache__``.

    python benchmarks/bench_plugin.py [--rounds N] [--runtime reference]
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
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = 2.0  # the plugin's serial time over the CLI's


def commands(folder: str, runtime: str) -> dict[str, list[str]]:
    python = sys.executable
    pytest = [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", folder]
    return {
        "ppconf run": [python, "-m", "conformance", "run", "--adapter", runtime],
        "pytest, empty folder": [*pytest, folder],
        "plugin -n 0": [*pytest, f"--ppconf-adapter={runtime}", "-n", "0", folder],
        "plugin -n 2": [*pytest, f"--ppconf-adapter={runtime}", "-n", "2", folder],
    }


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--runtime", default="reference", help="the adapter of both")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder, tempfile.TemporaryDirectory() as cache:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = cache
        runs = commands(folder, args.runtime)
        for command in runs.values():
            timed(command, env)  # warm the file and bytecode caches
        walls: dict[str, list[float]] = {name: [] for name in runs}
        cpus: dict[str, list[float]] = {name: [] for name in runs}
        for _ in range(args.rounds):
            for name, command in runs.items():
                wall, cpu = timed(command, env)
                walls[name].append(wall)
                cpus[name].append(cpu)
    wall = {name: statistics.median(values) for name, values in walls.items()}
    cpu = {name: statistics.median(values) for name, values in cpus.items()}
    print(f"median of {args.rounds} rounds, fresh interpreters in turn, runtime {args.runtime}")
    for name in runs:
        print(f"{name:22} wall {wall[name]:6.2f} s   cpu {cpu[name]:6.2f} s")
    for clock, times in (("wall", wall), ("cpu", cpu)):
        serial = times["plugin -n 0"] / times["ppconf run"]
        own = (times["plugin -n 0"] - times["pytest, empty folder"]) / times["ppconf run"]
        parallel = times["plugin -n 2"] / times["plugin -n 0"]
        print(
            f"{clock}: plugin -n 0 / ppconf run {serial:.2f} (target <= {TARGET:g}); "
            f"without pytest's own start {own:.2f}; plugin -n 2 / -n 0 {parallel:.2f}"
        )


if __name__ == "__main__":
    main()
