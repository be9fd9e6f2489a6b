"""The GitHub Action (``action.yml``), without GitHub: its steps run as a runner runs a composite
action's ``bash`` steps (``bash --noprofile --norc -eo pipefail``), with the inputs evaluated
into their ``env:``, ``GITHUB_STEP_SUMMARY`` and ``GITHUB_OUTPUT`` set to files, and the step
outputs read back from them. The actions it uses (``actions/setup-python``, ``actions/cache``)
are stood in for: setup-python's outputs name this Python, and the cache restores nothing. The
install step installs this checkout into a virtual environment once; the run step then runs in
both modes."""

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
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[2]
ACTION: dict[str, Any] = yaml.safe_load((ROOT / "action.yml").read_text("utf-8"))
PYPROJECT = (ROOT / "pyproject.toml").read_text("utf-8")
STEPS = {step["id"]: step for step in ACTION["runs"]["steps"]}
INSTALL_TIMEOUT = 600  # ppconf and its dependencies come from PyPI: a busy machine is slow
RUN_TIMEOUT = 300
_EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
SHELL = ["bash", "--noprofile", "--norc", "-eo", "pipefail"]
PINNED = re.compile(r"[\w-]+/[\w-]+@[0-9a-f]{40}")
CONSTRAINTS = ROOT / "action" / "constraints.txt"


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
            if expression == "runner.os":
                return "Linux"
            found = re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+)", expression)
            if found:
                return self.outputs.get(found.group(1), {}).get(found.group(2), "")
            raise AssertionError(f"action.yml uses an expression the test cannot run: {text}")

        return _EXPRESSION.sub(value, text)

    def stand_in(self, step_id: str, outputs: Mapping[str, str]) -> None:
        """A ``uses:`` step, done: its ``with:`` evaluates, and it gives these outputs."""
        step = STEPS[step_id]
        for text in step.get("with", {}).values():
            self.evaluate(str(text), _inputs({}))
        self.outputs[step_id] = dict(outputs)

    def run(self, step_id: str, given: Mapping[str, str], env: Mapping[str, str] = {}) -> Step:
        inputs = _inputs(given)
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

    def setup(self, home: Path) -> Step:
        """The steps before the install: the inputs checked, Python set up, the cache."""
        checked = self.run("inputs", {}, env={"HOME": str(home)})
        assert checked.status == 0, checked.stdout + checked.stderr
        version = ".".join(str(n) for n in sys.version_info[:3])
        self.stand_in("python", {"python-path": sys.executable, "python-version": version})
        self.stand_in("pip-cache", {"cache-hit": "false"})
        return checked

    def action_outputs(self) -> dict[str, str]:
        return {name: self.evaluate(spec["value"], {}) for name, spec in ACTION["outputs"].items()}


def _inputs(given: Mapping[str, str]) -> dict[str, str]:
    """The action's inputs: its defaults, and the given ones (which must be inputs)."""
    inputs = {name: str(spec.get("default", "")) for name, spec in ACTION["inputs"].items()}
    unknown = set(given) - set(inputs)
    assert not unknown, f"not inputs of the action: {unknown}"
    inputs.update(given)
    return inputs


def test_the_action_is_a_composite_of_bash_steps_without_expressions_in_scripts() -> None:
    assert ACTION["runs"]["using"] == "composite"
    assert list(STEPS) == ["inputs", "python", "pip-cache", "install", "ppconf"]
    for step in STEPS.values():
        if "uses" in step:
            continue
        assert step["shell"] == "bash"
        # Inputs reach the scripts as environment variables, never spliced into their text.
        assert "${{" not in step["run"], step["id"]
    for name in ("adapter", "spec-version", "require-level", "mode", "packs", "report-dir"):
        assert name in ACTION["inputs"]
    # Every input is checked before anything uses it.
    assert {f"${{{{ inputs.{name} }}}}" for name in ACTION["inputs"]} <= set(
        STEPS["inputs"]["env"].values()
    )


