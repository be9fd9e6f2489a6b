"""``ppconf run``: filters, the printed table, exit statuses, reports, expected failures."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest

from conformance._cli import main

pytestmark = pytest.mark.usefixtures("fakes_importable")

LevelTable = Callable[..., dict[str, str]]
CaseText = Callable[..., str]

VALIDATION = "validation: {valid: true}\n"
LOAD = "load: true\n"


@pytest.fixture
def small(write_catalog: Callable[[Mapping[str, str]], Path], case_text: CaseText) -> Path:
    """Five cases: workflow Levels 0-2 (MUST), a workflow SHOULD and a loops MUST scenario.

    Under ``fakes:ValidatesOnly`` exactly the scenario cases fail.
    """
    return write_catalog(
        {
            "workflow/a-load.yaml": case_text("workflow.t.a-load", level=0, body=LOAD, pack_id="a"),
            "workflow/b-valid.yaml": case_text(
                "workflow.t.b-valid", level=1, body=VALIDATION, pack_id="b"
            ),
            "workflow/c-run.yaml": case_text("workflow.t.c-run", level=2, pack_id="c"),
            "workflow/d-advice.yaml": case_text(
                "workflow.t.d-advice", level=2, requirement="SHOULD", pack_id="d"
            ),
            "loops/e-run.yaml": case_text("loops.t.e-run", level=1, pack_id="e"),
        }
    )


def run(*args: str | Path) -> int:
    return main(["run", *map(str, args)])


UNASSESSED = {
    "control": "not assessed",
    "state-agents": "not assessed",
    "extensions": "not assessed",
    "providers": "not assessed",
}
"""The areas no case of the small catalog belongs to (besides compositions)."""


def counts(line: str) -> tuple[int, dict[str, int]]:
    """``(cases, {outcome: n})`` from the counts line, e.g.
    ``5 cases (2 passed, 3 failed) against validates-only``."""
    total, _, rest = line.partition(" cases (")
    inside = rest.split(") against ")[0]
    found = {}
    for item in inside.split(", "):
        number, outcome = item.split(" ")
        found[outcome] = int(number)
    return int(total), found


def counts_line(lines: list[str]) -> str:
    """The one counts line of a run's output (followed by the verdict and the time taken)."""
    found = [line for line in lines if re.fullmatch(r"\d+ cases \(.*\) against .*", line)]
    assert len(found) == 1, found
    return found[0]


def verdict_lines(lines: list[str]) -> list[str]:
    """The lines between the counts line and the closing ``ran in N s``."""
    assert re.fullmatch(r"ran in \d+\.\d\d s", lines[-1]), lines[-1]
    return lines[lines.index(counts_line(lines)) + 1 : -1]


# -- the reference, and what is printed ---------------------------------------------------------


def test_the_built_in_catalog_against_the_reference(
    capsys: pytest.CaptureFixture[str], level_table: LevelTable
) -> None:
    """The real thing: catalog loaded from disk, reference adapter, nothing patched, every
    check counted (``--strict``): the reference passes all of them."""
    assert run("--strict") == 0
    out = capsys.readouterr().out
    printed = level_table(out.splitlines())
    # Only the areas the reference implements; others are added to the catalog as they come.
    assert {k: printed[k] for k in ("workflow", "loops", "compositions", "headline")} == {
        "workflow": "2",
        "loops": "2",
        "compositions": "3",
        "headline": "3",
    }
    lines = out.splitlines()
    line = counts_line(lines)
    number, outcomes = counts(line)
    assert number > 0
    assert outcomes == {"passed": number}
    assert line.endswith(" against ppconf-reference")
    assert verdict_lines(lines) == ["PASSED: every check passes (strict)"]


