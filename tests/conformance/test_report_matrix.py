"""``ppconf report A B ...``: several runtimes' reports side by side, as a matrix."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from report_files import ReportFiles

from conformance._cli import main
from conformance._report.jsonl import read_report
from conformance._report.matrix import MatrixError, build_matrix, render_matrix_html

pytestmark = pytest.mark.usefixtures("cached_catalog", "fakes_importable")


def report(*args: str | Path) -> int:
    return main(["report", *map(str, args)])


@pytest.fixture
def three(report_file: ReportFiles) -> list[Path]:
    """The reference (1.9), a runtime that breaks loops (1.9) and the reference at 1.5."""
    return [
        report_file("reference"),
        report_file("breaking:OneLevelRedirects"),
        report_file("reference", "--spec-version", "1.5"),
    ]


def test_one_column_per_report_and_one_row_per_area(three: list[Path]) -> None:
    reports = [read_report(path) for path in three]
    matrix = build_matrix(reports, [p.name for p in three])
    page = render_matrix_html(matrix)
    heads = re.findall(r'<th scope="col" class="runtime">', page)
    assert len(heads) == 3
    assert list(matrix.areas) == [a.area for a in reports[0].levels().areas]
    (levels,) = re.findall(r'<section id="levels">.*?</section>', page, re.DOTALL)
    rows = re.findall(r'<th scope="row" class="area-name">([^<]*)</th>', levels)
    assert rows == list(matrix.areas)
    # control is no area of 1.5: the third column says so.
    (control,) = re.findall(r'class="area-name">control</th>(.*?)</tr>', levels, re.DOTALL)
    assert control.count("<td") == 3
    assert "not in its spec version" in control


def test_the_parts_that_differ_link_to_each_runtimes_failure_box(three: list[Path]) -> None:
    reports = [read_report(path) for path in three]
    matrix = build_matrix(reports, [p.name for p in three])
    broken = {(r.case, r.part) for r in reports[1].records if not r.passed}
    # The reference passes every part: exactly the parts the broken one fails differ
    # (within the parts all three hold).
    shared = {(r.case, r.part) for r in reports[2].records}
    assert {(row.case, row.part) for row in matrix.rows} == broken & shared
    assert all(row.outcomes[0] == "passed" for row in matrix.rows)
    page = render_matrix_html(matrix)
    links = re.findall(r'<td class="outcome [a-z]+"><a href="#([^"]+)">', page)
    assert len(links) == len(matrix.rows)
    ids = set(re.findall(r'<div class="box" id="([^"]+)">', page))
    assert set(links) == ids
    assert len(ids) == len(links)  # one box per failing cell, each id once
    # Each box holds that runtime's failure, and leads back to its row.
    row = matrix.rows[0]
    (box,) = re.findall(
        rf'<div class="box" id="{re.escape(links[0])}">.*?</div>\n', page, re.DOTALL
    )
    assert row.case in box
    assert "back to the matrix" in box
    assert '<article class="failure' in box
    assert "<script" not in page


def test_different_spec_versions_are_aligned_on_the_shared_parts_and_said_first(
    three: list[Path],
) -> None:
    reports = [read_report(path) for path in three]
    matrix = build_matrix(reports, ["a.jsonl", "b.jsonl", "c.jsonl"])
    assert matrix.shared == len(reports[2].records) < len(reports[0].records)
    (note,) = matrix.notes
    assert note.startswith("These reports target different spec versions (1.5: c.jsonl; 1.9:")
    assert f"compared on the {matrix.shared} case part(s) every report holds" in note
    page = render_matrix_html(matrix)
    assert page.index("different spec versions") < page.index('<section id="levels">')


def test_reports_sharing_no_part_are_refused(three: list[Path], tmp_path: Path) -> None:
    lines = three[0].read_text("utf-8").splitlines()
    header_only = tmp_path / "empty.jsonl"
    header_only.write_text(lines[0] + "\n", "utf-8")
    with pytest.raises(MatrixError, match="share no case part"):
        build_matrix([read_report(three[0]), read_report(header_only)], ["a", "b"])
    with pytest.raises(MatrixError, match="two reports or more"):
        build_matrix([read_report(three[0])], ["a"])


def test_the_cli_renders_html_md_and_text_and_takes_out(
    three: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "matrix.html"
    assert report(*three, "--format", "html", out) == 0  # OUT: a last argument, no report
    assert out.read_text("utf-8").count('class="runtime"') == 3
    capsys.readouterr()
    assert report(*three, "--format", "md") == 0
    md = capsys.readouterr().out
    assert md.startswith("# ppconf: 3 runtimes side by side")
    assert "| loops | 2 of 2 (MUST" in md
    assert report(*three[:2], "-o", tmp_path / "m.txt") == 0
    assert "2 runtimes side by side" in (tmp_path / "m.txt").read_text("utf-8")
    # One report: the view of that run, as always.
    assert report(three[0], "--format", "md", tmp_path / "one.md") == 0
    assert (tmp_path / "one.md").read_text("utf-8").startswith("# ppconf: ppconf-reference")


def test_the_cli_refuses_a_single_run_view_of_several_reports_and_unrelated_files(
    three: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert report(*three, "--format", "junit") == 2
    err = capsys.readouterr().err
    assert err.startswith("ppconf: error: --format junit renders one report")
    assert "Traceback" not in err
    lines = three[0].read_text("utf-8").splitlines()
    empty = tmp_path / "empty.jsonl"
    empty.write_text(lines[0] + "\n", "utf-8")
    assert report(three[0], empty, "--format", "md") == 2
    err = capsys.readouterr().err
    assert "share no case part" in err
    assert "Traceback" not in err


def test_columns_of_one_runtime_are_told_apart_by_adapter_and_report(
    three: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    reports = [read_report(path) for path in three]
    matrix = build_matrix(reports, [p.name for p in three])
    names = [matrix.name(i) for i in range(3)]
    assert len(set(names)) == 3
    # The two runs of the reference carry their adapter and file; the other runtime its name.
    assert names[0].endswith(f"(reference, {three[0].name})")
    assert names[2].endswith(f"(reference, {three[2].name})")
    assert "(" not in names[1]
    assert report(*three) == 0
    text = capsys.readouterr().out
    assert re.search(
        r"^adapter +\| reference +\| breaking:OneLevelRedirects +\| reference", text, re.M
    )
