"""How long `ppconf run` takes next to its floor: importing the kit and parsing the catalog.

The floor is what no run can avoid: a fresh interpreter importing ``conformance`` and parsing
every catalog file with libyaml (PyYAML's ``CSafeLoader``). Beside it, in fresh interpreters too
and interleaved with it so that a busy machine slows both alike: the whole catalog against the
reference (``ppconf run``), one case (``ppconf run --id``), and the pytest plugin collecting the
catalog (``pytest --ppconf-adapter=reference --collect-only``). Target: each within 2x of its
floor. For pytest the floor adds pytest's own start in an empty folder (with the plugins this
environment has installed, Hypothesis among them), which the kit does not control. Prints the
median of several rounds and the ratios.

    python benchmarks/bench_startup.py [--rounds N]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = 2.0

FLOOR = """
import pathlib
import yaml
import conformance
from conformance._basics.resources import catalog_root
for path in sorted(catalog_root().rglob("*.yaml")):
    yaml.load(path.read_bytes(), Loader=yaml.CSafeLoader)
"""


def commands(folder: str) -> dict[str, list[str]]:
    python = sys.executable
    return {
        "floor (import + libyaml parse)": [python, "-c", FLOOR],
        "ppconf run": [python, "-m", "conformance", "run"],
        "ppconf run --id (one case)": [
            python,
            "-m",
            "conformance",
            "run",
            "--id",
            "workflow.execution.unknown-event",
        ],
        "pytest, empty folder (pytest's own start)": [
            python,
            "-m",
            "pytest",
            "--collect-only",
            "-q",
            "-p",
            "no:cacheprovider",
            "--rootdir",
            folder,
            folder,
        ],
        "pytest --ppconf-adapter collection": [
            python,
            "-m",
            "pytest",
            "--ppconf-adapter=reference",
            "--collect-only",
            "-q",
            "-p",
            "no:cacheprovider",
            "--rootdir",
            folder,
            folder,
        ],
    }


def timed(command: list[str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 5):
        raise SystemExit(f"{command} failed ({done.returncode}): {done.stderr.decode()[-500:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    rounds = parser.parse_args().rounds
    with tempfile.TemporaryDirectory() as folder:
        runs = commands(folder)
        times: dict[str, list[float]] = {name: [] for name in runs}
        timed(runs["floor (import + libyaml parse)"])  # warm the file cache
        for _ in range(rounds):
            for name, command in runs.items():
                times[name].append(timed(command))
    medians = {name: statistics.median(values) for name, values in times.items()}
    floor = medians["floor (import + libyaml parse)"]
    floors = {
        "ppconf run": floor,
        "ppconf run --id (one case)": floor,
        "pytest --ppconf-adapter collection": floor
        + medians["pytest, empty folder (pytest's own start)"],
    }
    print(f"median of {rounds} rounds, fresh interpreters, interleaved")
    for name, median in medians.items():
        if name not in floors:
            print(f"{name:42} {median:6.2f} s")
            continue
        ratio = median / floors[name]
        print(
            f"{name:42} {median:6.2f} s  {ratio:4.2f}x its floor of {floors[name]:.2f} s  "
            f"({ratio / TARGET:.2f} of the 2x target)"
        )


if __name__ == "__main__":
    main()