def test_the_actions_it_uses_are_pinned_by_commit_and_python_is_supported() -> None:
    used = [step["uses"] for step in STEPS.values() if "uses" in step]
    assert [u.split("@")[0] for u in used] == ["actions/setup-python", "actions/cache"]
    for uses in used:
        assert PINNED.fullmatch(uses), f"{uses}: pin a commit, not a tag that can move"
    python = STEPS["python"]["with"]
    assert python["python-version"] == "${{ inputs.python-version }}"
    # The job's PATH and Python stay the caller's.
    assert python["update-environment"] is False
    default = tuple(int(n) for n in ACTION["inputs"]["python-version"]["default"].split("."))
    requires = re.search(r'requires-python = ">=(\d+)\.(\d+)"', PYPROJECT)
    assert requires is not None
    assert default >= (int(requires.group(1)), int(requires.group(2)))
    # The install step takes the Python setup-python installed, and the cached pip folder.
    install = STEPS["install"]["env"]
    assert install["PPCONF_PYTHON"] == "${{ steps.python.outputs.python-path }}"
    cache = STEPS["pip-cache"]["with"]
    assert install["PIP_CACHE_DIR"] == cache["path"]
    assert "${{ steps.inputs.outputs.pins }}" in cache["key"]
    assert "${{ steps.python.outputs.python-version }}" in cache["key"]


