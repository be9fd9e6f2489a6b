"""The HTML report: every record kind and outcome, state diagrams with the path taken and the
diverging step, failures sharing one cause shown once, hostile text escaped, nothing remote,
a truncated report, the same bytes twice, and the wiring of ``ppconf run`` and the plugin."""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Mapping, Sequence
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest

from conformance import Capabilities, Catalog, Check, Runner
from conformance._catalog.cases import Selection
from conformance._catalog.expected_failures import ExpectedFailure
from conformance._cli import main
from conformance._judging.records import PartRecord, Report, RunHeader, records_of
from conformance._report.html import render_html
from conformance._report.jsonl import JsonLinesWriter, read_report

pytest_plugins = ["pytester"]

SVG = "{http://www.w3.org/2000/svg}"
VOID = {"meta", "br", "hr", "img", "input", "link", "wbr"}

PROMPTS = {"main": {"id": "main", "name": "Main", "version": "1.0.0", "system_template": "Go."}}
ENGINE = {"version": "v1", "syntax": "{{variable}}"}
WORKFLOW_PACK: dict[str, Any] = {
    "id": "two-states",
    "name": "Two states",
    "version": "1.0.0",
    "template_engine": ENGINE,
    "prompts": PROMPTS,
    "workflow": {
        "version": 1,
        "entry": "draft",
        "states": {
            "draft": {"prompt_task": "main", "on_event": {"Submit": "review"}},
            "review": {"prompt_task": "main", "on_event": {"Back": "draft", "Done": "done"}},
            "done": {"prompt_task": "main", "terminal": True},
        },
    },
}
COMPOSITION_PACK: dict[str, Any] = {
    "id": "composed",
    "name": "Composed",
    "version": "1.0.0",
    "template_engine": ENGINE,
    "prompts": PROMPTS,
    "compositions": {
        "go": {
            "steps": [
                {"id": "first", "kind": "prompt", "prompt_task": "main"},
                {"id": "second", "kind": "prompt", "prompt_task": "main"},
            ]
        }
    },
}

# -- building reports ---------------------------------------------------------------------------


def record(
    case: str,
    outcome: str,
    message: str = "",
    checks: Sequence[Check] = (),
    *,
    part: str = "run",
    area: str = "workflow",
    level: int = 1,
    requirement: str = "MUST",
    rules: tuple[str, ...] = ("X4",),
    pack: Mapping[str, Any] | None = None,
    description: str = "a case of the HTML report's tests",
) -> PartRecord:
    return PartRecord(
        case=case,
        area=area,
        level=level,
        requirement=requirement,
        description=description,
        file=f"{area}/{case.rsplit('.', 1)[-1]}.yaml",
        line=3,
        rules=rules,
        part=part,
        outcome=outcome,
        message=message,
        duration=0.01,
        checks=tuple(checks),
        pack=pack if pack is not None or outcome == "passed" else WORKFLOW_PACK,
    )


def scenario(message: str, **detail: Any) -> Check:
    """The failed ``scenario`` check of a part, with its failure detail."""
    return Check("scenario", "MUST", False, message, detail)


def header(
    records: Sequence[PartRecord],
    *,
    name: str = "toy-runtime",
    adapter: str = "fakes:Toy",
    expected: Mapping[str, ExpectedFailure] | None = None,
) -> RunHeader:
    return RunHeader(
        adapter=adapter,
        capabilities=Capabilities(name, "1.2", "go", claims={"workflow": 2}),
        selection=Selection(),
        catalog_hash="sha256:" + "0123" * 8,
        catalog_cases=len({r.case for r in records}),
        parts=tuple((r.case, r.part) for r in records),
        expected_failures=dict(expected or {}),
        kit_version="9.9",
    )


ACCEPTED = "workflow/a.yaml:9: scenario 'run', step 2 (event Back): accepted (review -> draft), "
SHARED = "scenario 'run', step 1 (event Submit): rejected with unknown-event, expected acceptance"


