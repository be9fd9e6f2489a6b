"""Tests of the drawing package: what a workflow and a composition drawing hold, highlights,
escaping, determinism, and snapshots of the three formats for RFC examples.

Update the snapshots deliberately with ``pytest --snapshot-update`` and look at the diff (and
at the SVGs) before committing.
"""

from __future__ import annotations

import random
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape, quoteattr

import pytest
from hypothesis import given
from hypothesis import strategies as st
from syrupy.assertion import SnapshotAssertion

import reference
from conformance._drawing import (
    DIVERGED_MARK,
    FORMATS,
    DrawingError,
    Format,
    composition_graph,
    draw_composition,
    draw_workflow,
    workflow_graph,
)
from conformance._drawing._layout import RANK_GAP, EdgeSpec, _inversions, layered_layout
from conformance._drawing._model import node_key, visible

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "rfc"
SVG = "{http://www.w3.org/2000/svg}"

# (example file, composition or None for the workflow)
DRAWINGS = {
    "codegen-workflow": ("rfc0009-example1-codegen-corrected.yaml", None),
    "ops-remediation-workflow": ("rfc0009-example4-ops-remediation-corrected.yaml", None),
    "branch-composition": ("rfc0010-example2-branch.yaml", "analyze_document"),
    "parallel-composition": ("rfc0010-example3-parallel-agent.yaml", "deep_analyze"),
}


def example(name: str) -> dict[str, Any]:
    return reference.load_pack(str(EXAMPLES / name))


def draw(key: str, format: Format) -> str:
    file, composition = DRAWINGS[key]
    pack = example(file)
    if composition is None:
        return draw_workflow(pack, format=format)
    return draw_composition(pack, composition, format=format)


