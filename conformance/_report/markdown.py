"""The Markdown view of a run, for a CI step summary: levels, why, failures, findings."""

from __future__ import annotations

from conformance._levels import describe_level
from conformance._records import Report
from conformance._report.text import (
    LEVEL_HEADERS,
    claimed_first,
    finding_groups,
    headline_line,
    level_rows,
)
from conformance._verdicts import judge_report


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(report: Report) -> str:
    """A Markdown summary of a run."""
    header = report.header
    capabilities = header.capabilities
    levels = report.levels()
    judgement = judge_report(report)
    title = f"{capabilities.name} {capabilities.version}".strip()
    lines = [f"# ppconf: {title}", ""]
    lines.append(
        f"Spec version **{levels.spec_version}**, adapter `{header.adapter}`, "
        f"kit {header.kit_version}, catalog `{header.catalog_hash}`."
    )
    lines.append("")
    if levels.partial:
        lines += [
            "**Partial selection: these levels describe only the cases run and certify nothing.**",
            "",
        ]
    if not report.complete:
        lines += ["**The run did not finish; these are the results it has.**", ""]
    lines += [
        f"**{headline_line(levels)}**",
        "",
        "| " + " | ".join(LEVEL_HEADERS) + " |",
        "|" + "---|" * len(LEVEL_HEADERS),
    ]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in level_rows(levels)]
    lines.append("")
    for area in levels.areas:
        lines.append(f"- **{area.area}** ({describe_level(area.level)}): {_cell(area.reason)}")
    for note in levels.claim_notes:
        lines.append(f"- claim: {note}")
    counts = report.counts()
    lines += ["", ", ".join(f"{n} {outcome}" for outcome, n in counts.items() if n), ""]
    if judgement.problems:
        lines += [f"> {problem}" for problem in judgement.problems] + [""]
    failing = claimed_first(report, (r for r in report.records if not r.passed))
    if failing:
        lines += ["## Parts that did not pass", ""]
        heading = None
        for record in failing:
            if record.area != heading:
                heading = record.area
                lines += ["", f"### {heading}", ""]
            entry = header.expected_failures.get(record.case)
            expected = f" (expected: {_cell(entry.reason)})" if entry else ""
            lines.append(
                f"- `{record.case}` [{record.part}] L{record.level} {record.requirement}, "
                f"**{record.outcome}**{expected}: {_cell(record.message)}"
            )
        lines.append("")
    groups = finding_groups(report.records)
    if groups:
        lines += ["## Findings (SHOULD and MAY checks that failed in parts that pass)", ""]
        for (requirement, kind), items in groups.items():
            lines += ["", f"### {requirement} {kind} ({len(items)})", ""]
            lines += [f"- {_cell(item)}" for item in items]
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"
