"""The worked example adapters in ``examples/`` pass the built-in catalog at the levels their
READMEs state, and ``ppconf smoke`` finds their wiring right.

The READMEs paste the level table of a real run; the levels are read from there, so a README
that no longer tells the truth fails here.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
from pathlib import Path
from typing import Any

import pytest

import conformance._cli.run
from conformance import Catalog, load_catalog
from conformance._cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
NODE = shutil.which("node")
ADAPTERS = {
    "tinyflow": "ppconf_adapter:TinyflowAdapter",
    "node": f"cmd:{shlex.quote(NODE or 'node')} "
    + shlex.quote(str(EXAMPLES / "node" / "adapter.js")),
}
CLAIMED = ["workflow", "loops"]
_ROW = re.compile(r"^(?P<area>[a-z-]+)\s*\|\s*(?P<level>\d|below 0|not assessed)\s*\|", re.M)
_HEADLINE = re.compile(r"^headline level: (?P<level>\d)\b", re.M)
_SPEC_VERSION = re.compile(r"^spec version (?P<version>[0-9.]+)$", re.M)

pytestmark = pytest.mark.parametrize(
    "example",
    [
        "tinyflow",
        pytest.param(
            "node",
            marks=pytest.mark.skipif(
                NODE is None,
                reason="node is not installed (bash .ci/run installs Debian's nodejs)",
            ),
        ),
    ],
)


@pytest.fixture(autouse=True)
def _tinyflow_importable(monkeypatch: pytest.MonkeyPatch) -> None:
    """The in-process example is imported from its folder, as its README runs it."""
    monkeypatch.syspath_prepend(str(EXAMPLES / "tinyflow"))


_CATALOG: list[Catalog] = []


@pytest.fixture
def _catalog_loaded_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Both examples run the same built-in catalog: load it once per process (reading the
    YAML files is most of a run's time)."""
    if not _CATALOG:
        _CATALOG.append(load_catalog())
    monkeypatch.setattr(
        conformance._cli.run, "load_catalog", lambda root=None, extra=(): _CATALOG[0]
    )


def stated_levels(example: str) -> tuple[str, dict[str, int], int]:
    """The spec version, the area levels and the headline level the example's README states."""
    text = (EXAMPLES / example / "README.md").read_text(encoding="utf-8")
    rows = {m["area"]: m["level"] for m in _ROW.finditer(text)}
    headlines = [int(m["level"]) for m in _HEADLINE.finditer(text)]
    versions = {m["version"] for m in _SPEC_VERSION.finditer(text)}
    assert len(headlines) == 1, f"{example}/README.md should state one headline level"
    assert len(versions) == 1, f"{example}/README.md should state one spec version"
    return versions.pop(), {area: int(rows[area]) for area in CLAIMED}, headlines[0]


@pytest.mark.usefixtures("_catalog_loaded_once")
def test_the_readme_states_the_measured_levels(
    example: str, capsys: pytest.CaptureFixture[str]
) -> None:
    version, areas, headline = stated_levels(example)
    arguments = ["run", "--adapter", ADAPTERS[example], "--format", "json"]
    arguments += ["--spec-version", version]
    if example == "node":
        arguments.append("--validate-protocol")
    status = main([*arguments, "--require-level", str(headline)])
    summary: dict[str, Any] = json.loads(capsys.readouterr().out)
    levels = summary["levels"]
    measured = {a["area"]: a["level"] for a in levels["areas"] if a["area"] in CLAIMED}
    assert (levels["spec_version"], measured, levels["headline"]) == (version, areas, headline)
    # The headline covers the claimed areas only: compositions are measured, not charged.
    assert sorted(levels["headline_areas"]) == sorted(CLAIMED)
    assert not levels["claim_notes"]
    assert (summary["counts"]["errored"], summary["counts"]["timeout"]) == (0, 0)
    assert status == 0


def test_smoke_passes(example: str, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["smoke", "--adapter", ADAPTERS[example]])
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == "the wiring works: run the catalog with `ppconf run`"
    assert status == 0
