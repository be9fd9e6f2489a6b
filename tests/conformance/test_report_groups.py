"""Failures that share one cause are shown once, with every case id; skips are collapsed and
come after the failures of their area; claimed areas come first."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest
from report_files import ReportFiles

from conformance import Capabilities, Check
from conformance._basics.text import markdown as markdown_text
from conformance._catalog.cases import Selection
from conformance._catalog.expected_failures import ExpectedFailure
from conformance._judging.records import PartRecord, Report, RunHeader
from conformance._report.groups import GROUP_MIN, failure_groups, normalise, split_message
from conformance._report.html import render_html
from conformance._report.jsonl import read_report
from conformance._report.markdown import render_markdown
from conformance._report.text import render_text


def record(
    case: str, message: str, *, outcome: str = "failed", part: str = "go", level: int = 1
) -> PartRecord:
    area, name = case.split(".", 1)[0], case.rsplit(".", 1)[-1]
    return PartRecord(
        case=case,
        area=area,
        level=level,
        requirement="MUST",
        description="",
        file=f"{area}/{name}.yaml",
        line=3,
        rules=(),
        part=part,
        outcome=outcome,
        message=message.format(file=f"{area}/{name}.yaml", name=name),
        duration=0.0,
        checks=(
            Check("scenario", "MUST", outcome == "passed", "" if outcome == "passed" else "x"),
        ),
        pack={"id": f"{name}-pack"},
    )


def report_of(
    *records: PartRecord,
    claims: dict[str, int] | None = None,
    expected: dict[str, str] | None = None,
) -> Report:
    header = RunHeader(
        adapter="toy",
        capabilities=Capabilities("toy", claims=claims or {}),
        selection=Selection(),
        catalog_hash="sha256:" + "0" * 32,
        catalog_cases=len({r.case for r in records}),
        parts=tuple((r.case, r.part) for r in records),
        expected_failures={
            case: ExpectedFailure(reason) for case, reason in (expected or {}).items()
        },
    )
    return Report(header, records)


# -- normalising --------------------------------------------------------------------------------


def test_the_case_specific_prefix_is_split_off() -> None:
    part = record(
        "workflow.t.a",
        "{file}:34: scenario 'go', step 2 (event Go (agent)): rejected with unknown-event, "
        "expected acceptance",
    )
    assert split_message(part) == (
        "workflow/a.yaml:34: scenario 'go', step 2 (event Go (agent))",
        "rejected with unknown-event, expected acceptance",
    )
    final = record("workflow.t.a", "{file}:40: scenario 'go': final: state: expected b, got a")
    assert split_message(final) == (
        "workflow/a.yaml:40: scenario 'go'",
        "final: state: expected b, got a",
    )
    no_line = record("workflow.t.a", "{file}: the runtime refused a pack it must load: no")
    assert split_message(no_line) == (
        "workflow/a.yaml",
        "the runtime refused a pack it must load: no",
    )
    assert split_message(record("workflow.t.a", "no answer within 1 s")) == (
        "",
        "no answer within 1 s",
    )


def test_quoted_values_of_the_case_are_elided_others_kept() -> None:
    part = record(
        "loops.t.bee",
        "adapter fault: crashed on pack '{name}-pack' (case \"loops.t.bee\", file 'x/y.json') "
        "at step 'go': unknown field 'workflow' in pack",
    )
    assert normalise(part) == (
        "adapter fault: crashed on pack '...' (case '...', file '...') at step '...': unknown "
        "field 'workflow' in pack"
    )
    other = record("loops.t.cee", "crashed on pack 'not-this-case'")
    assert normalise(other) == "crashed on pack 'not-this-case'"


# -- grouping -----------------------------------------------------------------------------------

REFUSED = "{file}:3: the runtime refused a pack it must load: unknown field 'workflow' in pack"
ACCEPTANCE = (
    "{file}:9: scenario 'go', step 1 (event Go): rejected with unknown-event, expected acceptance"
)
SKIP = "unsupported by the runtime: this runtime does not run compositions"


def test_parts_sharing_a_cause_are_one_entry_with_every_case_id() -> None:
    ids = [f"workflow.t.c{i}" for i in range(GROUP_MIN + 2)]
    report = report_of(*(record(case, REFUSED, level=0) for case in ids))
    text = render_text(report)
    cause = "the runtime refused a pack it must load: unknown field 'workflow' in pack"
    failures, summary = text.split("\nspec version ")
    assert failures.count(cause) == 1
    assert summary.count(f"  top cause: {len(ids)} cases: {cause}") == 1  # under the level table
    assert f"FAILED {len(ids)} parts (workflow L0 MUST): {cause}" in text
    for case in ids:
        assert f"{case} [go]" in text
        assert case in render_markdown(report)
    markdown = render_markdown(report)
    assert markdown.split("## Parts that did not pass")[1].count(cause) == 1
    assert f"- **failed**, {len(ids)} parts (L0 MUST): {cause}" in markdown
    details = markdown.split("<details><summary>")[1]
    assert details.startswith(f"the {len(ids)} parts ({len(ids)} cases)</summary>")
    for case in ids:  # each part keeps its place
        place = markdown_text(f"workflow/{case.rsplit('.', 1)[1]}.yaml:3")
        assert f"- `{case}` [go] L0 MUST: {place}\n" in details


def test_fewer_than_group_min_are_listed_one_by_one() -> None:
    ids = [f"workflow.t.c{i}" for i in range(GROUP_MIN - 1)]
    text = render_text(report_of(*(record(case, REFUSED) for case in ids)))
    for case in ids:
        assert f"FAILED {case} [go] (workflow L1 MUST)" in text.splitlines()
    assert " parts (" not in text


def test_failures_come_before_skips_and_skips_are_collapsed_per_area() -> None:
    records = [record(f"compositions.t.s{i}", SKIP, outcome="skipped", level=2) for i in range(5)]
    records.append(record("compositions.t.z-fails", ACCEPTANCE, level=2))
    records += [record(f"workflow.t.w{i}", ACCEPTANCE, level=2) for i in range(3)]
    report = report_of(*records, claims={"workflow": 2})
    (workflow, compositions) = failure_groups(report)
    assert (workflow.area, compositions.area) == ("workflow", "compositions")  # claimed first
    assert [g.tag for g in compositions.failures] == ["failed"]
    assert [g.tag for g in compositions.skipped] == ["skipped"]
    markdown = render_markdown(report)
    assert markdown.index("### workflow") < markdown.index("### compositions")
    section = markdown.split("### compositions")[1]
    assert section.index("compositions.t.z-fails") < section.index("skipped")
    assert "<details><summary>5 parts skipped (1 cause)</summary>" in section
    skipped = section.split("<details><summary>5 parts skipped")[1].split("</details>")[0]
    assert f"- **skipped**, 5 parts (L2 MUST): {SKIP}: " in skipped
    for i in range(5):
        assert f"`compositions.t.s{i} [go]`" in skipped
    text = render_text(report)
    assert text.index("FAILED compositions.t.z-fails") < text.index("SKIPPED 5 parts")


def test_expected_failures_are_grouped_apart_with_their_reason() -> None:
    ids = [f"workflow.t.x{i}" for i in range(GROUP_MIN)]
    report = report_of(
        *(record(case, ACCEPTANCE) for case in [*ids, "workflow.t.other"]),
        expected=dict.fromkeys(ids, "sessions are not implemented"),
    )
    text = render_text(report).splitlines()
    at = next(i for i, line in enumerate(text) if line.startswith("XFAIL "))
    assert text[at] == (
        f"XFAIL {GROUP_MIN} parts (workflow L1 MUST): rejected with unknown-event, expected "
        "acceptance"
    )
    assert text[at + 1] == "  expected: sessions are not implemented"
    assert (
        text[at + 2] == "  workflow.t.x0 [go]: workflow/x0.yaml:9: scenario 'go', step 1 (event Go)"
    )
    assert "FAILED workflow.t.other [go] (workflow L1 MUST)" in text
    assert text.index("FAILED workflow.t.other [go] (workflow L1 MUST)") < at
    markdown = render_markdown(report)
    assert "- **failed** (expected: sessions are not implemented), 3 parts" in markdown


# -- whole runs ---------------------------------------------------------------------------------


def ids_not_passing(path: Path) -> set[str]:
    return {r.case for r in read_report(path).records if not r.passed}


@pytest.mark.usefixtures("cached_catalog", "fakes_importable")
def test_a_runtime_refusing_every_pack_shows_the_cause_once_per_area(
    report_file: ReportFiles,
) -> None:
    path = report_file("fakes:RejectsWorkflows")
    report = read_report(path)
    cause = "the runtime refused a pack it must load: unknown field 'workflow' in pack"
    refused = [r for r in report.records if r.message.endswith(cause)]
    areas = {r.area for r in refused}
    assert len(refused) > 3 * len(areas)  # many parts, one cause
    text, markdown = render_text(report), render_markdown(report)
    counts = {area: sum(1 for r in refused if r.area == area) for area in areas}
    # Once per area, where enough parts share the cause to group them; else once per part.
    shown = sum(1 if count >= GROUP_MIN else count for count in counts.values())
    assert 1 < shown < len(refused)
    failures = text.split("\nspec version ")[0]
    assert failures.count(cause) == shown
    assert markdown.split("## Parts that did not pass")[1].count(cause) == shown
    for area, count in counts.items():
        if count >= GROUP_MIN:
            assert re.search(
                rf"^FAILED {count} parts \({area} L[-0-9]+ [A-Z/]+\): {re.escape(cause)}$",
                text,
                re.M,
            )
    for case in ids_not_passing(path):  # never dropped
        assert case in text
        assert case in markdown
    assert len(text.splitlines()) < len(report.records)


@pytest.mark.usefixtures("cached_catalog", "fakes_importable")
@pytest.mark.parametrize("adapter", ["fakes:WorkflowsOnly", "fakes:ValidatesOnly"])
def test_without_compositions_the_markdown_does_not_open_with_skips(
    adapter: str, report_file: ReportFiles
) -> None:
    path = report_file(adapter)
    report = read_report(path)
    assert sum(1 for r in report.records if r.outcome == "skipped") > 100
    markdown = render_markdown(report)
    body = markdown.split("## Parts that did not pass")[1].splitlines()
    outside, inside = [], False
    for line in body:  # every skip is inside a collapsed block
        if line.startswith("<details><summary>"):
            inside = "skipped" in line
        elif line == "</details>":
            inside = False
        elif not inside:
            outside.append(line)
    assert not [line for line in outside if "**skipped**" in line]
    entries = [line for line in outside if line.startswith("- ")]
    if any(r.outcome == "failed" for r in report.records):
        assert "**failed**" in entries[0]
    for case in ids_not_passing(path):
        assert case in markdown
    assert len(markdown.splitlines()) < len(report.records) / 2


def _citing(part: PartRecord, requirement: str, statement: str) -> PartRecord:
    """``part`` failing one check of ``requirement`` that cites ``statement``."""
    check = Check("scenario", requirement, False, "x", statements=(statement,))  # type: ignore[arg-type]
    quote = {"source": "RFC 0009", "section": "S", "requirement": requirement, "quote": statement}
    return replace(part, requirement=requirement, checks=(check,), statements={statement: quote})


def test_a_groups_why_cites_its_highest_requirement_and_each_part_keeps_its_place() -> None:
    cause = 'status: expected "budget_exhausted", got "active"'
    ids = [f"loops.t.c{i}" for i in range(GROUP_MIN)]
    message = "{file}:7: scenario 'go', step 2 (event Retry): " + cause
    parts = [
        _citing(record(ids[0], message), "MAY", "a kit pick"),
        _citing(record(ids[1], message), "SHOULD", "advice"),
        _citing(record(ids[2], message), "MUST", "the blocking rule"),
    ]
    report = report_of(*parts)
    text = render_text(report)
    assert 'why: RFC 0009, S (the blocking rule, MUST): "the blocking rule"' in text
    assert "a kit pick, MAY" not in text
    for case in ids:
        name = case.rsplit(".", 1)[1]
        assert f"  {case} [go]: loops/{name}.yaml:7: scenario 'go', step 2 (event Retry)\n" in text
    markdown = render_markdown(report)
    assert '(why: RFC 0009, S (the blocking rule, MUST): "the blocking rule")' in markdown


def test_a_message_of_several_lines_is_shown_as_lines_each_escaped() -> None:
    stderr = "Traceback (most recent call last):\n  File 'x.pl', line 3\nDied\x1b[2J"
    message = "{file}:3: adapter fault: the process exited; adapter stderr: " + stderr
    text = render_text(report_of(record("workflow.t.crash", message)))
    assert "\\x0a" not in text
    assert "\x1b" not in text
    lines = text.splitlines()
    at = lines.index("FAILED workflow.t.crash [go] (workflow L1 MUST)")
    assert lines[at + 1].endswith("adapter stderr: Traceback (most recent call last):")
    assert lines[at + 2 : at + 4] == ["      File 'x.pl', line 3", "    Died\\x1b[2J"]


STDERR = (
    "Traceback (most recent call last):\r\n  File '<x>.pl', line 3\n\n  - Died\x1b[2J ::error::x"
)
"""An adapter's stderr: lines (one ended by ``\\r\\n``, one empty, one indented like a list
item), markup, a control character and a workflow command."""


def test_a_message_of_several_lines_is_shown_as_lines_in_markdown() -> None:
    message = "{file}:3: adapter fault: the process exited; adapter stderr: " + STDERR
    markdown = render_markdown(report_of(record("workflow.t.crash", message)))
    assert "x0a" not in markdown
    assert "x0d" not in markdown
    assert "\x1b" not in markdown
    lines = markdown.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("- `workflow.t.crash` [go]"))
    assert lines[at].endswith("adapter stderr: Traceback (most recent call last):<br>")
    # Each line stays in the list item: indented, escaped, none starting a block of its own.
    assert lines[at + 1 : at + 4] == [
        "  &nbsp;&nbsp;File '\\<x\\>.pl', line 3<br>",
        "  <br>",
        "  &nbsp;&nbsp;\\- Died\\\\x1b\\[2J \\::error::x",
    ]


def test_a_message_of_several_lines_is_shown_as_lines_in_html() -> None:
    message = "{file}:3: adapter fault: the process exited; adapter stderr: " + STDERR
    page = render_html(report_of(record("workflow.t.crash", message)))
    assert (
        '<pre class="message">workflow/crash.yaml:3: adapter fault: the process exited; '
        "adapter stderr: Traceback (most recent call last):\n"
        "  File &#x27;&lt;x&gt;.pl&#x27;, line 3\n\n  - Died\\x1b[2J ::error::x</pre>"
    ) in page
    assert "\x1b" not in page
