"""Tests of ``ppconf graph``: formats, output file, ``--state``, ``--composition`` and errors."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import conformance._cli.graph
import conformance._drawing
import reference
from conformance._cli import main
from conformance._drawing import draw_composition, draw_workflow

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "rfc"
CODEGEN = str(EXAMPLES / "rfc0009-example1-codegen-corrected.yaml")
BRANCH = str(EXAMPLES / "rfc0010-example2-branch.yaml")


def graph(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(["graph", *args])
    out, err = capsys.readouterr()
    return status, out, err


def one_error(err: str) -> str:
    """The single ``ppconf: error:`` line of ``err``."""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("ppconf: error: ")
    return lines[0]


def test_default_is_mermaid_on_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = graph(capsys, CODEGEN)
    assert (status, err) == (0, "")
    assert out == draw_workflow(reference.load_pack(CODEGEN), format="mermaid")
    assert out.startswith("flowchart TD\n")
    assert '  n_plan -->|"PlanReady"| n_implement' in out


@pytest.mark.parametrize("format", ["mermaid", "dot", "svg"])
def test_output_file_holds_the_drawing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, format: str
) -> None:
    target = tmp_path / f"codegen.{format}"
    status, out, err = graph(capsys, CODEGEN, "--format", format, "-o", str(target))
    assert (status, out, err) == (0, "", "")
    expected = draw_workflow(reference.load_pack(CODEGEN), format=format)  # type: ignore[arg-type]
    assert target.read_bytes() == expected.encode()


def test_svg_on_stdout_parses(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = graph(capsys, CODEGEN, "--format", "svg")
    assert status == 0
    assert ET.fromstring(out).tag == "{http://www.w3.org/2000/svg}svg"


def test_state_restricts_the_drawing(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = graph(capsys, CODEGEN, "--state", "review")
    assert status == 0
    assert 'start_(("start")) --> n_review' in out
    _, whole, _ = graph(capsys, CODEGEN)
    assert "n_plan[" in whole
    _, done, _ = graph(capsys, CODEGEN, "--state", "done")
    assert "n_plan" not in done
    assert "n_implement" not in done


def test_composition(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = graph(capsys, BRANCH, "--composition", "analyze_document", "--format", "dot")
    assert status == 0
    pack = reference.load_pack(BRANCH)
    assert out == draw_composition(pack, "analyze_document", format="dot")
    assert 'n_route -> n_extract__paper [label="then"];' in out


def test_invalid_packs_are_drawn(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "invalid.yaml"
    path.write_text("workflow:\n  entry: a\n  states:\n    a: {on_event: {Go: nowhere}}\n")
    status, out, err = graph(capsys, str(path))
    assert (status, err) == (0, "")
    assert '  n_a["a"]' in out  # it has an on_event entry, so it is not terminal


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("workflow: [unclosed\n", ":2"),
        ("id: a\nid: b\n", ":2"),
        ("- a list\n", ":1"),
    ],
)
def test_unreadable_documents_exit_2_with_file_and_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str, where: str
) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    status, out, err = graph(capsys, str(path))
    assert (status, out) == (2, "")
    assert f"{path}{where}" in one_error(err)


def test_missing_file_exits_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    status, _, err = graph(capsys, str(tmp_path / "absent.yaml"))
    assert status == 2
    assert "absent.yaml" in one_error(err)


def test_unknown_state_names_the_states(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = graph(capsys, CODEGEN, "--state", "nope")
    assert (status, out) == (2, "")
    assert one_error(err) == (
        f"ppconf: error: {CODEGEN}:103: the workflow has no state 'nope'; "
        "its states: done, implement, plan, review, test"
    )


def test_unknown_composition_names_the_compositions(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = graph(capsys, BRANCH, "--composition", "nope")
    assert status == 2
    assert one_error(err) == (
        f"ppconf: error: {BRANCH}:44: the pack has no composition 'nope'; "
        "its compositions: analyze_document"
    )
    status, _, err = graph(capsys, CODEGEN, "--composition", "nope")
    assert status == 2
    assert one_error(err).endswith("the pack has no compositions to draw")


def test_no_workflow_suggests_composition(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "compositions.yaml"
    path.write_text("id: c\ncompositions:\n  second: {steps: []}\n  first: {steps: []}\n")
    status, _, err = graph(capsys, str(path))
    assert status == 2
    assert one_error(err) == (
        f"ppconf: error: {path}: the pack has no workflow to draw; draw a composition with "
        "--composition NAME (its compositions: first, second)"
    )
    path.write_text("id: nothing\n")
    status, _, err = graph(capsys, str(path))
    assert status == 2
    assert one_error(err).endswith("the pack has no workflow and no compositions to draw")


def test_many_states_are_listed_in_part(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "many.yaml"
    states = "".join(f"    s{i:02}: {{terminal: true}}\n" for i in range(30))
    path.write_text(f"workflow:\n  entry: s00\n  states:\n{states}")
    _, _, err = graph(capsys, str(path), "--state", "x")
    line = one_error(err)
    assert "s00, s01" in line
    assert "s19 ... (30 in all)" in line
    assert "s20" not in line


def test_state_and_composition_together_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = graph(capsys, BRANCH, "--state", "main", "--composition", "analyze_document")
    assert status == 2
    assert "--state" in one_error(err)


def test_unwritable_output_exits_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    status, _, err = graph(capsys, CODEGEN, "-o", str(tmp_path / "no" / "such" / "dir.svg"))
    assert status == 2
    assert "cannot write" in one_error(err)


def test_the_formats_offered_are_those_drawn() -> None:
    assert conformance._cli.graph.FORMATS == conformance._drawing.FORMATS


def test_unknown_format_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["graph", CODEGEN, "--format", "png"])
    assert caught.value.code == 2
    assert "invalid choice" in capsys.readouterr().err
