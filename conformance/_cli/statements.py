"""``ppconf coverage`` and ``ppconf statements list|check``: the spec editor's workbench.

``coverage`` says, statement by statement, which cases test what the RFCs and schemas say and
how hard; ``statements list`` browses the registry; ``statements check SOURCE FILE`` reads a
revised RFC text against it: statements it no longer holds (and the cases citing them), and new
normative sentences no statement holds yet.
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from conformance._basics.errors import CaseError
from conformance._basics.tables import render_table
from conformance._basics.text import html_text, markdown, markdown_code, terminal_lines
from conformance._catalog.cases import Catalog, load_catalog
from conformance._catalog.contexts import load_context_table
from conformance._catalog.revision import Revision, check_revision, source_name, strongest
from conformance._catalog.schema_revision import check_schema_revision
from conformance._catalog.statements import Registry, Statement, load_registry
from conformance._cli.common import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_UNUSABLE,
    add_format_option,
    print_json,
    report_error,
)
from conformance._judging.breaker_coverage import breaker_coverage
from conformance._judging.context_coverage import context_coverage
from conformance._judging.coverage import (
    STATUSES,
    SourceCoverage,
    citations_of,
    coverage,
    merged_sources,
)
from conformance._judging.impact import Impact, impact_of, requirements_after
from conformance._options import percent
from conformance._report.jsonl import ReportError, read_report
from conformance._report.outputs import OutputError, write_output
from conformance._views.breaker_coverage import (
    render_breakers_html,
    render_breakers_markdown,
    render_breakers_text,
)
from conformance._views.context_coverage import (
    context_coverage_json,
    render_context_html,
    render_context_markdown,
    render_context_text,
)

KEYWORDS = ("MUST", "SHOULD", "MAY")
"""``--keyword``: the requirement a statement gives (its own keyword is shown beside it)."""


def add_statements_parsers(commands: Any) -> None:
    cover = commands.add_parser(
        "coverage",
        help="which statements of the RFCs and schemas the catalog tests, and how hard",
        description="For every statement of the registry, the cases and checks citing it, by "
        "requirement; per source the counts covered / partial / not covered / untestable "
        "(with the reason), testable MUST statements without a MUST check first.",
    )
    _catalog_options(cover)
    cover.add_argument(
        "--source",
        action="append",
        default=[],
        metavar="S",
        help="only this source ('RFC 0014', '0014', 'schema 1.9.0'); repeatable",
    )
    cover.add_argument(
        "--fail-under",
        type=percent,
        metavar="PCT",
        help="exit 1 when the testable MUST statements of a source shown are covered below PCT",
    )
    add_format_option(
        cover,
        schema="coverage.schema.json",
        views={"md": "Markdown", "html": "one self-contained page linking statements to cases"},
    )
    cover.add_argument("-o", "--output", metavar="PATH", help="write the view to PATH")
    cover.set_defaults(handler=_coverage)

    statements = commands.add_parser(
        "statements", help="browse the statement registry, or check a revised RFC text against it"
    )
    actions = statements.add_subparsers(dest="action", required=True, metavar="ACTION")
    listing = actions.add_parser("list", help="list statements (id, keyword, quote)")
    _catalog_options(listing)
    listing.add_argument("--source", action="append", default=[], metavar="S")
    listing.add_argument(
        "--keyword",
        action="append",
        default=[],
        choices=KEYWORDS,
        help="only statements giving this requirement (repeatable)",
    )
    listing.add_argument(
        "--untestable", action="store_true", help="only the statements no case can test"
    )
    add_format_option(listing, schema="statements-list.schema.json")
    listing.set_defaults(handler=_list)

    check = actions.add_parser(
        "check",
        help="read a revised RFC text against the registry (exit 1 when a statement is stale)",
        description="Statements of SOURCE whose quote FILE no longer holds verbatim (changed or "
        "removed), with the cases citing them; sentences of FILE with RFC 2119 keywords (or "
        "'is an error', 'is valid', 'warn') that no statement holds, as candidates with their "
        "section.",
    )
    check.add_argument("source", metavar="SOURCE", help="the source revised: 'RFC 0014', '0014'")
    check.add_argument(
        "file", metavar="FILE", help="the revised text (Markdown or plain text), or schema (JSON)"
    )
    check.add_argument(
        "--reports",
        nargs="+",
        default=[],
        metavar="REPORT",
        help="JSON Lines reports of runtimes (ppconf run --report json): the cases whose "
        "requirement the revision changes, and each area's level re-judged from the stored "
        "outcomes",
    )
    _catalog_options(check)
    add_format_option(check, schema="statements-check.schema.json")
    check.set_defaults(handler=_check)


def _catalog_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--catalog", metavar="DIR", help="a catalog folder (default: built-in)")
    parser.add_argument(
        "--extra-catalog",
        action="append",
        default=[],
        metavar="DIR",
        help="a folder of more cases, and of statements under its statements/ (repeatable)",
    )


def _load(args: argparse.Namespace) -> Catalog:
    return load_catalog(args.catalog, extra=args.extra_catalog)  # CaseError: see main()


def _sources(args: argparse.Namespace, registry: Registry) -> list[str] | None:
    known = merged_sources(registry)
    chosen = []
    for text in args.source:
        name = source_name(text, known)
        if name is None:
            report_error(f"no source {text!r} in the registry; its sources: {', '.join(known)}")
            return None
        chosen.append(name)
    return chosen


# -- coverage ---------------------------------------------------------------------------------


def _coverage(args: argparse.Namespace, out: TextIO) -> int:
    catalog = _load(args)
    registry = catalog.registry
    chosen = _sources(args, registry)
    if chosen is None:
        return EXIT_UNUSABLE
    sources = coverage(registry, catalog.cases, chosen)
    table = load_context_table(*([args.catalog] if args.catalog else []), *args.extra_catalog)
    contexts = context_coverage(registry, catalog.cases, table, chosen)
    breakers = breaker_coverage(registry, catalog.cases, chosen or ())
    if args.format == "json":
        text = None
        data: dict[str, Any] = {
            "sources": [s.to_dict() for s in sources],
            "breakers": [b.to_dict() for b in breakers],
        }
        if contexts:
            data["contexts"] = context_coverage_json(contexts)
    elif args.format == "md":
        text = render_coverage_markdown(sources)
        text += "\n" + render_context_markdown(contexts) if contexts else ""
        text += "\n" + render_breakers_markdown(breakers)
    elif args.format == "html":
        after = render_context_html(contexts) if contexts else ""
        after += render_breakers_html(breakers)
        text = render_coverage_html(sources, after=after)
    else:
        text = render_coverage_text(sources)
        text += "\n" + render_context_text(contexts) if contexts else ""
        text += "\n" + render_breakers_text(breakers)
    if args.output:  # `-` is stdout, as for every other output of the kit
        if text is None:
            text = json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
        try:
            write_output(args.output, text.encode("utf-8"), "the coverage", stdout=out)
        except OutputError as error:
            report_error(str(error))
            return EXIT_UNUSABLE
    elif text is None:
        print_json(data, out)
    else:
        out.write(text)
    if args.fail_under is not None:
        low = [
            s for s in sources if s.must_percent is not None and s.must_percent < args.fail_under
        ]
        if low:
            for s in low:
                report_error(
                    f"{s.source.name}: {s.must[0]}/{s.must[1]} testable MUST statements covered "
                    f"({s.must_percent:.0f}%), under {args.fail_under:g}%"
                )
            return EXIT_FAILED
    return EXIT_OK


def _percent(source: SourceCoverage) -> str:
    value = source.must_percent
    covered, testable = source.must
    return f"{covered}/{testable}" + ("" if value is None else f" ({value:.0f}%)")


def render_coverage_text(sources: Sequence[SourceCoverage]) -> str:
    """The per-source table, then each source's testable MUST gaps and untestable reasons."""
    headers = ["source", "revision", *STATUSES, "testable MUST covered"]
    rows = [
        [
            s.source.name,
            _short(s.source.revision),
            *(str(s.counts.get(status, 0)) for status in STATUSES),
            _percent(s),
        ]
        for s in sources
    ]
    lines = [render_table(headers, rows), ""]
    for source in sources:
        gaps = source.gaps()
        if gaps:
            lines.append(f"{source.source.name}: testable MUST statements without a MUST check:")
            for gap in gaps:
                shown = f" (cited only by weaker checks: {', '.join(gap.cases)})"
                lines.append(
                    f"  {gap.statement.id} [{gap.statement.section}]: "
                    f"{_short(gap.statement.quote, 100)}" + (shown if gap.citations else "")
                )
    untestable: dict[str, int] = {}
    for source in sources:
        for row in source.statements:
            if row.statement.untestable is not None:
                key = f"{source.source.name}: {row.statement.untestable}"
                untestable[key] = untestable.get(key, 0) + 1
    if untestable:
        lines.append("untestable, by reason (each statement says why: --format json or html):")
        lines += [f"  {key}: {count}" for key, count in untestable.items()]
    return terminal_lines("\n".join(lines).rstrip()) + "\n"


