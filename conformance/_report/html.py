"""The HTML view of a run: one self-contained page to look at rather than read.

What a reader sees first is the verdict and the level table (with why each area stops at its
level, and the cases that block it); then the parts that did not pass, grouped by area and by
rule, each with its message, expected against actual, the step where it diverged and the case's
state diagram with the path taken (green) and the diverging step (red); then the findings and
the passes, collapsed. Failures that share one cause are shown once, with the list of cases.

The page holds everything it shows: inline CSS and inline SVG, no script, no remote asset (its
content security policy forbids both), ``<details>`` for collapsing. It reads on a phone-width
screen. The same report gives the same bytes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from conformance._basics.text import ELIDED, cut, html_text, text_lines
from conformance._drawing import DrawingError, draw_composition, draw_workflow
from conformance._drawing import _svg as svg_style
from conformance._judging.checks import Check
from conformance._judging.explain import describe_rule, failing_statements, rerun_lines
from conformance._judging.levels import BELOW_ZERO, AreaLevel, LevelReport, describe_level
from conformance._judging.records import PartRecord, Report
from conformance._judging.verdicts import Judgement, counted, judge_report
from conformance._report.groups import area_order, normalise, top_causes
from conformance._report.text import finding_groups, headline_line

__all__ = [
    "BLOCKING_SHOWN",
    "NO_RULE",
    "TIERS",
    "Differs",
    "blocking_cases",
    "escape",
    "failure_box",
    "head",
    "level_class",
    "render_html",
    "slug",
    "tier_of",
]

BLOCKING_SHOWN = 12
"""Blocking cases linked in the level table before the rest are folded away."""

NO_RULE = "no rule"
"""The heading of the failures of cases that cite no rule (listed after the rules)."""

_WHERE = re.compile(r"^[^\s:]+:\d+: ")  # the ``file:line: `` a failure message starts with
_REJECTED = re.compile(r"rejected with |expected rejection .*, got ")


def render_html(report: Report) -> str:
    """The whole run as one self-contained HTML page.

    Arguments:
        report: the run, as its records tell it (a truncated one included).
    """
    levels = report.levels()
    judgement = judge_report(report)
    failing = _claimed_first(report)
    anchors = _anchors(r.case for r in failing)
    capabilities = report.header.capabilities
    title = f"{capabilities.name} {capabilities.version}".strip() or report.header.adapter
    parts = [
        *head(f"ppconf: {title}: {judgement.label}"),
        *_header(report, title, levels, judgement),
        "<main>",
        *_level_table(levels, anchors, top_causes(report)),
        *_failures(report, failing, levels, anchors),
        *_findings(report),
        *_passes(report),
        "</main>",
        "</body>",
        "</html>",
    ]
    return "\n".join(parts) + "\n"


def head(title: str, extra_css: str = "") -> list[str]:
    """The page's lines up to ``<body>``: its title, the policy that forbids any script or
    fetch, and the style sheet (with ``extra_css`` after it)."""
    return [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<meta http-equiv="Content-Security-Policy"'
        " content=\"default-src 'none'; style-src 'unsafe-inline'\">",
        f"<title>{_e(title)}</title>",
        f"<style>{_CSS}{chr(10) + extra_css if extra_css else ''}</style>",
        "</head>",
        "<body>",
    ]


def failure_box(report: Report, record: PartRecord) -> list[str]:
    """One part's failure as this page shows it (message, step, diagram), with no id."""
    return _failure(report, normalise(record), [record], {}, {record.case})


# -- text ---------------------------------------------------------------------------------------


def escape(text: object) -> str:
    """``text`` escaped for HTML text and attribute values (see
    :func:`conformance._basics.text.html_text`)."""
    return html_text(text)


_e = escape


def _lines(text: str) -> str:
    """A text of several lines (an adapter's stderr) for a ``<pre>``: broken at every line
    break the text view breaks at (``\\r\\n`` is one, not a written-out ``\\x0d``), each line
    escaped."""
    return "\n".join(_e(line) for line in text_lines(cut(text)))


def _json(value: Any) -> str:
    """A value as the case file would write it, compactly and in a stable order."""
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError):
        return repr(value)


def _claimed_first(report: Report) -> list[PartRecord]:
    """The parts that did not pass, the claimed areas first (as every view orders them)."""
    failing = [r for r in report.records if not r.passed]
    order = area_order(report.header.capabilities.claims, (r.area for r in failing))
    return sorted(failing, key=lambda r: order.index(r.area))


