"""A campaign: mutants chosen, each judged in a fresh process, two at a time, with a limit,
on the cases that execute its line (:mod:`tools.mutation._coverage`).

Results go to a JSON Lines file, one line per mutant, so a campaign stopped half-way resumes
where it stopped (a mutant already in the file is not run again, unless its source changed).
"""

from __future__ import annotations

import collections
import functools
import json
import pickle
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conformance._catalog.cases import load_catalog
from tools.mutation._coverage import Coverage, fingerprint
from tools.mutation._mutants import Mutant, mutants
from tools.mutation._worker import ROOT, source_of

__all__ = ["MODULES", "Campaign", "Result", "baseline", "choose", "coverage_map", "run"]

MODULES = (
    "reference._workflow.session",
    "reference._workflow.rules",
    "reference._workflow.model",
    "reference._compositions.run",
    "reference._compositions.rules",
)
"""The reference's execution and validation modules: what a catalog has to pin down."""


@dataclass(frozen=True)
class Result:
    """What the catalog made of one mutant.

    Attributes:
        mutant: the change.
        verdict: ``check`` (a check caught it), ``error`` (only an errored, flaky or crashed
            part did), ``timeout`` (the catalog did not finish within the limit) or
            ``survived``.
        detail: the first part that caught it (case, part, check, requirement, message); for
            a survivor, ``cases``, how many cases ran (0: no case executes its line).
        seconds: the process's wall time.
    """

    mutant: Mutant
    verdict: str
    detail: dict[str, Any]
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.mutant.id,
            "module": self.mutant.module,
            "index": self.mutant.index,
            "line": self.mutant.line,
            "operator": self.mutant.operator,
            "description": self.mutant.description,
            "verdict": self.verdict,
            "detail": self.detail,
            "seconds": round(self.seconds, 2),
        }


def every_mutant(modules: Iterable[str] = MODULES) -> list[Mutant]:
    """Every mutant of the modules, in their stable order."""
    return [m for module in modules for m in mutants(module, source_of(module))]


def choose(found: Sequence[Mutant], share: float, seed: int) -> list[Mutant]:
    """A seeded sample stratified by module and operator: ``share`` of each stratum (at least
    one), chosen by ``random.Random(seed)``; all of them for a share of 1."""
    if share >= 1:
        return list(found)
    strata: dict[tuple[str, str], list[Mutant]] = collections.defaultdict(list)
    for mutant in found:
        strata[mutant.module, mutant.operator].append(mutant)
    generator = random.Random(seed)
    chosen: list[Mutant] = []
    for key in sorted(strata):
        group = strata[key]
        count = max(1, round(len(group) * share))
        chosen.extend(generator.sample(group, count))
    return sorted(chosen, key=lambda m: (MODULES.index(m.module), m.index))


class Campaign:
    """Judges mutants against the catalog.

    Arguments:
        jobs: processes at a time (at most 2 on a shared machine).
        limit: seconds a mutant's catalog run may take; past it, a timeout kill.
        whole: judge each mutant on the whole catalog, not only on the cases that execute
            its line (slower; the same verdicts, which a test checks).
    """

    def __init__(self, jobs: int = 2, limit: float = 60.0, *, whole: bool = False) -> None:
        self.jobs = jobs
        self.limit = limit
        self._killers: collections.Counter[str] = collections.Counter()
        self._lock = threading.Lock()
        self._folder = Path(tempfile.mkdtemp(prefix="ppconf-mutation-"))
        self.cases_path = self._folder / "cases.pickle"
        self.cases_path.write_bytes(pickle.dumps(tuple(load_catalog().cases)))
        self.coverage = None if whole else coverage_map(self.cases_path)

    def close(self) -> None:
        shutil.rmtree(self._folder, ignore_errors=True)

    def _first(self) -> list[str]:
        with self._lock:
            return [case for case, _ in self._killers.most_common(40)]

    def judge(self, mutant: Mutant | None) -> Result | tuple[str, dict[str, Any]]:
        """One mutant (``None``: the reference unchanged), in a fresh process, on the cases
        that execute its line; a survivor at once when no case does."""
        command = [sys.executable, "-m", "tools.mutation._worker", str(self.cases_path)]
        command += ["-", "0"] if mutant is None else [mutant.module, str(mutant.index)]
        selected = None
        if mutant is not None and self.coverage is not None:
            selected = self.coverage.select(mutant)
            if selected == ():
                detail: dict[str, Any] = {"cases": 0, "message": "no case executes this line"}
                return Result(mutant, "survived", detail, 0.0)
            if selected is not None:
                only = self._folder / f"{mutant.module}-{mutant.index}.json"
                only.write_text(json.dumps(selected), encoding="utf-8")
                command += ["--only", str(only)]
        command += self._first()
        started = time.perf_counter()
        try:
            done = subprocess.run(
                command, cwd=ROOT, capture_output=True, text=True, timeout=self.limit, check=False
            )
        except subprocess.TimeoutExpired:
            verdict, detail = "timeout", {"message": f"no end within {self.limit:g} s"}
        else:
            lines = done.stdout.strip().splitlines()
            if done.returncode != 0 or not lines:
                verdict = "error"
                detail = {"outcome": "crashed", "message": done.stderr.strip()[-300:]}
            else:
                detail = json.loads(lines[-1])
                verdict = detail.pop("verdict")
                if verdict == "survived" and self.coverage is not None:
                    detail["cases"] = len(self.coverage.cases if selected is None else selected)
        seconds = time.perf_counter() - started
        if verdict == "check" and "case" in detail:
            with self._lock:
                self._killers[detail["case"]] += 1
        if mutant is None:
            return verdict, detail
        return Result(mutant, verdict, detail, seconds)

    def run(
        self, chosen: Sequence[Mutant], on_result: Callable[[Result], None] | None = None
    ) -> list[Result]:
        """Judge every chosen mutant, ``jobs`` at a time, in order of completion."""
        results: list[Result] = []

        def one(mutant: Mutant) -> None:
            result = self.judge(mutant)
            assert isinstance(result, Result)
            with self._lock:
                results.append(result)
                if on_result is not None:
                    on_result(result)

        with ThreadPoolExecutor(max_workers=self.jobs) as pool:
            list(pool.map(one, chosen))
        return results


