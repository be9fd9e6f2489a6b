"""Many runtimes on one page: the reports of several runs side by side.

Runtimes are columns (name, version, language, spec version, claims, verdict); the areas and
their levels are the first rows, then every case part on which the runtimes' outcomes differ,
each with every runtime's outcome. Reports of different spec versions or catalogs are aligned
on the case parts they share, and the page says so first: each runtime's levels stay those of
its own run, at its own spec version, and only the shared parts are compared. Reports sharing no
part cannot be compared and are refused.

Views: :func:`render_matrix_html` (a cell that did not pass links to that runtime's failure
box, shown when its link is followed: no script), :func:`render_matrix_markdown` and
:func:`render_matrix_text`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from conformance._basics.errors import KitError
from conformance._basics.tables import render_table
from conformance._basics.text import html_text, markdown, markdown_code, terminal
from conformance._judging.levels import AreaLevel, describe_level
from conformance._judging.records import PartRecord, Report
from conformance._judging.verdicts import judge_report
from conformance._report import html as page
from conformance._report.groups import area_order

__all__ = [
    "Matrix",
    "MatrixError",
    "Row",
    "build_matrix",
    "render_matrix_html",
    "render_matrix_markdown",
    "render_matrix_text",
]


class MatrixError(KitError):
    """Reports that cannot be put side by side (what, and how to fix it)."""


@dataclass(frozen=True)
class Row:
    """A case part on which the runtimes differ: its coordinates and each runtime's record."""

    case: str
    part: str
    area: str
    level: int
    requirement: str
    records: tuple[PartRecord, ...]

    @property
    def outcomes(self) -> tuple[str, ...]:
        return tuple(r.outcome for r in self.records)


@dataclass(frozen=True)
class Matrix:
    """Several reports side by side.

    Attributes:
        reports: the runs, one per column, in the order given.
        labels: where each came from (its file), as given.
        notes: what a reader must know first: reports of different spec versions or catalogs,
            aligned on the parts they share; partial or unfinished runs.
        shared: how many case parts every report holds (those compared).
        rows: the shared parts on which the outcomes differ, claimed areas first, then in the
            first report's order.
        areas: every area any report assesses, in the kit's order.
    """

    reports: tuple[Report, ...]
    labels: tuple[str, ...]
    notes: tuple[str, ...]
    shared: int
    rows: tuple[Row, ...]
    areas: tuple[str, ...]

    def name(self, index: int) -> str:
        """Column ``index``'s runtime: name and version (else the adapter spec); with its
        adapter and report file when another column names the same runtime (two runs of one
        runtime, or two adapters of it), so that every column is told apart."""
        own = self._runtime(index)
        if sum(self._runtime(i) == own for i in range(len(self.reports))) == 1:
            return own
        return f"{own} ({self.reports[index].header.adapter}, {self.labels[index]})"

    def _runtime(self, index: int) -> str:
        capabilities = self.reports[index].header.capabilities
        return (
            f"{capabilities.name} {capabilities.version}".strip()
            or self.reports[index].header.adapter
        )


def build_matrix(reports: Sequence[Report], labels: Sequence[str]) -> Matrix:
    """Put ``reports`` side by side.

    Raises:
        MatrixError: fewer than two reports, or reports that share no case part.
    """
    if len(reports) < 2:
        raise MatrixError("a matrix needs two reports or more (one report: `ppconf report FILE`)")
    keyed = [{(r.case, r.part): r for r in report.records} for report in reports]
    first = reports[0]
    shared_keys = [
        (r.case, r.part) for r in first.records if all((r.case, r.part) in k for k in keyed[1:])
    ]
    if not shared_keys:
        raise MatrixError(
            "the reports share no case part, so there is nothing to compare: "
            + "; ".join(
                f"{label}: spec version {report.header.selection.spec_version}, "
                f"{len(report.records)} part(s)"
                for label, report in zip(labels, reports, strict=True)
            )
            + " (run the runtimes on the same catalog and spec version)"
        )
    notes = _notes(reports, labels, len(shared_keys))
    claims = {area for report in reports for area in report.header.capabilities.claims}
    rows = []
    for key in shared_keys:
        records = tuple(k[key] for k in keyed)
        if len({r.outcome for r in records}) > 1:
            head = records[0]
            rows.append(Row(key[0], key[1], head.area, head.level, head.requirement, records))
    order = area_order(claims, (row.area for row in rows))
    rows.sort(key=lambda row: order.index(row.area))  # stable: the first report's order within
    areas = area_order((), (a.area for report in reports for a in report.levels().areas))
    return Matrix(
        tuple(reports), tuple(labels), tuple(notes), len(shared_keys), tuple(rows), tuple(areas)
    )


