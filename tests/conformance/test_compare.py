"""``ppconf compare OLD NEW``: regressions, fixes, new and removed cases, level changes; exit 1
on any regression. Checked on the reports of deliberately broken runtimes against the
reference's (and against the runtime they break), both ways, and on reports edited by hand."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from report_files import ReportFiles

from conformance._cli import main
from conformance._judging.levels import BELOW_ZERO, describe_level
from conformance._report.compare import LevelChange, compare
from conformance._report.jsonl import read_report

pytestmark = pytest.mark.usefixtures("cached_catalog", "fakes_importable")


def run_compare(
    old: Path, new: Path, capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[int, str]:
    status = main(["compare", str(old), str(new), *args])
    shown = capsys.readouterr()
    assert shown.err == ""
    return status, shown.out


def not_passing(path: Path) -> set[tuple[str, str]]:
    return {(r.case, r.part) for r in read_report(path).records if not r.passed}


def worse(old: Path, new: Path) -> set[tuple[str, str]]:
    """The parts that pass in OLD and not in NEW, and those with a check (a MAY one in a passing
    part, say) that passes in OLD and not in NEW."""
    failing = {
        (r.case, r.part, c.id) for r in read_report(new).records for c in r.checks if not c.passed
    }
    checks_worse = {
        (r.case, r.part)
        for r in read_report(old).records
        for c in r.checks
        if c.passed and (r.case, r.part, c.id) in failing
    }
    return (not_passing(new) - not_passing(old)) | checks_worse


def keys(changes: Any) -> set[tuple[str, str]]:
    return {(c.record.case, c.record.part) for c in changes}


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("reference", "fakes:ValidatesOnly"),
        ("reference", "breaking:BudgetOffByOne"),
        ("breaking:MiniRuntime", "breaking:BudgetOffByOne"),
        ("breaking:MiniRuntime", "breaking:IgnoresUnknownEvents"),
    ],
)
def test_a_broken_runtime_regresses_and_its_fix_is_a_fix(
    old: str, new: str, report_file: ReportFiles, capsys: pytest.CaptureFixture[str]
) -> None:
    old_path, new_path = report_file(old), report_file(new)
    broken = worse(old_path, new_path)
    assert broken, "the broken runtime must fail parts the other passes"

    status, out = run_compare(old_path, new_path, capsys)
    comparison = compare(read_report(old_path), read_report(new_path))
    assert status == 1
    assert keys(comparison.regressions) == broken
    assert keys(comparison.fixes) == worse(new_path, old_path)
    assert out.splitlines()[-1].startswith(f"{len(broken)} regression")
    assert out.splitlines()[-1].endswith(", 0 new cases, 0 removed cases")
    regressions = out.split("REGRESSIONS")[1]
    for case, part in broken:  # each named, on its own or under the cause it shares
        assert case in regressions
        assert part in regressions
    for change in comparison.levels:
        if change.changed:
            assert f"{change.area} | {change.describe()}" in " ".join(out.split())

    status, back = run_compare(new_path, old_path, capsys)
    reverse = compare(read_report(new_path), read_report(old_path))
    assert keys(reverse.fixes) == broken
    assert keys(reverse.regressions) == worse(new_path, old_path)
    assert status == (1 if reverse.regressions else 0)
    assert "fixes (" in back


def test_validates_only_against_the_reference_in_words(
    report_file: ReportFiles, capsys: pytest.CaptureFixture[str]
) -> None:
    old, new = report_file("reference"), report_file("fakes:ValidatesOnly")
    status, out = run_compare(old, new, capsys)
    assert status == 1
    lines = out.splitlines()
    assert (
        lines[0]
        == "OLD: ppconf-reference 0.1.0 (adapter reference), spec version 1.9, "
        + (lines[0].rsplit(", ", 1)[1])
    )
    assert not any(line.startswith("note:") for line in lines)  # same catalog, same version
    table = {
        line.split("|")[0].strip(): line.split("|")[1].strip() for line in lines if "|" in line
    }
    levels = read_report(new).levels()
    workflow = levels.area("workflow")
    assert workflow is not None
    assert table["workflow"] == f"2 -> {describe_level(workflow.level)} (down)"
    assert table["headline"] == f"3 -> {describe_level(levels.headline)} (down)"
    assert any(
        line.startswith("REGRESSION ")
        and "passed -> failed: rejected with unknown-event, expected acceptance" in line
        for line in lines
    )
    assert any("passed -> skipped: unsupported by the runtime" in line for line in lines)


def test_a_report_against_itself_is_no_change(
    report_file: ReportFiles, capsys: pytest.CaptureFixture[str]
) -> None:
    path = report_file("fakes:ValidatesOnly")
    status, out = run_compare(path, path, capsys)
    assert status == 0
    assert out.splitlines()[-1] == "0 regressions, 0 fixes, 0 new cases, 0 removed cases"
    assert "(unchanged)" in out
    assert "(down)" not in out
    assert "(up)" not in out


# -- reports edited by hand ---------------------------------------------------------------------

Lines = list[dict[str, Any]]


def edited(source: Path, folder: Path, name: str, edit: Callable[[Lines], None]) -> Path:
    lines = [json.loads(line) for line in source.read_text("utf-8").splitlines()]
    edit(lines)
    path = folder / name
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), "utf-8")
    return path


def parts(lines: Lines) -> Lines:
    return [line for line in lines if line["type"] == "part"]


def test_timings_never_matter(
    report_file: ReportFiles, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = report_file("fakes:ValidatesOnly")

    def slower(lines: Lines) -> None:
        for line in parts(lines):
            line["duration"] = line["duration"] * 10 + 1.0

    status, out = run_compare(source, edited(source, tmp_path, "slow.jsonl", slower), capsys)
    assert status == 0
    assert out.splitlines()[-1] == "0 regressions, 0 fixes, 0 new cases, 0 removed cases"


def test_a_check_that_fails_in_a_part_that_still_passes_is_a_regression(
    report_file: ReportFiles, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = report_file("reference")
    target: dict[str, str] = {}

    def weaker(lines: Lines) -> None:
        line = next(
            p for p in parts(lines) if any(c["requirement"] == "SHOULD" for c in p["checks"])
        )
        check = next(c for c in line["checks"] if c["requirement"] == "SHOULD")
        check["passed"] = False
        check["message"] = f"{line['file']}:3: expected warning x, not reported"
        target.update(case=line["case"], part=line["part"], check=check["id"])

    new = edited(source, tmp_path, "weaker.jsonl", weaker)
    status, out = run_compare(source, new, capsys)
    assert status == 1
    line = next(x for x in out.splitlines() if x.startswith("REGRESSION "))
    assert line.startswith(f"REGRESSION {target['case']} [{target['part']}] (")
    assert line.endswith(f"): passed; check {target['check']}")  # the part passes in both
    assert out.splitlines()[-1].startswith("1 regression, 0 fixes")
    status, back = run_compare(new, source, capsys)
    assert status == 0
    assert f"{target['case']} [{target['part']}]" in back.split("fixes (1 part):")[1]


def test_new_and_removed_cases(
    report_file: ReportFiles, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = report_file("fakes:ValidatesOnly")

    def renamed(lines: Lines) -> None:
        passing = next(p for p in parts(lines) if p["outcome"] == "passed")
        broken = next(p for p in parts(lines) if p["outcome"] == "failed")
        names = {
            passing["case"]: passing["area"] + ".renamed.passing",
            broken["case"]: broken["area"] + ".renamed.failing",
        }
        for line in parts(lines):
            line["case"] = names.get(line["case"], line["case"])
        # Another catalog: the header lists the renamed cases, under another hash.
        lines[0]["parts"] = [[names.get(case, case), part] for case, part in lines[0]["parts"]]
        lines[0]["catalog"]["hash"] = "sha256:" + "1" * 32

    new = edited(source, tmp_path, "renamed.jsonl", renamed)
    comparison = compare(read_report(source), read_report(new), allow=("catalog",))
    assert len(comparison.new_cases) == 2
    assert len(comparison.removed_cases) == 2
    assert {c.record.case.split(".", 1)[1] for c in comparison.regressions} == {"renamed.failing"}
    status, out = run_compare(source, new, capsys, "--allow", "catalog")
    assert status == 1
    assert "new, failed" in out
    assert out.splitlines()[-1].endswith(", 2 new cases, 2 removed cases")


def test_a_different_catalog_or_spec_version_is_said_first(
    report_file: ReportFiles, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = report_file("reference")

    def other(lines: Lines) -> None:
        lines[0]["catalog"]["hash"] = "sha256:" + "0" * 32
        lines[0]["spec_version"] = lines[0]["selection"]["spec_version"] = "1.8"

    other = edited(source, tmp_path, "other.jsonl", other)
    allowed = ("--allow", "spec-version", "--allow", "catalog")
    status, out = run_compare(source, other, capsys, *allowed)
    assert status == 0
    lines = out.splitlines()
    assert lines[2].startswith("note: different spec versions: OLD assessed 1.9, NEW 1.8")
    assert lines[3].startswith("note: different catalogs: OLD ran sha256:")
    # Not allowed, each fails the comparison, saying why and how to allow it.
    status, out = run_compare(source, other, capsys)
    assert status == 1
    failed = [line for line in out.splitlines() if line.startswith("FAILED: ")]
    header = read_report(source).header
    cases = header.catalog_cases
    assert failed == [
        "FAILED: NEW assessed spec version 1.8, OLD 1.9: their cases and levels differ by "
        "design; compare reports of one spec version, or pass --allow spec-version",
        f"FAILED: NEW ran another catalog than OLD (sha256:{'0' * 32}, {cases} cases; OLD "
        f"{header.catalog_hash}, {cases} cases); rerun OLD with this catalog, "
        "or pass --allow catalog",
    ]


def test_a_truncated_new_report_is_said_first(
    report_file: ReportFiles, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = report_file("reference")
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(source.read_text("utf-8").splitlines(keepends=True)[:30]), "utf-8")
    status, out = run_compare(source, cut, capsys, "--allow", "unfinished")
    assert status == 0  # nothing that ran got worse, and the cut is allowed
    assert out.splitlines()[2] == (
        "note: NEW is the report of a run that did not finish: its missing cases show as "
        "removed or new"
    )
    assert "removed cases (" in out


@pytest.mark.parametrize("kept", [1, 30])
def test_an_unfinished_new_report_fails_the_comparison(
    report_file: ReportFiles, tmp_path: Path, capsys: pytest.CaptureFixture[str], kept: int
) -> None:
    """The README's CI recipe must not pass after a crashed run: no regression is in a report
    that stopped early (or holds its header alone)."""
    source = report_file("reference")
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(source.read_text("utf-8").splitlines(keepends=True)[:kept]), "utf-8")
    status, out = run_compare(source, cut, capsys)
    assert status == 1
    parts = len(read_report(source).records)
    assert out.splitlines()[-1] == (
        f"FAILED: NEW is the report of a run that did not finish ({kept - 1} of {parts} parts, no "
        "summary): a crashed, killed or timed-out run proves nothing; run again, or pass "
        "--allow unfinished"
    )
    status, out = run_compare(source, cut, capsys, "--format", "md")
    assert status == 1
    assert "> **FAILED**: NEW is the report of a run that did not finish" in out


def test_a_partial_new_report_fails_the_comparison(
    report_file: ReportFiles, capsys: pytest.CaptureFixture[str]
) -> None:
    old, new = report_file("reference"), report_file("reference", "--area", "loops")
    status, out = run_compare(old, new, capsys)
    assert status == 1
    assert out.splitlines()[-1].startswith("FAILED: NEW is a partial selection (")
    assert out.splitlines()[-1].endswith("or pass --allow partial")
    status, out = run_compare(old, new, capsys, "--allow", "partial")
    assert status == 0


def test_markdown_for_a_ci_summary(
    report_file: ReportFiles, capsys: pytest.CaptureFixture[str]
) -> None:
    old, new = report_file("reference"), report_file("fakes:ValidatesOnly")
    status, out = run_compare(old, new, capsys, "--format", "md")
    assert status == 1
    assert out.startswith("# ppconf compare\n")
    assert "| workflow | 2 | 1 | down |" in out
    assert "## Regressions" in out
    assert "<details><summary>the " in out
    for case, _ in not_passing(new):
        assert f"`{case}`" in out


def test_an_unreadable_report_exits_2(
    report_file: ReportFiles, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text("nonsense\n", "utf-8")
    assert main(["compare", str(report_file("reference")), str(bad)]) == 2
    assert capsys.readouterr().err.startswith(f"ppconf: error: {bad}:1: not JSON")


def test_an_area_old_did_not_assess_is_newly_assessed_not_up() -> None:
    """`compare` showed "not assessed -> below 0 (up)"."""
    change = LevelChange("control", None, BELOW_ZERO)
    assert change.describe() == "not assessed -> below 0 (newly assessed)"
    assert LevelChange("control", None, 2).direction == "newly assessed"
    assert LevelChange("control", 2, None).direction == "down"
    assert LevelChange("control", BELOW_ZERO, 0).direction == "up"


def test_an_area_new_in_new_reads_newly_assessed_in_both_views(
    report_file: ReportFiles, capsys: pytest.CaptureFixture[str]
) -> None:
    old = report_file("reference", "--spec-version", "1.5")  # no control area in 1.5
    new = report_file("fakes:ValidatesOnly")  # control below 0
    status, out = run_compare(old, new, capsys, "--allow", "spec-version", "--allow", "catalog")
    assert status == 1
    assert "(up)" not in out.split("REGRESSIONS")[0]
    assert "control      | not assessed -> below 0 (newly assessed)" in out
    status, out = run_compare(
        old, new, capsys, "--allow", "spec-version", "--allow", "catalog", "--format", "md"
    )
    assert "| control | not assessed | below 0 | newly assessed |" in out
