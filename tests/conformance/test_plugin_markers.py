"""Markers for area, level and requirement: ``-m`` selects cases; ``--strict-markers`` is fine."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from conformance import Catalog

pytest_plugins = ["pytester"]

RunPytest = Callable[..., pytest.RunResult]


def ppconf_ids(lines: list[str]) -> set[str]:
    return {line.removeprefix("::") for line in lines if "ppconf::" in line}


def parts(catalog: Catalog, keep: Callable[..., bool]) -> set[str]:
    return {f"ppconf::{c.id}::{p}" for c in catalog.cases if keep(c) for p in c.parts}


def test_markers_are_registered_even_without_the_adapter(run_pytest: RunPytest) -> None:
    result = run_pytest("--markers")
    result.stdout.fnmatch_lines(
        [
            "@pytest.mark.ppconf_workflow: a ppconf case of the workflow area",
            "@pytest.mark.ppconf_loops: a ppconf case of the loops area",
            "@pytest.mark.ppconf_compositions: a ppconf case of the compositions area",
            "@pytest.mark.ppconf_level_0: a ppconf case of level 0",
            "@pytest.mark.ppconf_level_3: a ppconf case of level 3",
            "@pytest.mark.ppconf_must: a ppconf case of requirement MUST",
            "@pytest.mark.ppconf_should: a ppconf case of requirement SHOULD",
            "@pytest.mark.ppconf_may: a ppconf case of requirement MAY",
        ]
    )


def test_select_an_area(run_pytest: RunPytest, catalog: Catalog) -> None:
    result = run_pytest("--ppconf-adapter=reference", "-m", "ppconf_loops", "--collect-only", "-q")
    assert ppconf_ids(result.outlines) == parts(catalog, lambda c: c.area == "loops")


def test_a_run_selected_by_marker(run_pytest: RunPytest, catalog: Catalog) -> None:
    result = run_pytest("--ppconf-adapter=reference", "-m", "ppconf_loops")
    selected = sum(len(c.parts) for c in catalog.cases if c.area == "loops")
    deselected = sum(len(c.parts) for c in catalog.cases if c.area != "loops")
    result.assert_outcomes(passed=selected, deselected=deselected)


def test_the_collection_line_counts_the_catalog(
    run_pytest: RunPytest, catalog: Catalog, pytester: pytest.Pytester
) -> None:
    pytester.makepyfile(test_own="def test_one():\n    pass\n")
    total = sum(len(c.parts) for c in catalog.cases) + 1
    loops = sum(len(c.parts) for c in catalog.cases if c.area == "loops")
    result = run_pytest("--ppconf-adapter=reference", "-m", "ppconf_loops")
    result.stdout.fnmatch_lines(
        [f"collected {total} items / {total - loops} deselected / {loops} selected"]
    )


def test_select_requirement_and_level(run_pytest: RunPytest, catalog: Catalog) -> None:
    result = run_pytest(
        "--ppconf-adapter=reference", "-m", "ppconf_must and ppconf_level_1", "--collect-only", "-q"
    )
    expected = parts(catalog, lambda c: c.requirement == "MUST" and c.level == 1)
    assert expected
    assert ppconf_ids(result.outlines) == expected


def test_levels_are_computed_from_what_ran(
    run_pytest: RunPytest, level_table: Callable[..., dict[str, str]]
) -> None:
    result = run_pytest("--ppconf-adapter=fakes:ValidatesOnly", "-m", "ppconf_loops")
    assert level_table(result.outlines) == {
        "workflow": "not assessed",
        "loops": "0",
        "compositions": "not assessed",
        "control": "not assessed",
        "state-agents": "not assessed",
        "extensions": "not assessed",
        "providers": "not assessed",
        "headline": "0",
        "headline areas": "workflow, loops",  # what ValidatesOnly claims
    }
    # Deselected parts make the selection partial: the levels certify nothing.
    result.stdout.fnmatch_lines(["spec version 1.9; PARTIAL selection: *"])


def test_select_by_keyword(run_pytest: RunPytest, catalog: Catalog) -> None:
    result = run_pytest("--ppconf-adapter=reference", "-k", "redirect", "--collect-only", "-q")
    ids = ppconf_ids(result.outlines)
    assert ids
    assert ids == {i for i in parts(catalog, lambda c: True) if "redirect" in i}


def test_strict_markers(run_pytest: RunPytest, pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_own="""
        import pytest

        @pytest.mark.ppconf_loops
        def test_tagged_like_a_case():
            pass
        """
    )
    alone = run_pytest("--strict-markers")
    alone.assert_outcomes(passed=1)
    with_adapter = run_pytest(
        "--strict-markers", "--ppconf-adapter=reference", "--ppconf-area=loops"
    )
    assert with_adapter.ret == pytest.ExitCode.OK
    assert with_adapter.parseoutcomes()["passed"] > 1
    selected = run_pytest("--strict-markers", "--ppconf-adapter=reference", "-m", "ppconf_loops")
    assert selected.ret == pytest.ExitCode.OK
    assert "test_own.py" in selected.stdout.str()
