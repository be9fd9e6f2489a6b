"""Judging a mutant only on the cases that execute its line gives the whole catalog's verdict."""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conformance._catalog.cases import load_catalog
from tools.mutation._campaign import MODULES, every_mutant
from tools.mutation._coverage import Coverage, fingerprint
from tools.mutation._mutants import Mutant
from tools.mutation._worker import ROOT

SHARE = 12
"""Every twelfth case of the catalog: enough to reach each module, small enough to run often."""


@pytest.fixture(scope="module")
def catalog(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Coverage]:
    folder = tmp_path_factory.mktemp("coverage")
    cases = tuple(load_catalog().cases)[::SHARE]
    path = folder / "cases.pickle"
    path.write_bytes(pickle.dumps(cases))
    out = folder / "coverage.json"
    command = [sys.executable, "-m", "tools.mutation._coverage", str(path), str(out), "k"]
    subprocess.run([*command, *MODULES], cwd=ROOT, check=True, timeout=300)
    return path, Coverage.from_dict(json.loads(out.read_text(encoding="utf-8")))


def _verdict(cases: Path, mutant: Mutant, only: tuple[str, ...] | None) -> dict[str, Any]:
    command = [sys.executable, "-m", "tools.mutation._worker", str(cases), mutant.module]
    command.append(str(mutant.index))
    if only is not None:
        ids = cases.with_name(f"{mutant.module}-{mutant.index}.json")
        ids.write_text(json.dumps(only), encoding="utf-8")
        command += ["--only", str(ids)]
    done = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, timeout=300, check=True
    )
    verdict: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return verdict


def _picks(coverage: Coverage) -> list[tuple[Mutant, tuple[str, ...] | None]]:
    """Per module, the first mutant its line's cases are a proper part of the catalog for, the
    first no case reaches and the first whose line runs at import: a fixed, varied handful."""
    chosen: dict[tuple[str, str], tuple[Mutant, tuple[str, ...] | None]] = {}
    for mutant in every_mutant(MODULES):
        selected = coverage.select(mutant)
        if selected is None:
            kind = "import"
        elif not selected:
            kind = "unreached"
        elif len(selected) < len(coverage.cases) // 2 and mutant.operator in ("compare", "delete"):
            kind = "some"
        else:
            continue
        chosen.setdefault((mutant.module, kind), (mutant, selected))
    picks = [chosen[k] for k in sorted(chosen) if k[1] == "some"]
    picks += [chosen[k] for k in sorted(chosen) if k[1] != "some"][:2]
    return picks


def test_the_map_names_import_lines_and_the_cases_of_each_line(
    catalog: tuple[Path, Coverage],
) -> None:
    _, coverage = catalog
    assert coverage.key == "k"
    for module in MODULES:
        assert coverage.imported[module], module  # constants, class bodies, def lines
        assert coverage.executed[module], module
        assert all(coverage.executed[module].values())


def test_selected_cases_give_the_whole_catalogs_verdict(catalog: tuple[Path, Coverage]) -> None:
    cases, coverage = catalog
    picks = _picks(coverage)
    assert len(picks) >= 5
    killed = 0
    for mutant, selected in picks:
        whole = _verdict(cases, mutant, None)
        if selected == ():
            assert whole == {"verdict": "survived"}, (mutant.id, whole)
            continue
        part = _verdict(cases, mutant, selected)
        assert part["verdict"] == whole["verdict"], (mutant.id, part, whole)
        if part["verdict"] != "survived":
            killed += 1
            assert selected is None or part["case"] in selected, (mutant.id, part)
    assert killed, "no pick was killed: the comparison says nothing"


def test_the_fingerprint_follows_every_input(tmp_path: Path) -> None:
    for folder in ("reference", "conformance", "cases", "tools/mutation"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "tools/mutation/_coverage.py").write_text("a", encoding="utf-8")
    (tmp_path / "cases" / "one.yaml").write_text("a", encoding="utf-8")
    first = fingerprint(tmp_path)
    assert fingerprint(tmp_path) == first
    (tmp_path / "cases" / "one.yaml").write_text("b", encoding="utf-8")
    assert fingerprint(tmp_path) != first
    (tmp_path / "tools/mutation/survivors.yaml").write_text("x", encoding="utf-8")
    second = fingerprint(tmp_path)
    (tmp_path / "tools/mutation/survivors.yaml").write_text("y", encoding="utf-8")
    assert fingerprint(tmp_path) == second  # the survivors file changes no line's cases
