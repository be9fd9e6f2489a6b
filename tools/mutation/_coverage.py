"""Which catalog cases execute which lines of the mutated modules: a mutant is judged only on
the cases that execute its line.

A case that never executes a mutated line behaves as it does on the unchanged reference, which
passes every check, so it cannot kill that mutant: running it would only cost time. The map is
recorded once, in a fresh process (``python -m tools.mutation._coverage CASES OUT``), tracing
the five modules' lines from their first import, and cached under ``.mutation/`` keyed by the
hash of everything that can change it (the reference, the kit, the cases, this module).

Three things keep the selection sound:

- a line executed while the modules are imported (a module constant, a class attribute, a
  default argument, a decorator) is read by every case that comes after: a mutant there is
  judged on the whole catalog;
- each case runs on its own adapter, in the recording and in every mutant's run (see
  :func:`tools.mutation._worker.judge`), so no case reuses what another case computed with the
  mutated line (the reference adapter caches compiled workflows per pack text);
- a mutant's line is its node's whole span, so a change to a multi-line expression selects
  every case that executes any line of it; a deleted ``yield`` that was its function's only
  one makes the generator a plain function, so its span reaches back to the ``def`` line,
  which runs at import: judged on the whole catalog.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import pickle
import sys
import threading
import types
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tools.mutation._mutants import Mutant

__all__ = ["Coverage", "fingerprint", "main", "record"]

_ROOT = Path(__file__).resolve().parents[2]
_INPUTS = ("reference", "conformance", "cases", "tools/mutation/_coverage.py")
"""What the map depends on: the runtime, the kit that drives it, the catalog, this module."""


@dataclass(frozen=True)
class Coverage:
    """The lines each case executes, per module.

    Attributes:
        key: the fingerprint of the sources the map was recorded from.
        cases: every case id, in the catalog's order.
        imported: per module, the lines executed while it was imported.
        executed: per module and line, the ids of the cases that execute it.
    """

    key: str
    cases: tuple[str, ...]
    imported: Mapping[str, frozenset[int]]
    executed: Mapping[str, Mapping[int, tuple[str, ...]]]

    def select(self, mutant: Mutant) -> tuple[str, ...] | None:
        """The cases that can kill ``mutant``, in the catalog's order: ``None`` for every case
        (its line runs at import), none when no case executes it (not reached)."""
        first = min(mutant.line, mutant.start_line or mutant.line)
        span = range(first, max(mutant.line, mutant.end_line) + 1)
        if any(line in self.imported.get(mutant.module, ()) for line in span):
            return None
        lines = self.executed.get(mutant.module, {})
        chosen = {case for line in span for case in lines.get(line, ())}
        return tuple(case for case in self.cases if case in chosen)

    def to_dict(self) -> dict[str, Any]:
        position = {case: number for number, case in enumerate(self.cases)}
        return {
            "key": self.key,
            "cases": list(self.cases),
            "imported": {m: sorted(lines) for m, lines in sorted(self.imported.items())},
            # A case by its position in ``cases``: the ids would make the file ten times larger.
            "executed": {
                m: {str(line): [position[i] for i in ids] for line, ids in sorted(by_line.items())}
                for m, by_line in sorted(self.executed.items())
            },
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Coverage:
        cases = tuple(data["cases"])
        return cls(
            str(data["key"]),
            cases,
            {m: frozenset(lines) for m, lines in data["imported"].items()},
            {
                m: {int(line): tuple(cases[i] for i in ids) for line, ids in by_line.items()}
                for m, by_line in data["executed"].items()
            },
        )


def fingerprint(root: Path = _ROOT) -> str:
    """A hash of every file the map depends on (paths and contents, in sorted order)."""
    digest = hashlib.sha256()
    for name in _INPUTS:
        top = root / name
        for path in sorted(top.rglob("*")) if top.is_dir() else [top]:
            if path.is_file() and "__pycache__" not in path.parts:
                digest.update(path.relative_to(root).as_posix().encode() + b"\0")
                digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def _tracer(
    files: Mapping[str, str], hits: Callable[[], dict[str, set[int]]]
) -> Callable[[types.FrameType, str, Any], Any]:
    """A trace function that records the lines run in ``files`` (path -> module) only."""

    def local(frame: types.FrameType, event: str, arg: Any) -> Any:
        if event == "line":
            hits()[files[frame.f_code.co_filename]].add(frame.f_lineno)
        return local

    def global_(frame: types.FrameType, event: str, arg: Any) -> Any:
        # A call's own event names the def line; its first line comes as a line event.
        return local if frame.f_code.co_filename in files else None

    return global_


def record(cases_path: Path, modules: Sequence[str], key: str) -> Coverage:
    """Run every case of the pickled catalog against the reference, each on its own adapter,
    and record which lines of ``modules`` it executes.

    Raises:
        RuntimeError: the process has imported :mod:`reference` already (its import-time lines
            would go unseen).
    """
    if any(name == "reference" or name.startswith("reference.") for name in sys.modules):
        raise RuntimeError("record coverage before anything imports reference")
    files = {str(_ROOT / (m.replace(".", "/") + ".py")): m for m in modules}
    current: dict[str, set[int]] = {m: set() for m in modules}

    def hits() -> dict[str, set[int]]:
        return current

    trace = _tracer(files, hits)
    threading.settrace(trace)
    sys.settrace(trace)
    try:
        for module in modules:  # a module first imported inside a case would hide its constants
            importlib.import_module(module)
        from conformance._judging.runner import Runner  # noqa: PLC0415
        from conformance._runtime.reference_adapter import ReferenceAdapter  # noqa: PLC0415

        with open(cases_path, "rb") as stream:
            cases: Sequence[Any] = pickle.load(stream)  # imports the kit, and so reference
        imported = {m: frozenset(lines) for m, lines in current.items()}
        executed: dict[str, dict[int, list[str]]] = {m: {} for m in modules}
        for case in cases:
            current = {m: set() for m in modules}
            runner = Runner(ReferenceAdapter(), timeout=None)
            for part in case.parts:
                runner.run_part(case, part)
            for module, lines in current.items():
                for line in lines:
                    executed[module].setdefault(line, []).append(case.id)
    finally:
        sys.settrace(None)
        threading.settrace(None)
    return Coverage(
        key,
        tuple(case.id for case in cases),
        imported,
        {m: {line: tuple(ids) for line, ids in by_line.items()} for m, by_line in executed.items()},
    )


def main(argv: Iterable[str] | None = None) -> int:
    """``CASES OUT KEY MODULE...``: record the map of the pickled cases, write it as JSON."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    cases_path, out, key, modules = arguments[0], Path(arguments[1]), arguments[2], arguments[3:]
    coverage = record(Path(cases_path), modules, key)
    out.write_text(json.dumps(coverage.to_dict(), sort_keys=True), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
