"""``--ppconf-expected-failures``: the parts of listed cases that fail as listed are xfail, the
others report as they ran; a listed case all of whose parts pass fails the session."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

RunPytest = Callable[..., pytest.RunResult]
CaseText = Callable[..., str]
ADAPTER = "--ppconf-adapter=fakes:ValidatesOnly"


@pytest.fixture
def small(write_catalog: Callable[[Mapping[str, str]], Path], case_text: CaseText) -> Path:
    """Under ValidatesOnly: ``load`` passes, ``run`` fails, ``mixed`` passes one part of two."""
    mixed = case_text(
        "workflow.t.mixed",
        level=1,
        pack_id="mixed",
        body="load: true\n" + ("scenarios:\n  - name: submit\n    steps:\n      - event: Submit\n"),
    )
    return write_catalog(
        {
            "workflow/load.yaml": case_text("workflow.t.load", level=0, body="load: true\n"),
            "workflow/run.yaml": case_text("workflow.t.run", pack_id="run"),
            "workflow/mixed.yaml": mixed,
        }
    )


def listed(path: Path, text: str) -> str:
    target = path / "expected.yaml"
    target.write_text(text, "utf-8")
    return f"--ppconf-expected-failures={target}"


def test_listed_failures_are_xfail(small: Path, tmp_path: Path, run_pytest: RunPytest) -> None:
    option = listed(tmp_path, "workflow.t.run: sessions are not implemented\n")
    result = run_pytest(
        ADAPTER,
        f"--ppconf-catalog={small}",
        option,
        "-rx",
        "--ppconf-area=workflow",
        "-k",
        "not mixed",
    )
    result.assert_outcomes(passed=1, xfailed=1)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        ["XFAIL *workflow.t.run::submit - expected failure: sessions are not implemented"]
    )
    assert "expected failures that pass" not in result.stdout.str()


def test_the_levels_still_count_them_as_not_passed(
    small: Path, tmp_path: Path, run_pytest: RunPytest, level_table: Callable[..., dict[str, str]]
) -> None:
    option = listed(tmp_path, "workflow.t.run: no sessions\nworkflow.t.mixed: no sessions\n")
    result = run_pytest(ADAPTER, f"--ppconf-catalog={small}", option, "--ppconf-require-level=1")
    assert level_table(result.outlines)["workflow"] == "0"
    result.stdout.fnmatch_lines(["required level 1: NOT met (headline 0)"])
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_a_listed_case_that_passes_fails_the_session(
    small: Path, tmp_path: Path, run_pytest: RunPytest
) -> None:
    option = listed(tmp_path, "workflow.t.run: no sessions\nworkflow.t.load: thought broken\n")
    result = run_pytest(ADAPTER, f"--ppconf-catalog={small}", option, "-k", "not mixed")
    result.assert_outcomes(passed=1, xfailed=1)
    result.stdout.fnmatch_lines(
        ["FAILED: expected failures that did not fail as listed (update the file): workflow.t.load"]
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_a_listed_case_with_a_part_still_failing_is_no_surprise(
    small: Path, tmp_path: Path, run_pytest: RunPytest, pytester: pytest.Pytester
) -> None:
    """Strictness is per case: the passing ``load`` part of ``mixed`` passes and is fine, even
    where the project makes xfail strict (as ppconf's own pyproject does)."""
    pytester.makeini("[pytest]\nxfail_strict = true\n")
    option = listed(tmp_path, "workflow.t.mixed: no sessions\n")
    result = run_pytest(ADAPTER, f"--ppconf-catalog={small}", option, "-k", "mixed", "-rx")
    result.assert_outcomes(passed=1, xfailed=1)
    result.stdout.fnmatch_lines(["XFAIL *workflow.t.mixed::submit - expected failure: no sessions"])
    assert "did not fail as listed" not in result.stdout.str()
    assert result.ret == pytest.ExitCode.OK


def test_an_unlisted_failure_still_fails(
    small: Path, tmp_path: Path, run_pytest: RunPytest
) -> None:
    option = listed(tmp_path, "workflow.t.mixed: no sessions\n")
    result = run_pytest(ADAPTER, f"--ppconf-catalog={small}", option)
    result.assert_outcomes(passed=2, failed=1, xfailed=1)  # load, mixed's load; run; mixed's run
    result.stdout.fnmatch_lines(
        [
            "FAILED: 1 case(s) failed in the claimed areas, up to the claimed levels (loops 2, "
            "workflow 2) and are not in the expected failures"
        ]
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED


@pytest.mark.parametrize(
    "bad",  # (file text, line of the error, words of the message)
    [
        (
            "workflow.t.run: fine\nworkflow.t.typo: x\n",
            2,
            "expected failure 'workflow.t.typo' is not a case of the catalog",
        ),
        ("workflow.t.run:\n", 1, "expected failure 'workflow.t.run' has no reason"),
        ("[workflow.t.run]\n", 1, "an expected-failures file is a mapping of case id to reason"),
    ],
)
def test_a_bad_file_is_a_usage_error(
    small: Path, tmp_path: Path, run_pytest: RunPytest, bad: tuple[str, int, str]
) -> None:
    text, line, words = bad
    option = listed(tmp_path, text)
    result = run_pytest(ADAPTER, f"--ppconf-catalog={small}", option)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: ppconf: {tmp_path / 'expected.yaml'}:{line}:*{words}*"])


def test_a_file_needs_an_adapter(tmp_path: Path, run_pytest: RunPytest) -> None:
    result = run_pytest(listed(tmp_path, "workflow.t.run: x\n"))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: ppconf: --ppconf-expected-failures needs --ppconf-adapter"]
    )
