"""Examples-to-find per breaking runtime and seed: the fuzzer's goal measured over many seeds.

Run: python benchmarks/fuzz_goal.py [--seeds 1-5] [--examples N] [--jobs N] [--only NAME]...

The goal (issue 25): every runtime the catalog catches, ``ppconf fuzz`` finds over the areas it
claims within 1,000 examples. CI holds it at one seed (``tests/conformance/test_fuzz_goal.py``);
this runs every runtime of that test's ``CAUGHT`` and ``MISSED`` at each seed given, with no
shrinking, and prints a table of the examples each took to find (``-``: not found within the
bound; ``fault``: found as an adapter fault, not a divergence). It then runs every RFC-allowed
runtime of ``test_fuzz.ALLOWED`` at the same seeds, each of which must give nothing (a line per
one that does not: a false alarm). Exit status 1 when a caught runtime is missed at some seed or
an allowed one gives a divergence.
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from conformance._fuzz.engine import default_areas, fuzz

HERE = Path(__file__).resolve().parent.parent / "tests" / "conformance"
sys.path.insert(0, str(HERE))
import allowed  # noqa: E402
import breaking  # noqa: E402
import test_fuzz  # noqa: E402
import test_fuzz_goal  # noqa: E402


def _seeds(text: str) -> list[int]:
    first, _, last = text.partition("-")
    return list(range(int(first), int(last or first) + 1))


def _one(job: tuple[str, str, int, int]) -> tuple[str, str, int, str]:
    """Fuzz one runtime at one seed: what it found, as a table cell."""
    module, name, seed, examples = job
    adapter = getattr(breaking if module == "breaking" else allowed, name)()
    areas = default_areas(adapter.capabilities().claims)
    result = fuzz(adapter, areas=areas, examples_wanted=examples, seed=seed, shrink=False)
    finding = result.finding
    if finding is None:
        return module, name, seed, "-"
    if finding.kind != "divergence":
        return module, name, seed, f"fault@{result.found_after}"
    return module, name, seed, str(result.found_after)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="1-5", help="a seed or a range, e.g. 1-5")
    parser.add_argument("--examples", type=int, default=1000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--only", action="append", help="only these runtimes (repeatable)")
    parser.add_argument("--no-allowed", action="store_true", help="skip the allowed runtimes")
    options = parser.parse_args()
    seeds = _seeds(options.seeds)
    caught = [*test_fuzz_goal.CAUGHT]
    kept = [] if options.no_allowed else [*test_fuzz.ALLOWED]
    if options.only:
        caught = [n for n in caught if n in options.only]
        kept = [n for n in kept if n in options.only]
    jobs = [("breaking", n, s, options.examples) for n in dict.fromkeys(caught) for s in seeds]
    jobs += [("allowed", n, s, options.examples) for n in kept for s in seeds]
    started = time.perf_counter()
    with ProcessPoolExecutor(options.jobs) as pool:
        cells = {(m, n, s): cell for m, n, s, cell in pool.map(_one, jobs)}
    width = max((len(n) for _, n, _, _ in jobs), default=4)
    print(f"{'runtime':<{width}}  " + "  ".join(f"seed {s:<3}" for s in seeds) + "  worst")
    missed = 0
    for name in dict.fromkeys(caught):
        row = [cells["breaking", name, s] for s in seeds]
        numbers = [int(c) for c in row if c.isdigit()]
        worst = "-" if len(numbers) < len(row) else str(max(numbers))
        missed += worst == "-"
        print(f"{name:<{width}}  " + "  ".join(f"{c:>8}" for c in row) + f"  {worst:>5}")
    alarms = [(n, s, c) for (m, n, s), c in sorted(cells.items()) if m == "allowed" and c != "-"]
    print(
        f"\n{len(dict.fromkeys(caught))} breaking runtimes, {missed} missed at some seed; "
        f"{len(kept)} allowed runtimes at {len(seeds)} seeds, {len(alarms)} false alarms; "
        f"{time.perf_counter() - started:.0f} s"
    )
    for name, seed, cell in alarms:
        print(f"  FALSE ALARM: {name} at seed {seed} (after {cell} examples)")
    return 1 if missed or alarms else 0


if __name__ == "__main__":
    sys.exit(main())
