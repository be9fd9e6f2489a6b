"""The terminal view of a run: failures, findings, the level table and the verdict.

Every string from the runtime or the report goes through :func:`conformance._basics.text.terminal`:
control characters written out (no escape sequence reaches the terminal, no line of the
runtime's own), long strings cut.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from conformance._basics.tables import render_table
from conformance._basics.text import terminal, text_lines
from conformance._judging.explain import failure_lines, group_why_lines, why_lines
from conformance._judging.levels import LevelReport, describe_level
from conformance._judging.records import PartRecord, Report, RunHeader
from conformance._judging.verdicts import Judgement, judge_report
from conformance._report.groups import FailureGroup, failure_groups, gist, top_causes

LEVEL_HEADERS = ["area", "level", "top", "MUST", "SHOULD (advisory)", "MAY", "claimed"]
WIDTH = 100
"""The width lists of case ids are wrapped at."""
FINDINGS_SHOWN = 5
"""Findings listed one by one per kind in the terminal; the reports list every one."""


def level_rows(levels: LevelReport) -> list[list[str]]:
    """One row per area: level, top, MUST/SHOULD/MAY counts, the runtime's claim."""
    rows = []
    for area in levels.areas:
        percent = area.should_percent
        should = f"{area.should[0]}/{area.should[1]}"
        if percent is not None:
            should += f" ({percent:.0f}%)"
        claim = levels.claims.get(area.area)
        rows.append(
            [
                area.area,
                describe_level(area.level),
                str(area.top),
                f"{area.must[0]}/{area.must[1]}",
                should,
                f"{area.may[0]}/{area.may[1]}",
                "-" if claim is None else str(claim),
            ]
        )
    return rows


def scope_line(levels: LevelReport) -> str:
    """What the levels are about: the spec version, and whether they certify anything."""
    text = f"spec version {terminal(levels.spec_version)}"
    if levels.partial:
        text += "; PARTIAL selection: these levels describe only the cases run and certify nothing"
    return text


def headline_line(levels: LevelReport) -> str:
    covered = ", ".join(levels.headline_areas) or "none"
    which = "claimed areas" if any(a in levels.claims for a in levels.headline_areas) else "areas"
    return f"headline level: {describe_level(levels.headline)} (over the {which}: {covered})"


def render_levels(levels: LevelReport, causes: Mapping[str, list[str]] | None = None) -> str:
    """The level table, headline, why each area is at its level (with the top causes of the
    cases that block it), and claims called out."""
    lines = [
        scope_line(levels),
        render_table(LEVEL_HEADERS, level_rows(levels)),
        headline_line(levels),
    ]
    for area in levels.areas:
        lines.append(f"{area.area}: {terminal(area.reason)}")
        lines.extend(
            f"  top cause: {terminal(cause)}" for cause in (causes or {}).get(area.area, ())
        )
    lines.extend(f"claim: {terminal(note)}" for note in levels.claim_notes)
    return "\n".join(lines)


def wrap(items: Sequence[str], indent: str = "  ") -> list[str]:
    """``a, b, c`` in lines of at most :data:`WIDTH` characters, never breaking an item (an
    item longer than that has a line of its own)."""
    lines: list[str] = []
    line = ""
    for index, item in enumerate(items):
        text = item + ("," if index < len(items) - 1 else "")
        if line and len(indent) + len(line) + 1 + len(text) > WIDTH:
            lines.append(indent + line)
            line = ""
        line = f"{line} {text}" if line else text
    if line:
        lines.append(indent + line)
    return lines


def render_group(group: FailureGroup, header: RunHeader | None = None) -> list[str]:
    """One group of parts that did not pass: each part on its own (message below it, then why it
    was expected to fail, the statement that requires what failed, the commands that rerun it), or,
    for :data:`~conformance._report.groups.GROUP_MIN` parts or more, the cause once, the
    statement, and every part after it."""
    tag = group.tag.upper()
    expected = [f"  expected: {terminal(group.expected)}"] if group.expected is not None else []
    if not group.grouped:
        lines = []
        for record in group.records:
            lines.append(
                f"{tag} {record.case} [{terminal(record.part)}] "
                f"({record.area} L{record.level} {record.requirement})"
            )
            # A message of several lines (an adapter's stderr) is shown as lines, each
            # escaped, not as one line of \x0a escapes.
            first, *more = text_lines(record.message)
            lines.append(f"  {terminal(first)}")
            lines.extend(f"    {terminal(line)}" for line in more)
            lines.extend(expected)
            if header is not None:
                shown = failure_lines(
                    record, adapter=header.adapter, spec_version=header.selection.spec_version
                )
                lines.extend(f"  {terminal(line)}" for line in shown)
            else:
                lines.extend(f"  why: {terminal(line)}" for line in why_lines(record, limit=1))
        return lines
    return [
        f"{tag} {len(group.records)} parts ({group.area} {group.scope()}): {terminal(group.cause)}",
        *(f"  why: {terminal(line)}" for line in group_why_lines(group.records)),
        *expected,
        *(f"  {terminal(place)}" for place in group.places()),
    ]


