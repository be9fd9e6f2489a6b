"""One mutant, in its own process: the catalog run, in-process, against the mutated reference.

Run by :mod:`tools.mutation._campaign` as ``python -m tools.mutation._worker CASES MODULE
INDEX [--only IDS] [FIRST...]``: ``CASES`` is the catalog, pickled once by the campaign (the
catalog is fixed; only the runtime is mutated), ``MODULE`` and ``INDEX`` name the mutant,
``IDS`` a JSON file listing the cases to run (those that execute the mutant's line, see
:mod:`tools.mutation._coverage`; default every case), and ``FIRST`` are case ids to run before
the others (those that killed earlier mutants, so a kill is found sooner; the verdict does not
depend on the order). Each case runs on its own adapter, as when the coverage map was recorded,
so that no case reuses what another computed. The mutated source is served to the import
system under the module's own name and file, before anything imports :mod:`reference`, so
every name bound from the module is the mutant's.

Strict, and counting every check itself: the mutant is killed by a check when any check of any
part fails, at any requirement (a finding included), or a part fails; it is killed by an error
when a part errored (the reference raised, or broke the adapter interface), timed out or was
flaky, and no check caught it. A kill by a check ends the run; a kill by an error alone does
not, so that "killed only by an error" means the whole catalog ran. Prints one JSON line.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import json
import pickle
import sys
import types
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

from tools.mutation._mutants import Mutant, apply, mutants

__all__ = ["install", "judge", "main"]

ROOT = Path(__file__).resolve().parents[2]


def source_of(module: str) -> str:
    """The text of a module of the repository."""
    return (ROOT / (module.replace(".", "/") + ".py")).read_text(encoding="utf-8")


class _MutantLoader(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves one module's mutated code under its own name and file."""

    def __init__(self, mutant: Mutant, code: types.CodeType, path: str) -> None:
        self.mutant = mutant
        self.code = code
        self.path = path

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: types.ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != self.mutant.module:
            return None
        return importlib.util.spec_from_file_location(fullname, self.path, loader=self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> None:
        return None

    def exec_module(self, module: types.ModuleType) -> None:
        exec(self.code, module.__dict__)


def install(module: str, index: int) -> Mutant:
    """Make the next import of ``module`` load its mutant number ``index``."""
    if any(name == "reference" or name.startswith("reference.") for name in sys.modules):
        raise RuntimeError("install a mutant before anything imports reference")
    source = source_of(module)
    mutant = mutants(module, source)[index]
    path = str(ROOT / (module.replace(".", "/") + ".py"))
    code = compile(apply(source, mutant), path, "exec")
    sys.meta_path.insert(0, _MutantLoader(mutant, code, path))
    return mutant


def judge(
    cases: Sequence[Any], first: Sequence[str] = (), only: Collection[str] | None = None
) -> dict[str, Any]:
    """Run the cases (those in ``only``, when given) against the reference as it now imports,
    each on its own adapter, and say what caught it."""
    # Imported here, after install(): the kit imports reference, which must be the mutant's.
    from conformance._judging.runner import Runner  # noqa: PLC0415
    from conformance._runtime.reference_adapter import ReferenceAdapter  # noqa: PLC0415

    # No part time limit here: a mutant that loops is stopped by the campaign's per-mutant
    # limit, since a thread left spinning would slow every later part.
    order = {case_id: position for position, case_id in enumerate(first)}
    chosen = [case for case in cases if only is None or case.id in only]
    errored: dict[str, Any] | None = None
    for case in sorted(chosen, key=lambda c: order.get(c.id, len(order))):
        runner = Runner(ReferenceAdapter(), timeout=None)
        for part in case.parts:
            result = runner.run_part(case, part)
            if result.outcome in ("passed", "failed"):
                failed = [c for c in result.checks if not c.passed]
                if failed or result.outcome == "failed":
                    check = failed[0] if failed else None
                    return {
                        "verdict": "check",
                        "case": case.id,
                        "part": part,
                        "check": check.id if check else "",
                        "requirement": check.requirement if check else case.requirement,
                        "message": (check.message if check else result.message)[:300],
                    }
            elif errored is None:
                errored = {
                    "verdict": "error",
                    "case": case.id,
                    "part": part,
                    "outcome": result.outcome,
                    "message": result.message[:300],
                }
    return errored if errored is not None else {"verdict": "survived"}


def main(argv: Sequence[str] | None = None) -> int:
    """``CASES MODULE INDEX [--only IDS] [FIRST...]``: judge one mutant, print the verdict as
    JSON."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    cases_path, module, index = arguments[0], arguments[1], int(arguments[2])
    first = arguments[3:]
    only: frozenset[str] | None = None
    if first[:1] == ["--only"]:
        only = frozenset(json.loads(Path(first[1]).read_text(encoding="utf-8")))
        first = first[2:]
    if module != "-":
        install(module, index)
    with open(cases_path, "rb") as stream:
        cases = pickle.load(stream)
    try:
        verdict = judge(cases, first, only)
    except BaseException as error:  # the mutant broke the run itself: an error kill
        verdict = {"verdict": "error", "outcome": "crashed", "message": repr(error)[:300]}
    print(json.dumps(verdict, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
