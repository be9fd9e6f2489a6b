"""Views of a run, rendered from its records: JSON Lines (streamed, read back), text, Markdown
and JUnit XML. Every view renders every record kind, and a truncated report still renders."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from xml.etree import ElementTree

import pytest

from conformance import Capabilities, Case, Catalog, Check, PartResult, load_case, load_catalog
from conformance._basics.text import markdown as markdown_text
from conformance._catalog.cases import Selection
from conformance._catalog.expected_failures import ExpectedFailure
from conformance._judging.levels import describe_level
from conformance._judging.records import REPORT_FORMAT, PartRecord, Report, RunHeader, case_verdicts
from conformance._report.jsonl import JsonLinesWriter, ReportError, read_report
from conformance._report.junit import render_junit
from conformance._report.markdown import render_markdown
from conformance._report.text import render_levels, render_text
from conformance._report.views import VIEWS, render_view

CAPABILITIES = Capabilities("toy-runtime", "1.2", "go", claims={"workflow": 2})


def must(check_id: str, passed: bool, message: str = "") -> Check:
    return Check(check_id, "MUST", passed, message)


@pytest.fixture
def catalog(tmp_path: Path, case_text: Callable[..., str]) -> Catalog:
    """Six cases: workflow Levels 0-2, two loops cases and one SHOULD case."""
    root = tmp_path / "catalog"
    for case_id, level, requirement in (
        ("workflow.t.ok", 0, "MUST"),
        ("workflow.t.bad", 1, "MUST"),
        ("workflow.t.crash", 2, "MUST"),
        ("loops.t.slow", 2, "MUST"),
        ("loops.t.skip", 1, "SHOULD"),
        ("loops.t.flaky", 1, "MUST"),
    ):
        area, name = case_id.split(".", maxsplit=1)[0], case_id.rsplit(".", maxsplit=1)[-1]
        path = root / area / f"{name}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(case_text(case_id, level=level, requirement=requirement), "utf-8")
    return load_catalog(root)


@pytest.fixture
def report(catalog: Catalog) -> Report:
    """A run with one part of every outcome, a finding, and an expected failure."""
    case = {c.id: c for c in catalog.cases}
    finding = Check("error code entry-unknown", "SHOULD", False, "expected error entry-unknown")
    results = [
        (
            case["workflow.t.ok"],
            PartResult("submit", "passed", "", 0.1, (must("s", True), finding)),
        ),
        (
            case["workflow.t.bad"],
            PartResult("submit", "failed", 'a.yaml:3: expected "x" <&>', 0.2, (must("s", False),)),
        ),
        (case["workflow.t.crash"], PartResult("submit", "errored", "the adapter raised", 0.1)),
        (case["loops.t.slow"], PartResult("submit", "timeout", "no answer within 1 s", 1.0)),
        (case["loops.t.skip"], PartResult("submit", "skipped", "unsupported", 0.0)),
        (case["loops.t.flaky"], PartResult("submit", "flaky", "flaky: run 1 passed", 0.3)),
    ]
    header = RunHeader.of(
        "fakes:Toy",
        CAPABILITIES,
        catalog,
        Selection(),
        expected_failures={"loops.t.slow": ExpectedFailure("our clock is real")},
    )
    return Report(header, tuple(PartRecord.of(c, p) for c, p in results))


def test_jsonl_round_trip(report: Report, tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    writer = JsonLinesWriter(path, report.header)
    for record in report.records:
        writer.add(record)
    writer.finish(report)
    writer.close()
    lines = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
    assert [line["type"] for line in lines] == ["run"] + ["part"] * 6 + ["summary"]
    assert lines[0]["format"] == REPORT_FORMAT
    assert lines[0]["spec_version"] == "1.9"
    assert lines[-1]["verdict"]["passed"] is False
    again = read_report(path)
    assert again.complete
    assert again.records == report.records
    assert render_markdown(again) == render_markdown(report)
    assert render_text(again) == render_text(report)


def test_a_truncated_report_renders_what_it_holds(report: Report, tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    writer = JsonLinesWriter(path, report.header)
    for record in report.records[:3]:
        writer.add(record)
    writer.close()
    text = path.read_text("utf-8")
    path.write_text(text + '{"type": "part", "case": "loo', "utf-8")  # killed mid-line
    again = read_report(path)
    assert not again.complete
    assert len(again.records) == 3
    assert again.partial
    assert "did not finish" in render_markdown(again)
    assert "did not finish" in render_text(again)
    assert ElementTree.fromstring(render_junit(again)).get("incomplete") == "true"


def test_a_file_that_is_no_report_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.jsonl"
    path.write_text('{"type": "part"}\n', "utf-8")
    with pytest.raises(ReportError, match="no run header"):
        read_report(path)
    path.write_text("not json\n{}\n", "utf-8")
    with pytest.raises(ReportError, match=r"other.jsonl:1: not JSON"):
        read_report(path)


def test_every_view_renders_every_outcome(report: Report) -> None:
    text = render_text(report)
    markdown = render_markdown(report)
    junit = ElementTree.fromstring(render_junit(report))
    for outcome in ("FAILED", "ERRORED", "XFAIL", "SKIPPED", "FLAKY"):
        assert f"{outcome} " in text
    for outcome in ("failed", "errored", "timeout", "skipped", "flaky"):
        assert f"**{outcome}**" in markdown
    cases = junit.findall(".//testcase")
    assert len(cases) == 6
    kinds = sorted(
        child.tag for case in cases for child in case if child.tag not in ("properties",)
    )
    assert kinds == ["error", "error", "error", "failure", "skipped", "system-out"]


def test_findings_are_shown_beside_the_levels(report: Report) -> None:
    text = render_text(report)
    assert "findings (1)" in text
    assert "SHOULD error: 1" in text
    assert "error code entry-unknown" in render_markdown(report)
    out = next(e for e in ElementTree.fromstring(render_junit(report)).iter("system-out"))
    assert "finding (SHOULD) error code entry-unknown" in (out.text or "")


def test_failures_of_claimed_areas_come_first(report: Report) -> None:
    text = render_text(report)
    assert text.index("workflow.t.bad") < text.index("loops.t.flaky")
    markdown = render_markdown(report)
    assert markdown.index("### workflow") < markdown.index("### loops")


def test_views_say_why_each_area_stops(report: Report) -> None:
    levels = report.levels()
    workflow = levels.area("workflow")
    assert workflow is not None
    assert workflow.level == 0
    assert workflow.blocking == ("workflow.t.bad",)
    assert workflow.must == (1, 3)  # the errored case counts, though it judged nothing
    why = "Level 1 needs 1 more MUST case(s) to pass: workflow.t.bad"
    assert why in render_levels(levels)
    assert markdown_text(why) in render_markdown(report)  # escaped as Markdown escapes any text


def test_every_view_says_why_every_area_is_at_its_level(report: Report) -> None:
    levels = report.levels()
    text, markdown = render_text(report), render_markdown(report)
    suites = {
        s.get("name"): s for s in ElementTree.fromstring(render_junit(report)).iter("testsuite")
    }
    assert len({a.reason for a in levels.areas}) > 2  # not the same words everywhere
    for area in levels.areas:
        assert f"{area.area}: {area.reason}" in text.splitlines()
        assert (
            f"- **{area.area}** ({describe_level(area.level)}): {markdown_text(area.reason)}"
            in markdown
        )
        found = suites[area.area].findall("properties/property")  # the suite's, not its cases'
        properties = {p.get("name"): p.get("value") for p in found}
        assert properties["reason"] == area.reason
        assert properties["level"] == describe_level(area.level)
        assert properties["top"] == str(area.top)


@pytest.mark.parametrize("fmt", sorted(VIEWS))
def test_every_registered_view_renders_every_record_kind(
    fmt: str, report: Report, tmp_path: Path
) -> None:
    path = tmp_path / "run.jsonl"
    writer = JsonLinesWriter(path, report.header)
    for record in report.records:
        writer.add(record)
    writer.finish(report)
    writer.close()
    again = read_report(path)
    assert render_view(fmt, again) == render_view(fmt, report)
    cut = Report(report.header, report.records[:2], complete=False)
    assert render_view(fmt, cut) != render_view(fmt, report)


def test_markdown_escapes_table_cells(report: Report) -> None:
    markdown = render_markdown(report)
    assert 'expected "x" \\<\\&\\>' in markdown  # Markdown escapes: renders as the text
    row = next(line for line in markdown.splitlines() if line.startswith("| workflow"))
    assert row.count("|") == 8


def test_a_partial_selection_is_labelled(catalog: Catalog, report: Report) -> None:
    header = RunHeader.of("fakes:Toy", CAPABILITIES, catalog, Selection(areas=("workflow",)))
    partial = Report(header, tuple(r for r in report.records if r.area == "workflow"))
    assert partial.partial
    for view in (render_text(partial), render_markdown(partial)):
        assert "certify nothing" in view


def test_verdicts_count_must_checks_only(catalog: Catalog) -> None:
    case: Case = next(c for c in catalog.cases if c.id == "workflow.t.ok")
    passing = PartResult(
        "submit", "passed", "", 0.0, (must("s", True), Check("p", "MAY", False, "no path"))
    )
    (verdict,) = case_verdicts([PartRecord.of(case, passing)])
    assert verdict.passed
    assert dict(verdict.checks) == {"MUST": True, "MAY": False}


def test_load_case_keeps_the_file(tmp_path: Path, case_text: Callable[..., str]) -> None:
    path = tmp_path / "workflow" / "x.yaml"
    path.parent.mkdir()
    path.write_text(case_text("workflow.t.x"), "utf-8")
    case = load_case(path, tmp_path)
    record = PartRecord.of(case, PartResult("submit", "failed", "m", 0.0, (must("s", False),)))
    assert record.file == "workflow/x.yaml"
    assert record.line is not None
    assert record.pack == case.pack.document


def test_a_report_written_with_other_rules_says_so(tmp_path: Path) -> None:
    """A report keeps the levels the kit that wrote it computed; read by a kit whose rules
    differ, every view says where they differ instead of silently showing its own."""
    from conformance._cli import main  # noqa: PLC0415
    from conformance._report.jsonl import read_report  # noqa: PLC0415

    path = tmp_path / "r.jsonl"
    assert main(["run", "--id", "workflow.validation.entry-*", "--report", "json", str(path)]) in (
        0,
        1,
    )
    lines = path.read_text("utf-8").splitlines()
    summary = json.loads(lines[-1])
    assert summary["type"] == "summary"
    assert read_report(path).drift() == []
    summary["levels"]["areas"][0]["level"] = 0
    summary["levels"]["headline"] = 0
    summary["verdict"]["passed"] = not summary["verdict"]["passed"]
    path.write_text("\n".join([*lines[:-1], json.dumps(summary)]) + "\n", "utf-8")
    report = read_report(path)
    drift = report.drift()
    area = summary["levels"]["areas"][0]["area"]
    assert drift[0].startswith(f"{area}: level 0 as written, ")
    assert any(note.startswith("headline: 0 as written") for note in drift)
    assert any(note.startswith("verdict: ") for note in drift)
    assert "wrote this report with other rules" in render_text(report)