@pytest.fixture
def every_kind() -> Report:
    """A run with every outcome, every part kind, a finding, an expected failure, a shared cause,
    a composition run and a session that did not start."""
    finding = Check(
        "error entry-unknown at /workflow", "MAY", False, "expected the error at a path"
    )
    records = [
        record("workflow.t.passes", "passed", checks=[Check("valid", "MUST", True), finding]),
        record(
            "workflow.t.accepted",
            "failed",
            ACCEPTED + "expected rejection unknown-event",
            [
                scenario(
                    ACCEPTED + "expected rejection unknown-event",
                    step=2,
                    step_text="event Back",
                    line=9,
                    path=[
                        {"from": "draft", "to": "review", "event": "Submit"},
                        {"from": "review", "to": "draft", "event": "Back"},
                    ],
                )
            ],
        ),
        record(
            "workflow.t.wrong-state",
            "failed",
            "workflow/w.yaml:12: scenario 'run', step 2 (event Done): state: expected ...",
            [
                scenario(
                    "workflow/w.yaml:12: scenario 'run', step 2 (event Done): state: expected ...",
                    step=2,
                    step_text="event Done",
                    field="state",
                    expected="done",
                    actual={"odd": ["value", 1]},
                    path=[{"from": "draft", "to": "review", "event": "Submit"}],
                )
            ],
            rules=("X2",),
        ),
        *(
            record(
                f"workflow.t.shared-{n}",
                "failed",
                f"workflow/shared-{n}.yaml:{n}: {SHARED}",
                [
                    scenario(
                        f"workflow/shared-{n}.yaml:{n}: {SHARED}",
                        step=1,
                        step_text="event Submit",
                        path=[],
                    )
                ],
                level=0,
            )
            for n in (1, 2)
        ),
        record(
            "workflow.t.no-start",
            "failed",
            "workflow/n.yaml:4: scenario 'run': the session refused to start at state 'nowhere'",
            [scenario("refused", start="nowhere", path=[])],
            rules=(),
        ),
        record(
            "workflow.t.invalid",
            "failed",
            "expected error entry-unknown, not reported",
            [
                Check(
                    "valid", "MUST", False, "expected the pack invalid, but no error was reported"
                ),
                Check("error entry-unknown", "SHOULD", False, "expected error entry-unknown"),
            ],
            part="validation",
            level=0,
        ),
        record("workflow.t.crash", "errored", "the adapter raised RuntimeError", part="load"),
        record(
            "compositions.t.run",
            "failed",
            "compositions/run.yaml:8: scenario 'go', step 1 (run_composition go): "
            'composition.status: expected "completed", got "failed"',
            [
                scenario(
                    "composition status",
                    step=1,
                    step_text="run_composition go",
                    field="composition.status",
                    expected="completed",
                    actual="failed",
                    path=[],
                )
            ],
            area="compositions",
            rules=("C1",),
            pack=COMPOSITION_PACK,
        ),
        record(
            "compositions.t.load",
            "failed",
            "refused a pack that loads",
            area="compositions",
            part="load",
            level=0,
            rules=("C1",),
            pack=COMPOSITION_PACK,
        ),
        record("loops.t.slow", "timeout", "no answer within 1 s", area="loops", level=2),
        record("loops.t.skip", "skipped", "unsupported", area="loops", requirement="SHOULD"),
        record("loops.t.flaky", "flaky", "flaky: run 1 passed", area="loops", level=2),
        record(
            "loops.t.passes", "passed", area="loops", level=0, checks=[Check("s", "MUST", True)]
        ),
    ]
    expected = {"loops.t.slow": ExpectedFailure("our clock is real")}
    return Report(header(records, expected=expected), tuple(records))


class Page(HTMLParser):
    """The elements of a page: every non-void element closed in order, ids unique."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.ids: list[str] = []
        self.links: list[str] = []
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.text: list[str] = []
        self.feed(text)
        self.close()
        assert self.stack == [], f"unclosed: {self.stack}"

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v or "" for k, v in attrs}
        self.tags.append((tag, values))
        if "id" in values:
            self.ids.append(values["id"])
        if "href" in values:
            self.links.append(values["href"])
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, {k: v or "" for k, v in attrs}))

    def handle_endtag(self, tag: str) -> None:
        assert self.stack, f"</{tag}> closes nothing"
        opened = self.stack.pop()
        assert opened == tag, f"<{opened}> closed by </{tag}>"

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def articles(text: str) -> dict[str, str]:
    """Each failure's HTML by the case ids it names."""
    found: dict[str, str] = {}
    for article in re.findall(r"<article\b.*?</article>", text, re.DOTALL):
        for case in re.findall(r'<code class="case">([^<]*)</code>', article):
            found.setdefault(case, article)
    return found


