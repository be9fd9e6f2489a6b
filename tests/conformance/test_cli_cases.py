"""``ppconf cases list|show|check``, and the catalog checks behind ``check``."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from conformance import Catalog
from conformance._basics.contract import RULES
from conformance._basics.resources import catalog_root
from conformance._cli import main
from conformance._judging.catalog_check import coverage_problems

WriteCatalog = Callable[[Mapping[str, str]], Path]
CaseText = Callable[..., str]


def quoted(text: str) -> str:
    """A case text of ``case_text``: it cites an RFC definition, as a MUST case must (R8)."""
    return text


def cases(*args: str | Path) -> int:
    return main(["cases", *map(str, args)])


@pytest.fixture
def small(write_catalog: WriteCatalog, case_text: CaseText) -> Path:
    return write_catalog(
        {
            "workflow/a.yaml": quoted(case_text("workflow.load.a", level=0, body="load: true\n")),
            "workflow/b.yaml": quoted(case_text("workflow.exec.b", level=2)),
            "loops/c.yaml": case_text("loops.exec.c", level=1, requirement="SHOULD"),
            "loops/packs/ignored.yaml": "not: a case\n",
        }
    )


def listed_ids(out: str) -> list[str]:
    """The ids of a ``cases list`` table (first column, after the header and rule)."""
    lines = out.splitlines()
    assert lines[0].split(" | ")[0].strip() == "id"
    return [line.split(" | ")[0].strip() for line in lines[2:-1]]


# -- list ---------------------------------------------------------------------------------------


def test_list_shows_every_case(small: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cases("list", "--catalog", small) == 0
    out = capsys.readouterr().out
    assert listed_ids(out) == ["loops.exec.c", "workflow.exec.b", "workflow.load.a"]
    assert out.splitlines()[-1] == "3 cases of spec version 1.9"
    row = next(line for line in out.splitlines() if line.startswith("loops.exec.c"))
    assert [cell.strip() for cell in row.split(" | ")] == [
        "loops.exec.c",
        "loops",
        "1",
        "SHOULD",
        ">=1.5",
        "The case loops.exec.c of the kit's own tests",
    ]


@pytest.mark.parametrize(
    ("filters", "ids"),
    [
        (["--area", "workflow"], ["workflow.exec.b", "workflow.load.a"]),
        (["--level", "0", "--level", "1"], ["loops.exec.c", "workflow.load.a"]),
        (["--requirement", "MUST"], ["workflow.exec.b", "workflow.load.a"]),
        (["--id", "*.exec.*"], ["loops.exec.c", "workflow.exec.b"]),
        (["--area", "workflow", "--level", "2"], ["workflow.exec.b"]),
        (["--area", "compositions"], []),
    ],
)
def test_list_filters(
    small: Path, capsys: pytest.CaptureFixture[str], filters: list[str], ids: list[str]
) -> None:
    assert cases("list", "--catalog", small, *filters) == 0
    out = capsys.readouterr().out
    assert listed_ids(out) == ids
    assert out.splitlines()[-1] == f"{len(ids)} cases of spec version 1.9"


@pytest.mark.usefixtures("cached_catalog")
def test_list_filters_the_built_in_catalog(
    catalog: Catalog, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cases("list", "--area", "loops", "--requirement", "MUST") == 0
    ids = listed_ids(capsys.readouterr().out)
    assert ids == [c.id for c in catalog.cases if c.area == "loops" and c.requirement == "MUST"]
    assert ids
    assert all(i.startswith("loops.") for i in ids)


def test_list_of_a_broken_catalog(small: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (small / "workflow" / "bad.yaml").write_text("id: [\n", "utf-8")
    assert cases("list", "--catalog", small) == 2
    assert capsys.readouterr().err.startswith(f"ppconf: error: {small / 'workflow' / 'bad.yaml'}:")


# -- show ---------------------------------------------------------------------------------------


def test_show_prints_the_file(small: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cases("show", "workflow.exec.b", "--catalog", small) == 0
    path = small / "workflow" / "b.yaml"
    out = capsys.readouterr().out
    assert out.startswith(f"# {path}\n" + path.read_text("utf-8"))
    # Then the statements its checks cite, each with where it stands and what it gives.
    assert out.endswith(
        "# the statements its checks cite:\n"
        "#   RFC0005.def.WorkflowState.on_event.2 (RFC 0005, Schema Changes: New Definition: "
        "WorkflowState; definition: MUST):\n"
        "#     When an event is emitted, the workflow transitions to the corresponding state.\n"
    )


@pytest.mark.usefixtures("cached_catalog")
def test_show_a_built_in_case(catalog: Catalog, capsys: pytest.CaptureFixture[str]) -> None:
    assert cases("show", "workflow.execution.unknown-event") == 0
    out = capsys.readouterr().out
    first, rest = out.split("\n", 1)
    case = catalog.get("workflow.execution.unknown-event")
    assert case is not None
    assert case.file.parent.parent == catalog_root()
    assert first == f"# {case.file}"
    assert rest.startswith("id: workflow.execution.unknown-event\n")


def test_show_an_unknown_id_suggests_close_ones(
    small: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cases("show", "exec", "--catalog", small) == 2
    assert capsys.readouterr().err == (
        "ppconf: error: no case 'exec'; did you mean loops.exec.c, workflow.exec.b?\n"
    )
    assert cases("show", "nothing-like-it", "--catalog", small) == 2
    assert capsys.readouterr().err == (
        "ppconf: error: no case 'nothing-like-it'; see `ppconf cases list`\n"
    )


# -- check --------------------------------------------------------------------------------------


def test_check_passes_on_the_built_in_catalog(capsys: pytest.CaptureFixture[str]) -> None:
    """Schema, unique ids, valid packs, full coverage, the reference passing every case, an
    honest registry, and (beside a source checkout with the spec texts) every quote in its text."""
    assert cases("check") == 0
    out = capsys.readouterr().out
    assert re.fullmatch(r"catalog check passed: \d+ cases(, every quote found in .+)?\n", out)


def test_check_fails_loudly_on_a_broken_case(
    small: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = small / "workflow" / "broken.yaml"
    broken.write_text("id: workflow.broken\ndescription: 12\n", "utf-8")
    assert cases("check", "--catalog", small, "--no-coverage") == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(f"{broken}:")
    assert lines[-1] == "catalog check FAILED: 1 problem(s) in 3 cases"


def test_check_reports_every_kind_of_problem(
    small: Path, case_text: CaseText, capsys: pytest.CaptureFixture[str]
) -> None:
    wrong = case_text("workflow.exec.wrong", pack_id="wrong").replace(
        "to: review, event", "to: draft, event"
    )
    invalid = case_text("workflow.exec.invalid", pack_id="invalid").replace(
        "entry: draft", "entry: nowhere"
    )
    duplicate = case_text("workflow.exec.b", description="Another case claiming the same id")
    (small / "workflow" / "wrong.yaml").write_text(wrong, "utf-8")
    (small / "workflow" / "invalid.yaml").write_text(invalid, "utf-8")
    (small / "workflow" / "z-duplicate.yaml").write_text(duplicate, "utf-8")
    assert cases("check", "--catalog", small, "--no-coverage") == 1
    out = capsys.readouterr().out
    assert f"id 'workflow.exec.b' is already used by {small / 'workflow' / 'b.yaml'}" in out
    assert "workflow.exec.invalid runs an invalid pack: " in out
    assert "entry-unknown" in out
    assert "the reference does not pass workflow.exec.wrong [submit]: " in out
    assert 'transition.to: expected "draft", got "review"' in out
    assert out.splitlines()[-1].startswith("catalog check FAILED: ")


def test_check_of_a_partial_catalog_lists_what_it_does_not_cover(
    small: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cases("check", "--catalog", small) == 1
    lines = capsys.readouterr().out.splitlines()
    assert "no case exercises the diagnostic code 'redirect-cycle'" in lines
    assert "no case exercises the rejection code 'budget-exhausted'" in lines
    assert "no Level 0 case loads a pack carrying loops fields" in lines
    assert "no Level 0 case loads a pack carrying workflow fields" not in lines
    assert any(line.startswith("no case covers SEMANTICS row X5 (MUST: ") for line in lines)


def test_check_needs_a_folder_with_cases(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cases("check", "--catalog", tmp_path / "absent") == 2
    assert capsys.readouterr().err == f"ppconf: error: {tmp_path / 'absent'} is not a folder\n"
    assert cases("check", "--catalog", tmp_path) == 1
    out = capsys.readouterr().out
    assert f"{tmp_path}: no case files (*.yaml outside packs/ folders)" in out


# -- coverage, on the built-in catalog ----------------------------------------------------------


def test_coverage_notices_a_code_no_case_exercises(catalog: Catalog) -> None:
    everything = set(coverage_problems(catalog.cases))
    for code, kind in (("redirect-cycle", "diagnostic"), ("max-visits-exceeded", "rejection")):
        exercising = [c for c in catalog.cases if code in c.codes]
        assert exercising, f"no built-in case exercises {code}"
        without = [c for c in catalog.cases if code not in c.codes]
        assert set(coverage_problems(without)) - everything == {
            f"no case exercises the {kind} code {code!r}"
        }


def test_coverage_notices_a_rule_no_case_covers(catalog: Catalog) -> None:
    rule = next(r for r in RULES if r.id == "X5")
    without = [c for c in catalog.cases if "X5" not in c.rules]
    new = set(coverage_problems(without)) - set(coverage_problems(catalog.cases))
    assert f"no case covers SEMANTICS row X5 ({rule.requirement}: {rule.summary})" in new


def test_coverage_notices_an_area_without_level_0_cases(catalog: Catalog) -> None:
    without = [c for c in catalog.cases if not (c.area == "loops" and c.level == 0)]
    new = set(coverage_problems(without)) - set(coverage_problems(catalog.cases))
    assert "no Level 0 case loads a pack carrying loops fields" in new
