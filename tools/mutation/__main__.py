"""``python -m tools.mutation``: the catalog's strength, measured by mutating the reference.

    python -m tools.mutation run [--share 1.0] [--seed 0] [--jobs 2] [--limit 60]
    python -m tools.mutation list [MODULE...]
    python -m tools.mutation show MUTANT-ID

``run`` judges each chosen mutant of the five execution and validation modules (all of them by
default; ``--share`` takes a seeded sample stratified by module and operator) in a fresh
process, on the catalog cases that execute the changed line (``--whole``: on every case),
prints a table per module, and exits 1 when a survivor is not explained in
``tools/mutation/survivors.yaml``.
"""

from __future__ import annotations

import argparse
import ast
import collections
import difflib
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from tools.mutation._campaign import MODULES, Result, choose, every_mutant, run
from tools.mutation._mutants import apply
from tools.mutation._survivors import account, read_survivors
from tools.mutation._worker import ROOT, source_of

VERDICTS = ("check", "error", "timeout", "survived")


def main(argv: Sequence[str] | None = None) -> int:
    """The command line; returns the exit status (0 when the reader of the output goes away
    early, as in ``list | head``: the rest is not wanted, which is no error)."""
    try:
        return _main(argv)
    except BrokenPipeError:
        _silence_stdout()
        return 0


def _silence_stdout() -> None:
    """Point standard output at the null device: the interpreter flushes it once more on the
    way out, which would raise into a broken pipe again."""
    try:
        descriptor = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # not a file (a test's capture)
        return
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, descriptor)
    os.close(null)


def _main(argv: Sequence[str] | None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.mutation", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    running = commands.add_parser("run", help="judge mutants against the catalog")
    running.add_argument("--module", action="append", choices=MODULES, help="default: all five")
    running.add_argument("--share", type=float, default=1.0, help="of each stratum (0-1]")
    running.add_argument("--seed", type=int, default=0)
    running.add_argument("--jobs", type=int, default=2, choices=(1, 2))
    running.add_argument("--limit", type=float, default=60.0, help="seconds per mutant")
    running.add_argument(
        "--whole",
        action="store_true",
        help="judge each mutant on the whole catalog, not only the cases that execute its line",
    )
    running.add_argument(
        "--results", type=Path, default=ROOT / ".mutation" / "results.jsonl", help="resumable"
    )
    running.add_argument(
        "--again",
        action="append",
        default=[],
        choices=VERDICTS,
        help="judge again the mutants recorded with this verdict (after adding cases)",
    )
    listing = commands.add_parser("list", help="every mutant, one a line")
    listing.add_argument("module", nargs="*", choices=(*MODULES, []))
    showing = commands.add_parser("show", help="a mutant as a diff")
    showing.add_argument("id")
    args = parser.parse_args(argv)
    if args.command == "list":
        for mutant in every_mutant(args.module or MODULES):
            print(f"{mutant.id}\t{mutant.description}")
        return 0
    if args.command == "show":
        return _show(args.id)
    if not 0 < args.share <= 1:
        parser.error(f"--share is a fraction in (0, 1], not {args.share}")
    try:
        explained = read_survivors()
    except ValueError as error:
        print(f"mutation: {error}", file=sys.stderr)
        return 2
    chosen = choose(every_mutant(args.module or MODULES), args.share, args.seed)
    started = time.perf_counter()
    results = run(
        chosen,
        args.results,
        jobs=args.jobs,
        limit=args.limit,
        again=args.again,
        whole=args.whole,
        echo=lambda line: print(line, file=sys.stderr, flush=True),
    )
    print(_table(results))
    print(f"wall time {time.perf_counter() - started:.0f} s (mutants already judged not rerun)")
    lines = {module: source_of(module).splitlines() for module in MODULES}
    found = account(((r.mutant, r.verdict) for r in results), explained, lines)
    for kind, count in sorted(found.kinds.items()):
        print(f"survivors explained as {kind}: {count}")
    for entry in found.killed_now:
        print(f"explained as {entry.kind} but killed now: {entry.id}")
    for entry in found.not_killed:
        print(f"explained as killed by {entry.case} but survives: {entry.id}")
    for mutant in found.unexplained:
        print(f"unexplained survivor: {mutant.id}\t{mutant.description}")
    return 1 if found.unexplained else 0


def _table(results: Sequence[Result]) -> str:
    rows: list[tuple[str, ...]] = [("module", "mutants", *VERDICTS, "killed")]
    by_module: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for result in results:
        by_module[result.mutant.module][result.verdict] += 1
        by_module["all"][result.verdict] += 1
    for module in (*MODULES, "all"):
        counts = by_module.get(module)
        if not counts:
            continue
        total = sum(counts.values())
        killed = total - counts["survived"]
        rows.append(
            (module, str(total), *(str(counts[v]) for v in VERDICTS), f"{killed / total:.0%}")
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join(
        "  ".join(
            cell.ljust(w) if i == 0 else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(row, widths, strict=True))
        )
        for row in rows
    )


def _show(mutant_id: str) -> int:
    for mutant in every_mutant():
        if mutant.id == mutant_id:
            source = source_of(mutant.module)
            changed = ast.unparse(apply(source, mutant)).splitlines()
            original = ast.unparse(ast.parse(source)).splitlines()
            print(f"{mutant.id}: {mutant.description}")
            print("\n".join(difflib.unified_diff(original, changed, lineterm="", n=2)))
            return 0
    print(f"mutation: no mutant {mutant_id!r} (see python -m tools.mutation list)", file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