def svgs(text: str) -> list[ElementTree.Element]:
    """Every inline drawing (not the legends' swatches), parsed as XML (it must be well-formed)."""
    drawings = re.findall(r"<svg xmlns=.*?</svg>", text, re.DOTALL)
    return [ElementTree.fromstring(s) for s in drawings]


def text_of(element: ElementTree.Element) -> list[str]:
    return ["".join(span.itertext()) for span in element.iter(f"{SVG}tspan")]


def marked(svg: ElementTree.Element, mark: str) -> list[ElementTree.Element]:
    return [e for e in svg.iter(f"{SVG}g") if mark in (e.get("class") or "").split()]


# -- content ------------------------------------------------------------------------------------


def test_every_kind_and_outcome_is_shown(every_kind: Report) -> None:
    text = render_html(every_kind)
    page = Page(text)
    assert len(page.ids) == len(set(page.ids))
    shown = " ".join(page.text)
    for r in every_kind.records:
        assert r.case in shown
    for outcome in ("failed", "errored", "timeout", "skipped", "flaky"):
        assert f'<span class="badge {outcome}">{outcome}</span>' in text
    assert "FAILED" in shown
    assert "expected failure" in text
    assert 'title="our clock is real"' in text
    # The validation part lists both of its failed checks.
    invalid = articles(text)["workflow.t.invalid"]
    assert "expected the pack invalid" in invalid
    assert "expected error entry-unknown" in invalid
    # Findings and passes are there, collapsed.
    findings = text[text.index('<section id="findings">') :]
    assert findings.startswith('<section id="findings">\n<details>\n')
    assert "error entry-unknown at /workflow: expected the error at a path" in findings
    passes = text[text.index('<section id="passes">') :]
    assert passes.startswith('<section id="passes">\n<details>\n')
    assert passes.count("<li>") == 2


def test_the_header_comes_first_then_the_levels(every_kind: Report) -> None:
    text = render_html(every_kind)
    order = [
        text.index('<section class="verdict failed"'),
        text.index('<table class="levels">'),
        text.index('<section id="failures">'),
        text.index('<section id="findings">'),
        text.index('<section id="passes">'),
    ]
    assert order == sorted(order)
    head = text[: order[1]]
    for fact in ("toy-runtime 1.2", "fakes:Toy", "1.9", "9.9", "sha256:01230123"):
        assert fact in head
    assert "FAILED: " in head  # the verdict's problems


def test_the_level_table_says_why_and_links_the_blocking_cases(every_kind: Report) -> None:
    text = render_html(every_kind)
    page = Page(text)
    levels = every_kind.levels()
    rows = re.findall(r'<tbody class="area (\w+)" id="level-([\w-]+)">', text)
    assert [area for _, area in rows] == [a.area for a in levels.areas]
    workflow = levels.area("workflow")
    assert workflow is not None
    assert workflow.blocking
    table = text[text.index('<table class="levels">') : text.index("</table>")]
    assert "fails Level 0 MUST cases" in table
    for case_id in workflow.blocking:
        link = re.search(rf'<a href="#([^"]+)"><code>{re.escape(case_id)}</code></a>', table)
        assert link is not None, case_id
        assert link.group(1) in page.ids  # it leads to the case's failure
    # Every link in the page lands on an element of the page.
    assert {href[1:] for href in page.links} <= set(page.ids)


