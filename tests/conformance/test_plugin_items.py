"""``--ppconf-items case|area``: the parts of a whole case, or of a whole area, as one item; the
session judged part by part exactly as with an item per part (the default)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

RunPytest = Callable[..., pytest.RunResult]
CaseText = Callable[..., str]
LevelTable = Callable[..., dict[str, str]]


@pytest.fixture
def small(write_catalog: Callable[[Mapping[str, str]], Path], case_text: CaseText) -> Path:
    """Under ValidatesOnly: ``load`` passes, ``run`` fails, ``mixed`` passes one part of two;
    ``loops.t.run`` fails too. Under the reference every part passes."""
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
            "loops/run.yaml": case_text("loops.t.run", level=1, pack_id="loop"),
        }
    )


def collected(result: pytest.RunResult) -> list[str]:
    return sorted(line.removeprefix("::") for line in result.outlines if "ppconf::" in line)


def test_items_of_a_case_and_of_an_area(small: Path, run_pytest: RunPytest) -> None:
    catalog = f"--ppconf-catalog={small}"
    cases = run_pytest("--ppconf-adapter=reference", catalog, "--ppconf-items=case", "--co", "-q")
    assert collected(cases) == [
        "ppconf::loops.t.run",
        "ppconf::workflow.t.load",
        "ppconf::workflow.t.mixed",
        "ppconf::workflow.t.run",
    ]
    areas = run_pytest("--ppconf-adapter=reference", catalog, "--ppconf-items=area", "--co", "-q")
    assert collected(areas) == ["ppconf::loops", "ppconf::workflow"]
    parts = run_pytest("--ppconf-adapter=reference", catalog, "--co", "-q")
    assert len(collected(parts)) == 5  # the default: one item per part
    run_pytest("--ppconf-adapter=reference", catalog, "--ppconf-items=area").assert_outcomes(
        passed=2
    )


@pytest.mark.parametrize("items", ["case", "area"])
def test_the_session_is_judged_part_by_part_as_with_part_items(
    small: Path, run_pytest: RunPytest, level_table: LevelTable, items: str
) -> None:
    catalog = f"--ppconf-catalog={small}"
    for adapter in ("reference", "fakes:ValidatesOnly"):
        by_part = run_pytest(f"--ppconf-adapter={adapter}", catalog)
        grouped = run_pytest(f"--ppconf-adapter={adapter}", catalog, f"--ppconf-items={items}")
        assert grouped.ret == by_part.ret
        assert level_table(grouped.outlines) == level_table(by_part.outlines)
    # The breaking runtime is told apart from the reference in either way of grouping.
    assert by_part.ret == pytest.ExitCode.TESTS_FAILED


def test_an_area_item_shows_each_part_that_did_not_pass(small: Path, run_pytest: RunPytest) -> None:
    result = run_pytest(
        "--ppconf-adapter=fakes:ValidatesOnly", f"--ppconf-catalog={small}", "--ppconf-items=area"
    )
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(
        [
            "*_ ppconf workflow _*",
            "failed: 2 of 4 parts did not pass",
            "  workflow.t.mixed [[]submit[]] failed: workflow/mixed.yaml:*: scenario 'submit'*",
            "    why: RFC *",
            "    rerun: ppconf run --adapter fakes:ValidatesOnly --id workflow.t.mixed",
            "*",
            "  workflow.t.run [[]submit[]] failed: workflow/run.yaml:*",
        ],
        consecutive=False,
    )
    assert "Traceback" not in result.stdout.str()


def test_case_items_keep_the_level_and_requirement_markers(
    small: Path, run_pytest: RunPytest
) -> None:
    result = run_pytest(
        "--ppconf-adapter=reference",
        f"--ppconf-catalog={small}",
        "--ppconf-items=case",
        "-m",
        "ppconf_level_0 and ppconf_must",
        "--co",
        "-q",
    )
    assert collected(result) == ["ppconf::workflow.t.load"]
    areas = run_pytest(
        "--ppconf-adapter=reference",
        f"--ppconf-catalog={small}",
        "--ppconf-items=area",
        "-m",
        "ppconf_loops",
        "--co",
        "-q",
    )
    assert collected(areas) == ["ppconf::loops"]


def test_a_skipped_part_skips_its_item_and_the_session_fails(
    small: Path, run_pytest: RunPytest
) -> None:
    result = run_pytest(
        "--ppconf-adapter=fakes:ValidatesOnlyNoSessions",
        f"--ppconf-catalog={small}",
        "--ppconf-items=case",
        "--ppconf-area=workflow",
        "-rs",
    )
    result.assert_outcomes(passed=1, skipped=2)
    result.stdout.fnmatch_lines(
        ["SKIPPED * 1 of 1 parts skipped, the first workflow.t.run [[]submit[]]: unsupported*"]
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # a skipped part does not pass


def test_an_expected_failure_in_a_case_item(
    small: Path, tmp_path: Path, run_pytest: RunPytest
) -> None:
    listed = tmp_path / "expected.yaml"
    listed.write_text("workflow.t.run: sessions are not implemented\n", "utf-8")
    result = run_pytest(
        "--ppconf-adapter=fakes:ValidatesOnly",
        f"--ppconf-catalog={small}",
        f"--ppconf-expected-failures={listed}",
        "--ppconf-items=case",
        "-k",
        "load or workflow.t.run",
        "-rx",
    )
    result.assert_outcomes(passed=1, xfailed=1)
    result.stdout.fnmatch_lines(
        ["XFAIL *workflow.t.run - expected failure: 1 of 1 parts: sessions are not implemented"]
    )


def test_area_items_under_xdist_bring_every_record_back(
    small: Path, tmp_path: Path, run_pytest_subprocess: RunPytest, level_table: LevelTable
) -> None:
    catalog = f"--ppconf-catalog={small}"
    serial = run_pytest_subprocess("--ppconf-adapter=fakes:ValidatesOnly", catalog)
    report = tmp_path / "spread.jsonl"
    spread = run_pytest_subprocess(
        "--ppconf-adapter=fakes:ValidatesOnly",
        catalog,
        "--ppconf-items=area",
        "-n",
        "2",
        "--ppconf-report",
        "json",
        str(report),
    )
    spread.assert_outcomes(failed=2)
    assert level_table(spread.outlines) == level_table(serial.outlines)
    assert spread.ret == serial.ret == pytest.ExitCode.TESTS_FAILED
    lines = [json.loads(line) for line in report.read_text("utf-8").splitlines()]
    records = sorted((line["case"], line["part"]) for line in lines if "case" in line)
    assert records == [
        ("loops.t.run", "submit"),
        ("workflow.t.load", "load"),
        ("workflow.t.mixed", "load"),
        ("workflow.t.mixed", "submit"),
        ("workflow.t.run", "submit"),
    ]


def test_a_bad_value_and_a_setting(
    small: Path, pytester: pytest.Pytester, run_pytest: RunPytest
) -> None:
    bad = run_pytest("--ppconf-adapter=reference", "--ppconf-items=file")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    bad.stderr.fnmatch_lines(["*--ppconf-items: invalid choice: 'file' (choose from *part*"])
    alone = run_pytest("--ppconf-items=area")
    assert alone.ret == pytest.ExitCode.USAGE_ERROR
    alone.stderr.fnmatch_lines(["ERROR: ppconf: --ppconf-items needs --ppconf-adapter"])
    fuzzing = run_pytest("--ppconf-adapter=reference", "--ppconf-fuzz=1", "--ppconf-items=area")
    assert fuzzing.ret == pytest.ExitCode.USAGE_ERROR
    fuzzing.stderr.fnmatch_lines(["ERROR: ppconf: --ppconf-items groups the catalog's parts*"])
    pytester.makeini(f"[pytest]\nppconf_adapter = reference\nppconf_catalog = {small}\n")
    set_in_file = run_pytest("-o", "ppconf_items=area", "--co", "-q")
    assert collected(set_in_file) == ["ppconf::loops", "ppconf::workflow"]
    wrong_in_file = run_pytest("-o", "ppconf_items=areas")
    assert wrong_in_file.ret == pytest.ExitCode.USAGE_ERROR
    wrong_in_file.stderr.fnmatch_lines(["ERROR: ppconf: ppconf_items in *: 'areas' is not one of*"])
