"""What the fuzzer's near-valid packs reach: the share of the catalog's breakers it can draw, and
what share of each area's examples are valid packs, mutations and schema breakers.

Run: python benchmarks/fuzz_breakers.py [--packs N] [--examples N] [--seed S] [--missed]

Reach: for each area, ``--packs`` valid packs are drawn as the fuzzer draws a breaker's base
pack, and a breaker of the newest published schema (``schema_breakers.targets()``: the generated
catalog cases of its MUST constraints) counts as reached when some pack offers it a place on
which the reference agrees with it. Printed per area: breakers and constraints reached of all.
``--missed`` lists the breakers reached nowhere.

Shares: ``ppconf fuzz`` against the reference over every area, ``--examples`` examples at
``--seed``, with each example's kind counted as it is judged (a breaker drawn for a pack that
offers it no place is a valid pack with a script), and the breakers' share by the definition
they break (predicates, steps, the rest).
"""

from __future__ import annotations

import argparse
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, given, seed, settings

from conformance._fuzz import engine
from conformance._fuzz.engine import AREAS, fuzz
from conformance._fuzz.schema_breakers import broken, targets
from conformance._runtime.reference_adapter import ReferenceAdapter


def _drawn(area: str, packs: int, at: int) -> list[dict[str, Any]]:
    """``packs`` valid packs of ``area``, as the fuzzer draws a breaker's base pack."""
    drawn: list[dict[str, Any]] = []

    @settings(
        max_examples=packs, database=None, deadline=None, suppress_health_check=list(HealthCheck)
    )
    @seed(at)
    @given(engine._breaker_packs(area))
    def collect(pack: dict[str, Any]) -> None:
        drawn.append(pack)

    collect()
    return drawn


def reach(packs: int, at: int) -> tuple[dict[str, tuple[int, int, int, int]], list[str]]:
    """Per area: (breakers reached, breakers, constraints reached, constraints); the missed."""
    found: dict[str, tuple[int, int, int, int]] = {}
    missed: list[str] = []
    for area in AREAS:
        chosen = [t for t in targets() if t.area == area]
        if not chosen:
            continue
        drawn = _drawn(area, packs, at)
        left = list(chosen)
        for pack in drawn:
            left = [t for t in left if broken(pack, [t], 0) is None]
        reached = [t for t in chosen if t not in left]
        constraints = {t.constraint for t in chosen}
        found[area] = (
            len(reached),
            len(chosen),
            len({t.constraint for t in reached}),
            len(constraints),
        )
        missed += [t.case for t in left]
    return found, missed


def shares(examples: int, at: int) -> tuple[Counter[tuple[str, str]], Counter[str]]:
    """Examples by (area, kind), and breakers by what they break, in one run on the reference."""
    kinds: Counter[tuple[str, str]] = Counter()
    broken_parts: Counter[str] = Counter()
    expect = engine.expect

    def counting(example: engine.Example) -> Any:
        kind = "valid"
        if example.near_valid is not None:
            kind = "mutation"
        elif example.broken is not None:
            kind = "breaker"
            section = example.broken.target.section
            part = "predicates" if "Predicate" in section and "Termination" not in section else ""
            part = part or ("steps" if "Step" in section else "the rest")
            inside = " (inside not)" if "/predicate/not" in example.broken.pointer else ""
            broken_parts[f"{example.area}: {part}{inside}"] += 1
        kinds[example.area, kind] += 1
        return expect(example)

    engine.expect = counting
    try:
        result = fuzz(ReferenceAdapter(), areas=AREAS, examples_wanted=examples, seed=at)
    finally:
        engine.expect = expect
    if result.finding is not None:
        raise SystemExit(f"the reference diverged from itself: {result.finding.message}")
    return kinds, broken_parts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--packs", type=int, default=150, help="packs drawn per area (reach)")
    parser.add_argument("--examples", type=int, default=1000, help="examples of the shares run")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--missed", action="store_true", help="list the breakers not reached")
    options = parser.parse_args()
    found, missed = reach(options.packs, options.seed)
    print(f"{'area':<14}{'breakers':>14}{'constraints':>14}")
    totals = [0, 0, 0, 0]
    for area, counts in found.items():
        totals = [a + b for a, b in zip(totals, counts, strict=True)]
        print(f"{area:<14}{counts[0]:>7} / {counts[1]:<4}{counts[2]:>7} / {counts[3]:<4}")
    print(f"{'all':<14}{totals[0]:>7} / {totals[1]:<4}{totals[2]:>7} / {totals[3]:<4}", end="")
    print(
        f"  ({totals[0] / totals[1]:.0%} of breakers, {totals[2] / totals[3]:.0%} of constraints)"
    )
    if options.missed:
        for case in missed:
            print(f"  not reached: {case}")
    kinds, parts = shares(options.examples, options.seed)
    print(f"\n{'area':<14}{'examples':>9}{'valid':>8}{'mutation':>10}{'breaker':>9}")
    for area in AREAS:
        total = sum(kinds[area, k] for k in ("valid", "mutation", "breaker"))
        if total:
            cells = "".join(
                f"{kinds[area, k] / total:>{w}.0%}"
                for k, w in (("valid", 8), ("mutation", 10), ("breaker", 9))
            )
            print(f"{area:<14}{total:>9}{cells}")
    print("\nbreakers by what they break:")
    for part, count in sorted(parts.items()):
        print(f"  {part:<40}{count:>5}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
