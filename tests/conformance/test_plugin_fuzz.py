"""``--ppconf-fuzz=N``: fuzzing items, one per area and xdist worker, instead of the catalog."""

from __future__ import annotations

from collections.abc import Callable

import pytest

pytest_plugins = ["pytester"]

RunPytest = Callable[..., pytest.RunResult]


def test_fuzz_items_replace_the_catalog(run_pytest: RunPytest) -> None:
    result = run_pytest("--ppconf-adapter=reference", "--ppconf-fuzz=20", "--collect-only", "-q")
    items = [line for line in result.outlines if "ppconf::" in line]
    assert [item.removeprefix("::") for item in items] == [
        "ppconf::fuzz-workflow-0",
        "ppconf::fuzz-loops-0",
        "ppconf::fuzz-compositions-0",
        "ppconf::fuzz-control-0",
        "ppconf::fuzz-state-agents-0",
        "ppconf::fuzz-extensions-0",
        "ppconf::fuzz-providers-0",
    ]


def test_a_divergence_fails_its_area(run_pytest_subprocess: RunPytest) -> None:
    # In a subprocess: Hypothesis does not survive being imported again by an in-process run.
    result = run_pytest_subprocess(
        "--ppconf-adapter=breaking:IgnoresUnknownEvents",
        "--ppconf-fuzz=300",
        "--ppconf-area=workflow",
        "--ppconf-area=compositions",
    )
    result.assert_outcomes(passed=1, failed=1)
    output = result.stdout.str()
    assert "divergence: seed " in output
    assert "DIVERGENCE in a workflow example" in output
    assert "ppconf support levels" not in output


def test_fuzz_workers_in_parallel(run_pytest_subprocess: RunPytest) -> None:
    result = run_pytest_subprocess(
        "--ppconf-adapter=reference", "--ppconf-fuzz=15", "--ppconf-area=loops", "-n", "2"
    )
    result.assert_outcomes(passed=2)


def test_the_option_needs_an_adapter_and_a_count(run_pytest: RunPytest) -> None:
    alone = run_pytest("--ppconf-fuzz=5")
    assert alone.ret == pytest.ExitCode.USAGE_ERROR
    assert "--ppconf-fuzz needs --ppconf-adapter" in alone.stderr.str()
    zero = run_pytest("--ppconf-adapter=reference", "--ppconf-fuzz=0")
    assert zero.ret == pytest.ExitCode.USAGE_ERROR
    assert "argument --ppconf-fuzz: 0 is not from 1 to 10,000,000" in zero.stderr.str()
    huge = run_pytest("--ppconf-adapter=reference", f"--ppconf-fuzz={10**12}")
    assert huge.ret == pytest.ExitCode.USAGE_ERROR
    assert "argument --ppconf-fuzz: 1000000000000 is not from 1 to 10,000,000" in (
        huge.stderr.str()
    )