def render_coverage_markdown(sources: Sequence[SourceCoverage]) -> str:
    lines = [
        "# Statement coverage",
        "",
        "| source | revision | " + " | ".join(STATUSES) + " | testable MUST covered |",
        "|---|---|" + "---|" * len(STATUSES) + "---|",
    ]
    for s in sources:
        counts = " | ".join(str(s.counts.get(status, 0)) for status in STATUSES)
        lines.append(
            f"| {_md(s.source.name)} | {_md(_short(s.source.revision))} | {counts} "
            f"| {_percent(s)} |"
        )
    for source in sources:
        gaps = source.gaps()
        if gaps:
            lines += [
                "",
                f"## {_md(source.source.name)}: testable MUST statements without a MUST check",
            ]
            for gap in gaps:
                quote = _md(_short(gap.statement.quote, 160))
                code = markdown_code(gap.statement.id)
                lines.append(f"- {code} ({_md(gap.statement.section)}): {quote}")
    return "\n".join(lines) + "\n"


def _md(text: str) -> str:
    """Text as Markdown shows it, on one line (see :func:`conformance._basics.text.markdown`)."""
    return markdown(" ".join(text.split()))


def _short(text: str, width: int = 60) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 3] + "..."


_CSS = """
body{font:15px/1.45 system-ui,sans-serif;margin:0 auto;max-width:70rem;padding:1rem;color:#0f172a}
table{border-collapse:collapse;width:100%;margin:.5rem 0 1.5rem}
th,td{border-bottom:1px solid #e2e8f0;padding:.3rem .4rem;text-align:left;vertical-align:top}
.status{white-space:nowrap;font-weight:600}
.covered{color:#15803d}.partial{color:#b45309}.not-covered{color:#b91c1c}.untestable{color:#64748b}
blockquote{margin:.2rem 0;padding-left:.6rem;border-left:3px solid #cbd5e1;color:#334155}
code{font-size:.85em;word-break:break-all}
.wrap{overflow-x:auto}
"""


