"""The Markdown view of a run, for a CI step summary: levels, why, failures, findings.

Every string from the runtime or the report goes through :func:`conformance._basics.text.markdown`
(or :func:`~conformance._basics.text.markdown_code`): it renders as the text it is, one line, cut
when long; no heading, tag, image or table cell of its own.
"""

from __future__ import annotations

from conformance._basics.text import cut, markdown, markdown_code, text_lines
from conformance._judging.explain import group_why_lines, rerun_lines, why_lines
from conformance._judging.levels import describe_level
from conformance._judging.records import PartRecord, Report, RunHeader
from conformance._judging.verdicts import judge_report
from conformance._report.groups import (
    TAGS,
    FailureGroup,
    failure_groups,
    split_message,
    top_causes,
)
from conformance._report.text import LEVEL_HEADERS, finding_groups, headline_line, level_rows

__all__ = ["render_failure_groups", "render_markdown"]

_cell = markdown


def _part(record: PartRecord, detail: str) -> str:
    return f"- {_place(record)} L{record.level} {record.requirement}" + (
        f": {_cell(detail)}" if detail else ""
    )


def _message(message: str) -> str:
    """A failure message, its lines (an adapter's stderr) kept as lines of the list item: each
    escaped, ended by a ``<br>`` of the view's own, its indent written as no-break spaces (an
    indented ``- x`` would start a list of its own)."""
    return "<br>\n  ".join(_line(line) for line in text_lines(cut(message)))


def _line(line: str) -> str:
    text = line.lstrip(" \t")
    indent = len(line[: len(line) - len(text)].expandtabs(4))
    return "&nbsp;" * indent + markdown(text, limit=max(len(text), 1))


def _place(record: PartRecord) -> str:
    """```case-id` [part]``: a part, its name escaped (the brackets around it make no link:
    no link definition can follow them)."""
    return f"{markdown_code(record.case)} [{_cell(record.part)}]"


def _where(record: PartRecord) -> str:
    """What tells one part of a group from the others: its place, or its whole message when
    normalising changed more than the prefix."""
    where, cause = split_message(record)
    return where if record.message.endswith(cause) else record.message


def _group_lines(
    group: FailureGroup, *, inline: bool, header: RunHeader | None = None
) -> list[str]:
    """A group: its parts one by one, or the cause once and its parts after it (collapsed in a
    ``<details>`` block, or inline inside one already)."""
    expected = f" (expected: {_cell(group.expected)})" if group.expected is not None else ""
    if not group.grouped:
        lines = []
        for r in group.records:
            lines.append(
                f"- {_place(r)} L{r.level} {r.requirement}, **{r.outcome}**{expected}: "
                f"{_message(r.message)}"
            )
            lines += [f"  - why: {_cell(line)}" for line in why_lines(r, limit=1)]
            if header is not None and r.outcome != "skipped":
                lines += [f"  - rerun: `{_cell(line)}`" for line in rerun_lines(header, r)]
        return lines
    outcomes = "/".join(o for o in TAGS if o in {r.outcome for r in group.records})
    head = (
        f"- **{outcomes}**{expected}, {len(group.records)} parts "
        f"({group.scope()}): {_cell(group.cause)}"
    )
    why = group_why_lines(group.records)
    if why:
        head += f" (why: {_cell(why[0])})"
    if inline:
        return [head + ": " + ", ".join(markdown_code(m) for m in group.members())]
    cases = len(group.cases)
    return [
        head,
        "",
        f"<details><summary>the {len(group.records)} parts ({cases} case"
        f"{'s' if cases != 1 else ''})</summary>",
        "",
        *(_part(r, _where(r)) for r in group.records),
        "",
        "</details>",
        "",
    ]


def render_failure_groups(report: Report) -> list[str]:
    """The parts that did not pass, per area (claimed areas first): failures, parts sharing a
    cause shown once with their parts collapsed; then the area's skipped parts, all collapsed
    in one block.

    Arguments:
        report: the run.
    """
    areas = failure_groups(report)
    if not areas:
        return []
    lines = ["## Parts that did not pass", ""]
    for area in areas:
        lines += [f"### {area.area}", ""]
        for group in area.failures:
            lines += _group_lines(group, inline=False, header=report.header)
        if area.skipped:
            count = sum(len(g.records) for g in area.skipped)
            causes = len(area.skipped)
            lines += [
                "",
                f"<details><summary>{count} part{'s' if count != 1 else ''} skipped "
                f"({causes} cause{'s' if causes != 1 else ''})</summary>",
                "",
            ]
            for group in area.skipped:
                lines += _group_lines(group, inline=True)
            lines += ["", "</details>"]
        lines.append("")
    return lines


def render_markdown(report: Report) -> str:
    """A Markdown summary of a run."""
    header = report.header
    capabilities = header.capabilities
    levels = report.levels()
    judgement = judge_report(report)
    title = f"{capabilities.name} {capabilities.version}".strip()
    lines = [f"# ppconf: {_cell(title)}: {judgement.label}", ""]
    lines.append(
        f"Spec version **{_cell(levels.spec_version)}**, adapter {markdown_code(header.adapter)}, "
        f"kit {_cell(header.kit_version)}, catalog {markdown_code(header.catalog_hash)}."
    )
    lines.append("")
    if levels.partial:
        lines += [
            "**Partial selection: these levels describe only the cases run and certify nothing.**",
            "",
        ]
    if not report.complete:
        lines += ["**The run did not finish; these are the results it has.**", ""]
    drift = report.drift()
    if drift:
        lines.append(
            f"**Kit {_cell(header.kit_version)} wrote this report with other rules than this "
            "kit's; shown here by this kit's:**"
        )
        lines += [f"- {_cell(note)}" for note in drift] + [""]
    lines += [
        f"**{_cell(headline_line(levels))}**",
        "",
        "| " + " | ".join(LEVEL_HEADERS) + " |",
        "|" + "---|" * len(LEVEL_HEADERS),
    ]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in level_rows(levels)]
    lines.append("")
    causes = top_causes(report)
    for area in levels.areas:
        lines.append(f"- **{area.area}** ({describe_level(area.level)}): {_cell(area.reason)}")
        lines += [f"  - top cause: {_cell(cause)}" for cause in causes.get(area.area, ())]
    for note in levels.claim_notes:
        lines.append(f"- claim: {_cell(note)}")
    counts = report.counts()
    lines += ["", ", ".join(f"{n} {outcome}" for outcome, n in counts.items() if n), ""]
    if judgement.incomplete:
        lines += [f"> INCOMPLETE: {judgement.incomplete}", ""]
    if judgement.problems:
        lines += [f"> {_cell(problem)}" for problem in judgement.problems] + [""]
    lines += render_failure_groups(report)
    groups = finding_groups(report.records)
    if groups:
        lines += ["## Findings (SHOULD and MAY checks that failed in parts that pass)", ""]
        for (requirement, kind), items in groups.items():
            lines += ["", f"### {requirement} {_cell(kind)} ({len(items)})", ""]
            lines += [f"- {_cell(item)}" for item in items]
        lines.append("")
    # Blocks end and start with blank lines; one between two blocks is enough.
    kept = [line for i, line in enumerate(lines) if line or (i > 0 and lines[i - 1])]
    return "\n".join(kept).strip("\n") + "\n"
