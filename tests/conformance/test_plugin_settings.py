"""The plugin's settings in ``pytest.ini`` and ``pyproject.toml`` (``ppconf_adapter = ...``):
read as the options are, paths relative to the settings file, the command line winning, and a
bad value a usage error naming the line and the file."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

RunPytest = Callable[..., pytest.RunResult]


@pytest.fixture
def catalog(pytester: pytest.Pytester, case_text: Callable[..., str]) -> Path:
    """``cat/``: a workflow load case and a loops scenario case, beside the settings file."""
    root = pytester.path / "cat"
    for name, text in {
        "workflow/a.yaml": case_text("workflow.mine.a", level=0, body="load: true\n"),
        "loops/b.yaml": case_text("loops.mine.b", level=1),
    }.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def collected(result: pytest.RunResult) -> set[str]:
    return {line.removeprefix("::") for line in result.outlines if "ppconf::" in line}


@pytest.mark.usefixtures("catalog")
def test_pytest_ini_settings_run_the_catalog(
    pytester: pytest.Pytester, run_pytest: RunPytest, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makeini(
        """
        [pytest]
        ppconf_adapter = reference
        ppconf_catalog = cat
        ppconf_report =
            json cat/run.jsonl
        """
    )
    monkeypatch.chdir(pytester.mkdir("elsewhere"))  # paths are the ini file's, not the cwd's
    result = run_pytest()
    result.assert_outcomes(passed=2)
    report = pytester.path / "cat" / "run.jsonl"  # relative to the ini file
    assert json.loads(report.read_text("utf-8").splitlines()[-1])["type"] == "summary"


@pytest.mark.usefixtures("catalog")
def test_pyproject_settings_and_a_list(pytester: pytest.Pytester, run_pytest: RunPytest) -> None:
    pytester.makepyprojecttoml(
        """
        [tool.pytest.ini_options]
        ppconf_adapter = "reference"
        ppconf_catalog = "cat"
        ppconf_area = ["loops"]
        ppconf_timeout = 7.5
        """
    )
    result = run_pytest("--collect-only", "-q")
    assert collected(result) == {"ppconf::loops.mine.b::submit"}


@pytest.mark.usefixtures("catalog", "fakes_importable")
def test_the_command_line_wins(pytester: pytest.Pytester, run_pytest: RunPytest) -> None:
    pytester.makeini(
        """
        [pytest]
        ppconf_adapter = fakes:ValidatesOnly
        ppconf_catalog = cat
        ppconf_area = workflow
        """
    )
    # The setting alone: ValidatesOnly, workflow only.
    assert collected(run_pytest("--collect-only", "-q")) == {"ppconf::workflow.mine.a::load"}
    failing = run_pytest("--ppconf-area=loops")
    failing.assert_outcomes(failed=1)
    # The options win, each on its own: the reference passes the loops case.
    passing = run_pytest("--ppconf-adapter=reference", "--ppconf-area=loops")
    passing.assert_outcomes(passed=1)


@pytest.mark.usefixtures("catalog")
@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("ppconf_require_level = high", "ppconf_require_level in *: 'high' is not a whole number"),
        ("ppconf_require_level = 7", "ppconf_require_level in *: 7 is not one of 0, 1, 2, 3"),
        ("ppconf_timeout = -1", "ppconf_timeout in *: -1 is not a number of seconds above 0 *"),
        ("ppconf_timeout = 1e10", "ppconf_timeout in *: 1e10 is not a number of seconds above *"),
        ("ppconf_repeat = 0", "ppconf_repeat in *: 0 is not from 1 to 1,000"),
        ("ppconf_validate_protocol = maybe", "ppconf_validate_protocol in *: 'maybe' is neither *"),
        ("ppconf_area = nowhere", "ppconf_area in *: 'nowhere' is not one of workflow, *"),
    ],
)
def test_a_bad_setting_is_a_usage_error_naming_it(
    pytester: pytest.Pytester, run_pytest: RunPytest, line: str, message: str
) -> None:
    pytester.makeini(f"[pytest]\nppconf_adapter = reference\nppconf_catalog = cat\n{line}\n")
    result = run_pytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: ppconf: {message}"])


def test_without_settings_the_plugin_stays_inert(
    pytester: pytest.Pytester, run_pytest: RunPytest
) -> None:
    pytester.makepyfile("def test_one():\n    assert True\n")
    result = run_pytest()
    result.assert_outcomes(passed=1)
    assert "ppconf::" not in result.stdout.str()
    assert "headline level" not in result.stdout.str()