def test_failures_are_ordered_by_what_blocks_the_claimed_levels(every_kind: Report) -> None:
    text = render_html(every_kind)
    failures = text[text.index('<section id="failures">') : text.index('<section id="findings">')]
    tiers = re.findall(r'<section class="tier (\w+)" id="failures-\w+">', failures)
    # The runtime claims workflow: its MUST failures block its claimed level and come first;
    # other MUST failures next; SHOULD and MAY cases last.
    assert tiers[0] == "blocking"
    assert tiers == sorted(tiers, key=["blocking", "must", "weaker"].index)
    blocking = failures[
        : failures.index('<section class="tier', failures.index("tier blocking") + 1)
    ]
    assert "workflow.t.accepted" in blocking
    assert "loops." not in blocking
    # A cause names the rules it touches, each with what it says.
    assert "<code>X2</code> terminal states: terminal: true or no on_event" in failures


def test_failures_that_share_one_cause_are_shown_once(every_kind: Report) -> None:
    text = render_html(every_kind)
    # The shared cause is shown once, without the scenario and step each part has its own of.
    cause = SHARED.split(": ", 1)[1]
    failures = text[text.index('<section id="failures">') :]
    assert failures.count(html.escape(cause)) == 1
    # The level table names it as its area's top cause, beside the cases it blocks.
    levels = text[: text.index('<section id="failures">')]
    assert f"2 cases: {html.escape(cause)}" in levels
    shared = articles(text)["workflow.t.shared-1"]
    assert shared == articles(text)["workflow.t.shared-2"]
    assert "2 parts share one cause" in shared
    assert 'id="case-workflow.t.shared-1"' in shared
    assert 'id="case-workflow.t.shared-2"' in shared


def diagram(text: str, case: str) -> ElementTree.Element:
    found = svgs(articles(text)[case])
    assert len(found) == 1, case
    return found[0]


def test_an_accepted_step_marks_its_own_transition(every_kind: Report) -> None:
    text = render_html(every_kind)
    svg = diagram(text, "workflow.t.accepted")
    diverged = marked(svg, "diverged")
    assert [(e.get("data-from"), e.get("data-to")) for e in diverged] == [("review", "draft")]
    taken = {(e.get("data-from"), e.get("data-to")) for e in marked(svg, "taken")}
    assert taken == {("draft", "review"), ("review", "draft")}
    article = articles(text)["workflow.t.accepted"]
    assert "<code>2: event Back (line 9)</code>" in article
    assert '<details class="diagram" open>' in article


def test_a_step_that_went_wrong_marks_the_event_from_where_it_was(every_kind: Report) -> None:
    text = render_html(every_kind)
    svg = diagram(text, "workflow.t.wrong-state")
    diverged = marked(svg, "diverged")
    assert [(e.get("data-from"), e.get("data-to")) for e in diverged] == [("review", "done")]
    article = articles(text)["workflow.t.wrong-state"]
    assert '<code class="expected">&quot;done&quot;</code>' in article
    assert '<code class="actual">{&quot;odd&quot;: [&quot;value&quot;, 1]}</code>' in article
    # A refused event marks the edge it should have taken, from the entry when nothing ran.
    svg = diagram(text, "workflow.t.shared-1")
    diverged = marked(svg, "diverged")
    assert [(e.get("data-from"), e.get("data-to")) for e in diverged] == [("draft", "review")]


def test_a_session_that_did_not_start_marks_its_state(every_kind: Report) -> None:
    text = render_html(every_kind)
    svg = diagram(text, "workflow.t.no-start")  # 'nowhere' is no state: the whole workflow
    assert {e.get("data-name") for e in marked(svg, "node")} == {"draft", "review", "done"}
    assert "<dt>start</dt><dd><code>nowhere</code></dd>" in articles(text)["workflow.t.no-start"]


def test_compositions_draw_their_step_graph(every_kind: Report) -> None:
    text = render_html(every_kind)
    for case in ("compositions.t.run", "compositions.t.load"):
        svg = diagram(text, case)
        assert svg.get("aria-label", "").startswith("composition go")
        assert {e.get("data-name") for e in marked(svg, "node")} == {"first", "second"}
    # A load part has no path: its diagram is folded.
    assert '<details class="diagram">' in articles(text)["compositions.t.load"]


