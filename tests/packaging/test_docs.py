"""The README's pre-commit and GitHub Actions snippets are what the issue promises (five lines,
ten lines) and name only what the hook and the action have."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text("utf-8")
ACTION = yaml.safe_load((ROOT / "action.yml").read_text("utf-8"))


def yaml_blocks(section: str) -> list[str]:
    """The ```yaml blocks of the README section headed ``section``."""
    start = README.index(f"### {section}\n")
    end = README.find("\n### ", start + 1)
    return re.findall(r"```yaml\n(.*?)```", README[start:end], re.DOTALL)


def test_the_pre_commit_snippet_is_five_lines_naming_the_hook() -> None:
    snippet = yaml_blocks("A pre-commit hook")[0]
    assert len(snippet.splitlines()) == 5
    (repo,) = yaml.safe_load(snippet)["repos"]
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text("utf-8"))
    assert [h["id"] for h in repo["hooks"]] == [hook["id"]]
    assert set(repo) == {"repo", "rev", "hooks"}


def _our_steps(workflow: Any) -> list[dict[str, Any]]:
    steps = workflow if isinstance(workflow, list) else workflow["jobs"]["conformance"]["steps"]
    return [s for s in steps if "/ppconf@" in s.get("uses", "")]


def test_the_workflow_is_ten_lines_and_uses_only_the_actions_inputs() -> None:
    simple, validate = yaml_blocks("A GitHub Action")
    lines = simple.splitlines()
    assert "upload-artifact" in lines[-3]
    assert len(lines) - 3 <= 10  # at most ten for the run, three more to keep the reports
    workflow = yaml.safe_load(simple)
    assert workflow[True] == ["push", "pull_request"]  # YAML 1.1 reads the key `on` as true
    steps = [*_our_steps(workflow), *_our_steps(yaml.safe_load(validate))]
    assert len(steps) == 2
    for step in steps:
        assert set(step["with"]) <= set(ACTION["inputs"]), step["with"]
    upload = workflow["jobs"]["conformance"]["steps"][-1]
    assert upload["with"]["path"] == ACTION["inputs"]["report-dir"]["default"]
    assert "sarif" in ACTION["outputs"]


def _resolves(ref: str) -> bool:
    """Whether ``ref`` names a commit of this repository (a branch, a tag or a commit)."""
    for name in (ref, f"origin/{ref}"):
        found = subprocess.run(
            ["git", "rev-parse", "--verify", "--quiet", f"{name}^{{commit}}"],
            cwd=ROOT,
            capture_output=True,
            timeout=60,
            check=False,
        )
        if found.returncode == 0:
            return True
    return False


@pytest.mark.skipif(not (ROOT / ".git").exists(), reason="not a git checkout: no refs to resolve")
def test_every_snippet_names_a_reference_this_repository_has() -> None:
    refs = []
    for section in ("A pre-commit hook", "A GitHub Action"):
        for block in yaml_blocks(section):
            refs += re.findall(r"^\s+rev: (\S+)$", block, re.MULTILINE)
            refs += re.findall(r"uses: OWNER/ppconf@(\S+)$", block, re.MULTILINE)
    assert len(refs) == 3
    for ref in refs:
        assert _resolves(ref), f"{ref}: not a branch, tag or commit of this repository"
    assert not _resolves("v0.0.0-no-such-tag")


def test_the_long_description_has_no_relative_links() -> None:
    """The README is the package's page on PyPI, where a link into the repository breaks: paths
    are named as text (they are in the checkout and the sdist), and links are absolute."""
    links = re.findall(r"\]\(([^)]*)\)|<(?:a|img)\s[^>]*(?:href|src)=\"([^\"]*)\"", README)
    targets = [target for group in links for target in group if target]
    relative = [t for t in targets if not re.match(r"https://|#", t)]
    assert targets
    assert relative == []