def pack_with(states: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """A pack around ``states`` (entry: the first one), for drawings only (need not be valid)."""
    return {
        "id": "p",
        "workflow": {"version": 1, "entry": next(iter(states)), "states": states},
        **extra,
    }


def svg_tree(text: str) -> ET.Element:
    return ET.fromstring(text)


def groups(root: ET.Element, cls: str) -> list[ET.Element]:
    """The ``<g>`` elements whose class list holds ``cls``."""
    return [g for g in root.iter(f"{SVG}g") if cls in g.get("class", "").split()]


def text_of(element: ET.Element) -> list[str]:
    return ["".join(span.itertext()) for span in element.iter(f"{SVG}tspan")]


# -- snapshots and determinism ------------------------------------------------------------------


@pytest.mark.parametrize("format", FORMATS)
@pytest.mark.parametrize("key", sorted(DRAWINGS))
def test_snapshot(key: str, format: Format, snapshot: SnapshotAssertion) -> None:
    assert draw(key, format) == snapshot


def shuffled(value: Any, rng: random.Random) -> Any:
    """``value`` with every mapping's keys in a random order (lists keep theirs)."""
    if isinstance(value, dict):
        items = list(value.items())
        rng.shuffle(items)
        return {key: shuffled(item, rng) for key, item in items}
    if isinstance(value, list):
        return [shuffled(item, rng) for item in value]
    return value


@pytest.mark.parametrize("format", FORMATS)
@pytest.mark.parametrize("key", sorted(DRAWINGS))
def test_same_pack_same_bytes_whatever_the_mapping_order(key: str, format: Format) -> None:
    file, composition = DRAWINGS[key]
    pack = example(file)
    first = draw(key, format)
    assert draw(key, format) == first
    for seed in range(3):
        mixed = shuffled(pack, random.Random(seed))
        if composition is None:
            again = draw_workflow(mixed, format=format)
        else:
            again = draw_composition(mixed, composition, format=format)
        assert again == first


def test_highlights_do_not_depend_on_mapping_order() -> None:
    pack = example("rfc0009-example1-codegen-corrected.yaml")
    path = [{"from": "plan", "to": "implement", "event": "PlanReady"}]
    expected = draw_workflow(pack, format="svg", path=path, diverged="implement")
    mixed = shuffled(pack, random.Random(7))
    assert draw_workflow(mixed, format="svg", path=path, diverged="implement") == expected


# -- what a workflow drawing holds --------------------------------------------------------------


def event_pairs(pack: dict[str, Any]) -> dict[tuple[str, str], set[str]]:
    pairs: dict[tuple[str, str], set[str]] = {}
    for name, state in pack["workflow"]["states"].items():
        for event, target in (state.get("on_event") or {}).items():
            pairs.setdefault((name, target), set()).add(event)
    return pairs


@pytest.mark.parametrize(
    "file",
    [
        "rfc0005-example2-multi-phase.yaml",
        "rfc0009-example1-codegen-corrected.yaml",
        "rfc0009-example4-ops-remediation-corrected.yaml",
        "rfc0009-example3-self-correcting.json",
    ],
)
def test_svg_has_a_node_per_state_and_a_labelled_edge_per_pair(file: str) -> None:
    pack = example(file)
    root = svg_tree(draw_workflow(pack, format="svg"))
    assert root.get("viewBox", "").startswith("0 0 ")
    assert root.get("width") == "100%"
    names = [g.get("data-name") for g in groups(root, "node")]
    assert sorted(names) == sorted(pack["workflow"]["states"])  # type: ignore[type-var]
    drawn: dict[tuple[str, str], list[str]] = {}
    for g in groups(root, "event"):
        pair = (g.get("data-from", ""), g.get("data-to", ""))
        assert pair not in drawn, f"two event edges for {pair}"
        drawn[pair] = text_of(g)
    assert {pair: set(labels) for pair, labels in drawn.items()} == event_pairs(pack)
    redirects = {
        (name, state["on_max_visits"])
        for name, state in pack["workflow"]["states"].items()
        if "on_max_visits" in state
    }
    dashed = groups(root, "max_visits")
    assert {(g.get("data-from"), g.get("data-to")) for g in dashed} == redirects
    for g in dashed:
        assert text_of(g) == ["max_visits"]
        assert g.find(f"{SVG}path").get("stroke-dasharray")  # type: ignore[union-attr]


def test_states_show_their_markers() -> None:
    pack = pack_with(
        {
            "triage": {
                "prompt_task": "t",
                "control": "agent",
                "max_visits": 4,
                "on_max_visits": "done",
                "on_event": {"Next": "work", "Stop": "done"},
            },
            "work": {
                "orchestration": "composition",
                "composition": "c",
                "on_event": {"Back": "triage"},
            },
            "ask": {"orchestration": "external", "on_event": {"Go": "work"}},
            "loud": {"orchestration": "internal", "control": "user", "on_event": {"Go": "done"}},
            "done": {"terminal": True},
            "quiet": {"prompt_task": "t"},
        },
        agents={"members": {"triager": {"state": "triage"}, "helper": {}, "z": {"state": "ghost"}}},
    )
    graph = workflow_graph(pack)
    lines = {node.name: node.lines for node in graph.nodes}
    assert lines["triage"] == ("triage", "control: agent", "max_visits: 4", "agent: triager")
    assert lines["work"] == ("work", "composition: c")
    assert lines["ask"] == ("ask", "orchestration: external")
    assert lines["loud"] == ("loud",)  # the defaults are not shown
    shapes = {node.name: node.shape for node in graph.nodes}
    # Terminal: terminal: true, or no on_event entries (SEMANTICS X2).
    assert {name for name, shape in shapes.items() if shape == "terminal"} == {"done", "quiet"}
    assert [node.name for node in graph.nodes if node.start] == ["triage"]
    root = svg_tree(draw_workflow(pack, format="svg"))
    (start,) = groups(root, "start")
    assert start.get("data-name") == "triage"
    assert start.find(f"{SVG}circle") is not None  # the start marker
    for g in groups(root, "terminal"):
        assert len(g.findall(f"{SVG}rect")) == 2  # a double border


def test_events_between_the_same_states_share_one_edge() -> None:
    pack = pack_with(
        {
            "a": {
                "on_event": {"Retry": "a", "Go": "b", "Skip": "b"},
                "max_visits": 2,
                "on_max_visits": "b",
            },
            "b": {"terminal": True},
        }
    )
    graph = workflow_graph(pack)
    assert [(e.source, e.target, e.kind, e.labels, e.style) for e in graph.edges] == [
        ("a", "a", "event", ("Retry",), "solid"),
        ("a", "b", "event", ("Go", "Skip"), "solid"),
        ("a", "b", "max_visits", ("max_visits",), "dashed"),
    ]
    mermaid = draw_workflow(pack, format="mermaid")
    assert '  n_a -->|"Go<br/>Skip"| n_b' in mermaid
    assert '  n_a -.->|"max_visits"| n_b' in mermaid
    dot = draw_workflow(pack, format="dot")
    assert '  n_a -> n_b [label="Go\\nSkip"];' in dot
    assert '  n_a -> n_b [label="max_visits", style=dashed];' in dot


def test_back_edges_are_drawn_distinctly() -> None:
    pack = example("rfc0009-example1-codegen-corrected.yaml")
    root = svg_tree(draw_workflow(pack, format="svg"))
    back = {(g.get("data-from"), g.get("data-to")) for g in groups(root, "back")}
    # The depth-first search from plan meets these three edges while their target is open.
    assert back == {("implement", "plan"), ("test", "implement"), ("review", "implement")}
    colours = {
        "back" in g.get("class", ""): g.find(f"{SVG}path").get("stroke")  # type: ignore[union-attr]
        for g in groups(root, "edge")
    }
    assert colours[True] != colours[False]


def test_a_malformed_pack_draws_what_is_there() -> None:
    pack = {
        "workflow": {
            "entry": ["not", "a", "name"],
            "states": {
                "a": {"on_event": {"Go": "b", "Lost": "nowhere", "Bad": 3}, "max_visits": "x"},
                "b": None,
                7: {"on_event": {"Go": "a"}},
                "c": {"on_event": ["not", "a", "mapping"], "on_max_visits": "nowhere"},
            },
        }
    }
    graph = workflow_graph(pack)
    assert [node.name for node in graph.nodes] == ["a", "b", "c"]
    assert not any(node.start for node in graph.nodes)  # the entry names no state
    assert [(e.source, e.target, e.labels) for e in graph.edges] == [("a", "b", ("Go",))]
    assert next(n for n in graph.nodes if n.name == "a").lines == ("a",)
    for format in FORMATS:
        assert draw_workflow(pack, format=format)


@pytest.mark.parametrize("workflow", [None, "text", {"states": []}, {"states": {}}])
def test_no_workflow_is_an_error_naming_the_compositions(workflow: Any) -> None:
    pack = {"workflow": workflow, "compositions": {"z": {}, "a": {}}}
    with pytest.raises(DrawingError) as caught:
        draw_workflow(pack, format="mermaid")
    assert caught.value.known == ("a", "z")


# -- --state ------------------------------------------------------------------------------------


def test_start_state_restricts_to_what_it_reaches() -> None:
    pack = example("rfc0009-example4-ops-remediation-corrected.yaml")
    graph = workflow_graph(pack, start="verify")
    reached = {node.name for node in graph.nodes}
    assert reached == {"verify", "postmortem", "diagnose", "propose", "await_approval", "execute"}
    graph = workflow_graph(pack, start="postmortem")
    assert [node.name for node in graph.nodes] == ["postmortem"]
    small = workflow_graph(example("rfc0009-example1-codegen-corrected.yaml"), start="review")
    assert [node.name for node in small.nodes if node.start] == ["review"]
    assert {node.name for node in small.nodes} == {"review", "done", "implement", "test", "plan"}
    done = workflow_graph(example("rfc0009-example1-codegen-corrected.yaml"), start="done")
    assert [node.name for node in done.nodes] == ["done"]
    assert done.edges == ()
    for edge in small.edges:
        assert {edge.source, edge.target} <= {node.name for node in small.nodes}


def test_unknown_start_state_is_an_error_naming_the_states() -> None:
    with pytest.raises(DrawingError) as caught:
        draw_workflow(example("rfc0009-example1-codegen-corrected.yaml"), format="svg", start="x")
    assert caught.value.known == ("done", "implement", "plan", "review", "test")


# -- highlights ---------------------------------------------------------------------------------

REDIRECT_PACK = """\
id: redirect
name: Redirect
version: 1.0.0
template_engine: {version: v1, syntax: "{{variable}}"}
prompts:
  p: {id: p, name: P, version: 1.0.0, system_template: Work.}
workflow:
  version: 2
  entry: plan
  states:
    plan: {prompt_task: p, on_event: {Go: work}}
    work:
      prompt_task: p
      max_visits: 1
      on_max_visits: give_up
      on_event: {Again: plan, Finish: done}
    give_up: {prompt_task: p, terminal: true}
    done: {prompt_task: p, terminal: true}
"""


def reference_history(pack: dict[str, Any], events: list[str]) -> list[dict[str, Any]]:
    session = reference.start_session(pack)
    for event in events:
        session.send(event)
    history: list[dict[str, Any]] = session.state()["history"]
    return history


def test_path_taken_marks_its_edges_and_states_redirects_included() -> None:
    pack = reference.load_pack_string(REDIRECT_PACK)
    path = reference_history(pack, ["Go", "Again", "Go"])  # the second Go is redirected
    assert path[-1] == {"from": "plan", "to": "give_up", "event": "Go"}
    graph = workflow_graph(pack, path=path)
    taken = {(e.source, e.target, e.kind): e.taken for e in graph.edges if e.taken}
    assert taken == {
        ("plan", "work", "event"): (1, 3),
        ("work", "plan", "event"): (2,),
        ("work", "give_up", "max_visits"): (3,),
    }
    assert {n.name for n in graph.nodes if n.visited} == {"plan", "work", "give_up"}
    root = svg_tree(draw_workflow(pack, format="svg", path=path))
    marked = {(g.get("data-from"), g.get("data-to")) for g in groups(root, "taken")}
    assert marked == {("plan", "work"), ("work", "plan"), ("work", "give_up")}
    (first,) = (g for g in groups(root, "taken") if g.get("data-from") == "plan")
    assert text_of(first) == ["Go", "taken: 1, 3"]
    assert {g.get("data-name") for g in groups(root, "visited")} == {"plan", "work", "give_up"}


def test_a_long_path_shows_a_count() -> None:
    pack = reference.load_pack_string(REDIRECT_PACK)
    path = [{"from": "plan", "to": "work", "event": "Go"}] * 5
    (edge,) = (e for e in workflow_graph(pack, path=path).edges if e.taken)
    assert edge.display_labels() == ("Go", "taken: 1, 2, 3 ... (5x)")


def test_diverging_edge_is_marked_with_colour_and_text() -> None:
    pack = reference.load_pack_string(REDIRECT_PACK)
    diverged = {"from": "work", "event": "Finish"}
    for format in FORMATS:
        assert DIVERGED_MARK in draw_workflow(pack, format=format, diverged=diverged)
    root = svg_tree(draw_workflow(pack, format="svg", diverged=diverged))
    (edge,) = groups(root, "diverged")
    assert (edge.get("data-from"), edge.get("data-to")) == ("work", "done")
    assert text_of(edge) == ["Finish", DIVERGED_MARK]
    plain = next(g for g in groups(root, "edge") if "diverged" not in g.get("class", ""))
    stroke = edge.find(f"{SVG}path").get("stroke")  # type: ignore[union-attr]
    assert stroke != plain.find(f"{SVG}path").get("stroke")  # type: ignore[union-attr]
    mermaid = draw_workflow(pack, format="mermaid", diverged=diverged).splitlines()
    links = [line for line in mermaid if "-->" in line or "-.->" in line]
    index = next(i for i, line in enumerate(links) if "Finish" in line)
    assert f"  linkStyle {index} stroke:#dc2626,stroke-width:3px" in mermaid
    dot = draw_workflow(pack, format="dot", diverged=diverged)
    assert 'n_work -> n_done [label="Finish\\n[diverged]", color="#dc2626"' in dot


def test_diverging_state_and_the_fallback_for_an_unknown_edge() -> None:
    pack = reference.load_pack_string(REDIRECT_PACK)
    for diverged in ("work", {"from": "work", "event": "NoSuchEvent"}):
        graph = workflow_graph(pack, diverged=diverged)
        assert [n.name for n in graph.nodes if n.diverged] == ["work"]
        assert not any(e.diverged for e in graph.edges)
        root = svg_tree(draw_workflow(pack, format="svg", diverged=diverged))
        (node,) = groups(root, "diverged")
        assert node.get("data-name") == "work"
        assert DIVERGED_MARK in text_of(node)
        mermaid = draw_workflow(pack, format="mermaid", diverged=diverged)
        assert "  class n_work diverged" in mermaid


def test_a_diverging_redirected_transition_marks_its_event_edge() -> None:
    pack = reference.load_pack_string(REDIRECT_PACK)
    diverged = {"from": "plan", "to": "give_up", "event": "Go"}
    (edge,) = (e for e in workflow_graph(pack, diverged=diverged).edges if e.diverged)
    assert (edge.source, edge.target, edge.kind) == ("plan", "work", "event")


# -- compositions -------------------------------------------------------------------------------


def test_composition_edges_follow_order_branches_parallels_and_dependencies() -> None:
    pack = {
        "compositions": {
            "c": {
                "output": "join",
                "steps": [
                    {"id": "first", "kind": "prompt", "prompt_task": "p"},
                    {"id": "route", "kind": "branch", "then": "left", "else": "right"},
                    {"id": "left", "kind": "tool", "tool": "t"},
                    {"id": "right", "kind": "acme.judge"},
                    {
                        "id": "fan",
                        "kind": "parallel",
                        "branches": [
                            {"id": "b1", "kind": "prompt", "prompt_task": "p"},
                            {"id": "b2", "kind": "agent", "prompt_task": "q"},
                        ],
                        "reduce": {"strategy": "append", "into": "all"},
                    },
                    {
                        "id": "join",
                        "kind": "prompt",
                        "prompt_task": "p",
                        "depends_on": ["left", "first", "ghost"],
                    },
                    "not a step",
                    {"id": "first", "kind": "tool"},
                ],
            }
        }
    }
    graph = composition_graph(pack, "c")
    assert [n.name for n in graph.nodes] == [
        "first",
        "route",
        "left",
        "right",
        "fan",
        "b1",
        "b2",
        "join",
    ]
    lines = {n.name: n.lines for n in graph.nodes}
    assert lines["first"] == ("first", "prompt: p")
    assert lines["left"] == ("left", "tool: t")
    assert lines["right"] == ("right", "acme.judge")
    assert lines["fan"] == ("fan", "parallel: append")
    assert lines["join"] == ("join", "prompt: p", "output")
    assert {n.name for n in graph.nodes if n.shape == "hexagon"} == {"route"}
    assert [(e.source, e.target, e.kind, e.labels, e.style) for e in graph.edges] == [
        ("first", "route", "order", (), "solid"),
        ("first", "join", "depends_on", (), "dotted"),
        ("route", "left", "branch", ("then",), "solid"),
        ("route", "right", "branch", ("else",), "solid"),
        ("left", "fan", "order", (), "solid"),
        ("left", "join", "depends_on", (), "dotted"),
        ("right", "fan", "order", (), "solid"),
        ("fan", "b1", "fan-out", (), "solid"),
        ("fan", "b2", "fan-out", (), "solid"),
        ("b1", "join", "fan-in", (), "solid"),
        ("b2", "join", "fan-in", (), "solid"),
    ]
    mermaid = draw_composition(pack, "c", format="mermaid")
    assert '  n_route{{"route<br/>branch"}}' in mermaid
    assert "  n_first -.-> n_join" in mermaid
    root = svg_tree(draw_composition(pack, "c", format="svg"))
    assert len(groups(root, "node")) == 8
    (dotted,) = (g for g in groups(root, "depends_on") if g.get("data-from") == "first")
    assert dotted.find(f"{SVG}path").get("stroke-dasharray") == "2 3"  # type: ignore[union-attr]


def test_a_dependency_on_the_previous_step_joins_its_order_edge() -> None:
    pack = {
        "compositions": {
            "c": {
                "steps": [
                    {"id": "a", "kind": "prompt"},
                    {"id": "b", "kind": "branch", "then": "c", "else": "c"},
                    {"id": "c", "kind": "prompt", "depends_on": ["b"]},
                ]
            }
        }
    }
    edges = [(e.source, e.target, e.kind, e.labels) for e in composition_graph(pack, "c").edges]
    assert edges == [("a", "b", "order", ()), ("b", "c", "branch", ("else", "then", "depends_on"))]


def test_unknown_composition_is_an_error_naming_the_known_ones() -> None:
    pack = example("rfc0010-example2-branch.yaml")
    with pytest.raises(DrawingError) as caught:
        draw_composition(pack, "nope", format="svg")
    assert caught.value.known == ("analyze_document",)
    with pytest.raises(DrawingError):
        draw_composition({"compositions": ["x"]}, "x", format="svg")


# -- names that need escaping -------------------------------------------------------------------

AWKWARD = ['say "hi"', "a<b>&c", "two words", "ünïcødé 状態", "end", "x\x01y", "#1", "back\\slash"]


def awkward_pack() -> dict[str, Any]:
    states: dict[str, Any] = {}
    for index, name in enumerate(AWKWARD):
        following = AWKWARD[(index + 1) % len(AWKWARD)]
        states[name] = {"on_event": {f'Go "{index}" <&>': following, "Stop|": "graph"}}
    states["graph"] = {"terminal": True, "control": 'x"y'}
    return pack_with(states, id='pack "<id>"')


def test_awkward_names_in_svg() -> None:
    root = svg_tree(draw_workflow(awkward_pack(), format="svg", diverged=AWKWARD[1]))
    names = {g.get("data-name") for g in groups(root, "node")}
    assert names == {visible(name) for name in AWKWARD} | {"graph"}
    assert "x\\x01y" in names
    assert {"".join(title.itertext()) for title in root.iter(f"{SVG}title")} == {
        'the workflow of pack pack "<id>"'
    }
    edge = next(g for g in groups(root, "event") if g.get("data-from") == 'say "hi"')
    assert text_of(edge) == ['Go "0" <&>']


def test_awkward_names_in_mermaid() -> None:
    text = draw_workflow(
        awkward_pack(),
        format="mermaid",
        path=[{"from": "end", "to": "x\x01y", "event": 'Go "4" <&>'}],
    )
    label = r'"(?:[^"<>&#`]|#\w+;|<br/>)*"'
    ident = r"[A-Za-z0-9_]+"
    patterns = [
        r"flowchart TD",
        r"  %% .*",
        rf"  {ident}(?:\[{label}\]|\(\[{label}\]\)|\{{\{{{label}\}}\}})",
        rf'  start_\(\("start"\)\) --> {ident}',
        rf"  {ident} (?:-->|-\.->)(?:\|{label}\|)? {ident}",
        r"  classDef \w+ [\w:#,-]+",
        rf"  class {ident}(?:,{ident})* \w+",
        r"  linkStyle \d+(?:,\d+)* [\w:#,-]+",
    ]
    for line in text.splitlines():
        assert any(re.fullmatch(p, line) for p in patterns), line
    assert '["say #quot;hi#quot;"]' in text
    assert '["a#lt;b#gt;#amp;c"]' in text
    assert '["#35;1"]' in text
    assert "n_end[" in text  # a keyword as a name is safe behind the prefix


def test_awkward_names_in_dot() -> None:
    text = draw_workflow(awkward_pack(), format="dot", diverged="end")
    string = r'"(?:[^"\\\n]|\\.)*"'
    attribute = rf"\w+=(?:{string}|[\w.]+)"
    attributes = rf" \[{attribute}(?:, {attribute})*\]"
    patterns = [
        r"digraph ppconf \{",
        rf"  (?:graph|node|edge){attributes};",
        rf"  \w+(?:{attributes})?;",
        rf"  \w+ -> \w+(?:{attributes})?;",
        r"\}",
    ]
    for line in text.splitlines():
        assert any(re.fullmatch(p, line) for p in patterns), line
    assert 'label="say \\"hi\\""' in text
    assert 'label="back\\\\slash"' in text


@given(st.lists(st.text(max_size=8), min_size=2, max_size=8, unique=True))
def test_node_keys_are_distinct_identifiers(names: list[str]) -> None:
    keys = [node_key(name) for name in names]
    assert len(set(keys)) == len(keys)
    for key in keys:
        assert re.fullmatch(r"n_[A-Za-z0-9_]*", key)


@given(st.text())
def test_visible_text_is_valid_in_xml(text: str) -> None:
    shown = visible(text)
    ET.fromstring(f"<t a={quoteattr(shown)}>{escape(shown)}</t>")
    assert "\n" not in shown
    assert visible(shown) == shown


# -- anything loaded from YAML or JSON draws, or says what is missing ----------------------------

NAMES = st.sampled_from(["a", "b", "c", "end", 'q"'])
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-2, 5) | NAMES,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(NAMES, inner, max_size=3),
    max_leaves=8,
)
STATE = st.fixed_dictionaries(
    {},
    optional={
        "on_event": st.dictionaries(NAMES, JSON_VALUES, max_size=3) | JSON_VALUES,
        "on_max_visits": JSON_VALUES,
        "max_visits": JSON_VALUES,
        "terminal": JSON_VALUES,
        "orchestration": JSON_VALUES,
        "composition": JSON_VALUES,
        "control": JSON_VALUES,
    },
)
STEP = st.fixed_dictionaries(
    {"id": NAMES | JSON_VALUES},
    optional={
        "kind": st.sampled_from(["prompt", "branch", "parallel", "tool"]) | JSON_VALUES,
        "then": JSON_VALUES,
        "else": JSON_VALUES,
        "depends_on": JSON_VALUES,
        "branches": st.lists(
            st.fixed_dictionaries({"id": NAMES}, optional={"kind": JSON_VALUES}), max_size=3
        )
        | JSON_VALUES,
    },
)
PACKS = st.fixed_dictionaries(
    {},
    optional={
        "workflow": st.fixed_dictionaries(
            {},
            optional={
                "entry": JSON_VALUES,
                "states": st.dictionaries(NAMES, STATE | JSON_VALUES, max_size=4) | JSON_VALUES,
            },
        )
        | JSON_VALUES,
        "compositions": st.dictionaries(
            NAMES, st.fixed_dictionaries({}, optional={"steps": st.lists(STEP, max_size=5)})
        )
        | JSON_VALUES,
        "agents": JSON_VALUES,
    },
)