def slug(name: str) -> str:
    """``name`` as the tail of an HTML id: letters, digits, ``_``, ``.`` and ``-`` only."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", name) or "-"


def _anchors(case_ids: Iterable[str]) -> dict[str, str]:
    """An HTML id for each case (in first-seen order), unique even if two ids slug alike."""
    anchors: dict[str, str] = {}
    taken: set[str] = set()
    for case_id in case_ids:
        if case_id in anchors:
            continue
        base = "case-" + slug(case_id)
        anchor, number = base, 1
        while anchor in taken:
            number += 1
            anchor = f"{base}-{number}"
        taken.add(anchor)
        anchors[case_id] = anchor
    return anchors


# -- header and levels --------------------------------------------------------------------------


def _header(report: Report, title: str, levels: LevelReport, judgement: Judgement) -> list[str]:
    header = report.header
    verdict = judgement.status
    counts = ", ".join(f"{n} {outcome}" for outcome, n in report.counts().items() if n)
    out = [
        "<header>",
        '<p class="kicker">ppconf conformance report</p>',
        f"<h1>{_e(title)}</h1>",
        f'<section class="verdict {verdict}" aria-label="verdict">',
        f'<p class="word">{verdict.upper()}</p>',
        f'<p class="headline">{_e(_headline(levels))}</p>',
        f'<p class="counts">{_e(counts or "no case ran")}</p>',
    ]
    if judgement.incomplete:
        out.append(f'<p class="why">INCOMPLETE: {_e(judgement.incomplete)}</p>')
    if judgement.problems:
        out.append('<ul class="problems">')
        out += [f"<li>{_e(problem)}</li>" for problem in judgement.problems]
        out.append("</ul>")
    out.append("</section>")
    if levels.partial:
        out.append(
            '<p class="banner partial"><strong>Partial selection:</strong> these levels describe'
            " only the cases run and certify nothing.</p>"
        )
    drift = report.drift()
    if drift:
        out.append(
            f'<div class="banner partial"><strong>Kit {_e(report.header.kit_version)} wrote this '
            "report with other rules than this kit's;</strong> shown here by this kit's:<ul>"
            + "".join(f"<li>{_e(note)}</li>" for note in drift)
            + "</ul></div>"
        )
    if not report.complete:
        out.append(
            '<p class="banner incomplete"><strong>The run did not finish:</strong> these are the'
            " results it has.</p>"
        )
    facts = [
        f"spec version <b>{_e(header.selection.spec_version)}</b>",
        f"adapter <code>{_e(header.adapter)}</code>",
        f"kit {_e(header.kit_version)}",
        f"catalog of {header.catalog_cases} cases <code>{_e(header.catalog_hash)}</code>",
    ]
    if header.repeat != 1:
        facts.append(f"each part run {header.repeat} times")
    if header.require_level is not None:
        facts.append(f"required level <b>{header.require_level}</b>")
    out.append(f'<p class="facts">{" &middot; ".join(facts)}</p>')
    out.append("</header>")
    return out


def _headline(levels: LevelReport) -> str:
    text = headline_line(levels)
    return text[0].upper() + text[1:]


def level_class(area: AreaLevel) -> str:
    """The class of an area's level: ``top``, ``short``, ``below`` or ``none``."""
    if area.level is None:
        return "none"
    if area.level == BELOW_ZERO:
        return "below"
    return "top" if area.level >= area.top else "short"


def _level_table(
    levels: LevelReport, anchors: Mapping[str, str], causes: Mapping[str, list[str]] | None = None
) -> list[str]:
    out = [
        '<section id="levels">',
        "<h2>Levels</h2>",
        '<div class="scroll"><table class="levels">',
        "<thead><tr>",
        '<th scope="col">area, level</th><th scope="col">MUST</th>'
        '<th scope="col">SHOULD <small>advisory</small></th><th scope="col">MAY</th>'
        '<th scope="col">claim</th>',
        "</tr></thead>",
    ]
    for area in levels.areas:
        claim = levels.claims.get(area.area)
        percent = area.should_percent
        should_note = f" <small>{percent:.0f}%</small>" if percent is not None else ""
        if area.level is None:
            level = '<span class="pill">&#8211;</span> <small>not assessed</small>'
        else:
            level = (
                f'<span class="pill">{_e(describe_level(area.level))}</span>'
                f" <small>of {area.top}</small>"
            )
        out += [
            f'<tbody class="area {level_class(area)}" id="level-{slug(area.area)}">',
            "<tr>",
            f'<th scope="row"><span class="name">{_e(area.area)}</span>'
            f' <span class="level">{level}</span></th>',
            f"<td>{area.must[0]}/{area.must[1]}</td>",
            f"<td>{area.should[0]}/{area.should[1]}{should_note}</td>",
            f"<td>{area.may[0]}/{area.may[1]}</td>",
            f"<td>{'-' if claim is None else _e(claim)}</td>",
            "</tr>",
            f'<tr class="why"><td colspan="5">{_why(area, anchors)}'
            + _causes((causes or {}).get(area.area, ()))
            + "</td></tr>",
            "</tbody>",
        ]
    out.append("</table></div>")
    if levels.claim_notes:
        out.append('<ul class="claims">')
        out += [f"<li>claim: {_e(note)}</li>" for note in levels.claim_notes]
        out.append("</ul>")
    out.append("</section>")
    return out


def _causes(causes: Sequence[str]) -> str:
    """The top causes of an area's blocking failures, after the sentence naming the cases."""
    if not causes:
        return ""
    return '<p class="top-causes">top causes: ' + "; ".join(_e(c) for c in causes) + "</p>"


