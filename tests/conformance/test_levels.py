"""Support levels, as SEMANTICS section 5 defines them, from case verdicts."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance import (
    CaseResult,
    CaseVerdict,
    LevelReport,
    PartResult,
    compute_levels,
    load_case,
    verdicts,
)
from conformance._contract import AREAS, TOP_LEVEL
from conformance._levels import BELOW_ZERO, describe_level


def must(case_id: str, level: int, passed: bool = True) -> CaseVerdict:
    return CaseVerdict(case_id, case_id.split(".", maxsplit=1)[0], level, "MUST", passed)


def advisory(case_id: str, level: int, requirement: str, passed: bool) -> CaseVerdict:
    return CaseVerdict(case_id, case_id.split(".", maxsplit=1)[0], level, requirement, passed)


def level_of(report: LevelReport, area: str) -> int | None:
    found = report.area(area)
    assert found is not None
    return found.level


def full(area: str, failing: dict[int, int] | None = None) -> list[CaseVerdict]:
    """Two MUST cases per level of an area; ``failing`` = {level: how many of them fail}."""
    failing = failing or {}
    return [
        must(f"{area}.l{level}.c{n}", level, passed=n >= failing.get(level, 0))
        for level in range(TOP_LEVEL[area] + 1)
        for n in range(2)
    ]


# -- one area -----------------------------------------------------------------------------------


def test_every_must_case_passing_reaches_the_top() -> None:
    report = compute_levels(full("workflow") + full("loops"))
    workflow = report.area("workflow")
    assert workflow is not None
    assert (workflow.level, workflow.top, workflow.blocking) == (2, 2, ())
    assert workflow.reason == "every MUST case passes"
    assert workflow.must == (6, 6)
    assert report.headline == 2


@pytest.mark.parametrize(("failing_level", "reached"), [(0, BELOW_ZERO), (1, 0), (2, 1)])
def test_the_first_level_with_a_failing_must_case_is_not_reached(
    failing_level: int, reached: int
) -> None:
    report = compute_levels(full("workflow", {failing_level: 1}))
    workflow = report.area("workflow")
    assert workflow is not None
    assert workflow.level == reached
    assert workflow.blocking == (f"workflow.l{failing_level}.c0",)
    assert workflow.must == (5, 6)


def test_every_must_case_up_to_the_level_must_pass() -> None:
    """A failing Level 1 case caps the area at 0 even though every Level 2 case passes."""
    report = compute_levels(full("loops", {1: 2}))
    loops = report.area("loops")
    assert loops is not None
    assert loops.level == 0
    assert loops.blocking == ("loops.l1.c0", "loops.l1.c1")
    assert loops.reason == "Level 1 needs 2 more MUST case(s) to pass"


def test_blocking_names_only_the_first_level_not_reached() -> None:
    report = compute_levels(full("loops", {1: 1, 2: 2}))
    loops = report.area("loops")
    assert loops is not None
    assert loops.blocking == ("loops.l1.c0",)


def test_below_zero_names_the_failing_level_0_cases() -> None:
    verdicts_ = [*full("workflow", {0: 2}), *full("loops")]
    report = compute_levels(verdicts_)
    workflow = report.area("workflow")
    assert workflow is not None
    assert workflow.level == BELOW_ZERO
    assert describe_level(workflow.level) == "below 0"
    assert workflow.reason == (
        "the runtime fails Level 0 cases (packs carrying workflow fields must still load): "
        "workflow.l0.c0, workflow.l0.c1"
    )
    assert report.headline == BELOW_ZERO


@pytest.mark.parametrize("requirement", ["SHOULD", "MAY"])
def test_should_and_may_cases_never_move_a_level(requirement: str) -> None:
    base = full("workflow", {2: 1})
    failing = [advisory(f"workflow.adv.{n}", n, requirement, False) for n in range(3)]
    passing = [advisory(f"workflow.ok.{n}", n, requirement, True) for n in range(3)]
    assert level_of(compute_levels(base), "workflow") == 1
    assert level_of(compute_levels(base + failing), "workflow") == 1
    assert level_of(compute_levels(base + passing), "workflow") == 1
    assert level_of(compute_levels(full("workflow") + failing), "workflow") == 2


def test_should_is_an_advisory_score_and_may_a_count() -> None:
    report = compute_levels(
        [
            *full("loops"),
            advisory("loops.s.1", 1, "SHOULD", True),
            advisory("loops.s.2", 1, "SHOULD", True),
            advisory("loops.s.3", 2, "SHOULD", False),
            advisory("loops.s.4", 2, "SHOULD", True),
            advisory("loops.m.1", 2, "MAY", False),
        ]
    )
    loops = report.area("loops")
    assert loops is not None
    assert loops.should == (3, 4)
    assert loops.should_percent == 75.0
    assert loops.may == (0, 1)
    workflow = report.area("workflow")
    assert workflow is not None
    assert workflow.should_percent is None


def test_an_area_without_must_cases_is_not_assessed() -> None:
    report = compute_levels([*full("workflow"), advisory("loops.s.1", 0, "SHOULD", False)])
    loops = report.area("loops")
    assert loops is not None
    assert loops.level is None
    assert describe_level(loops.level) == "not assessed"
    assert loops.should == (0, 1)
    assert loops.reason == "no MUST case was run"
    assert level_of(report, "compositions") is None
    assert report.headline == 2  # loops does not pull the headline down


def test_no_verdict_at_all_gives_no_headline() -> None:
    report = compute_levels([])
    assert [a.area for a in report.areas] == list(AREAS)
    assert all(a.level is None for a in report.areas)
    assert report.headline is None
    assert report.area("nonsense") is None


# -- the headline -------------------------------------------------------------------------------


def compositions(level: int) -> list[CaseVerdict]:
    """Compositions cases passing up to ``level`` (failing one case at level + 1)."""
    return full("compositions", {level + 1: 1} if level < 3 else {})


@pytest.mark.parametrize(
    ("workflow", "loops", "comps", "headline"),
    [
        (2, 2, 3, 3),  # every area at its top
        (2, 2, 2, 2),
        (2, 2, 1, 1),
        (1, 2, 3, 1),
        (2, 0, 3, 0),
        (0, 0, 0, 0),
        (2, 2, BELOW_ZERO, BELOW_ZERO),
    ],
)
def test_the_headline_is_the_largest_n_every_area_reaches_up_to_its_top(
    workflow: int, loops: int, comps: int, headline: int
) -> None:
    def area(name: str, level: int) -> list[CaseVerdict]:
        top = TOP_LEVEL[name]
        return full(name, {level + 1: 1} if level < top else {})

    report = compute_levels(area("workflow", workflow) + area("loops", loops) + compositions(comps))
    assert (level_of(report, "workflow"), level_of(report, "loops")) == (workflow, loops)
    assert level_of(report, "compositions") == comps
    assert report.headline == headline


def test_the_headline_stops_at_the_highest_top_among_assessed_areas() -> None:
    """Workflow and loops end at Level 2; without compositions cases there is no Level 3."""
    assert compute_levels(full("workflow") + full("loops")).headline == 2
    assert compute_levels(full("workflow")).headline == 2
    assert compute_levels(compositions(3)).headline == 3


@st.composite
def verdict_sets(draw: st.DrawFn) -> list[CaseVerdict]:
    found = []
    for index in range(draw(st.integers(0, 25))):
        area = draw(st.sampled_from(AREAS))
        found.append(
            CaseVerdict(
                f"{area}.case.{index}",
                area,
                draw(st.integers(0, TOP_LEVEL[area])),
                draw(st.sampled_from(["MUST", "SHOULD", "MAY"])),
                draw(st.booleans()),
            )
        )
    return found


@given(verdict_sets())
def test_levels_follow_the_definition(cases: list[CaseVerdict]) -> None:
    """L is reached iff every MUST case with level <= L passes, and some MUST case of level >= L
    was run; the next level is not reached."""
    report = compute_levels(cases)
    for area in report.areas:
        mine = [c for c in cases if c.area == area.area and c.requirement == "MUST"]
        if not mine:
            assert area.level is None
            continue
        assert area.level is not None
        assert all(c.passed for c in mine if c.level <= area.level)
        assert area.level <= max(c.level for c in mine)
        if area.level < max(c.level for c in mine):
            assert not all(c.passed for c in mine if c.level <= area.level + 1)
        assert set(area.blocking) == {
            c.id for c in mine if c.level == area.level + 1 and not c.passed
        }
    assessed = [a for a in report.areas if a.level is not None]
    if assessed:
        assert report.headline is not None
        assert all(a.level >= min(report.headline, a.top) for a in assessed)  # type: ignore[operator]


@given(verdict_sets(), st.data())
def test_passing_one_more_case_never_lowers_a_level(
    cases: list[CaseVerdict], data: st.DataObject
) -> None:
    failing = [i for i, c in enumerate(cases) if not c.passed]
    if not failing:
        return
    index = data.draw(st.sampled_from(failing))
    better = list(cases)
    old = cases[index]
    better[index] = CaseVerdict(old.id, old.area, old.level, old.requirement, True)
    before, after = compute_levels(cases), compute_levels(better)
    for area in AREAS:
        was, now = level_of(before, area), level_of(after, area)
        assert was is None or (now is not None and now >= was)
    assert before.headline is None or after.headline >= before.headline  # type: ignore[operator]


@given(verdict_sets(), st.lists(st.tuples(st.sampled_from(AREAS), st.booleans()), max_size=8))
def test_advisory_cases_never_move_any_level(
    cases: list[CaseVerdict], extra: list[tuple[str, bool]]
) -> None:
    more = cases + [
        CaseVerdict(f"{area}.advisory.{n}", area, n % 3, ("SHOULD", "MAY")[n % 2], passed)
        for n, (area, passed) in enumerate(extra)
    ]
    before, after = compute_levels(cases), compute_levels(more)
    assert [a.level for a in before.areas] == [a.level for a in after.areas]
    assert before.headline == after.headline


def test_a_level_without_a_must_case_run_is_not_claimed() -> None:
    """Only Level 0 cases run (a filtered run): Levels 1 and 2 are not shown, so not reached."""
    report = compute_levels([must("workflow.load.a", 0), must("workflow.load.b", 0)])
    workflow = report.area("workflow")
    assert workflow is not None
    assert workflow.level == 0
    assert workflow.blocking == ()
    assert workflow.reason == "every MUST case run passes; none of Level 1 or above was run"
    assert report.headline == 0


# -- outcomes to verdicts -----------------------------------------------------------------------


@pytest.fixture
def a_case(tmp_path: Path, case_text: Callable[..., str]) -> CaseResult:
    path = tmp_path / "case.yaml"
    path.write_text(case_text("workflow.test.outcomes", level=1), encoding="utf-8")
    return CaseResult(load_case(path), ())


@pytest.mark.parametrize("outcome", ["failed", "errored", "skipped", "timeout"])
def test_anything_but_passed_counts_as_not_passed(a_case: CaseResult, outcome: str) -> None:
    passed = CaseResult(a_case.case, (PartResult("submit", "passed"),))
    other = CaseResult(
        a_case.case,
        (PartResult("load", "passed"), PartResult("submit", outcome, "why")),  # type: ignore[arg-type]
    )
    [good] = verdicts([passed])
    [bad] = verdicts([other])
    assert good.passed
    assert not bad.passed
    assert bad.message == "why"
    assert (bad.id, bad.area, bad.level, bad.requirement) == (
        "workflow.test.outcomes",
        "workflow",
        1,
        "MUST",
    )
    assert level_of(compute_levels([*full("workflow"), good]), "workflow") == 2
    assert level_of(compute_levels([*full("workflow"), bad]), "workflow") == 0