LOOP_PACK: dict[str, Any] = {
    **WORKFLOW_PACK,
    "workflow": {
        "version": 1,
        "entry": "draft",
        "states": {
            "draft": {
                "prompt_task": "main",
                "on_event": {"Submit": "review"},
                "artifacts": {"log": {"type": "string", "mode": "append"}},
            },
            "review": {
                "prompt_task": "main",
                "on_event": {"Back": "draft", "Done": "done"},
                "max_visits": 2,
                "on_max_visits": "done",
            },
            "done": {"prompt_task": "main", "terminal": True},
        },
    },
}
LOOP_PATH = [
    {"from": "draft", "to": "review", "event": "Submit"},
    {"from": "review", "to": "draft", "event": "Back"},
    {"from": "draft", "to": "review", "event": "Submit"},
    {"from": "review", "to": "done", "event": "Done"},
]


def final_failure(**detail: Any) -> str:
    """The HTML of one failing final expectation on ``LOOP_PACK``, after ``LOOP_PATH``."""
    check = scenario(
        "workflow/l.yaml:20: scenario 'run': final: ...", step=5, step_text="final", **detail
    )
    records = [record("loops.t.final", "failed", check.message, [check], pack=LOOP_PACK)]
    return render_html(Report(header(records), tuple(records)))


def test_a_final_count_that_differs_marks_its_state_not_where_the_run_ended() -> None:
    text = final_failure(field="visit_counts.review", expected=3, actual=2, path=LOOP_PATH)
    svg = diagram(text, "loops.t.final")
    assert [e.get("data-name") for e in marked(svg, "diverged")] == ["review"]
    (review,) = (e for e in marked(svg, "node") if e.get("data-name") == "review")
    assert "[differs] visits: 2, expected 3" in text_of(review)
    assert "<b>review</b>: visits: 2, expected 3" in text
    assert "the state(s) whose data differs in red" in text


def test_every_count_that_differs_is_marked() -> None:
    differences = [
        {"field": "visit_counts.draft", "expected": 1, "actual": 2},
        {"field": "visit_counts.done", "expected": None, "actual": 1},
    ]
    text = final_failure(
        field="visit_counts.draft",
        expected=1,
        actual=2,
        differences=differences,
        path=LOOP_PATH,
    )
    svg = diagram(text, "loops.t.final")
    assert sorted(e.get("data-name") for e in marked(svg, "diverged")) == ["done", "draft"]


def test_an_artifact_marks_the_states_declaring_it_and_a_final_state_both_states() -> None:
    text = final_failure(field="artifacts.log", expected="a;b;", actual="b;", path=LOOP_PATH)
    svg = diagram(text, "loops.t.final")
    assert [e.get("data-name") for e in marked(svg, "diverged")] == ["draft"]
    assert "<b>draft</b>: artifact log: &quot;b;&quot;, expected &quot;a;b;&quot;" in text
    text = final_failure(field="state", expected="review", actual="done", path=LOOP_PATH)
    svg = diagram(text, "loops.t.final")
    assert sorted(e.get("data-name") for e in marked(svg, "diverged")) == ["done", "review"]


def test_a_difference_no_state_owns_marks_where_the_run_ended() -> None:
    text = final_failure(field="status", expected="active", actual="completed", path=LOOP_PATH)
    svg = diagram(text, "loops.t.final")
    assert [e.get("data-name") for e in marked(svg, "diverged")] == ["done"]
    assert "Differs from the case" not in text


def legend(text: str) -> list[str]:
    (found,) = re.findall(r'<ul class="legend".*?</ul>', text, re.DOTALL)
    return [re.sub(r"<[^>]+>", "", item).strip() for item in re.findall(r"<li>.*?</li>", found)]