def _why(area: AreaLevel, anchors: Mapping[str, str]) -> str:
    """Why the area stops at its level, the blocking cases linked to their failures."""
    reason = area.reason
    listed = ", ".join(area.blocking)
    if not area.blocking or not reason.endswith(listed):
        return _e(reason)
    sentence = reason[: -len(listed)].rstrip(": ")
    links = [_case_link(case_id, anchors) for case_id in area.blocking]
    shown = ", ".join(links[:BLOCKING_SHOWN])
    text = f"{_e(sentence)}: {shown}"
    if len(links) > BLOCKING_SHOWN:
        rest = ", ".join(links[BLOCKING_SHOWN:])
        more = len(links) - BLOCKING_SHOWN
        text += f" <details><summary>{more} more</summary>{rest}</details>"
    return text


def _case_link(case_id: str, anchors: Mapping[str, str]) -> str:
    anchor = anchors.get(case_id)
    if anchor is None:
        return f"<code>{_e(case_id)}</code>"
    return f'<a href="#{_e(anchor)}"><code>{_e(case_id)}</code></a>'


# -- failures -----------------------------------------------------------------------------------


TIERS = (
    (
        "blocking",
        "Blocking the claimed levels",
        "MUST failures in the areas the runtime claims, "
        "at or below the claimed level (in every area when it claims none): what to fix first.",
    ),
    (
        "must",
        "Other MUST failures",
        "MUST failures that no claim needs: in unclaimed areas, or above the claimed level.",
    ),
    (
        "weaker",
        "SHOULD and MAY",
        "Parts of SHOULD and MAY cases that did not pass: advisory and "
        "informational, they never move a level.",
    ),
)
"""The order failures are shown in (issue: what to fix first), each tier grouped by cause."""


def tier_of(record: PartRecord, blocking: set[str]) -> str:
    """Which tier of :data:`TIERS` a part that did not pass belongs to."""
    if record.case in blocking:
        return "blocking"
    return "must" if record.requirement == "MUST" else "weaker"


def blocking_cases(report: Report) -> set[str]:
    """The cases whose MUST failures keep a claimed area below its claimed level (R14)."""
    levels = report.levels()
    return {v.id for v in report.verdicts() if counted(v, levels)}


def _failures(
    report: Report,
    failing: Sequence[PartRecord],
    levels: LevelReport,
    anchors: Mapping[str, str],
) -> list[str]:
    cases = len({r.case for r in failing})
    out = [
        '<section id="failures">',
        f"<h2>Did not pass <small>{len(failing)} part(s) of {cases} case(s)</small></h2>",
    ]
    if not failing:
        out.append('<p class="none">Every part that ran passed.</p>')
    blocking = blocking_cases(report)
    placed: set[str] = set()
    for tier, title, what in TIERS:
        records = [r for r in failing if tier_of(r, blocking) == tier]
        if not records:
            continue
        out += [
            f'<section class="tier {tier}" id="failures-{tier}">',
            f"<h3>{_e(title)} <small>{len(records)} part(s)</small></h3>",
            f'<p class="what">{_e(what)}</p>',
        ]
        groups: dict[str, list[PartRecord]] = {}
        for record in records:
            groups.setdefault(normalise(record), []).append(record)
        # The cause touching most cases first: one fix there moves the most.
        for cause, members in sorted(
            groups.items(), key=lambda item: -len({r.case for r in item[1]})
        ):
            out += _cause_heading(members, levels)
            out += _failure(report, cause, members, anchors, placed)
        out.append("</section>")
    out.append("</section>")
    return out


def _cause_heading(members: Sequence[PartRecord], levels: LevelReport) -> list[str]:
    """The areas and the rules (with what each says) one cause touches."""
    areas = list(dict.fromkeys(r.area for r in members))
    rules = list(dict.fromkeys(rule for r in members for rule in r.rules))
    described = [
        f"<code>{_e(rule)}</code> {_e(describe_rule(rule))}"
        if describe_rule(rule)
        else f"<code>{_e(rule)}</code>"
        for rule in rules[:6]
    ]
    more = f" and {len(rules) - 6} more" if len(rules) > 6 else ""
    shown = ", ".join(
        f"{_e(area)} <small>level {_e(describe_level(a.level))}</small>"
        if (a := levels.area(area)) is not None
        else _e(area)
        for area in areas
    )
    return [f'<p class="touches">{shown}; rules: {"; ".join(described) or "none"}{more}</p>']


def _natural(text: str) -> tuple[Any, ...]:
    """A sort key that puts ``C2`` before ``C10``."""
    return tuple(int(t) if t.isdigit() else t for t in re.split(r"(\d+)", text))


def _failure(
    report: Report,
    cause: str,
    members: Sequence[PartRecord],
    anchors: Mapping[str, str],
    placed: set[str],
) -> list[str]:
    """One failure, or one cause shared by several parts shown once with the list of them."""
    first = members[0]
    check = _failing_check(first)

    def anchor(record: PartRecord) -> str:
        if record.case in placed:
            return ""
        placed.add(record.case)
        return f' id="{_e(anchors[record.case])}"'

    out: list[str]
    if len(members) == 1:
        out = [
            f'<article class="failure {_e(first.outcome)}"{anchor(first)}>',
            f"<h5>{_part_line(report, first)}</h5>",
            f'<p class="description">{_e(first.description)}</p>',
            f'<pre class="message">{_lines(first.message or "(no message)")}</pre>',
        ]
    else:
        out = [
            f'<article class="failure shared {_e(first.outcome)}">',
            f"<h5>{len(members)} parts share one cause</h5>",
            f'<pre class="message">{_e(cause or "(no message)")}</pre>',
            '<ul class="members">',
        ]
        out += [f"<li{anchor(r)}>{_part_line(report, r)}</li>" for r in members]
        out.append("</ul>")
        out.append(
            '<p class="shown-for">The step and diagram below are those of'
            f" <code>{_e(first.case)}</code> [{_e(first.part)}].</p>"
        )
    out += _why_required(first)
    out += _checks(first, check)
    out += _step(check)
    out += _rerun(report, first)
    out += _diagram(first, check)
    out += _excerpt(first)
    out.append("</article>")
    return out


