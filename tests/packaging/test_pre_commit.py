"""The pre-commit hook, as a pack author's repository runs it: ``pre-commit try-repo`` installs
this checkout as the hook's repository (with its uncommitted changes) and runs
``ppconf-validate`` on a scratch git repository holding a valid and an invalid pack."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 600  # the hook's environment is installed from PyPI: a busy machine is slow

VALID = (ROOT / "tests" / "conformance" / "test_validate_formats.py").read_text("utf-8")
PACK = re.search(r'^PACK = """\\\n(.*?)"""', VALID, re.DOTALL | re.MULTILINE)
assert PACK is not None
INVALID_PACK = PACK.group(1)  # two errors and a warning
VALID_PACK = INVALID_PACK.replace("mian", "main").replace("darft", "done")
VALID_PACK = VALID_PACK.replace("submit", "Submit")


def test_the_hook_is_declared_for_packs() -> None:
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text("utf-8"))
    assert hook["id"] == "ppconf-validate"
    # File names come after `--`: none is read as an option.
    assert hook["entry"] == "ppconf validate --"
    assert hook["language"] == "python"
    files = re.compile(hook["files"])
    for path in ("packs/a.yaml", "src/packs/b.json", "promptpacks/c.yml", "x/support.pack.yaml"):
        assert files.search(path), path
    for path in ("action.yml", ".github/workflows/ci.yml", "packs.yaml", "docs/packs.md"):
        assert not files.search(path), path


@pytest.mark.skipif(not (ROOT / ".git").exists(), reason="not a git checkout: try-repo needs one")
def test_try_repo_validates_the_packs_of_a_repository(tmp_path: Path) -> None:
    assert shutil.which("git"), "git is needed"
    repo = tmp_path / "repo"
    (repo / "packs").mkdir(parents=True)
    (repo / "packs" / "good.yaml").write_text(VALID_PACK, encoding="utf-8")
    (repo / "packs" / "bad.yaml").write_text(INVALID_PACK, encoding="utf-8")
    (repo / "notes.yaml").write_text(INVALID_PACK, encoding="utf-8")  # not a pack by its name
    # Packs named like options are validated as packs.
    (repo / "-x.pack.yaml").write_text(INVALID_PACK, encoding="utf-8")
    (repo / "--stdin-filename=x.pack.yaml").write_text(INVALID_PACK, encoding="utf-8")
    git = ["git", "-c", "init.defaultBranch=main"]
    subprocess.run([*git, "init", "-q"], cwd=repo, check=True)
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "cache"), "NO_COLOR": "1"}
    command = [sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), "ppconf-validate"]
    result = subprocess.run(
        [*command, "--all-files", "--verbose", "--color", "never"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    assert re.search(r"^ppconf validate\.+Failed$", output, re.MULTILINE), output
    assert "packs/bad.yaml:18:20: error [prompt-task-unknown] " in output
    assert "packs/bad.yaml: invalid (2 errors, 1 warning)" in output
    assert "packs/good.yaml: valid (0 errors, 0 warnings)" in output
    assert "notes.yaml" not in output
    for name in ("-x.pack.yaml", "--stdin-filename=x.pack.yaml"):
        assert f"{name}:18:20: error [prompt-task-unknown] " in output, name
        assert f"{name}: invalid (2 errors, 1 warning)" in output, name
