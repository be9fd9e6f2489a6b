"""``ppconf report``: any view of a run from its JSON Lines report, and the badge."""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree

import pytest
from report_files import ReportFiles

from conformance._cli import main
from conformance._report.jsonl import read_report
from conformance._report.markdown import render_markdown
from conformance._report.text import render_text
from conformance._report.views import VIEWS

pytestmark = pytest.mark.usefixtures("cached_catalog", "fakes_importable")


def report(*args: str | Path) -> int:
    return main(["report", *map(str, args)])


def truncated(path: Path, folder: Path, keep: int) -> Path:
    """The report cut after ``keep`` lines and half of the next (killed while writing it)."""
    lines = path.read_text("utf-8").splitlines(keepends=True)
    cut = folder / "cut.jsonl"
    cut.write_text("".join(lines[:keep]) + lines[keep][:40], "utf-8")
    return cut


@pytest.mark.parametrize("fmt", sorted(VIEWS))
def test_every_view_renders_from_the_file_to_stdout_or_out(
    fmt: str, report_file: ReportFiles, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = report_file("fakes:ValidatesOnly")
    assert report(path, "--format", fmt) == 0  # the run failed; rendering it did not
    shown = capsys.readouterr()
    assert shown.err == ""
    out = tmp_path / f"view.{fmt}"
    assert report(path, "--format", fmt, out) == 0
    assert capsys.readouterr().out == ""
    assert out.read_text("utf-8") == shown.out
    assert shown.out.endswith("\n")


def test_the_views_are_those_the_run_wrote(
    report_file: ReportFiles, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = report_file("fakes:ValidatesOnly")
    written = read_report(path)
    assert report(path, "--format", "md") == 0
    assert capsys.readouterr().out == render_markdown(written)
    assert report(path) == 0  # text by default
    assert capsys.readouterr().out == render_text(written) + "\n"
    assert report(path, "--format", "junit") == 0
    junit = ElementTree.fromstring(capsys.readouterr().out.encode())
    assert len(junit.findall(".//testcase")) == len(written.records)


@pytest.mark.parametrize("fmt", sorted(VIEWS))
def test_a_truncated_report_renders_what_it_holds_and_says_so(
    fmt: str, report_file: ReportFiles, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cut = truncated(report_file("fakes:ValidatesOnly"), tmp_path, keep=21)
    assert report(cut, "--format", fmt) == 0
    shown = capsys.readouterr()
    assert shown.err == (
        f"ppconf: note: {cut}: the run did not finish; the view shows the 20 part(s) it holds\n"
    )
    says = {
        "text": "the run did not finish",
        "md": "The run did not finish",
        "junit": 'incomplete="true"',
        "badge": "(partial, incomplete)",
        "html": "The run did not finish",
    }
    assert says[fmt] in shown.out


@pytest.mark.parametrize(
    ("content", "where", "what"),
    [
        ("", ":", "no run header"),
        ('{"type": "run"}\n', ":1:", "a report in format None"),
        ("[1, 2]\n", ":1:", "no run header before this line"),
        ("{not json\n{}\n", ":1:", "not JSON"),
    ],
)
def test_a_malformed_report_is_one_error_with_its_place(
    content: str, where: str, what: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(content, "utf-8")
    assert report(path) == 2
    shown = capsys.readouterr()
    assert shown.out == ""
    assert shown.err.startswith(f"ppconf: error: {path}{where} ")
    assert what in shown.err
    assert shown.err.count("\n") == 1


def test_a_missing_report_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert report(tmp_path / "none.jsonl") == 2
    assert capsys.readouterr().err.startswith(
        f"ppconf: error: {tmp_path / 'none.jsonl'}: cannot read the report: "
    )


def test_help_says_the_exit_status_is_not_the_verdict(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["report", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    assert "0 when the view is written, whatever the run's verdict" in shown
    for fmt in VIEWS:
        assert fmt in shown


# -- the badge ---------------------------------------------------------------------------------


def badge_of(path: Path, capsys: pytest.CaptureFixture[str], *args: str) -> object:
    assert report(path, "--format", "badge", *args) == 0
    return json.loads(capsys.readouterr().out)


def test_the_badge_of_the_reference(
    report_file: ReportFiles, capsys: pytest.CaptureFixture[str]
) -> None:
    path = report_file("reference")
    assert badge_of(path, capsys) == {
        "schemaVersion": 1,
        "label": "PromptPack 1.9",
        "message": "level 3 of 3",
        "color": "brightgreen",
    }
    assert badge_of(path, capsys, "--area", "loops") == {
        "schemaVersion": 1,
        "label": "PromptPack 1.9 loops",
        "message": "level 2 of 2",
        "color": "brightgreen",
    }
    assert badge_of(path, capsys, "--area", "control") == {
        "schemaVersion": 1,
        "label": "PromptPack 1.9 control",
        "message": "level 2 of 2",
        "color": "brightgreen",
    }


BADGES = {
    "claimed areas only": ("fakes:ValidatesOnly", None, "level 0 of 2 (failed)", "red"),
    "one area": ("fakes:ValidatesOnly", "workflow", "level 1 of 2 (failed)", "red"),
    "below level 0": ("fakes:RejectsWorkflows", None, "below level 0 (failed)", "red"),
}
"""adapter, --area, the message and colour of its badge: a run whose verdict fails is red and
says so, whatever level it reached (R14)"""


@pytest.mark.parametrize("name", sorted(BADGES))
def test_the_badge_follows_the_level(
    name: str, report_file: ReportFiles, capsys: pytest.CaptureFixture[str]
) -> None:
    adapter, area, message, color = BADGES[name]
    extra = ("--area", area) if area else ()
    badge = badge_of(report_file(adapter), capsys, *extra)
    assert isinstance(badge, dict)
    assert (badge["message"], badge["color"]) == (message, color)


def test_a_partial_run_has_a_grey_badge(
    report_file: ReportFiles, capsys: pytest.CaptureFixture[str]
) -> None:
    badge = badge_of(report_file("reference", "--area", "loops"), capsys)
    assert badge == {
        "schemaVersion": 1,
        "label": "PromptPack 1.9",
        "message": "level 2 of 2 (partial)",
        "color": "lightgrey",
    }


def test_area_goes_with_the_badge_and_must_exist(
    report_file: ReportFiles, capsys: pytest.CaptureFixture[str]
) -> None:
    path = report_file("reference")
    assert report(path, "--area", "loops") == 2
    assert capsys.readouterr().err == (
        "ppconf: error: --area goes with --format badge (the other views show every area)\n"
    )
    assert report(path, "--format", "badge", "--area", "elsewhere") == 2
    assert capsys.readouterr().err == (
        "ppconf: error: the report has no area 'elsewhere'; its areas: workflow, loops, "
        "compositions, control, state-agents, extensions, providers\n"
    )