def test_the_legend_explains_every_style_the_diagram_uses_and_no_other() -> None:
    items = legend(final_failure(field="status", expected="a", actual="b", path=LOOP_PATH))
    assert any(item.startswith("blue: an edge running back up") for item in items)
    assert any(item.startswith("dashed: on_max_visits") for item in items)
    assert any(item.startswith("green: the path taken") for item in items)
    assert any(item.startswith("double border") for item in items)
    assert not any("depends_on" in item or "then / else" in item for item in items)
    # A composition's legend has its own edges.
    pack = {
        **COMPOSITION_PACK,
        "compositions": {
            "go": {
                "steps": [
                    {"id": "route", "kind": "branch", "then": "a", "else": "b"},
                    {"id": "a", "kind": "tool"},
                    {"id": "b", "kind": "tool", "depends_on": ["route"]},
                ]
            }
        },
    }
    records = [record("compositions.t.c", "failed", "refused", part="load", pack=pack)]
    items = legend(render_html(Report(header(records), tuple(records))))
    assert any(item.startswith("then / else") for item in items)
    assert not any(item.startswith("blue") or item.startswith("dashed") for item in items)


def test_a_drawing_shrinks_no_further_than_keeps_its_labels_legible() -> None:
    svg = diagram(
        final_failure(field="status", expected="a", actual="b", path=LOOP_PATH), "loops.t.final"
    )
    width = float(svg.get("viewBox", "").split()[2])
    style = {
        k.strip(): v.strip()
        for k, v in (p.split(":") for p in svg.get("style", "").split(";") if p.strip())
    }
    assert float(style["min-width"].removesuffix("px")) * 11 / width >= 9  # 11 px labels


def test_a_pack_with_nothing_to_draw_says_so() -> None:
    bare = {"id": "bare", "name": "Bare", "version": "1.0.0"}
    records = [record("workflow.t.bare", "failed", "refused", part="load", pack=bare)]
    text = render_html(Report(header(records), tuple(records)))
    assert '<p class="nodiagram">No diagram: the pack has no workflow to draw.</p>' in text
    assert "<svg" not in text


# -- safety -------------------------------------------------------------------------------------

HOSTILE = '<script>alert("x")</script></style><img src=x onerror=alert(1)>&amp;\x00\x1b'


def test_hostile_text_is_escaped() -> None:
    pack = {
        **WORKFLOW_PACK,
        "workflow": {
            "version": 1,
            "entry": HOSTILE,
            "states": {HOSTILE: {"on_event": {HOSTILE: "done"}}, "done": {"terminal": True}},
        },
    }
    records = [
        record(
            HOSTILE,
            "failed",
            HOSTILE,
            [scenario(HOSTILE, step=1, step_text=f"event {HOSTILE}", expected=HOSTILE, path=[])],
            area=HOSTILE,
            rules=(HOSTILE,),
            pack=pack,
            description=HOSTILE,
            part=HOSTILE,
        ),
        record(HOSTILE + "2", "passed", checks=[Check(HOSTILE, "SHOULD", False, HOSTILE)]),
    ]
    report = Report(header(records, name=HOSTILE, adapter=HOSTILE), tuple(records))
    text = render_html(report)
    page = Page(text)
    assert "<script" not in text.lower()
    assert not [tag for tag, _ in page.tags if tag in ("script", "img", "iframe", "object")]
    assert not [attrs for _, attrs in page.tags if any(k.startswith("on") for k in attrs)]
    assert "\x00" not in text
    assert "\x1b" not in text
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in text
    assert "&amp;amp;" in text
    assert len(page.ids) == len(set(page.ids))
    for svg in svgs(text):
        assert svg.tag == f"{SVG}svg"


def test_nothing_is_fetched_and_nothing_runs(every_kind: Report) -> None:
    text = render_html(every_kind)
    page = Page(text)
    assert "<script" not in text
    assert not re.search(r"""(?:src|href|action|data)\s*=\s*["']?\s*(?:https?:|//)""", text)
    assert "url(" not in text
    assert "@import" not in text
    assert [href for href in page.links if not href.startswith("#")] == []
    assert "default-src 'none'" in text  # and the page forbids it besides
    for svg in svgs(text):
        assert not any(e.tag in (f"{SVG}image", f"{SVG}use", f"{SVG}script") for e in svg.iter())


