"""The context half of ``ppconf coverage``: text, Markdown and HTML views, and its JSON.

Per source and per area, the share of execution statements a MUST check exercises in every
context they apply in; then each statement not fully covered, with the contexts missing; the
HTML view lists every statement with its contexts exercised (and by which cases), missing, and
not applicable with the reason. Every string from the catalog is escaped in the view it lands in.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from conformance._basics.tables import render_table
from conformance._basics.text import html_text, markdown, markdown_code, terminal_lines
from conformance._catalog.contexts import NEVER_REQUIRED
from conformance._judging.context_coverage import (
    ContextCoverage,
    ContextTotals,
    context_totals,
)

__all__ = [
    "context_coverage_json",
    "render_context_html",
    "render_context_markdown",
    "render_context_text",
]


def _share(total: ContextTotals) -> str:
    percent = total.percent
    return f"{total.full}/{total.total}" + ("" if percent is None else f" ({percent:.0f}%)")


def context_coverage_json(rows: Sequence[ContextCoverage]) -> dict[str, Any]:
    """The ``contexts`` member of ``ppconf coverage --format json``."""
    sources, areas = context_totals(rows)
    return {
        "sources": [t.to_dict() for t in sources],
        "areas": [t.to_dict() for t in areas],
        "never_required": dict(NEVER_REQUIRED),
        "statements": [row.to_dict() for row in rows],
    }


def render_context_text(rows: Sequence[ContextCoverage]) -> str:
    """The per-source and per-area shares, then every statement not fully covered."""
    sources, areas = context_totals(rows)
    lines = [
        "execution statements fully covered in their contexts (SEMANTICS R16), by MUST checks:",
        render_table(["source", "fully covered"], [[t.name, _share(t)] for t in sources]),
        "",
        render_table(["area", "fully covered"], [[t.name, _share(t)] for t in areas]),
        "",
    ]
    for row in rows:
        if row.status == "undeclared":
            lines.append(
                f"  {row.statement.id}: not in the context table "
                "(cases/statements/contexts/): say where it applies"
            )
        elif row.status == "missing":
            lines.append(f"  {row.statement.id}: missing {', '.join(row.missing)}")
    return terminal_lines("\n".join(lines).rstrip()) + "\n"


def render_context_markdown(rows: Sequence[ContextCoverage]) -> str:
    sources, areas = context_totals(rows)
    lines = [
        "## Execution statements in their contexts",
        "",
        "| source or area | fully covered |",
        "|---|---|",
        *(f"| {markdown(t.name)} | {_share(t)} |" for t in [*sources, *areas]),
    ]
    gaps = [row for row in rows if row.status != "full"]
    if gaps:
        lines += ["", "### Contexts missing"]
        for row in gaps:
            missing = ", ".join(row.missing) if row.entry else "not in the context table"
            lines.append(f"- {markdown_code(row.statement.id)}: {markdown(missing)}")
    return "\n".join(lines) + "\n"


def render_context_html(rows: Sequence[ContextCoverage]) -> str:
    """A section for the coverage page: the shares, then every statement and its contexts."""
    e = html_text
    sources, areas = context_totals(rows)
    out = [
        '<h2 id="contexts">Execution statements in their contexts</h2>',
        '<div class="wrap"><table><thead><tr><th>source or area</th><th>fully covered</th>'
        "</tr></thead><tbody>",
        *(f"<tr><td>{e(t.name)}</td><td>{e(_share(t))}</td></tr>" for t in [*sources, *areas]),
        "</tbody></table></div>",
        '<div class="wrap"><table><thead><tr><th>statement</th><th>status</th>'
        "<th>exercised</th><th>missing</th><th>not applicable</th></tr></thead><tbody>",
    ]
    for row in sorted(rows, key=lambda r: ("undeclared", "missing", "full").index(r.status)):
        exercised = "<br>".join(
            f"{e(context)}: " + ", ".join(f"<code>{e(case)}</code>" for case in cases)
            for context, cases in sorted(row.exercised.items())
            if context in row.required
        )
        reasons = {} if row.entry is None else {**row.entry.not_applicable, **row.entry.left_out}
        why = "<br>".join(f"{e(d)}: {e(reason)}" for d, reason in sorted(reasons.items()))
        status = row.status
        css = {"full": "covered", "missing": "partial", "undeclared": "not-covered"}[status]
        out.append(
            f"<tr><td><code>{e(row.statement.id)}</code>"
            f"<blockquote>{e(row.statement.quote)}</blockquote></td>"
            f'<td class="status {css}">{e(status)}</td>'
            f"<td>{exercised or '&mdash;'}</td>"
            f"<td>{e(', '.join(row.missing)) or '&mdash;'}</td>"
            f"<td><small>{why or '&mdash;'}</small></td></tr>"
        )
    out.append("</tbody></table></div>")
    return "\n".join(out) + "\n"