def test_failures_are_printed_with_their_place(
    small: Path, capsys: pytest.CaptureFixture[str], level_table: LevelTable
) -> None:
    assert run("--catalog", small, "--adapter", "fakes:ValidatesOnly") == 1
    out = capsys.readouterr().out
    lines = out.splitlines()
    at = lines.index("FAILED workflow.t.c-run [submit] (workflow L2 MUST)")
    assert lines[at + 1].startswith("  workflow/c-run.yaml:")
    assert lines[at + 1].endswith(
        "scenario 'submit', step 1 (event Submit): rejected with unknown-event, expected acceptance"
    )
    assert "FAILED loops.t.e-run [submit] (loops L1 MUST)" in lines
    assert "FAILED workflow.t.d-advice [submit] (workflow L2 SHOULD)" in lines
    assert not any("a-load" in line or "b-valid" in line for line in lines)
    assert level_table(lines) == {
        "workflow": "1",
        "loops": "0",
        "compositions": "not assessed",
        **UNASSESSED,
        "headline": "0",
        "headline areas": "workflow, loops",  # what validates-only claims
    }
    assert "workflow: Level 2 needs 1 more MUST case(s) to pass: workflow.t.c-run" in lines
    assert "loops: Level 1 needs 1 more MUST case(s) to pass: loops.t.e-run" in lines
    assert "claim: claims workflow Level 2, measured 1" in lines
    assert counts(counts_line(lines)) == (5, {"passed": 2, "failed": 3})
    assert counts_line(lines).endswith(" against validates-only")
    # workflow.t.d-advice fails at SHOULD: a finding, not counted against the claims (R14).
    assert verdict_lines(lines) == [
        "FAILED: 2 case(s) failed in the claimed areas, up to the claimed levels (loops 2, "
        "workflow 2)"
    ]
    claimed = next(line for line in lines if line.startswith("workflow "))
    assert claimed.rstrip().endswith("| 2")  # claims 2, reaches 1


@pytest.mark.parametrize(
    ("filters", "shown"),  # shown: (cases run, part of the level table)
    [
        (["--area", "loops"], (1, {"workflow": "not assessed", "loops": "1"})),
        (["--level", "0", "--level", "1"], (3, {"workflow": "1", "loops": "1"})),
        (["--requirement", "SHOULD"], (1, {"workflow": "not assessed"})),
        (["--id", "workflow.t.*-run"], (1, {"workflow": "2", "loops": "not assessed"})),
        (["--id", "*.a-*", "--id", "*.e-*"], (2, {"workflow": "0", "loops": "1"})),
    ],
)
def test_filters(
    small: Path,
    capsys: pytest.CaptureFixture[str],
    level_table: LevelTable,
    filters: list[str],
    shown: tuple[int, dict[str, str]],
) -> None:
    number, table = shown
    assert run("--catalog", small, *filters) == 0
    lines = capsys.readouterr().out.splitlines()
    assert counts(counts_line(lines)) == (number, {"passed": number})
    assert verdict_lines(lines) == ["INCOMPLETE: a partial selection: its levels certify nothing"]
    assert lines[0] == (
        "spec version 1.9; PARTIAL selection: these levels describe only the cases run and "
        "certify nothing"
    )
    printed = level_table(lines)
    assert {k: printed[k] for k in table} == table