def _notes(reports: Sequence[Report], labels: Sequence[str], shared: int) -> list[str]:
    notes = []
    versions: dict[str, list[str]] = {}
    catalogs: dict[str, list[str]] = {}
    for label, report in zip(labels, reports, strict=True):
        versions.setdefault(report.header.selection.spec_version, []).append(label)
        catalogs.setdefault(report.header.catalog_hash, []).append(label)
    counts = ", ".join(str(len(report.records)) for report in reports)
    aligned = (
        f"the cases are compared on the {shared} case part(s) every report holds "
        f"(of {counts} part(s))"
    )
    if len(versions) > 1:
        each = "; ".join(f"{v}: {', '.join(files)}" for v, files in sorted(versions.items()))
        notes.append(
            f"These reports target different spec versions ({each}). Each runtime's levels are "
            f"those of its own run, at its own spec version; {aligned}."
        )
    elif len(catalogs) > 1:
        notes.append(
            f"These reports ran different catalogs (different kit versions, or a changed case): "
            f"each runtime's levels are those of its own run; {aligned}."
        )
    elif any(len(report.records) != shared for report in reports):
        notes.append(f"Not every report holds the same parts: {aligned}.")
    for label, report in zip(labels, reports, strict=True):
        if not report.complete:
            notes.append(f"{label}: the run did not finish; its column shows what it holds.")
        elif report.levels().partial:
            notes.append(f"{label}: a partial selection; its levels certify nothing.")
    return notes


# -- shared words -------------------------------------------------------------------------------


def _claims(report: Report) -> str:
    claims = report.header.capabilities.claims
    return ", ".join(f"{area} {level}" for area, level in sorted(claims.items())) or "none"


def _verdict(report: Report) -> str:
    return judge_report(report).label


def _cell(area: AreaLevel | None) -> str:
    """An area's level in one column, as text: ``2 of 2 (MUST 99/99)``."""
    if area is None:
        return "not in its spec version"
    if area.level is None:
        return "not assessed"
    return f"{describe_level(area.level)} of {area.top} (MUST {area.must[0]}/{area.must[1]})"


def _headline(report: Report) -> str:
    levels = report.levels()
    return describe_level(levels.headline)


# -- text and Markdown --------------------------------------------------------------------------


def _level_table(matrix: Matrix) -> tuple[list[str], list[list[str]]]:
    headers = ["", *(matrix.name(i) for i in range(len(matrix.reports)))]
    rows = [
        ["report", *matrix.labels],
        ["adapter", *(r.header.adapter for r in matrix.reports)],
        ["language", *(r.header.capabilities.language or "-" for r in matrix.reports)],
        ["spec version", *(r.header.selection.spec_version for r in matrix.reports)],
        ["claims", *(_claims(r) for r in matrix.reports)],
        ["verdict", *(_verdict(r) for r in matrix.reports)],
        ["headline level", *(_headline(r) for r in matrix.reports)],
    ]
    for area in matrix.areas:
        rows.append([area, *(_cell(r.levels().area(area)) for r in matrix.reports)])
    return headers, rows


def render_matrix_text(matrix: Matrix) -> str:
    """The matrix as plain-text tables, for a terminal."""
    lines = [f"{len(matrix.reports)} runtimes side by side", ""]
    lines += [f"note: {terminal(note)}" for note in matrix.notes]
    headers, rows = _level_table(matrix)
    lines += ["", _text_table(headers, rows), ""]
    lines.append(f"{len(matrix.rows)} of {matrix.shared} shared case parts differ")
    if matrix.rows:
        names = [matrix.name(i) for i in range(len(matrix.reports))]
        table = [
            [
                f"{row.case} [{row.part}]",
                f"{row.area} L{row.level} {row.requirement}",
                *row.outcomes,
            ]
            for row in matrix.rows
        ]
        lines += [_text_table(["case [part]", "area", *names], table)]
    return "\n".join(lines) + "\n"


def _text_table(headers: list[str], rows: list[list[str]]) -> str:
    """A plain-text table of report strings, each shown as :func:`terminal` shows text."""
    return render_table(
        [terminal(h) for h in headers], [[terminal(c) for c in row] for row in rows]
    ).rstrip("\n")