def _pins() -> dict[str, str]:
    pins = {}
    for line in CONSTRAINTS.read_text("utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            name, version = line.split("==")
            pins[_canonical(name)] = version
    return pins


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def test_the_pins_satisfy_the_dependencies() -> None:
    pins = _pins()
    dependencies = re.search(r"^dependencies = \[(.*?)\]", PYPROJECT, re.DOTALL | re.MULTILINE)
    assert dependencies is not None
    for text in re.findall(r'"([^"]+)"', dependencies.group(1)):
        requirement = Requirement(text)
        name = _canonical(requirement.name)
        assert name in pins, f"{name} is not pinned in {CONSTRAINTS.name}"
        assert requirement.specifier.contains(pins[name]), f"{name}=={pins[name]}: {text}"


@pytest.fixture(scope="module")
def runner(tmp_path_factory: pytest.TempPathFactory) -> Runner:
    """The action's install step, run once: this checkout installed in its own environment."""
    simulated = Runner(tmp_path_factory.mktemp("action"))
    simulated.setup(simulated.tmp / "home")
    step = simulated.run("install", {})
    assert step.status == 0, step.stdout + step.stderr
    assert step.stdout.startswith("ppconf ")
    assert Path(step.outputs["ppconf"]).is_file()
    return simulated


def test_the_install_is_pinned_and_cached(runner: Runner) -> None:
    python = runner.outputs["install"]["python"]
    frozen = subprocess.run(
        [python, "-m", "pip", "freeze", "--exclude", "ppconf"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    pairs = (line.split("==") for line in frozen.splitlines() if "==" in line)
    installed = {_canonical(name): version for name, version in pairs}
    assert installed == _pins()
    # pip keeps what it downloads in the folder actions/cache saves (whether it downloads
    # anything depends on the machine's index: a local one leaves nothing to keep).
    folder = "${{ steps.inputs.outputs.pip-cache }}"
    assert STEPS["install"]["env"]["PIP_CACHE_DIR"] == folder
    assert STEPS["pip-cache"]["with"]["path"] == folder
    assert runner.outputs["inputs"]["pip-cache"]


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
        "report": "out/report.jsonl",
        "level": str(summary["levels"]["headline"]),
        "verdict": "passed",
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
    assert step.outputs["verdict"] == "failed"
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


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("report-dir", "rd\nlevel=3"),
        ("adapter", "reference\r\npassed=true"),
        ("args", "--strict\x1b[2J"),
        ("packs", "packs\n::error::x"),
        ("install", "-e .\nlevel=3"),
    ],
)
def test_an_input_with_a_line_break_or_control_character_is_refused(
    tmp_path: Path, name: str, value: str
) -> None:
    simulated = Runner(tmp_path)
    step = simulated.run("inputs", {name: value}, env={"HOME": str(tmp_path)})
    assert step.status == 2
    assert step.outputs == {}
    message = (
        f"the {name} input holds a line break or a control character: "
        "give it on one line (separate several values with spaces)"
    )
    assert step.stdout == f"::error title=ppconf::{message}\n"


def test_inputs_starting_with_a_dash_stay_values(runner: Runner) -> None:
    step = runner.run("ppconf", {"adapter": "-x", "report-dir": "-rd"})
    assert step.status == 2
    assert step.outputs["report-dir"] == "./-rd"
    assert (runner.workspace / "-rd").is_dir()
    # The adapter '-x' was looked for as an adapter, not read as an option.
    assert "-x" in step.stderr
    assert "expected one argument" not in step.stderr
    (runner.workspace / "-x.pack.yaml").write_text("- not a mapping\n", encoding="utf-8")
    step = runner.run("ppconf", {"mode": "validate", "packs": "-x.pack.yaml", "report-dir": "x"})
    assert step.status == 2
    assert step.stdout.startswith("::error file=-x.pack.yaml,line=1,col=1,")


OUTPUTS = ROOT / "action" / "outputs.py"


def _outputs(report: Path, *more: str) -> str:
    result = subprocess.run(
        [sys.executable, str(OUTPUTS), str(report), *more],
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    return result.stdout


SUMMARY = {"type": "summary", "levels": {"headline": 2}, "verdict": {"status": "passed"}}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (json.dumps(SUMMARY), "level=2\nverdict=passed\n"),
        ('{"type": "run"}\n' + json.dumps(SUMMARY) + "\n\n", "level=2\nverdict=passed\n"),
        (json.dumps({**SUMMARY, "levels": {"headline": None}}), "level=\nverdict=passed\n"),
        # Whatever the report holds, no value but a known one reaches $GITHUB_OUTPUT.
        (
            json.dumps({**SUMMARY, "levels": {"headline": "3\nverdict=passed"}}),
            "level=\nverdict=passed\n",
        ),
        (json.dumps({**SUMMARY, "verdict": {"status": "passed\nlevel=3"}}), "level=2\nverdict=\n"),
        (json.dumps({**SUMMARY, "levels": {"headline": True}}), "level=\nverdict=passed\n"),
        (json.dumps({**SUMMARY, "levels": {"headline": 99}}), "level=\nverdict=passed\n"),
        (json.dumps({**SUMMARY, "levels": [], "verdict": "passed"}), "level=\nverdict=\n"),
        ("", "level=\nverdict=\n"),
        ("not json\n", "level=\nverdict=\n"),
        ('{"type": "summary", "levels": ', "level=\nverdict=\n"),
        ("[" * 100_000 + "]" * 100_000, "level=\nverdict=\n"),
        ("\udcff\x00", "level=\nverdict=\n"),
    ],
)
def test_the_outputs_reader_never_throws_and_writes_only_known_values(
    tmp_path: Path, text: str, expected: str
) -> None:
    report = tmp_path / "report.jsonl"
    report.write_bytes(text.encode("utf-8", "surrogateescape"))
    assert _outputs(report) == expected


def test_the_outputs_reader_summarises_a_report_without_a_summary_line(
    runner: Runner, tmp_path: Path
) -> None:
    step = runner.run("ppconf", {"args": "--area workflow --level 1", "report-dir": "whole"})
    assert step.status == 0, step.stdout + step.stderr
    whole = (runner.workspace / "whole" / "report.jsonl").read_text("utf-8").splitlines()
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join(whole[:-1]) + "\n", encoding="utf-8")
    ppconf = runner.outputs["install"]["ppconf"]
    assert _outputs(cut, ppconf).startswith("level=")
    assert _outputs(cut, ppconf).endswith("verdict=incomplete\n")
    assert _outputs(cut) == "level=\nverdict=\n"
    assert _outputs(tmp_path / "missing.jsonl", ppconf) == "level=\nverdict=\n"
