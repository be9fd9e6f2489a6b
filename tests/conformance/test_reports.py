"""Reports of a run: the level table, JSON Lines (streamed), JUnit XML and Markdown."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest

from conformance import (
    Capabilities,
    Case,
    CaseResult,
    PartResult,
    compute_levels,
    load_case,
    verdicts,
)
from conformance._levels import describe_level
from conformance._reports import (
    LEVEL_HEADERS,
    REPORT_FORMAT,
    JsonLinesReport,
    level_rows,
    levels_data,
    render_levels,
    summary_counts,
    write_junit,
    write_markdown,
)

CAPABILITIES = Capabilities("toy-runtime", "1.2", "go", claims={"workflow": 2})


@pytest.fixture
def results(tmp_path: Path, case_text: Callable[..., str]) -> list[CaseResult]:
    """Five cases, one per outcome (workflow Levels 0-2 and a loops case)."""
    root = tmp_path / "catalog"

    def case(case_id: str, level: int, requirement: str = "MUST") -> Case:
        area, name = case_id.split(".", maxsplit=1)[0], case_id.rsplit(".", maxsplit=1)[-1]
        path = root / area / f"{name}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(case_text(case_id, level=level, requirement=requirement), "utf-8")
        return load_case(path, root)

    def parts(*outcomes: tuple[str, str, str]) -> tuple[PartResult, ...]:
        return tuple(PartResult(p, o, m, 0.5) for p, o, m in outcomes)  # type: ignore[arg-type]

    return [
        CaseResult(case("workflow.t.ok", 0), parts(("load", "passed", ""))),
        CaseResult(
            case("workflow.t.bad", 1),
            parts(("validation", "passed", ""), ("go", "failed", 'a.yaml:3: expected "x" <&>')),
        ),
        CaseResult(case("workflow.t.crash", 2), parts(("go", "errored", "the adapter raised"))),
        CaseResult(case("loops.t.slow", 2), parts(("go", "timeout", "no answer within 1 s"))),
        CaseResult(case("loops.t.skip", 1, "SHOULD"), parts(("go", "skipped", "unsupported"))),
    ]


def test_summary_counts(results: list[CaseResult]) -> None:
    assert summary_counts(results) == {
        "passed": 1,
        "failed": 1,
        "errored": 1,
        "skipped": 1,
        "timeout": 1,
    }
    assert summary_counts([]) == dict.fromkeys(
        ("passed", "failed", "errored", "skipped", "timeout"), 0
    )


def test_the_level_table(results: list[CaseResult]) -> None:
    levels = compute_levels(verdicts(results))
    lines = render_levels(levels, CAPABILITIES).splitlines()
    assert [c.strip() for c in lines[0].split("|")] == LEVEL_HEADERS
    assert set(lines[1]) <= {"-", "+"}
    assert [line.split("|")[0].strip() for line in lines[2:5]] == [
        "workflow",
        "loops",
        "compositions",
    ]
    assert len({line.index("|") for line in (lines[0], *lines[2:5])}) == 1  # aligned
    assert "headline level: 0" in lines
    assert "workflow: Level 1 needs 1 more MUST case(s) to pass" in lines
    assert not any(line.startswith("compositions:") for line in lines)


def test_level_rows_show_levels_counts_and_claims(results: list[CaseResult]) -> None:
    levels = compute_levels(verdicts(results))
    rows = {row[0]: row for row in level_rows(levels, CAPABILITIES.claims)}
    assert rows["workflow"] == ["workflow", "0", "2", "1/3", "0/0", "0/0", "2"]
    # loops: its only MUST case (Level 2) timed out, nothing of Level 0-1 was run.
    assert rows["loops"][0:4] == ["loops", describe(levels, "loops"), "2", "0/1"]
    assert rows["loops"][4:] == ["0/1 (0%)", "0/0", "-"]
    assert rows["compositions"] == ["compositions", "not assessed", "3", "0/0", "0/0", "0/0", "-"]


def describe(levels: Any, area: str) -> str:
    return describe_level(levels.area(area).level)


def test_below_zero_is_explained_under_the_table(results: list[CaseResult]) -> None:
    bad = [r for r in results if r.case.id != "workflow.t.ok"]
    ok = results[0]
    failing_l0 = CaseResult(ok.case, (PartResult("load", "failed", "refused"),))
    text = render_levels(compute_levels(verdicts([failing_l0, *bad])), CAPABILITIES)
    assert "headline level: below 0" in text.splitlines()
    assert (
        "workflow: the runtime fails Level 0 cases (packs carrying workflow fields must still "
        "load): workflow.t.ok"
    ) in text.splitlines()


def test_levels_data(results: list[CaseResult]) -> None:
    data = levels_data(compute_levels(verdicts(results)))
    assert data["headline"] == 0
    workflow = data["areas"][0]
    assert workflow == {
        "area": "workflow",
        "level": 0,
        "top": 2,
        "blocking": ["workflow.t.bad"],
        "reason": "Level 1 needs 1 more MUST case(s) to pass",
        "must": [1, 3],
        "should": [0, 0],
        "may": [0, 0],
    }
    json.dumps(data)


# -- JSON Lines ---------------------------------------------------------------------------------


def read_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()]


def test_json_lines_are_written_as_the_run_goes(tmp_path: Path, results: list[CaseResult]) -> None:
    path = tmp_path / "report.jsonl"
    report = JsonLinesReport(path, CAPABILITIES, {"area": ["workflow"]})
    try:
        assert read_lines(path) == [
            {
                "type": "run",
                "format": REPORT_FORMAT,
                "runtime": {
                    "name": "toy-runtime",
                    "version": "1.2",
                    "language": "go",
                    "claims": {"workflow": 2},
                },
                "selection": {"area": ["workflow"]},
            }
        ]
        report.add(results[0])
        report.add(results[1], expected_failure="known")
        lines = read_lines(path)  # before close: every case is already on disk
        assert [line["type"] for line in lines] == ["run", "case", "case"]
        assert lines[1] == {
            "type": "case",
            "id": "workflow.t.ok",
            "area": "workflow",
            "level": 0,
            "requirement": "MUST",
            "file": "workflow/ok.yaml",
            "outcome": "passed",
            "parts": [{"part": "load", "outcome": "passed", "message": ""}],
        }
        assert lines[2]["expected_failure"] == "known"
        assert lines[2]["outcome"] == "failed"
        assert lines[2]["parts"][1]["message"] == 'a.yaml:3: expected "x" <&>'
        levels = compute_levels(verdicts(results[:2]))
        report.finish(levels, results[:2], {"unexpected_passes": []})
    finally:
        report.close()
    summary = read_lines(path)[-1]
    assert summary == {
        "type": "summary",
        "counts": {"passed": 1, "failed": 1, "errored": 0, "skipped": 0, "timeout": 0},
        "levels": levels_data(levels),
        "unexpected_passes": [],
    }


def test_reports_hold_no_timings_and_are_reproducible(
    tmp_path: Path, results: list[CaseResult]
) -> None:
    levels = compute_levels(verdicts(results))
    texts = []
    for name in ("a", "b"):
        report = JsonLinesReport(tmp_path / f"{name}.jsonl", CAPABILITIES, {})
        for result in results:
            report.add(result)
        report.finish(levels, results, {})
        report.close()
        write_junit(tmp_path / f"{name}.xml", results, complete=True)
        write_markdown(tmp_path / f"{name}.md", levels, CAPABILITIES, results, complete=True)
        texts.append(
            [(tmp_path / f"{name}{ext}").read_bytes() for ext in (".jsonl", ".xml", ".md")]
        )
    assert texts[0] == texts[1]
    assert b"duration" not in texts[0][0]
    assert b"time" not in texts[0][1]


# -- JUnit --------------------------------------------------------------------------------------


def test_junit_xml_has_a_suite_per_area_and_a_testcase_per_part(
    tmp_path: Path, results: list[CaseResult]
) -> None:
    path = tmp_path / "junit.xml"
    write_junit(path, results, complete=True)
    root = ElementTree.parse(path).getroot()
    assert root.tag == "testsuites"
    assert root.get("incomplete") is None
    suites = {s.get("name"): s for s in root.findall("testsuite")}
    assert list(suites) == ["workflow", "loops"]
    workflow, loops = suites["workflow"], suites["loops"]
    assert (workflow.get("tests"), workflow.get("failures"), workflow.get("errors")) == (
        "4",
        "1",
        "1",
    )
    assert (loops.get("tests"), loops.get("errors"), loops.get("skipped")) == ("2", "1", "1")
    cases = {(c.get("classname"), c.get("name")): c for c in root.iter("testcase")}
    assert len(cases) == 6
    failed = cases[("workflow.t.bad", "go")]
    failure = failed.find("failure")
    assert failure is not None
    assert failure.get("message") == 'a.yaml:3: expected "x" <&>'
    assert failure.text == 'a.yaml:3: expected "x" <&>'
    assert failed.get("file") == "workflow/bad.yaml"
    properties = {p.get("name"): p.get("value") for p in failed.iter("property")}
    assert properties == {"level": "1", "requirement": "MUST"}
    assert cases[("loops.t.slow", "go")].find("error") is not None
    assert cases[("workflow.t.crash", "go")].find("error") is not None
    assert cases[("loops.t.skip", "go")].find("skipped") is not None
    passed = cases[("workflow.t.ok", "load")]
    assert [child.tag for child in passed] == ["properties"]


def test_junit_marks_an_incomplete_run(tmp_path: Path, results: list[CaseResult]) -> None:
    path = tmp_path / "junit.xml"
    write_junit(path, results[:1], complete=False)
    assert ElementTree.parse(path).getroot().get("incomplete") == "true"
    write_junit(path, [], complete=False)
    assert ElementTree.parse(path).getroot().findall("testsuite") == []


# -- Markdown -----------------------------------------------------------------------------------


def test_markdown_has_the_table_and_the_failures(tmp_path: Path, results: list[CaseResult]) -> None:
    path = tmp_path / "summary.md"
    levels = compute_levels(verdicts(results))
    write_markdown(path, levels, CAPABILITIES, results, complete=True)
    lines = path.read_text("utf-8").splitlines()
    assert lines[0] == "# ppconf: toy-runtime 1.2"
    assert "Headline level: **0**" in lines
    header = "| " + " | ".join(LEVEL_HEADERS) + " |"
    assert header in lines
    at = lines.index(header)
    assert lines[at + 1] == "|" + "---|" * len(LEVEL_HEADERS)
    assert lines[at + 2] == "| workflow | 0 | 2 | 1/3 | 0/0 | 0/0 | 2 |"
    assert lines[at + 4].startswith("| compositions | not assessed |")
    assert "1 passed, 1 failed, 1 errored, 1 skipped, 1 timeout" in lines
    assert "## Cases that did not pass" in lines
    assert "- `workflow.t.bad` (workflow, level 1, MUST):" in lines
    assert '  - go: failed: a.yaml:3: expected "x" <&>' in lines
    assert "  - validation: passed: " not in "\n".join(lines)
    assert not any("did not finish" in line for line in lines)


def test_markdown_of_an_incomplete_clean_run(tmp_path: Path, results: list[CaseResult]) -> None:
    path = tmp_path / "summary.md"
    levels = compute_levels(verdicts(results[:1]))
    write_markdown(path, levels, Capabilities("bare"), results[:1], complete=False)
    text = path.read_text("utf-8")
    assert text.startswith("# ppconf: bare\n")
    assert "**The run did not finish; these are the results it has.**" in text
    assert "Cases that did not pass" not in text