def _why_required(record: PartRecord) -> list[str]:
    """The statements that make the part fail: source, section, id, requirement, the quote."""
    found = failing_statements(record)
    if not found:
        return []
    out = ['<div class="why"><p class="label">Why it is required</p>']
    for statement_id, data in found:
        if data.get("unknown"):
            out.append(f"<p><code>{_e(statement_id)}</code> (not in this kit's registry)</p>")
            continue
        out.append(
            f'<p class="cites">{_e(data["source"])}, {_e(data["section"])} '
            f'<code>{_e(statement_id)}</code> <span class="badge req">'
            f"{_e(data['requirement'])}</span> <small>{_e(data['keyword'])}</small></p>"
            f"<blockquote>{_e(data['quote'])}</blockquote>"
        )
    out.append("</div>")
    return out


def _rerun(report: Report, record: PartRecord) -> list[str]:
    """The one-line commands that rerun the part, on the runtime and on the reference."""
    if record.outcome == "skipped":
        return []
    lines = rerun_lines(report.header, record)
    return [
        '<div class="rerun"><p class="label">Reproduce</p>',
        *(f"<pre><code>{_e(line)}</code></pre>" for line in lines),
        "</div>",
    ]


def _excerpt(record: PartRecord) -> list[str]:
    """The pack and the scenario as the case file writes them, with its line numbers,
    collapsed."""
    parts = [(name, record.excerpt[name]) for name in ("pack", "part") if name in record.excerpt]
    if not parts:
        return []
    out = ['<details class="excerpt"><summary>The case: its pack and its script</summary>']
    for name, block in parts:
        first = int(block.get("line", 1))
        lines = str(block.get("text", "")).split("\n")
        where = block.get("file") or record.file
        out.append(
            f'<p class="label">{_e("pack" if name == "pack" else record.part)} '
            f"<small>{_e(str(where))}</small></p>"
        )
        numbered = "\n".join(
            f'<span class="ln">{first + i}</span>{_e(line)}' for i, line in enumerate(lines)
        )
        cut = block.get("cut")
        note = f'\n<span class="cut">... {int(cut)} more line(s)</span>' if cut else ""
        out.append(f'<pre class="source">{numbered}{note}</pre>')
    out.append("</details>")
    return out


def _part_line(report: Report, record: PartRecord) -> str:
    """A part's id, outcome, level and requirement, where it is, and whether it is expected."""
    outcome = record.outcome
    entry = report.header.expected_failures.get(record.case)
    where = record.file + (f":{record.line}" if record.line is not None else "")
    text = (
        f'<code class="case">{_e(record.case)}</code> <span class="part">[{_e(record.part)}]</span>'
        f' <span class="badge {_e(outcome)}">{_e(outcome)}</span>'
        f' <span class="badge req">L{record.level} {_e(record.requirement)}</span>'
    )
    if entry is not None and entry.covers(outcome):
        text += f' <span class="badge xfail" title="{_e(entry.reason)}">expected failure</span>'
    if where:
        text += f' <span class="where">{_e(where)}</span>'
    return text


def _failing_check(record: PartRecord) -> Check | None:
    """The check that failed the part: the first failed one of the case's requirement."""
    failed = [c for c in record.checks if not c.passed]
    return next((c for c in failed if c.requirement == record.requirement), None) or next(
        iter(failed), None
    )


def _checks(record: PartRecord, check: Check | None) -> list[str]:
    """Every failed check when there are several (a validation part judges several things)."""
    failed = [c for c in record.checks if not c.passed]
    if len(failed) < 2:
        return []
    out = ['<ul class="checks">']
    out += [
        f'<li><span class="badge req">{_e(c.requirement)}</span> <code>{_e(c.id)}</code>'
        f"{': ' + _e(c.message) if c.message else ''}</li>"
        for c in failed
    ]
    out.append("</ul>")
    return out