_md = markdown


def render_matrix_markdown(matrix: Matrix) -> str:
    """The matrix as Markdown tables, each runtime's messages of the differing parts folded."""
    count = len(matrix.reports)
    lines = [f"# ppconf: {count} runtimes side by side", ""]
    lines += [f"> {_md(note)}" for note in matrix.notes]
    headers, rows = _level_table(matrix)
    lines += ["", "| " + " | ".join(_md(h) for h in headers) + " |", "|---" * len(headers) + "|"]
    lines += ["| " + " | ".join(_md(c) for c in row) + " |" for row in rows]
    lines += ["", f"## Where they differ: {len(matrix.rows)} of {matrix.shared} shared parts", ""]
    names = [matrix.name(i) for i in range(count)]
    area = None
    for row in matrix.rows:
        if row.area != area:
            area = row.area
            lines += ["", f"### {area}", ""]
            lines += ["| case [part] | " + " | ".join(_md(n) for n in names) + " |"]
            lines += ["|---" * (count + 1) + "|"]
        outcomes = " | ".join(o if o == "passed" else f"**{o}**" for o in row.outcomes)
        lines.append(
            f"| {markdown_code(row.case)} \\[{_md(row.part)}\\] L{row.level} {row.requirement} "
            f"| {outcomes} |"
        )
    for index, name in enumerate(names):
        failing = [row.records[index] for row in matrix.rows if not row.records[index].passed]
        if not failing:
            continue
        lines += [
            "",
            # One line of HTML in Markdown: newlines and workflow commands written out too.
            f"<details><summary>{html_text(terminal(name))}: {len(failing)} part(s) that did "
            "not pass "
            "where the others differ</summary>",
            "",
        ]
        lines += [
            f"- {markdown_code(r.case)} \\[{_md(r.part)}\\] **{r.outcome}**: {_md(r.message)}"
            for r in failing
        ]
        lines += ["", "</details>"]
    return "\n".join(lines).strip("\n") + "\n"


# -- HTML ---------------------------------------------------------------------------------------


def _anchor(index: int, record: PartRecord) -> str:
    return f"r{index + 1}-{page.slug(record.case)}-{page.slug(record.part)}"


def _row_anchor(row: Row) -> str:
    return f"row-{page.slug(row.case)}-{page.slug(row.part)}"


