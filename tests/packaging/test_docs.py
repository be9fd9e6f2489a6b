"""The README's pre-commit and GitHub Actions snippets are what the issue promises (five lines,
ten lines) and name only what the hook and the action have."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

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