def test_no_matching_case_is_an_error(small: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run("--catalog", small, "--id", "nothing.*") == 2
    assert capsys.readouterr().err == (
        "ppconf: error: no case of spec version 1.9 matches the filters "
        "(`ppconf cases list` shows them)\n"
    )


# -- --require-level ----------------------------------------------------------------------------


def test_require_level(small: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The reference passes everything; loops has no Level 2 case here, so the headline is 1."""
    assert run("--catalog", small, "--require-level", "1") == 0
    assert "FAILED" not in capsys.readouterr().out
    assert run("--catalog", small, "--require-level", "2") == 1
    lines = capsys.readouterr().out.splitlines()
    assert verdict_lines(lines) == ["FAILED: headline level 1 is below the required 2"]


def test_a_required_level_adds_to_the_claims(
    small: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """ValidatesOnly reaches Level 0 overall (loops 0): a required 0 is met, yet the run still
    fails on the claims it does not reach (R14); a required 1 fails on the level as well."""
    assert run("--catalog", small, "--adapter", "fakes:ValidatesOnly", "--require-level", "0") == 1
    lines = capsys.readouterr().out.splitlines()
    assert verdict_lines(lines) == [
        "FAILED: 2 case(s) failed in the claimed areas, up to the claimed levels (loops 2, "
        "workflow 2)"
    ]
    assert run("--catalog", small, "--adapter", "fakes:ValidatesOnly", "--require-level", "1") == 1
    assert "FAILED: headline level 0 is below the required 1" in capsys.readouterr().out


@pytest.mark.usefixtures("cached_catalog")
def test_a_filtered_run_cannot_satisfy_a_required_level(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A filtered run certifies nothing, so a required level is refused before anything runs
    (the IgnoresWorkflows fake reaches Level 0 on the Level 0 cases alone)."""
    for filters in (["--level", "0"], ["--area", "workflow"], ["--id", "workflow.*"]):
        args = ["--adapter", "fakes:IgnoresWorkflows", *filters, "--require-level", "0"]
        assert run(*args) == 2
        captured = capsys.readouterr()
        assert captured.out == ""
        assert captured.err.startswith(
            "ppconf: error: --require-level judges the whole catalog of a spec version; "
            "a filtered run (--area, --level, --requirement, --id) certifies nothing."
        )
    assert run("--adapter", "fakes:IgnoresWorkflows", "--level", "0") == 0
    lines = capsys.readouterr().out.splitlines()
    # The table follows the parts that did not pass (control's Level 0 runs, skipped).
    assert any(line.startswith("spec version 1.9; PARTIAL selection") for line in lines)


@pytest.mark.parametrize("level", ["4", "-1", "two"])
def test_an_impossible_level_is_a_usage_error(
    level: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        run("--require-level", level)
    assert exited.value.code == 2
    assert "--require-level" in capsys.readouterr().err


# -- unusable input: exit 2 ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("fakes", "is not of the form module:Class"),
        (
            "no_such_module_anywhere:Adapter",
            "cannot import adapter module 'no_such_module_anywhere'",
        ),
        ("fakes:Missing", "module 'fakes' has no attribute 'Missing'"),
        ("fakes:NotAnAdapter", "does not implement the adapter interface"),
    ],
)
def test_a_bad_adapter_is_an_error(
    small: Path, capsys: pytest.CaptureFixture[str], spec: str, words: str
) -> None:
    assert run("--catalog", small, "--adapter", spec) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith("ppconf: error: ")
    assert words in captured.err
    assert captured.out == ""


def test_an_adapter_that_cannot_describe_itself(
    small: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run("--catalog", small, "--adapter", "fakes:BrokenCapabilities") == 2
    assert re.fullmatch(
        r"ppconf: error: the adapter failed to describe itself: "
        r"OSError: the runtime binary is missing at .*/fakes\.py:\d+\n",
        capsys.readouterr().err,
    )


def test_a_broken_catalog_names_the_file(small: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = small / "workflow" / "broken.yaml"
    broken.write_text("id: workflow.t.broken\n", "utf-8")
    assert run("--catalog", small) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"ppconf: error: catalog error: {broken}:1:1 at /: field /: ")
    assert "is a required property" in err


# -- reports ------------------------------------------------------------------------------------


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()]


def test_json_lines_report(small: Path, tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    status = run("--catalog", small, "--adapter", "fakes:ValidatesOnly", "--report", "json", path)
    assert status == 1
    lines = read_jsonl(path)
    assert [line["type"] for line in lines] == ["run", *["part"] * 5, "summary"]
    assert lines[0]["adapter"]["name"] == "validates-only"
    assert lines[0]["adapter"]["claims"] == {"workflow": 2, "loops": 2}
    assert lines[0]["selection"] == {
        "spec_version": "1.9",
        "partial": False,
        "area": [],
        "level": [],
        "requirement": [],
        "id": [],
    }
    assert [(line["case"], line["part"], line["outcome"]) for line in lines[1:6]] == [
        ("loops.t.e-run", "submit", "failed"),
        ("workflow.t.a-load", "load", "passed"),
        ("workflow.t.b-valid", "validation", "passed"),
        ("workflow.t.c-run", "submit", "failed"),
        ("workflow.t.d-advice", "submit", "failed"),
    ]
    assert lines[1]["checks"][0]["id"] == "scenario"
    assert lines[1]["checks"][0]["requirement"] == "MUST"
    assert lines[1]["checks"][0]["passed"] is False
    summary = lines[-1]
    assert summary["counts"] == {
        "passed": 2,
        "failed": 3,
        "errored": 0,
        "flaky": 0,
        "skipped": 0,
        "timeout": 0,
    }
    assert summary["levels"]["headline"] == 0
    assert summary["levels"]["headline_areas"] == ["workflow", "loops"]
    assert summary["verdict"]["passed"] is False
    # workflow.t.d-advice fails at SHOULD only: a finding, not a verdict (R14).
    assert summary["verdict"]["unexpected_failures"] == ["loops.t.e-run", "workflow.t.c-run"]
    assert summary["verdict"]["unexpected_passes"] == []


def test_an_interrupted_run_keeps_what_it_finished(
    small: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    jsonl, junit, md = tmp_path / "run.jsonl", tmp_path / "run.xml", tmp_path / "run.md"
    status = run(
        "--catalog",
        small,
        "--adapter",
        "fakes:InterruptedOnThirdCase",
        *("--report", "json", jsonl),
        *("--report", "junit", junit),
        *("--report", "md", md),
    )
    assert status == 130
    lines = read_jsonl(jsonl)
    assert [line["type"] for line in lines] == ["run", "part", "part"]
    assert [line["case"] for line in lines[1:]] == ["loops.t.e-run", "workflow.t.a-load"]
    assert all(line["outcome"] == "passed" for line in lines[1:])
    root = ElementTree.parse(junit).getroot()
    assert root.get("incomplete") == "true"
    assert len(list(root.iter("testcase"))) == 2
    assert "**The run did not finish; these are the results it has.**" in md.read_text("utf-8")
    captured = capsys.readouterr()
    assert captured.err == (
        "ppconf: stopped by SIGINT after 2 part(s); the report is unfinished (no summary)\n"
    )
    out = captured.out.splitlines()
    assert counts_line(out) == "2 cases (2 passed) against interrupted"
    assert "the run did not finish: these are the results it has" in out
    assert out[0].startswith("spec version 1.9; PARTIAL selection")


def test_junit_report_of_a_failing_run(small: Path, tmp_path: Path) -> None:
    path = tmp_path / "junit.xml"
    assert (
        run("--catalog", small, "--adapter", "fakes:ValidatesOnly", "--report", "junit", path) == 1
    )
    root = ElementTree.parse(path).getroot()
    assert root.get("incomplete") is None
    suites = {s.get("name"): s for s in root.iter("testsuite")}
    assert suites["workflow"].get("failures") == "2"
    assert suites["loops"].get("failures") == "1"
    failure = root.find(".//testcase[@classname='workflow.t.c-run']/failure")
    assert failure is not None
    assert "rejected with unknown-event, expected acceptance" in (failure.get("message") or "")


def test_markdown_report(small: Path, tmp_path: Path) -> None:
    path = tmp_path / "summary.md"
    assert run("--catalog", small, "--report", "md", path) == 0
    text = path.read_text("utf-8")
    assert "| area | level | top | MUST | SHOULD (advisory) | MAY | claimed |" in text
    assert "| workflow | 2 | 2 | 3/3 | 1/1 (100%) | 0/0 | 2 |" in text
    assert "| loops | 1 | 2 | 1/1 | 0/0 | 0/0 | 2 |" in text
    assert (
        "**headline level: 1 (over the claimed areas: workflow, loops, compositions, control, "
        "state-agents, extensions, providers)**"
    ) in text


def test_several_reports_at_once(small: Path, tmp_path: Path) -> None:
    paths = [tmp_path / "a.jsonl", tmp_path / "b.jsonl", tmp_path / "c.xml"]
    args = [*("--report", "json", paths[0]), *("--report", "json", paths[1])]
    assert run("--catalog", small, *args, "--report", "junit", paths[2]) == 0
    assert paths[0].read_text("utf-8") == paths[1].read_text("utf-8")
    assert paths[2].exists()


def test_an_unknown_report_format(
    small: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run("--catalog", small, "--report", "pdf", tmp_path / "x.pdf") == 2
    assert capsys.readouterr().err == (
        "ppconf: error: unknown report format 'pdf'; "
        "use one of json, text, md, junit, html, badge\n"
    )
    assert not (tmp_path / "x.pdf").exists()


def test_an_unwritable_report(
    small: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Refused before the run starts: nothing is lost at the end of a long run."""
    path = tmp_path / "missing" / "x.jsonl"
    assert run("--catalog", small, "--report", "json", path) == 2
    shown = capsys.readouterr()
    assert shown.out == ""
    assert shown.err == (
        f"ppconf: error: --report json {path}: the folder {path.parent} does not exist\n"
    )


# -- --timeout ----------------------------------------------------------------------------------


def test_timeout(
    write_catalog: Callable[[Mapping[str, str]], Path],
    case_text: CaseText,
    capsys: pytest.CaptureFixture[str],
) -> None:
    root = write_catalog(
        {
            "workflow/hang.yaml": case_text("workflow.t.hang", pack_id="unknown-event"),
            "workflow/then.yaml": case_text("workflow.t.then", pack_id="other"),
        }
    )
    assert run("--catalog", root, "--adapter", "fakes:Hangs", "--timeout", "0.5") == 1
    lines = capsys.readouterr().out.splitlines()
    at = lines.index("TIMEOUT workflow.t.hang [submit] (workflow L2 MUST)")
    assert lines[at + 1] == "  no answer within 0.5 s"
    assert counts(counts_line(lines)) == (2, {"passed": 1, "timeout": 1})


# -- --expected-failures ------------------------------------------------------------------------


def expected(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "expected.yaml"
    path.write_text(text, "utf-8")
    return path


ALL_THREE = (
    "workflow.t.c-run: sessions are not implemented\n"
    "workflow.t.d-advice: sessions are not implemented\n"
    "loops.t.e-run: sessions are not implemented\n"
)


def test_listed_failures_do_not_fail_the_run(
    small: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    listed = expected(tmp_path, ALL_THREE)
    assert (
        run("--catalog", small, "--adapter", "fakes:ValidatesOnly", "--expected-failures", listed)
        == 0
    )
    lines = capsys.readouterr().out.splitlines()
    at = lines.index("XFAIL workflow.t.c-run [submit] (workflow L2 MUST)")
    assert lines[at + 2] == "  expected: sessions are not implemented"
    assert not any(line.startswith(("FAILED", "XPASS")) for line in lines)


def test_an_unlisted_failure_fails_the_run(
    small: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    listed = expected(tmp_path, "workflow.t.c-run: sessions are not implemented\n")
    args = ["--catalog", small, "--adapter", "fakes:ValidatesOnly", "--expected-failures", listed]
    assert run(*args) == 1
    lines = capsys.readouterr().out.splitlines()
    assert "XFAIL workflow.t.c-run [submit] (workflow L2 MUST)" in lines
    assert "FAILED loops.t.e-run [submit] (loops L1 MUST)" in lines
    assert verdict_lines(lines) == [
        "FAILED: 1 case(s) failed in the claimed areas, up to the claimed levels (loops 2, "
        "workflow 2) and are not in the expected failures"
    ]


def test_an_unexpected_pass_fails_the_run_even_at_the_required_level(
    small: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    listed = expected(tmp_path, ALL_THREE + "workflow.t.a-load: thought broken\n")
    args = ["--catalog", small, "--adapter", "fakes:ValidatesOnly", "--expected-failures", listed]
    assert run(*args, "--require-level", "0", "--report", "json", tmp_path / "r.jsonl") == 1
    lines = capsys.readouterr().out.splitlines()
    assert "XPASS workflow.t.a-load: passes but is listed as an expected failure" in lines
    assert verdict_lines(lines) == [
        "FAILED: expected failures that did not fail as listed (update the file): workflow.t.a-load"
    ]
    records = read_jsonl(tmp_path / "r.jsonl")
    summary = records[-1]
    assert summary["verdict"]["unexpected_passes"] == ["workflow.t.a-load"]
    assert summary["verdict"]["unexpected_failures"] == []
    listed = records[0]["expected_failures"]
    assert listed["workflow.t.a-load"] == {"reason": "thought broken", "kind": "fail"}
    assert "workflow.t.b-valid" not in listed


@pytest.mark.parametrize(
    "bad",  # (file text, line of the error, words of the message)
    [
        (
            "workflow.t.c-run: fine\nworkflow.t.nope: typo\n",
            2,
            "expected failure 'workflow.t.nope' is not a case of the catalog",
        ),
        ("workflow.t.c-run: ''\n", 1, "expected failure 'workflow.t.c-run' has no reason"),
        ("- workflow.t.c-run\n", 1, "an expected-failures file is a mapping of case id to reason"),
        ("workflow.t.c-run: [unclosed\n", 2, "invalid YAML"),
    ],
)
def test_a_bad_expected_failures_file_is_a_clear_error(
    small: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], bad: tuple[str, int, str]
) -> None:
    text, line, words = bad
    listed = expected(tmp_path, text)
    assert run("--catalog", small, "--expected-failures", listed) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith(f"ppconf: error: {listed}:{line}:")
    assert words in captured.err
    assert captured.out == ""


def test_a_missing_expected_failures_file(
    small: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run("--catalog", small, "--expected-failures", tmp_path / "absent.yaml") == 2
    assert "absent.yaml" in capsys.readouterr().err


def test_python_dash_m_conformance_is_the_same_command(small: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "conformance",
            "run",
            "--catalog",
            str(small),
            "--require-level",
            "2",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1
    assert verdict_lines(done.stdout.splitlines()) == [
        "FAILED: headline level 1 is below the required 2"
    ]