def render_matrix_html(matrix: Matrix) -> str:
    """The matrix as one self-contained page (no script, nothing fetched)."""
    e = page.escape
    count = len(matrix.reports)
    names = [matrix.name(i) for i in range(count)]
    title = f"ppconf: {count} runtimes side by side"
    out = [
        *page.head(title, extra_css=_CSS),
        "<header>",
        '<p class="kicker">ppconf conformance matrix</p>',
        f"<h1>{e(', '.join(names))}</h1>",
    ]
    out += [f'<p class="banner aligned">{e(note)}</p>' for note in matrix.notes]
    out += ["</header>", "<main>", '<section id="levels">', "<h2>Levels</h2>"]
    out += ['<div class="scroll"><table class="matrix levels">', "<thead>", "<tr><td></td>"]
    for index, report in enumerate(matrix.reports):
        capabilities = report.header.capabilities
        verdict = _verdict(report)
        out.append(
            f'<th scope="col" class="runtime"><span class="name">{e(names[index])}</span>'
            f"<small>{e(capabilities.language or '')}</small>"
            f'<small>spec <b class="spec">{e(report.header.selection.spec_version)}</b></small>'
            f"<small>claims {e(_claims(report))}</small>"
            f'<small class="file">{e(matrix.labels[index])}</small>'
            f'<span class="badge {verdict.lower()}">{verdict}</span>'
            f" <small>headline {e(_headline(report))}</small></th>"
        )
    out += ["</tr>", "</thead>", "<tbody>"]
    for area in matrix.areas:
        out.append(f'<tr><th scope="row" class="area-name">{e(area)}</th>')
        for report in matrix.reports:
            measured = report.levels().area(area)
            out.append(_level_td(measured))
        out.append("</tr>")
    out += ["</tbody>", "</table></div>", "</section>"]

    out += [
        '<section id="differ">',
        f"<h2>Where they differ <small>{len(matrix.rows)} of {matrix.shared} shared case"
        " parts</small></h2>",
    ]
    if not matrix.rows:
        out.append('<p class="none">Every shared case part ends the same way for all.</p>')
    current: str | None = None
    for row in matrix.rows:
        if row.area != current:
            if current is not None:
                out += ["</tbody></table></div>"]
            current = row.area
            out += [
                f'<h3 id="differ-{page.slug(current)}">{e(current)}</h3>',
                '<div class="scroll"><table class="matrix cases">',
                '<thead><tr><th scope="col">case [part]</th>',
                *(f'<th scope="col">{e(name)}</th>' for name in names),
                "</tr></thead><tbody>",
            ]
        out.append(
            f'<tr id="{_row_anchor(row)}"><th scope="row"><code>{e(row.case)}</code>'
            f" <small>[{e(row.part)}] L{row.level} {e(row.requirement)}</small></th>"
        )
        for index, record in enumerate(row.records):
            word = e(record.outcome)
            if record.passed:
                out.append(f'<td class="outcome passed">{word}</td>')
            else:
                link = f'<a href="#{_anchor(index, record)}">{word}</a>'
                out.append(f'<td class="outcome {word}">{link}</td>')
        out.append("</tr>")
    if current is not None:
        out += ["</tbody></table></div>"]
    out.append("</section>")

    out += [
        '<section id="boxes" class="boxes">',
        "<h2>Failure boxes <small>follow an outcome above to see its box here</small></h2>",
    ]
    for index, report in enumerate(matrix.reports):
        for row in matrix.rows:
            record = row.records[index]
            if record.passed:
                continue
            out += [
                f'<div class="box" id="{_anchor(index, record)}">',
                f'<p class="whose"><b>{e(names[index])}</b> on <code>{e(row.case)}</code>'
                f' [{e(row.part)}] <a href="#{_row_anchor(row)}">back to the matrix</a></p>',
                *page.failure_box(report, record),
                "</div>",
            ]
    out += ["</section>", "</main>", "</body>", "</html>"]
    return "\n".join(out) + "\n"


def _level_td(area: AreaLevel | None) -> str:
    e = page.escape
    if area is None:
        return '<td class="level none"><small>not in its spec version</small></td>'
    if area.level is None:
        return (
            '<td class="level none"><span class="pill">&#8211;</span>'
            " <small>not assessed</small></td>"
        )
    return (
        f'<td class="level {page.level_class(area)}"><span class="pill">'
        f"{e(describe_level(area.level))}</span> <small>of {area.top}</small>"
        f"<small>MUST {area.must[0]}/{area.must[1]}</small></td>"
    )


_CSS = """
table.matrix{border-collapse:collapse;background:var(--paper);font-size:.85rem;
border:1px solid var(--line)}
.matrix th,.matrix td{padding:.35rem .5rem;text-align:left;vertical-align:top;
border-top:1px solid var(--line);white-space:normal}
.matrix .runtime{min-width:5.5rem}
@media (max-width:40rem){.matrix th,.matrix td{padding:.3rem .25rem}}
.matrix thead th{background:#f1f5f9;font-weight:normal}
.matrix .runtime .name{display:block;font-weight:700;font-family:var(--mono)}
.matrix .runtime small{display:block}
.matrix .runtime .file{font-family:var(--mono);overflow-wrap:anywhere}
.matrix .area-name{font-family:var(--mono);font-weight:700;white-space:nowrap}
.matrix td.level small{display:block}
.matrix td.level.top .pill{background:var(--pass)}
.matrix td.level.short .pill{background:var(--warn)}
.matrix td.level.below .pill{background:var(--fail)}
.matrix.cases th small{display:block}
.matrix .outcome{font-weight:600;white-space:nowrap}
.matrix .outcome.passed{color:var(--pass);background:var(--pass-bg)}
.matrix .outcome.failed,.matrix .outcome.errored,.matrix .outcome.timeout,.matrix .outcome.flaky
{background:var(--fail-bg)}
.matrix .outcome.skipped{background:#f3f4f6}
.matrix .outcome a{color:var(--fail)}
.matrix .outcome.skipped a{color:var(--muted)}
.matrix tr:target{outline:3px solid #93c5fd}
.boxes .box{display:none}
.boxes .box:target{display:block}
.whose{margin:.8rem 0 .2rem;font-size:.9rem}
.banner.aligned{background:#eff6ff;border-color:#93c5fd}
""".strip()