def render_coverage_html(sources: Sequence[SourceCoverage], after: str = "") -> str:
    """One self-contained page: the summary, then every statement with its quote, section,
    status, and the cases citing it (by check and requirement); ``after``, more sections of
    the page (HTML the caller has escaped)."""
    e = html_text
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<meta http-equiv="Content-Security-Policy"'
        " content=\"default-src 'none'; style-src 'unsafe-inline'\">",
        f"<title>ppconf: statement coverage</title><style>{_CSS}</style></head><body>",
        "<h1>Statement coverage</h1>",
        '<div class="wrap"><table><thead><tr><th>source</th><th>revision</th>',
        *(f"<th>{e(status)}</th>" for status in STATUSES),
        "<th>testable MUST covered</th></tr></thead><tbody>",
    ]
    for s in sources:
        anchor = _anchor(s.source.name)
        out.append(
            f'<tr><td><a href="#{anchor}">{e(s.source.name)}</a></td>'
            f"<td>{e(s.source.revision)}</td>"
            + "".join(f"<td>{s.counts.get(status, 0)}</td>" for status in STATUSES)
            + f"<td>{e(_percent(s))}</td></tr>"
        )
    out.append("</tbody></table></div>")
    for s in sources:
        out.append(
            f'<h2 id="{_anchor(s.source.name)}">{e(s.source.name)}: {e(s.source.title)}</h2>'
        )
        ordered = sorted(s.statements, key=lambda r: STATUSES.index(r.status))
        out.append(
            '<div class="wrap"><table><thead><tr><th>statement</th><th>status</th>'
            "<th>cited by</th></tr></thead><tbody>"
        )
        for row in ordered:
            statement = row.statement
            status = row.status
            why = (
                f"<br><small>{e(statement.untestable or '')}: {e(statement.why)}</small>"
                if statement.untestable
                else ""
            )
            cited = "<br>".join(
                f"<code>{e(c.case)}</code> [{e(c.part)}] {e(c.check)}: {e(c.requirement)}"
                for c in row.citations
            )
            out.append(
                f'<tr id="{_anchor(statement.id)}"><td><code>{e(statement.id)}</code> '
                f"<small>{e(statement.section)}; {e(statement.keyword)}: "
                f"{e(statement.requirement())}</small>"
                f"<blockquote>{e(statement.quote)}</blockquote></td>"
                f'<td class="status {status.replace(" ", "-")}">{e(status)}{why}</td>'
                f"<td>{cited or '&mdash;'}</td></tr>"
            )
        out.append("</tbody></table></div>")
    if after:
        out.append(after)
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def _anchor(text: str) -> str:
    return "s-" + "".join(ch if ch.isalnum() else "-" for ch in text)


