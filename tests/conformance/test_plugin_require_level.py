"""``--ppconf-require-level``: the session fails when the headline level is below N."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from conformance import Catalog

pytest_plugins = ["pytester"]

RunPytest = Callable[..., pytest.RunResult]


def test_met(run_pytest: RunPytest) -> None:
    result = run_pytest("--ppconf-adapter=reference", "--ppconf-require-level=3")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        ["headline level: 3 (over the claimed areas: *)", "required level 3: met (headline 3)"]
    )


def test_a_required_level_with_an_area_filter_is_a_usage_error(run_pytest: RunPytest) -> None:
    """A filtered selection certifies nothing, so it cannot be asked to reach a level."""
    result = run_pytest(
        "--ppconf-adapter=reference",
        "--ppconf-area=workflow",
        "--ppconf-area=loops",
        "--ppconf-require-level=2",
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: ppconf: --ppconf-require-level judges the whole catalog of a spec version; "
            "drop --ppconf-area (a partial selection certifies nothing)"
        ]
    )


def test_not_met_fails_a_session_whose_items_all_pass(run_pytest: RunPytest) -> None:
    """Narrowed with -m, every item passes and workflow shows Level 2, but a partial selection
    does not meet a required level."""
    result = run_pytest(
        "--ppconf-adapter=reference", "-m", "ppconf_workflow", "--ppconf-require-level=2"
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert result.parseoutcomes().get("failed", 0) == 0
    assert result.parseoutcomes()["passed"] > 0
    result.stdout.fnmatch_lines(
        [
            "spec version 1.9; PARTIAL selection: *",
            "workflow *| 2 *",
            "required level 2: NOT met (headline 2)",
            "FAILED: the required level 2 cannot be judged on a partial selection; run the whole "
            "catalog of the spec version",
        ]
    )


def test_not_given_nothing_is_said(run_pytest: RunPytest, pytester: pytest.Pytester) -> None:
    result = run_pytest("--ppconf-adapter=reference", "--ppconf-area=loops")
    assert result.ret == pytest.ExitCode.OK
    assert not any(line.startswith("required level") for line in result.outlines)


def test_levels_of_cases_deselected_are_not_claimed(run_pytest: RunPytest) -> None:
    """Only Level 0 items run: the runtime has shown Level 0, nothing more."""
    result = run_pytest(
        "--ppconf-adapter=fakes:IgnoresWorkflows",
        "-m",
        "ppconf_level_0",
        "--ppconf-require-level=1",
    )
    assert result.parseoutcomes().get("failed", 0) == 0
    result.stdout.fnmatch_lines(["required level 1: NOT met (headline 0)"])
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_a_level_met_does_not_excuse_the_claims(run_pytest: RunPytest) -> None:
    """A required level adds to the claims, as for ``ppconf run`` (R14): ValidatesOnly reaches
    the required Level 0, yet the session fails on the claimed areas it does not reach."""
    result = run_pytest("--ppconf-adapter=fakes:ValidatesOnly", "--ppconf-require-level=0")
    result.stdout.fnmatch_lines(
        [
            "required level 0: met (headline 0)",
            "FAILED: * case(s) failed in the claimed areas, up to the claimed levels (loops 2, "
            "workflow 2)",
        ]
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_a_failing_test_of_ones_own_still_fails_a_session_whose_level_is_met(
    run_pytest: RunPytest, pytester: pytest.Pytester
) -> None:
    pytester.makepyfile(test_own="def test_one():\n    assert False\n")
    result = run_pytest("--ppconf-adapter=fakes:ValidatesOnly", "--ppconf-require-level=0")
    result.stdout.fnmatch_lines(["required level 0: met (headline 0)"])
    assert "FAILED test_own.py::test_one" in result.stdout.str()
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_no_ppconf_item_run_is_not_a_level(
    run_pytest: RunPytest, pytester: pytest.Pytester
) -> None:
    pytester.makepyfile(test_own="def test_one():\n    pass\n")
    result = run_pytest("--ppconf-adapter=reference", "-k", "test_one", "--ppconf-require-level=0")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        [
            "spec version 1.9; PARTIAL selection: *",
            "headline level: not assessed (over the claimed areas: *)",
            "required level 0: NOT met (headline not assessed)",
        ]
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED


@pytest.mark.parametrize("level", ["4", "-1", "two"])
def test_an_impossible_level_is_a_usage_error(run_pytest: RunPytest, level: str) -> None:
    result = run_pytest("--ppconf-adapter=reference", f"--ppconf-require-level={level}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--ppconf-require-level*"])


def test_a_level_needs_an_adapter(run_pytest: RunPytest) -> None:
    result = run_pytest("--ppconf-require-level=1")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: ppconf: --ppconf-require-level needs --ppconf-adapter"])


def test_the_catalog_has_level_0_items(catalog: Catalog) -> None:
    """What test_levels_of_cases_deselected_are_not_claimed relies on."""
    assert any(c.level == 0 and c.requirement == "MUST" for c in catalog.cases)