def _step(check: Check | None) -> list[str]:
    """Where the scenario diverged, and what was expected against what came."""
    detail = check.detail if check is not None else {}
    rows = []
    if "step" in detail:
        text = f"{detail['step']}: {detail.get('step_text', '')}"
        if "line" in detail:
            text += f" (line {detail['line']})"
        rows.append(("step", f"<code>{_e(text)}</code>"))
    elif "start" in detail:
        rows.append(("start", f"<code>{_e(detail['start'])}</code>"))
    if "field" in detail:
        rows.append(("field", f"<code>{_e(detail['field'])}</code>"))
    if "expected" in detail or "actual" in detail:
        rows.append(
            ("expected", f'<code class="expected">{_e(_json(detail.get("expected")))}</code>')
        )
        rows.append(("actual", f'<code class="actual">{_e(_json(detail.get("actual")))}</code>'))
    path = [t for t in detail.get("path", ()) if isinstance(t, Mapping)]
    if path:
        steps = "".join(
            f"<li><small>{_e(t[ELIDED])} transitions not kept</small></li>"
            if ELIDED in t
            else f"<li>{_e(t.get('from'))} &#8594; {_e(t.get('to'))}"
            f" <small>{_e(t.get('event'))}</small></li>"
            for t in path
        )
        rows.append(("path taken", f'<ol class="path">{steps}</ol>'))
    if not rows:
        return []
    return ['<dl class="step">', *(f"<dt>{k}</dt><dd>{v}</dd>" for k, v in rows), "</dl>"]


def _diagram(record: PartRecord, check: Check | None) -> list[str]:
    """The case's state diagram with the path taken and the diverging step, or the step graph
    of the composition it ran; open for a scenario, folded for a load or validation part."""
    pack = record.pack
    if pack is None:
        return []
    detail = check.detail if check is not None else {}
    scenario = "path" in detail
    try:
        caption, svg, differs = _draw(pack, detail, record.message)
    except DrawingError as error:
        return [f'<p class="nodiagram">No diagram: {_e(error.message)}.</p>']
    hint = ""
    if scenario and caption.startswith("workflow"):
        red = "the state(s) whose data differs" if differs else "where it diverged"
        hint = f" <small>path taken in green, {red} in red</small>"
    out = [
        f'<details class="diagram"{" open" if scenario else ""}>',
        f"<summary>{_e(caption)}{hint}</summary>",
    ]
    if differs:
        shown = "; ".join(f"<b>{_e(state)}</b>: {_e(', '.join(notes))}" for state, notes in differs)
        out.append(f'<p class="differs">Differs from the case: {shown}</p>')
    out += [
        f'<figure aria-label="{_e(caption)}"><div class="canvas">{svg}</div>',
        *_legend(svg),
        "</figure>",
        "</details>",
    ]
    return out


Differs = list[tuple[str, list[str]]]
"""States whose observable data differs from the case, each with what differs, in order."""


def _draw(
    pack: Mapping[str, Any], detail: Mapping[str, Any], message: str
) -> tuple[str, str, Differs]:
    """``(caption, svg, differs)``: a composition the failing step ran, else the workflow (the
    pack's only composition when it has no workflow), with the states whose data differs.

    Raises:
        DrawingError: the pack holds nothing to draw.
    """
    step_text = str(detail.get("step_text", ""))
    if step_text.startswith("run_composition "):
        name = step_text.removeprefix("run_composition ")
        try:
            return f"composition {name}", draw_composition(pack, name, format="svg"), []
        except DrawingError:
            pass  # the pack does not hold it: draw what it does hold
    path = [t for t in detail.get("path", ()) if isinstance(t, Mapping) and ELIDED not in t]
    start = detail.get("start") if isinstance(detail.get("start"), str) else None
    differs = _differs(pack, detail, path)
    # A state's data that differs is the fault; the step it was found at is not.
    diverged = None if differs else _diverged(pack, detail, path, start, message)
    marked = dict(differs)
    try:
        try:
            svg = draw_workflow(
                pack, format="svg", start=start, path=path, diverged=diverged, differs=marked
            )
        except DrawingError as error:
            if start is None or error.message.startswith("the pack has no workflow"):
                raise
            svg = draw_workflow(pack, format="svg", path=path, diverged=diverged, differs=marked)
        return "workflow", svg, differs
    except DrawingError as error:
        if len(error.known) != 1:
            raise
        name = error.known[0]
        return f"composition {name}", draw_composition(pack, name, format="svg"), []


def _line(colour: str, *, dash: str = "", width: float = 1.4) -> str:
    """A swatch of an edge style: a short line with its arrowhead."""
    dashed = f' stroke-dasharray="{dash}"' if dash else ""
    return (
        '<svg class="swatch" width="34" height="10" viewBox="0 0 34 10" aria-hidden="true">'
        f'<path d="M1 5H26" stroke="{colour}" stroke-width="{width}"{dashed}/>'
        f'<path d="M33 5L25 1V9Z" fill="{colour}"/></svg>'
    )


def _box(stroke: str, fill: str, *, width: float = 1.2, radius: float = 3.0) -> str:
    """A swatch of a node style: a small box."""
    return (
        '<svg class="swatch" width="34" height="14" viewBox="0 0 34 14" aria-hidden="true">'
        f'<rect x="2" y="2" width="30" height="10" rx="{radius}" fill="{fill}" stroke="{stroke}"'
        f' stroke-width="{width}"/></svg>'
    )


