"""``--ppconf-area``: only the cases of the given areas become items and count for levels."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from conformance import Catalog
from conformance._basics.resources import catalog_root

pytest_plugins = ["pytester"]

RunPytest = Callable[..., pytest.RunResult]


def ppconf_ids(lines: list[str]) -> set[str]:
    return {line.removeprefix("::") for line in lines if "ppconf::" in line}


def parts_of(catalog: Catalog, *areas: str) -> set[str]:
    return {f"ppconf::{c.id}::{part}" for c in catalog.cases if c.area in areas for part in c.parts}


def test_one_area(run_pytest: RunPytest, catalog: Catalog) -> None:
    result = run_pytest("--ppconf-adapter=reference", "--ppconf-area=loops", "--collect-only", "-q")
    assert result.ret == pytest.ExitCode.OK
    assert ppconf_ids(result.outlines) == parts_of(catalog, "loops")


def test_the_option_repeats(run_pytest: RunPytest, catalog: Catalog) -> None:
    result = run_pytest(
        "--ppconf-adapter=reference",
        "--ppconf-area=loops",
        "--ppconf-area=workflow",
        "--collect-only",
        "-q",
    )
    assert ppconf_ids(result.outlines) == parts_of(catalog, "loops", "workflow")


def test_areas_left_out_are_not_assessed(
    run_pytest: RunPytest, level_table: Callable[..., dict[str, str]]
) -> None:
    result = run_pytest("--ppconf-adapter=fakes:ValidatesOnly", "--ppconf-area=workflow")
    assert level_table(result.outlines) == {
        "workflow": "1",
        "loops": "not assessed",
        "compositions": "not assessed",
        "control": "not assessed",
        "state-agents": "not assessed",
        "extensions": "not assessed",
        "providers": "not assessed",
        "headline": "1",
        "headline areas": "workflow, loops",  # what ValidatesOnly claims
    }
    result.stdout.fnmatch_lines(
        [
            "spec version 1.9; PARTIAL selection: these levels describe only the cases run and "
            "certify nothing"
        ]
    )
    assert "ppconf::loops." not in result.stdout.str()


def test_an_area_without_cases_in_the_catalog(
    run_pytest: RunPytest, pytester: pytest.Pytester
) -> None:
    catalog = pytester.mkdir("catalog")
    area = catalog / "workflow"
    area.mkdir()
    seed = catalog_root() / "workflow" / "validation-entry-unknown.yaml"
    (area / seed.name).write_text(seed.read_text(encoding="utf-8"), encoding="utf-8")
    result = run_pytest(
        "--ppconf-adapter=reference", "--ppconf-area=compositions", f"--ppconf-catalog={catalog}"
    )
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    result.stdout.fnmatch_lines(
        [
            "spec version 1.9; PARTIAL selection: *",
            "headline level: not assessed (over the claimed areas: workflow, loops, compositions, "
            "control, state-agents, extensions, providers)",
        ]
    )


def test_an_unknown_area_is_a_usage_error(run_pytest: RunPytest) -> None:
    result = run_pytest("--ppconf-adapter=reference", "--ppconf-area=workflows")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--ppconf-area: invalid choice: 'workflows'*"])


def test_an_area_needs_an_adapter(run_pytest: RunPytest) -> None:
    result = run_pytest("--ppconf-area=loops")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: ppconf: --ppconf-area needs --ppconf-adapter"])