# -- statements list --------------------------------------------------------------------------


def _list(args: argparse.Namespace, out: TextIO) -> int:
    registry = _load(args).registry
    chosen = _sources(args, registry)
    if chosen is None:
        return EXIT_UNUSABLE
    shown = [
        s
        for s in registry.statements
        if (not chosen or s.source in chosen)
        and (not args.keyword or s.requirement() in args.keyword)
        and (not args.untestable or s.untestable is not None)
    ]
    if args.format == "json":
        print_json([s.to_dict() for s in shown], out)
        return EXIT_OK
    rows = [[s.id, s.keyword, s.requirement(), _testability(s), _short(s.quote, 70)] for s in shown]
    table = render_table(["id", "keyword", "gives", "testable", "quote"], rows)
    print(terminal_lines(table), file=out)
    print(f"{len(shown)} statements", file=out)
    return EXIT_OK


def _testability(statement: Statement) -> str:
    return "yes" if statement.untestable is None else f"no: {statement.untestable}"


# -- statements check -------------------------------------------------------------------------


def _registry(args: argparse.Namespace) -> Registry:
    """The registry alone, without reading a case (the catalog's folders' own statements
    included); a folder that is not one is said as loading the catalog says it."""
    folders = [f for f in (args.catalog, *(args.extra_catalog or ())) if f]
    if not all(Path(f).is_dir() for f in folders):
        return _load(args).registry
    return load_registry(*folders)


def _check(args: argparse.Namespace, out: TextIO) -> int:
    try:
        registry = _registry(args)
    except CaseError as error:
        report_error(str(error))
        return EXIT_UNUSABLE
    known = [n for n in merged_sources(registry) if n != "kit"]
    name = source_name(args.source, known) or _newest_schema(args.source, known)
    if name is None:
        report_error(f"no source {args.source!r} in the registry; its sources: {', '.join(known)}")
        return EXIT_UNUSABLE
    path = Path(args.file)
    try:
        if not path.is_file():
            raise OSError("not a regular file")
        if path.stat().st_size > 8_000_000:
            raise OSError("larger than 8 MB: not an RFC text or a schema")
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        report_error(f"cannot read {path}: {error}")
        return EXIT_UNUSABLE
    schema = name.startswith("schema ")
    if schema:
        try:
            document = json.loads(text)
        except ValueError as error:
            report_error(
                f"{path}: not a JSON schema ({error}); give the revised schema file as JSON"
            )
            return EXIT_UNUSABLE

    def read(cited: dict[str, list[str]]) -> Revision:
        if schema:
            return check_schema_revision(registry, name, document, cited)
        return check_revision(registry, name, text, cited)

    revision = read({})
    if not revision.passed:  # only then are the cases read: to name those citing each change
        try:
            cases = _load(args).cases
        except CaseError as error:
            report_error(str(error))
            return EXIT_UNUSABLE
        revision = read({i: [c.case for c in found] for i, found in citations_of(cases).items()})
    impacts = []
    after = requirements_after(revision)
    for file in args.reports:
        try:
            report = read_report(file)
        except ReportError as error:
            report_error(str(error))
            return EXIT_UNUSABLE
        impacts.append(impact_of(report, file, after, registry))
    if args.format == "json":
        data = revision_data(revision)
        if args.reports:
            data["impact"] = [i.to_dict() for i in impacts]
        print_json(data, out)
    else:
        if name != source_name(args.source, known):
            out.write(f"{args.source} is not held: read against {name}, the newest held schema\n")
        out.write(render_revision_text(revision, str(path)))
        if args.reports:
            out.write(render_impact_text(impacts, revision))
    return EXIT_OK if revision.passed else EXIT_FAILED