# What each style of a drawing means: (the classes of an element that has it, swatch, text),
# in the order the legend lists them. Only the styles a drawing uses are listed under it.
_STYLES = (
    (
        {"edge", "event"},
        _line(svg_style.EDGE),
        "an event, named on the line, to the state it leads to",
    ),
    (
        {"edge", "back"},
        _line(svg_style.BACK),
        "blue: an edge running back up, to an earlier state (a loop) or to the start",
    ),
    (
        {"edge", "max_visits"},
        _line(svg_style.EDGE, dash="6 4"),
        "dashed: on_max_visits, where a state at its max_visits sends the run instead",
    ),
    ({"edge", "order"}, _line(svg_style.EDGE), "the next step, in array order"),
    (
        {"edge", "branch"},
        _line(svg_style.EDGE),
        "then / else: the branch's two targets; only one of them runs",
    ),
    (
        {"edge", "fan-out"},
        _line(svg_style.EDGE),
        "fan-out / fan-in: a parallel's branches, and the step they join into",
    ),
    (
        {"edge", "depends_on"},
        _line(svg_style.EDGE, dash="2 3"),
        "dotted: depends_on, a step waiting for another's output",
    ),
    (
        {"edge", "taken"},
        _line(svg_style.TAKEN, width=2.6),
        "green: the path taken, with the numbers of its transitions",
    ),
    (
        {"edge", "diverged"},
        _line(svg_style.DIVERGED, width=3.0),
        "red, [diverged]: the step where the run left the expected path",
    ),
    ({"node", "start"}, "<b>&#9679;&#8594;</b>", "where the run starts"),
    (
        {"node", "terminal"},
        _box(svg_style.INK, svg_style.PAPER, radius=5.0),
        "double border, round ends: a terminal state",
    ),
    ({"node", "hexagon"}, _box(svg_style.INK, svg_style.PAPER, radius=0.0), "a branch step"),
    (
        {"node", "visited"},
        _box(svg_style.TAKEN, svg_style.VISITED_FILL, width=2.0),
        "green: a state the run visited",
    ),
    (
        {"node", "diverged"},
        _box(svg_style.DIVERGED, svg_style.DIVERGED_FILL, width=3.0),
        "red: [diverged] where the run left the expected path, or [differs] a state whose"
        " data differs from the case",
    ),
)


def _legend(svg: str) -> list[str]:
    """What each style the drawing uses means, as a list under it (text that reflows)."""
    used = [set(classes.split()) for classes in re.findall(r'<g class="([^"]*)"', svg)]
    items = [
        f"<li>{swatch} {_e(text)}</li>"
        for classes, swatch, text in _STYLES
        if any(classes <= element for element in used)
    ]
    if not items:
        return []
    return ['<ul class="legend" aria-label="legend">', *items, "</ul>"]


_SHOWN = 24
"""Characters of a value shown on a state of the diagram."""


def _short(value: Any) -> str:
    if value is None:
        return "none"
    text = _json(value)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "..."


def _differs(
    pack: Mapping[str, Any], detail: Mapping[str, Any], path: Sequence[Mapping[str, Any]]
) -> Differs:
    """The states whose observable data differs from what the case expected, and how: a visit
    count marks its state, an artifact the states declaring it, an ``artifact_history`` entry
    the state its transition entered, the final state both the expected and the actual one.
    Empty for a difference no state owns (status, turn, tool calls ...)."""
    if "path" not in detail:
        return []
    items = detail.get("differences")
    if not isinstance(items, list):
        items = [detail] if "field" in detail else []
    workflow = pack.get("workflow")
    states = workflow.get("states") if isinstance(workflow, Mapping) else None
    if not isinstance(states, Mapping):
        return []
    found: dict[str, list[str]] = {}

    def note(state: Any, text: str) -> None:
        if isinstance(state, str) and state in states and text not in found.get(state, ()):
            found.setdefault(state, []).append(text)

    for item in items:
        if not isinstance(item, Mapping) or not isinstance(item.get("field"), str):
            continue
        field, expected, actual = item["field"], item.get("expected"), item.get("actual")
        head, _, rest = field.partition(".")
        if head == "visit_counts" and rest:
            note(rest, f"visits: {_short(actual)}, expected {_short(expected)}")
        elif head == "visit_counts" and isinstance(expected, Mapping):
            seen = actual if isinstance(actual, Mapping) else {}
            for state in sorted({*expected, *seen}, key=str):
                if expected.get(state) != seen.get(state):
                    shown = f"{_short(seen.get(state))}, expected {_short(expected.get(state))}"
                    note(state, f"visits: {shown}")
        elif head in ("artifacts", "prompt_variables") and rest:
            name = rest.removeprefix("artifacts.").partition(".")[0]
            for state, definition in states.items():
                declared = definition.get("artifacts") if isinstance(definition, Mapping) else None
                if isinstance(declared, Mapping) and name in declared:
                    note(state, f"artifact {name}: {_short(actual)}, expected {_short(expected)}")
        elif (match := re.match(r"artifact_history\[(\d+)\]", field)) is not None:
            index = int(match.group(1))
            if index < len(path):
                note(
                    path[index].get("to"), f"{field}: {_short(actual)}, expected {_short(expected)}"
                )
        elif field == "state" and detail.get("step_text") == "final":
            # (At a step, the edge of its event says more: it is marked instead.)
            note(expected, "the run should have ended here")
            note(actual, f"the run ended here, expected {_short(expected)}")
    return list(found.items())