def test_a_truncated_report_renders_with_a_banner(every_kind: Report, tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    writer = JsonLinesWriter(path, every_kind.header)
    for r in every_kind.records[:4]:
        writer.add(r)
    writer.close()
    path.write_text(path.read_text("utf-8") + '{"type": "part", "ca', "utf-8")  # killed mid-line
    again = read_report(path)
    text = render_html(again)
    Page(text)
    assert '<p class="banner incomplete"><strong>The run did not finish:' in text
    assert '<p class="banner partial"><strong>Partial selection:' in text
    assert "workflow.t.accepted" in text
    assert "loops.t.slow" not in text
    assert '<p class="banner' not in render_html(every_kind)


def test_the_same_report_gives_the_same_bytes(every_kind: Report, tmp_path: Path) -> None:
    text = render_html(every_kind)
    assert render_html(every_kind) == text
    path = tmp_path / "run.jsonl"
    writer = JsonLinesWriter(path, every_kind.header)
    for r in every_kind.records:
        writer.add(r)
    writer.finish(every_kind)
    writer.close()
    assert render_html(read_report(path)) == text  # rendered again from the file


# -- real runs ----------------------------------------------------------------------------------


def run_report(catalog: Catalog, adapter: Any, spec: str, area: str) -> Report:
    selection = Selection(areas=(area,))
    results = Runner(adapter, timeout=None).run_all(catalog.select(selection))
    head = RunHeader.of(spec, adapter.capabilities(), catalog, selection)
    return Report(head, tuple(records_of(results)))


def test_a_broken_runtime_shows_where_each_scenario_diverged(
    catalog: Catalog, fakes_importable: Path
) -> None:
    from breaking import OneLevelRedirects  # noqa: PLC0415 (on sys.path by the fixture)

    report = run_report(catalog, OneLevelRedirects(), "breaking:OneLevelRedirects", "loops")
    text = render_html(report)
    Page(text)
    scenarios = [
        article
        for article in re.findall(r"<article\b.*?</article>", text, re.DOTALL)
        if '<details class="diagram" open>' in article
    ]
    assert scenarios
    for article in scenarios:
        (svg,) = svgs(article)
        assert marked(svg, "diverged"), article
        if "<dt>path taken</dt>" in article:
            assert marked(svg, "taken"), article


def test_a_runtime_without_compositions_draws_their_steps(
    catalog: Catalog, fakes_importable: Path
) -> None:
    from fakes import AlwaysWrong  # noqa: PLC0415 (on sys.path by the fixture)

    report = run_report(catalog, AlwaysWrong(), "fakes:AlwaysWrong", "compositions")
    text = render_html(report)
    Page(text)
    labels = [svg.get("aria-label", "") for svg in svgs(text)]
    assert any(label.startswith("composition ") for label in labels)
    assert text == render_html(report)


# -- wiring -------------------------------------------------------------------------------------


def test_ppconf_run_writes_the_html_report(
    write_catalog: Callable[[Mapping[str, str]], Path],
    case_text: Callable[..., str],
    tmp_path: Path,
    fakes_importable: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    root = write_catalog({"workflow/a.yaml": case_text("workflow.t.a", level=0)})
    path = tmp_path / "report.html"
    args = ["run", "--catalog", str(root), "--adapter", "fakes:ValidatesOnly"]
    assert main([*args, "--report", "html", str(path)]) == 1
    text = path.read_text("utf-8")
    assert text.startswith("<!DOCTYPE html>")
    assert "ValidatesOnly" in text
    assert "workflow.t.a" in text
    capsys.readouterr()


def test_the_plugin_writes_the_html_report(
    write_catalog: Callable[[Mapping[str, str]], Path],
    case_text: Callable[..., str],
    run_pytest: Callable[..., pytest.RunResult],
    tmp_path: Path,
) -> None:
    root = write_catalog({"workflow/a.yaml": case_text("workflow.t.a", level=0)})
    path = tmp_path / "plugin.html"
    result = run_pytest(
        "--ppconf-adapter=fakes:ValidatesOnly",
        f"--ppconf-catalog={root}",
        "--ppconf-report",
        "html",
        str(path),
    )
    result.assert_outcomes(failed=1)
    text = path.read_text("utf-8")
    assert text.startswith("<!DOCTYPE html>")
    assert "workflow.t.a" in text