def coverage_map(cases_path: Path, folder: Path = ROOT / ".mutation") -> Coverage:
    """Which cases execute which lines of the five modules: read from ``folder`` when recorded
    for today's sources, else recorded now (one catalog run, traced, in a fresh process)."""
    key = fingerprint()
    path = folder / f"coverage-{key[:16]}.json"
    if path.exists():
        coverage = Coverage.from_dict(json.loads(path.read_text(encoding="utf-8")))
        if coverage.key == key:
            return coverage
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("coverage-*.json"):
        old.unlink()
    partial = path.with_suffix(".partial")
    command = [sys.executable, "-m", "tools.mutation._coverage", str(cases_path), str(partial)]
    subprocess.run([*command, key, *MODULES], cwd=ROOT, check=True)
    partial.replace(path)
    return Coverage.from_dict(json.loads(path.read_text(encoding="utf-8")))


def baseline(campaign: Campaign) -> tuple[str, dict[str, Any]]:
    """The catalog against the unchanged reference: it must survive, or nothing is measured."""
    answer = campaign.judge(None)
    assert not isinstance(answer, Result)
    return answer


def run(
    chosen: Sequence[Mutant],
    results_path: Path,
    *,
    jobs: int,
    limit: float,
    echo: Callable[[str], None],
    again: Sequence[str] = (),
    whole: bool = False,
) -> list[Result]:
    """Judge the chosen mutants not already in ``results_path`` (resuming), and those whose
    recorded verdict is in ``again`` (survivors, once cases were added), in a fixed shuffled
    order, appending each result to it; return the results of every chosen mutant."""
    known = _read(results_path)
    todo = [m for m in chosen if _key(m) not in known or known[_key(m)]["verdict"] in again]
    # In a fixed shuffled order: a campaign stopped early has judged a sample spread over the
    # modules and operators, not the first modules' mutants only.
    random.Random(0).shuffle(todo)
    campaign = Campaign(jobs, limit, whole=whole)
    try:
        verdict, detail = baseline(campaign)
        if verdict != "survived":
            raise SystemExit(
                "mutation: the catalog does not pass against the unchanged reference "
                f"({verdict}: {detail}); fix that first"
            )
        echo(f"{len(chosen)} mutants chosen, {len(chosen) - len(todo)} already judged")
        results_path.parent.mkdir(parents=True, exist_ok=True)
        with results_path.open("a", encoding="utf-8") as stream:

            def record(result: Result) -> None:
                line = result.to_dict() | {"source": _key(result.mutant)[1]}
                stream.write(json.dumps(line, sort_keys=True) + "\n")
                stream.flush()
                known[_key(result.mutant)] = line
                echo(f"{result.verdict:8} {result.seconds:5.1f}s {result.mutant.id}")

            campaign.run(todo, record)
    finally:
        campaign.close()
    return [_result(m, known[_key(m)]) for m in chosen]


def _key(mutant: Mutant) -> tuple[str, str]:
    """A mutant and the line it changes: a result stays valid while that line reads the same."""
    line = _lines(mutant.module)[mutant.line - 1].strip()
    return f"{mutant.id} {mutant.description}", line


@functools.cache
def _lines(module: str) -> list[str]:
    return source_of(module).splitlines()


def _read(path: Path) -> dict[tuple[str, str], dict[str, Any]]:
    known: dict[tuple[str, str], dict[str, Any]] = {}
    if path.exists():
        for text in path.read_text(encoding="utf-8").splitlines():
            line = json.loads(text)
            known[f"{line['id']} {line['description']}", line["source"]] = line
    return known


def _result(mutant: Mutant, line: dict[str, Any]) -> Result:
    return Result(mutant, line["verdict"], line["detail"], line["seconds"])
