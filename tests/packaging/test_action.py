"""The GitHub Action (``action.yml``), without GitHub: its steps run as a runner runs a composite
action's ``bash`` steps (``bash --noprofile --norc -eo pipefail``), with the inputs evaluated
into their ``env:``, ``GITHUB_STEP_SUMMARY`` and ``GITHUB_OUTPUT`` set to files, and the step
outputs read back from them. The install step installs this checkout into a virtual
environment once; the run step then runs in both modes."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
ACTION: dict[str, Any] = yaml.safe_load((ROOT / "action.yml").read_text("utf-8"))
STEPS = {step["id"]: step for step in ACTION["runs"]["steps"]}
INSTALL_TIMEOUT = 600  # ppconf and its dependencies come from PyPI: a busy machine is slow
RUN_TIMEOUT = 300
_EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
SHELL = ["bash", "--noprofile", "--norc", "-eo", "pipefail"]


@dataclass
class Step:
    """What one step did: its exit status, output, and the files it wrote."""

    status: int
    stdout: str
    stderr: str
    outputs: dict[str, str]
    summary: str


class Runner:
    """A composite action's steps, run in order as a runner runs them."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.temp = tmp / "runner-temp"
        self.workspace = tmp / "workspace"
        self.temp.mkdir()
        self.workspace.mkdir()
        self.outputs: dict[str, dict[str, str]] = {}
        self.count = 0

    def evaluate(self, text: str, inputs: Mapping[str, str]) -> str:
        """``${{ ... }}`` as the runner evaluates the expressions the action uses (any other
        expression fails the test: the simulation would not be faithful)."""

        def value(match: re.Match[str]) -> str:
            expression = match.group(1)
            if expression.startswith("inputs."):
                return inputs[expression.removeprefix("inputs.")]
            if expression == "github.action_path":
                return str(ROOT)
            if expression == "runner.temp":
                return str(self.temp)
            found = re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+)", expression)
            if found:
                return self.outputs.get(found.group(1), {}).get(found.group(2), "")
            raise AssertionError(f"action.yml uses an expression the test cannot run: {text}")

        return _EXPRESSION.sub(value, text)

    def run(self, step_id: str, given: Mapping[str, str], env: Mapping[str, str] = {}) -> Step:
        inputs = {name: str(spec.get("default", "")) for name, spec in ACTION["inputs"].items()}
        unknown = set(given) - set(inputs)
        assert not unknown, f"not inputs of the action: {unknown}"
        inputs.update(given)
        step = STEPS[step_id]
        self.count += 1
        output = self.tmp / f"output-{self.count}"
        summary = self.tmp / f"summary-{self.count}"
        output.touch()
        summary.touch()
        script = self.tmp / f"step-{self.count}.sh"
        script.write_text(step["run"], encoding="utf-8")
        environment = {
            **os.environ,
            **env,
            "GITHUB_OUTPUT": str(output),
            "GITHUB_STEP_SUMMARY": str(summary),
            "RUNNER_TEMP": str(self.temp),
            "GITHUB_WORKSPACE": str(self.workspace),
        }
        environment.pop("VIRTUAL_ENV", None)
        for name, text in step.get("env", {}).items():
            environment[name] = self.evaluate(str(text), inputs)
        result = subprocess.run(
            [*SHELL, str(script)],
            cwd=self.workspace,
            env=environment,
            capture_output=True,
            text=True,
            timeout=INSTALL_TIMEOUT if step_id == "install" else RUN_TIMEOUT,
            check=False,
        )
        outputs = dict(
            line.split("=", 1) for line in output.read_text("utf-8").splitlines() if line
        )
        self.outputs[step_id] = outputs
        return Step(
            result.returncode,
            result.stdout,
            result.stderr,
            outputs,
            summary.read_text("utf-8"),
        )

    def action_outputs(self) -> dict[str, str]:
        return {name: self.evaluate(spec["value"], {}) for name, spec in ACTION["outputs"].items()}


def test_the_action_is_a_composite_of_bash_steps_without_expressions_in_scripts() -> None:
    assert ACTION["runs"]["using"] == "composite"
    assert list(STEPS) == ["install", "ppconf"]
    for step in STEPS.values():
        assert step["shell"] == "bash"
        # Inputs reach the scripts as environment variables, never spliced into their text.
        assert "${{" not in step["run"], step["id"]
    for name in ("adapter", "spec-version", "require-level", "mode", "packs", "report-dir"):
        assert name in ACTION["inputs"]