def render_failures(report: Report) -> list[str]:
    """Every part that did not pass, per area (claimed areas first), failures before skips,
    parts that share a cause shown once; listed expected failures tagged XFAIL."""
    expected = report.header.expected_failures
    lines = [
        line
        for area in failure_groups(report)
        for group in area.groups
        for line in render_group(group, report.header)
    ]
    for case_id in sorted(expected):
        parts = [r for r in report.records if r.case == case_id]
        if parts and all(r.passed for r in parts):
            lines.append(f"XPASS {terminal(case_id)}: passes but is listed as an expected failure")
    return lines


def finding_groups(records: Iterable[PartRecord]) -> dict[tuple[str, str], list[str]]:
    """Findings grouped by requirement and kind of check: ``(MAY, "error ... at PATH")``."""
    groups: dict[tuple[str, str], list[str]] = {}
    for record in records:
        for check in record.findings:
            kind = _kind(check.id)
            groups.setdefault((check.requirement, kind), []).append(
                f"{record.case} [{record.part}] {check.id}: {gist(check.message)}"
            )
    return dict(sorted(groups.items(), key=lambda item: (item[0][0] != "SHOULD", item[0][1])))


def _kind(check_id: str) -> str:
    words = check_id.split(" ")
    if check_id.endswith(" code"):
        return "code of a rejection, refusal or failure"
    if " at " in check_id:
        return f"{words[0]} ... at PATH"
    return words[0]


def render_findings(report: Report) -> list[str]:
    """SHOULD and MAY checks that failed in cases that pass: grouped, counted, never dropped."""
    groups = finding_groups(report.records)
    if not groups:
        return []
    total = sum(len(items) for items in groups.values())
    lines = [f"findings ({total}): SHOULD and MAY checks that failed in parts that pass"]
    for (requirement, kind), items in groups.items():
        lines.append(f"  {requirement} {terminal(kind)}: {len(items)}")
        for item in items[:FINDINGS_SHOWN]:
            lines.append(f"    {terminal(item)}")
        if len(items) > FINDINGS_SHOWN:
            lines.append(f"    ... {len(items) - FINDINGS_SHOWN} more (all in --report md/json)")
    return lines


def counts_line(report: Report) -> str:
    counts = report.counts()
    shown = ", ".join(f"{n} {outcome}" for outcome, n in counts.items() if n)
    name = terminal(report.header.capabilities.name)
    return f"{sum(counts.values())} cases ({shown or 'none run'}) against {name}"


def render_text(report: Report, judgement: Judgement | None = None) -> str:
    """The whole terminal summary of a run."""
    judgement = judgement or judge_report(report)
    lines: list[str] = [*render_failures(report), *render_findings(report)]
    lines.append(render_levels(report.levels(), top_causes(report)))
    lines.append(counts_line(report))
    drift = report.drift()
    if drift:
        lines.append(
            f"note: kit {terminal(report.header.kit_version)} wrote this report with other rules "
            "than this kit's; shown here by this kit's:"
        )
        lines.extend(f"  {terminal(note)}" for note in drift)
    if not report.complete:
        lines.append("the run did not finish: these are the results it has")
    lines.extend(terminal(problem) for problem in judgement.problems)
    if judgement.incomplete:
        lines.append(f"{judgement.label}: {judgement.incomplete}")
    elif judgement.passed:
        claims = report.levels().claims
        lines.append(
            "PASSED: every check passes (strict)"
            if judgement.strict
            else "PASSED: the claimed areas reach their claimed levels"
            if claims
            else "PASSED: every MUST check passes"
        )
    return "\n".join(lines)


__all__: Sequence[str] = ["render_levels", "render_text"]