@given(PACKS, st.sampled_from(FORMATS))
def test_any_document_draws_or_raises_a_drawing_error(pack: dict[str, Any], format: Format) -> None:
    try:
        text = draw_workflow(pack, format=format, path=[{"from": "a", "to": "b", "event": "a"}])
    except DrawingError:
        pass
    else:
        if format == "svg":
            svg_tree(text)
    for name in ("a", "b", "x"):
        try:
            text = draw_composition(pack, name, format=format)
        except DrawingError:
            continue
        if format == "svg":
            svg_tree(text)


@given(st.lists(st.integers(0, 40), max_size=600))
def test_crossings_are_counted_as_inversions(ends: list[int]) -> None:
    brute = sum(a > b for i, a in enumerate(ends) for b in ends[i + 1 :])
    assert _inversions(ends) == brute


# -- the layout ---------------------------------------------------------------------------------


def _box(size: tuple[float, float] = (60.0, 30.0)) -> tuple[float, float]:
    return size


def test_a_label_sits_beside_the_state_its_edge_leaves() -> None:
    # a -> b -> c, and c back to a: the back edge's label is just above c, not beside a.
    edges = [EdgeSpec(0, 1, 20, 14), EdgeSpec(1, 2, 20, 14), EdgeSpec(2, 0, 20, 14)]
    layout = layered_layout([_box()] * 3, edges, start=0)
    a, b, c = layout.nodes
    forward, _, back = layout.edges
    assert back.back
    assert not forward.back
    assert forward.label is not None
    assert back.label is not None
    assert a.y < forward.label[1] < b.y
    assert b.y < back.label[1] < c.y  # on the rank above c, which it leaves