def _diverged(
    pack: Mapping[str, Any],
    detail: Mapping[str, Any],
    path: Sequence[Mapping[str, Any]],
    start: str | None,
    message: str,
) -> str | Mapping[str, Any] | None:
    """Where a scenario diverged: the edge of its failing event from the state it was sent in,
    else the state it was in (the state it started in, when it did not start as expected)."""
    if "path" not in detail:
        return None  # a load or validation part: no session ran
    workflow = pack.get("workflow")
    entry = workflow.get("entry") if isinstance(workflow, Mapping) else None
    before = path[-1].get("to") if path else start or entry
    step_text = str(detail.get("step_text", ""))
    if "step" not in detail or not step_text.startswith("event "):
        return before if isinstance(before, str) else None
    event = step_text.removeprefix("event ").removesuffix(" (agent)")
    if path and path[-1].get("event") == event and not _REJECTED.search(message):
        # The failing step's own transition was taken (the runtime accepted what it should
        # not have, or went elsewhere): the path already ends with it.
        return dict(path[-1])
    return {"from": before, "event": event}


# -- findings and passes ------------------------------------------------------------------------


def _findings(report: Report) -> list[str]:
    groups = finding_groups(report.records)
    if not groups:
        return []
    total = sum(len(items) for items in groups.values())
    out = [
        '<section id="findings">',
        "<details>",
        f"<summary><h2>Findings <small>{total}: SHOULD and MAY checks that failed in parts"
        " that pass</small></h2></summary>",
    ]
    for (requirement, kind), items in groups.items():
        out += [
            '<details class="group">',
            f'<summary><span class="badge req">{_e(requirement)}</span> <code>{_e(kind)}</code>'
            f" <small>{len(items)}</small></summary>",
            '<ul class="lines">',
            *(f"<li>{_e(item)}</li>" for item in items),
            "</ul>",
            "</details>",
        ]
    out += ["</details>", "</section>"]
    return out


def _passes(report: Report) -> list[str]:
    parts: dict[str, list[PartRecord]] = {}
    for record in report.records:
        parts.setdefault(record.case, []).append(record)
    passed = [records for records in parts.values() if all(r.passed for r in records)]
    out = [
        '<section id="passes">',
        "<details>",
        f"<summary><h2>Passed <small>{len(passed)} case(s)</small></h2></summary>",
        '<ul class="lines">',
    ]
    for records in passed:
        first = records[0]
        names = ", ".join(r.part for r in records)
        out.append(
            f'<li><code class="case">{_e(first.case)}</code>'
            f" <small>{_e(first.area)} L{first.level} {_e(first.requirement)}: {_e(names)}</small>"
            "</li>"
        )
    out += ["</ul>", "</details>", "</section>"]
    return out


