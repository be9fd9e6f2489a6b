"""The breakers half of ``ppconf coverage``: text, Markdown and HTML views.

Per source and area, the share of schema constraints whose every standard breaker a MUST check
catches (SEMANTICS R16); then each constraint with breakers missing, and the RFC fragments no
published schema states alike, listed apart. The HTML view lists every constraint with its
quote, its breakers caught and missing, and the written cases citing it. Every string from the
catalog is escaped in the view it lands in.
"""

from __future__ import annotations

from collections.abc import Sequence

from conformance._basics.tables import render_table
from conformance._basics.text import html_text, markdown, markdown_code, terminal_lines
from conformance._judging.breaker_coverage import ConstraintBreakers, SourceBreakers

__all__ = ["render_breakers_html", "render_breakers_markdown", "render_breakers_text"]

_NOT_TESTED = "- (not tested: part or version)"


def _share(full: int, total: int) -> str:
    return f"{full}/{total} ({100.0 * full / total:.0f}%)"


def _gaps(source: SourceBreakers) -> list[ConstraintBreakers]:
    return [r for r in source.constraints if r.counted and not r.full]


def render_breakers_text(sources: Sequence[SourceBreakers]) -> str:
    """Per source and area the constraints fully covered, then each constraint of the
    catalog's parts with breakers missing."""
    headers = ["source", "area", "constraints", "fully covered"]
    rows = [
        [source.source, area if area != "-" else _NOT_TESTED, str(total), _share(full, total)]
        for source in sources
        for area, (full, total) in source.areas().items()
    ]
    lines = ["schema constraints by breaker (R16):", render_table(headers, rows), ""]
    for source in sources:
        gaps = _gaps(source)
        if gaps:
            lines.append(f"{source.source}: constraints with breakers no MUST check catches:")
            lines += [f"  {r.statement.id}: missing {', '.join(r.missing)}" for r in gaps]
    differs = [r for s in sources for r in s.constraints if r.apart]
    if differs:
        lines.append(
            "RFC fragments no published schema states alike (their own breakers are MAY, R16; "
            "not counted):"
        )
        lines += [
            f"  {r.statement.id}: {', '.join(r.missing) or 'none'} not caught" for r in differs
        ]
    return terminal_lines("\n".join(lines).rstrip()) + "\n"


def render_breakers_markdown(sources: Sequence[SourceBreakers]) -> str:
    """The same as :func:`render_breakers_text`, in Markdown."""
    lines = [
        "## Schema constraints by breaker",
        "",
        "| source | area | constraints | fully covered |",
        "|---|---|---|---|",
    ]
    for source in sources:
        for area, (full, total) in source.areas().items():
            lines.append(
                f"| {markdown(source.source)} | {markdown(area)} | {total} | {full}/{total} |"
            )
    for source in sources:
        gaps = _gaps(source)
        if gaps:
            lines += ["", f"### {markdown(source.source)}: breakers no MUST check catches"]
            lines += [
                f"- {markdown_code(r.statement.id)}: {markdown(', '.join(r.missing))}" for r in gaps
            ]
    return "\n".join(lines) + "\n"


def _status(row: ConstraintBreakers) -> tuple[str, str]:
    """The row's status and its CSS class (the coverage page's)."""
    if row.apart:
        return "apart (MAY)", "untestable"
    if row.area is None:
        return "not tested", "untestable"
    return ("full", "covered") if row.full else ("missing", "partial")


def render_breakers_html(sources: Sequence[SourceBreakers]) -> str:
    """A section for the coverage page: the shares, then every constraint, those with
    breakers missing first."""
    e = html_text
    out = [
        '<h2 id="breakers">Schema constraints by breaker</h2>',
        '<div class="wrap"><table><thead><tr><th>source</th><th>area</th><th>constraints</th>'
        "<th>fully covered</th></tr></thead><tbody>",
        *(
            f"<tr><td>{e(source.source)}</td><td>{e(area if area != '-' else _NOT_TESTED)}</td>"
            f"<td>{total}</td><td>{e(_share(full, total))}</td></tr>"
            for source in sources
            for area, (full, total) in source.areas().items()
        ),
        "</tbody></table></div>",
        '<div class="wrap"><table><thead><tr><th>constraint</th><th>status</th>'
        "<th>caught</th><th>missing</th><th>written cases</th></tr></thead><tbody>",
    ]
    order = ("missing", "apart (MAY)", "not tested", "full")
    rows = [r for source in sources for r in source.constraints]
    for row in sorted(rows, key=lambda r: order.index(_status(r)[0])):
        status, css = _status(row)
        written = ", ".join(f"<code>{e(case)}</code>" for case in row.written)
        out.append(
            f"<tr><td><code>{e(row.statement.id)}</code> <small>{e(row.constraint)}</small>"
            f"<blockquote>{e(row.statement.quote)}</blockquote></td>"
            f'<td class="status {css}">{e(status)}</td>'
            f"<td>{e(', '.join(row.exercised)) or '&mdash;'}</td>"
            f"<td>{e(', '.join(row.missing)) or '&mdash;'}</td>"
            f"<td>{written or '&mdash;'}</td></tr>"
        )
    out.append("</tbody></table></div>")
    return "\n".join(out) + "\n"