def test_a_source_with_more_edges_down_than_up_moves_next_to_its_successor() -> None:
    # 0 -> 1 -> 2 -> 3, and a second source 4 -> 3: 4 goes on the rank above 3, not on top.
    edges = [EdgeSpec(0, 1), EdgeSpec(1, 2), EdgeSpec(2, 3), EdgeSpec(4, 3)]
    layout = layered_layout([_box()] * 5, edges, start=0)
    assert layout.nodes[4].y == layout.nodes[2].y
    assert layout.nodes[0].y < layout.nodes[1].y < layout.nodes[2].y < layout.nodes[3].y


def test_the_gap_below_a_rank_grows_with_how_far_an_edge_moves_sideways() -> None:
    # Twelve wide siblings under one parent: the edges to the outer ones move far sideways,
    # so the gap between the parent's rank and theirs is wider than the least gap.
    edges = [EdgeSpec(0, child) for child in range(1, 13)]
    layout = layered_layout([_box((120.0, 30.0))] * 13, edges, start=0)
    parent, child = layout.nodes[0], layout.nodes[1]
    gap = (child.y - child.height / 2) - (parent.y + parent.height / 2)
    assert gap > 2 * RANK_GAP


def test_the_arms_of_a_branch_do_not_lead_into_each_other() -> None:
    # RFC 0010 Example 2: route's then (extract_paper) and else (extract_general) follow each
    # other; no edge may join them, as though both ran.
    graph = composition_graph(example("rfc0010-example2-branch.yaml"), "analyze_document")
    pairs = {(e.source, e.target): e.labels for e in graph.edges}
    assert pairs[("route", "extract_paper")] == ("then",)
    assert pairs[("route", "extract_general")] == ("else",)
    assert ("extract_paper", "extract_general") not in pairs
    # With a step after them, the first arm goes on past the second.
    pack = {
        "compositions": {
            "c": {
                "steps": [
                    {"id": "route", "kind": "branch", "then": "yes", "else": "no"},
                    {"id": "no", "kind": "tool"},
                    {"id": "yes", "kind": "tool"},
                    {"id": "after", "kind": "tool"},
                ]
            }
        }
    }
    edges = [(e.source, e.target, e.kind) for e in composition_graph(pack, "c").edges]
    assert ("no", "after", "order") in edges
    assert ("yes", "after", "order") in edges
    assert ("no", "yes", "order") not in edges