_CSS = """
:root{color-scheme:light;--ink:#1f2937;--muted:#6b7280;--line:#e5e7eb;--paper:#fff;
--bg:#f8fafc;--pass:#15803d;--pass-bg:#f0fdf4;--fail:#b91c1c;--fail-bg:#fef2f2;
--warn:#b45309;--warn-bg:#fffbeb;--mono:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--ink);font:15px/1.45 system-ui,-apple-system,
"Segoe UI",Roboto,sans-serif;overflow-wrap:anywhere}
header,main{max-width:72rem;margin:0 auto;padding:0 1rem}
header{padding-top:1rem}
h1{font-size:1.5rem;margin:0 0 .6rem;line-height:1.2}
h2{font-size:1.2rem;margin:1.6rem 0 .6rem;display:inline}
h3{font-size:1.1rem;margin:1.4rem 0 .4rem;border-bottom:2px solid var(--line);padding-bottom:.2rem}
h4{font-size:1rem;margin:1rem 0 .4rem;color:var(--muted)}
h5{font-size:.95rem;font-weight:normal;margin:0 0 .3rem}
section>h2{display:block}
small{color:var(--muted);font-weight:normal;font-size:.8em}
code,pre{font-family:var(--mono);font-size:.85em}
pre{white-space:pre-wrap;margin:.3rem 0}
a{color:#1d4ed8}
.kicker{margin:0;color:var(--muted);font-size:.8rem;text-transform:uppercase;letter-spacing:.06em}
.verdict{border-radius:.6rem;padding:.7rem 1rem;margin:0 0 .6rem;border-left:.5rem solid}
.verdict p{margin:.1rem 0}
.verdict .word{font-size:1.6rem;font-weight:800;letter-spacing:.04em}
.verdict .headline{font-weight:600}
.verdict.passed{background:var(--pass-bg);border-color:var(--pass)}
.verdict.passed .word{color:var(--pass)}
.verdict.failed{background:var(--fail-bg);border-color:var(--fail)}
.verdict.failed .word{color:var(--fail)}
.verdict.incomplete{background:var(--bg);border-color:#64748b}
.verdict.incomplete .word{color:#475569}
.problems{margin:.3rem 0 0;padding-left:1.2rem}
.banner{background:var(--warn-bg);border:1px solid #fcd34d;border-radius:.4rem;padding:.4rem .7rem;
margin:0 0 .6rem}
.facts{margin:0;font-size:.8rem;color:var(--muted)}
.facts code{color:var(--ink)}
.scroll{overflow-x:auto}
table.levels{border-collapse:collapse;width:100%;background:var(--paper);font-size:.9rem;
border:1px solid var(--line)}
.levels th,.levels td{padding:.35rem .5rem;text-align:left;white-space:nowrap}
.levels thead th{background:#f1f5f9;font-size:.8rem}
.levels tbody{border-top:1px solid var(--line)}
.levels tbody th{font-weight:normal}
.levels .name{font-family:var(--mono);font-weight:700;margin-right:.4rem}
.levels .level{white-space:nowrap}
.levels tr.why td{white-space:normal;font-size:.8rem;color:var(--muted);padding-top:0}
.levels tr.why details{display:inline}
.pill{display:inline-block;min-width:1.8rem;text-align:center;font-weight:700;border-radius:1rem;
padding:0 .5rem;color:#fff;background:var(--muted)}
.area.top .pill{background:var(--pass)}
.area.short .pill{background:var(--warn)}
.area.below .pill{background:var(--fail)}
.area.top tr.why td{color:var(--pass)}
.claims{font-size:.85rem;color:var(--warn);padding-left:1.2rem}
.failure{background:var(--paper);border:1px solid var(--line);border-left:.3rem solid var(--fail);
border-radius:.4rem;padding:.6rem .8rem;margin:.6rem 0}
.failure.skipped{border-left-color:var(--muted)}
.failure.errored,.failure.timeout,.failure.flaky{border-left-color:var(--warn)}
.failure:target,.failure li:target{outline:3px solid #93c5fd}
.description{margin:0 0 .3rem;color:var(--muted);font-size:.9rem}
.message{background:#f9fafb;border-radius:.3rem;padding:.4rem .5rem}
.tier .what,.touches{color:#475569;margin:.2rem 0 .4rem}
.why,.rerun{margin:.4rem 0}
.label{font-weight:600;margin:.2rem 0;font-size:.85rem;color:#334155}
.why blockquote{margin:.1rem 0 .4rem;padding:.1rem .6rem;border-left:3px solid #94a3b8;
color:#1e293b;background:#f8fafc}
.rerun pre{margin:.1rem 0;white-space:pre-wrap;word-break:break-all}
.excerpt .source{overflow-x:auto;font-size:.8rem;line-height:1.35}
.excerpt .ln{display:inline-block;min-width:2.5em;color:#94a3b8;user-select:none;
text-align:right;margin-right:.8em}
.members,.checks{margin:.3rem 0;padding-left:1.2rem;font-size:.9rem}
.shown-for{font-size:.8rem;color:var(--muted);margin:.3rem 0 0}
.case{font-weight:600}
.part{color:var(--muted);font-family:var(--mono);font-size:.85em}
.where{color:var(--muted);font-family:var(--mono);font-size:.8em}
.badge{display:inline-block;border-radius:.3rem;padding:0 .35rem;font-size:.75rem;
border:1px solid var(--line);background:#f3f4f6;white-space:nowrap}
.badge.failed{background:var(--fail-bg);color:var(--fail);border-color:#fecaca}
.badge.errored,.badge.timeout,.badge.flaky{background:var(--warn-bg);color:var(--warn)}
.badge.xfail{background:#eff6ff;color:#1d4ed8}
.step{display:grid;grid-template-columns:max-content 1fr;gap:.15rem .7rem;margin:.4rem 0;
font-size:.9rem}
.step dt{color:var(--muted)}
.step dd{margin:0}
.expected{color:var(--pass)}
.actual{color:var(--fail)}
.path{margin:0;padding-left:1.4rem;font-family:var(--mono);font-size:.8rem}
.diagram summary,#findings summary,#passes summary{cursor:pointer}
.diagram summary{font-size:.85rem;color:var(--muted)}
.diagram figure{margin:.4rem 0 0;background:var(--paper);border:1px solid var(--line);
border-radius:.3rem;padding:.3rem}
.diagram .canvas{overflow-x:auto}
.diagram .canvas>svg{display:block;margin:0 auto}
.differs{margin:.3rem 0;font-size:.85rem;color:var(--fail)}
.legend{list-style:none;margin:.4rem 0 0;padding:.3rem .2rem 0;border-top:1px solid var(--line);
font-size:.75rem;color:var(--muted);display:flex;flex-wrap:wrap;gap:.1rem 1rem}
.legend li{display:flex;align-items:center;gap:.35rem}
.legend .swatch{flex:none}
.nodiagram{font-size:.8rem;color:var(--muted)}
#findings>details>summary,#passes>details>summary{margin:1.4rem 0 .4rem}
.group{margin:.3rem 0 .3rem 1rem}
.lines{font-size:.85rem;padding-left:1.2rem;margin:.3rem 0}
main{padding-bottom:2rem}
@media (max-width:40rem){
body{font-size:14px}
header,main{padding:0 .6rem}
header{padding-top:.6rem}
h1{font-size:1.25rem}
.verdict{padding:.5rem .7rem}
.verdict .word{font-size:1.3rem}
table.levels{font-size:.8rem}
.levels th,.levels td{padding:.3rem .3rem}
.levels .name{display:block}
.levels thead small,.levels td small{display:block}
.failure{padding:.5rem .6rem}
.group{margin-left:.3rem}
}
""".strip()
