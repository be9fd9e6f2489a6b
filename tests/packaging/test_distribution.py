"""The package as it would be published: ``python -m build`` makes an sdist and a wheel that
``twine check --strict`` passes, with the licence, the metadata an index shows (classifiers,
URLs, the pytest plugin's entry point) and the files the hooks and the Action need."""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 600  # building fetches hatchling into an isolated environment: a busy machine is slow


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "build", "--sdist", "--wheel", "--outdir", str(out), str(ROOT)],
        check=True,
        capture_output=True,
        timeout=TIMEOUT,
        env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"},
    )
    return out


def _one(dist: Path, pattern: str) -> Path:
    (found,) = dist.glob(pattern)
    return found


def test_twine_check_passes(dist: Path) -> None:
    files = sorted(str(p) for p in dist.iterdir())
    assert len(files) == 2
    result = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", *files],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count("PASSED") == 2


def test_the_wheel_has_its_licence_modules_and_metadata(dist: Path) -> None:
    with zipfile.ZipFile(_one(dist, "ppconf-*.whl")) as wheel:
        names = set(wheel.namelist())
        info = next(n.split("/")[0] for n in names if n.endswith(".dist-info/METADATA"))
        metadata = Parser().parsestr(wheel.read(f"{info}/METADATA").decode())
        entry_points = wheel.read(f"{info}/entry_points.txt").decode()
        licence = wheel.read(f"{info}/licenses/LICENSE").decode()
    assert licence == (ROOT / "LICENSE").read_text("utf-8")
    assert "Apache License" in licence
    assert "Version 2.0, January 2004" in licence
    assert metadata["License-Expression"] == "Apache-2.0"
    classifiers = metadata.get_all("Classifier")
    assert "Framework :: Pytest" in classifiers
    assert "Typing :: Typed" in classifiers
    assert metadata["Requires-Python"] == ">=3.11"
    assert metadata.get_all("Project-URL")
    for module in ("ppconf/__main__.py", "conformance/__main__.py", "conformance/py.typed"):
        assert module in names
    assert "reference/py.typed" in names
    assert "conformance/_data/schema/report.schema.json" in names
    assert "ppconf = conformance._cli:entry_point" in entry_points
    assert "ppconf = conformance._plugin" in entry_points


def test_the_wheel_has_every_published_schema(dist: Path) -> None:
    with zipfile.ZipFile(_one(dist, "ppconf-*.whl")) as wheel:
        names = set(wheel.namelist())
        shipped = {
            name.rsplit("/", 1)[1]: wheel.read(name)
            for name in names
            if name.startswith("conformance/_data/schema/")
        }
        reference = wheel.read("reference/_data/schema/promptpack.schema.json")
    published = {path.name: path.read_bytes() for path in (ROOT / "schema").glob("*.json")}
    assert sorted(shipped) == sorted(published)
    assert shipped == published
    assert reference == published["promptpack.schema.json"]


def test_the_sdist_has_what_a_checkout_has(dist: Path) -> None:
    with tarfile.open(_one(dist, "ppconf-*.tar.gz")) as sdist:
        names = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    for name in (
        "LICENSE",
        "CHANGELOG.md",
        "README.md",
        "action.yml",
        ".pre-commit-hooks.yaml",
        "action/constraints.txt",
        "action/outputs.py",
        "pyproject.toml",
        "ppconf/__init__.py",
        "schema/validate.schema.json",
    ):
        assert name in names, name


def test_python_m_ppconf_is_the_command() -> None:
    for module in ("ppconf", "conformance"):
        result = subprocess.run(
            [sys.executable, "-m", module, "--version"],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert result.returncode == 0, result.stderr
        assert result.stdout.startswith("ppconf ")