@pytest.fixture(scope="module")
def runner(tmp_path_factory: pytest.TempPathFactory) -> Runner:
    """The action's install step, run once: this checkout installed in its own environment."""
    simulated = Runner(tmp_path_factory.mktemp("action"))
    step = simulated.run("install", {"python": sys.executable})
    assert step.status == 0, step.stdout + step.stderr
    assert step.stdout.startswith("ppconf ")
    assert Path(step.outputs["ppconf"]).is_file()
    return simulated


def test_run_mode_writes_the_summary_and_the_reports(runner: Runner) -> None:
    step = runner.run(
        "ppconf",
        {"adapter": "reference", "spec-version": "1.5", "require-level": "2", "report-dir": "out"},
    )
    assert step.status == 0, step.stdout + step.stderr
    out = runner.workspace / "out"
    for name in ("report.jsonl", "report.md", "report.html", "junit.xml"):
        assert (out / name).is_file(), name
    assert step.summary == (out / "report.md").read_text("utf-8")
    assert step.summary.startswith("#")
    summary = json.loads((out / "report.jsonl").read_text("utf-8").splitlines()[-1])
    assert step.outputs == {
        "report-dir": "out",
        "level": str(summary["levels"]["headline"]),
        "passed": "true",
    }
    assert summary["levels"]["spec_version"] == "1.5"
    assert runner.action_outputs()["level"] == step.outputs["level"]
    assert runner.action_outputs()["passed"] == "true"


def test_run_mode_fails_the_step_and_still_writes_the_summary(runner: Runner) -> None:
    fakes = str(ROOT / "tests" / "conformance")
    step = runner.run(
        "ppconf",
        {"adapter": "fakes:ValidatesOnly", "args": "--area workflow --level 2"},
        env={"PYTHONPATH": fakes},
    )
    assert step.status == 1, step.stdout + step.stderr
    assert "FAILED" in step.stdout
    assert step.outputs["passed"] == "false"
    assert step.summary == (runner.workspace / "ppconf-report" / "report.md").read_text("utf-8")


def test_run_mode_says_so_when_the_adapter_cannot_start(runner: Runner) -> None:
    step = runner.run("ppconf", {"adapter": "no_such_module:Adapter", "report-dir": "broken"})
    assert step.status == 2
    assert "could not start (exit status 2)" in step.summary
    assert step.outputs["passed"] == "false"
    assert step.outputs["level"] == ""


def test_validate_mode_annotates_and_writes_sarif(runner: Runner) -> None:
    packs = runner.workspace / "packs"
    packs.mkdir()
    bad = "id: x\nname: X\nversion: 1.0.0\nworkflow:\n  version: 1\n  entry: nowhere\n"
    (packs / "bad.yaml").write_text(bad, encoding="utf-8")
    (packs / "skipped.txt").write_text("not a pack", encoding="utf-8")
    step = runner.run("ppconf", {"mode": "validate", "packs": "packs", "report-dir": "scan"})
    assert step.status == 1, step.stderr
    lines = step.stdout.splitlines()
    assert lines
    assert all(line.startswith(("::error file=packs/bad.yaml", "::warning ")) for line in lines)
    sarif = json.loads((runner.workspace / "scan" / "ppconf.sarif").read_text("utf-8"))
    uris = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for r in sarif["runs"][0]["results"]
    }
    assert uris == {"packs/bad.yaml"}
    assert step.outputs["sarif"] == "scan/ppconf.sarif"
    assert step.outputs["passed"] == "false"
    assert "not every pack is valid" in step.summary


def test_validate_mode_takes_patterns(runner: Runner) -> None:
    flows = runner.workspace / "flows"
    flows.mkdir()
    (flows / "a.pack.yaml").write_text("- not a mapping\n", encoding="utf-8")
    (flows / "ci.yaml").write_text("- not a pack either\n", encoding="utf-8")
    step = runner.run("ppconf", {"mode": "validate", "packs": "flows", "pattern": "*.pack.yaml"})
    assert step.status == 2
    assert step.stdout.startswith("::error file=flows/a.pack.yaml,line=1,col=1,")
    assert "ci.yaml" not in step.stdout


@pytest.mark.parametrize(
    ("inputs", "message"),
    [
        ({"mode": "validate"}, "mode validate needs the packs input: files or directories"),
        ({"mode": "certify"}, "the mode input must be run or validate"),
    ],
)
def test_bad_inputs_are_an_annotated_error(
    runner: Runner, inputs: dict[str, str], message: str
) -> None:
    step = runner.run("ppconf", inputs)
    assert step.status == 2
    assert step.stdout == f"::error title=ppconf::{message}\n"