def render_impact_text(impacts: Sequence[Impact], revision: Revision) -> str:
    """Per report: the cases whose requirement moves, and the levels that move."""
    keywords = [
        f"{c.statement.id} became {c.becomes or 'nothing'}"
        for c in revision.stale
        if c.statement is not None and c.becomes != c.statement.requirement()
    ]
    lines = []
    for impact in impacts:
        lines.append(f"impact on {impact.report} ({impact.runtime}):")
        if not impact.cases:
            lines.append("  no case's requirement changes")
        for case in impact.cases:
            lines.append(f"  {case.case}: {case.was} -> {case.becomes} (checks {case.outcome})")
        moved = [a for a in impact.levels if a.moved]
        if not moved:
            lines.append("  no level moves")
        for area in moved:
            lines.append(f"  {area.area}: Level {area.was} -> Level {area.becomes}")
            if keywords:
                lines.append(
                    f"  if {', '.join(keywords)}, {impact.runtime} would reach {area.area} "
                    f"Level {area.becomes}"
                )
    return "\n".join(lines) + "\n"


def _newest_schema(written: str, known: Sequence[str]) -> str | None:
    """For ``schema 2.0.0``, a version the registry does not hold: the newest schema it holds
    (a new version is read against the last one)."""
    wanted = _VERSION.fullmatch(written.strip())
    schemas = [n for n in known if _VERSION.fullmatch(n)]
    if wanted is None or not schemas:
        return None
    return max(schemas, key=lambda n: tuple(int(p) for p in n.split()[-1].split(".")))


_VERSION = re.compile(r"(?i:schema)\s*[0-9]{1,6}\.[0-9]{1,6}\.[0-9]{1,6}")


def _is_schema(revision: Revision) -> bool:
    return revision.source.startswith("schema ")


def revision_data(revision: Revision) -> dict[str, Any]:
    """A revision as ``--format json`` gives it (``schema/statements-check.schema.json``)."""
    return {
        "source": revision.source,
        "passed": revision.passed,
        "held": revision.held,
        "changes": [c.to_dict() for c in revision.changes],
        "header": dict(sorted(revision.header.items())),
        "outdated": list(revision.outdated),
        "revision": revision.revision,
    }


def render_revision_text(revision: Revision, file: str) -> str:
    """One block per change, then the header's news, then the counts."""
    lines = []
    for change in revision.changes:
        sentence = change.sentence
        where = f"{file}:{sentence.line}: " if sentence is not None and sentence.line else ""
        if change.kind == "new":
            assert sentence is not None
            if sentence.line:
                now = strongest(change.now) or "normative wording"
                lines.append(f"new {now} sentence [{change.section}] {file}:{sentence.line}:")
                lines.append(f"    {_short(sentence.text, 200)}")
            else:
                lines.append(f"new constraint {change.section}: {_short(sentence.text, 200)}")
                if change.cases:
                    lines.append(f"    cases at its place: {', '.join(change.cases)}")
            continue
        statement = change.statement
        assert statement is not None
        title = change.kind
        if change.kind == "keyword changed":
            was, now = ", ".join(change.was) or "none", ", ".join(change.now) or "none"
            title += f" ({change.direction}): {was} -> {now}, gives {change.becomes}"
        lines.append(f"{title}: {statement.id} [{statement.section}] ({statement.keyword})")
        lines.append(f"    was: {_short(statement.quote, 200)}")
        if sentence is not None:
            lines.append(f"    now: {where}{_short(sentence.text, 200)}")
        lines.append(f"    cited by: {', '.join(change.cases) if change.cases else 'no case'}")
    if revision.outdated:
        fields = ", ".join(f"{f}: {revision.header[f]}" for f in revision.outdated)
        lines.append(
            f"header (information): {file} says {fields}; the registry's revision line "
            f"no longer matches: {_short(revision.revision, 120)}"
        )
    stale = len(revision.stale)
    lines.append(
        f"{revision.source}: {revision.held} statement(s) held, {stale} stale, "
        f"{len(revision.new)} new "
        + ("constraint(s)" if _is_schema(revision) else "normative sentence(s)")
    )
    return terminal_lines("\n".join(lines)) + "\n"


__all__ = [
    "add_statements_parsers",
    "render_coverage_text",
    "render_impact_text",
    "render_revision_text",
    "revision_data",
]
