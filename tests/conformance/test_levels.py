"""Support levels, as SEMANTICS section 5 defines them, from case verdicts: MUST checks only,
the headline over the claimed areas, claims called out (SEMANTICS section 0)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance import (
    CaseResult,
    CaseVerdict,
    Check,
    LevelReport,
    PartResult,
    compute_levels,
    load_case,
    verdicts,
)
from conformance._basics.areas import AREAS, TOP_LEVEL
from conformance._basics.contract import REQUIREMENTS
from conformance._judging.levels import BELOW_ZERO, areas_of, describe_level
from conformance._judging.runner import OUTCOMES


def verdict(
    case_id: str, level: int, requirement: str, checks: dict[str, bool], outcome: str | None = None
) -> CaseVerdict:
    """A case's verdict: ``checks`` per requirement; the outcome follows the case's own
    requirement's checks unless given."""
    if outcome is None:
        outcome = "passed" if checks.get(requirement, True) else "failed"
    area = case_id.split(".", maxsplit=1)[0]
    return CaseVerdict(case_id, area, level, requirement, outcome, checks)


def must(case_id: str, level: int, passed: bool = True) -> CaseVerdict:
    return verdict(case_id, level, "MUST", {"MUST": passed})


def advisory(case_id: str, level: int, requirement: str, passed: bool) -> CaseVerdict:
    return verdict(case_id, level, requirement, {requirement: passed})


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
    assert loops.reason == "Level 1 needs 2 more MUST case(s) to pass: loops.l1.c0, loops.l1.c1"


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
        "fails Level 0 MUST cases (packs carrying workflow fields must still load and run "
        "as before): "
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
    assert loops.reason == "no MUST check was run"
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
def verdicts_of_cases(draw: st.DrawFn) -> list[CaseVerdict]:
    """Verdicts as runs give them: a case has checks of its own requirement and maybe weaker
    ones; it passes when those of its own requirement pass (weaker ones may fail: findings);
    a part that errored, was skipped, timed out or was flaky passes none of its checks."""
    found = []
    for index in range(draw(st.integers(0, 25))):
        area = draw(st.sampled_from(AREAS))
        requirement = draw(st.sampled_from(REQUIREMENTS))
        weaker = REQUIREMENTS[REQUIREMENTS.index(requirement) + 1 :]
        kinds = [requirement, *(r for r in weaker if draw(st.booleans()))]
        outcome = draw(st.sampled_from(OUTCOMES))
        if outcome == "passed":
            checks = {r: r != requirement and draw(st.booleans()) for r in kinds}
            checks[requirement] = True
        elif outcome == "failed":
            checks = {r: draw(st.booleans()) for r in kinds}
            checks[requirement] = False
        else:
            checks = dict.fromkeys(kinds, False)
        level = draw(st.integers(0, TOP_LEVEL[area]))
        found.append(verdict(f"{area}.case.{index}", level, requirement, checks, outcome))
    return found


def passing_must(case: CaseVerdict) -> bool:
    return case.checks["MUST"]


@given(verdicts_of_cases())
def test_levels_follow_the_definition(cases: list[CaseVerdict]) -> None:
    """L is reached iff every case with MUST checks of level <= L passes them, and some such
    case of level >= L was run; the next level is not reached."""
    report = compute_levels(cases)
    for area in report.areas:
        mine = [c for c in cases if c.area == area.area and "MUST" in c.checks]
        assert area.must == (sum(map(passing_must, mine)), len(mine))
        if not mine:
            assert area.level is None
            continue
        assert area.level is not None
        assert all(passing_must(c) for c in mine if c.level <= area.level)
        assert area.level <= max(c.level for c in mine)
        if area.level < max(c.level for c in mine):
            assert not all(passing_must(c) for c in mine if c.level <= area.level + 1)
        assert set(area.blocking) == {
            c.id for c in mine if c.level == area.level + 1 and not passing_must(c)
        }
    assessed = [a for a in report.areas if a.level is not None]
    if assessed:
        assert report.headline is not None
        assert all(a.level >= min(report.headline, a.top) for a in assessed)  # type: ignore[operator]
    else:
        assert report.headline is None


@given(verdicts_of_cases(), st.data())
def test_passing_one_more_case_never_lowers_a_level(
    cases: list[CaseVerdict], data: st.DataObject
) -> None:
    failing = [i for i, c in enumerate(cases) if not c.passed]
    if not failing:
        return
    index = data.draw(st.sampled_from(failing))
    better = list(cases)
    old = cases[index]
    better[index] = verdict(old.id, old.level, old.requirement, dict.fromkeys(old.checks, True))
    before, after = compute_levels(cases), compute_levels(better)
    for area in AREAS:
        was, now = level_of(before, area), level_of(after, area)
        assert was is None or (now is not None and now >= was)
    assert before.headline is None or after.headline >= before.headline  # type: ignore[operator]


@given(verdicts_of_cases(), st.lists(st.tuples(st.sampled_from(AREAS), st.booleans()), max_size=8))
def test_advisory_cases_never_move_any_level(
    cases: list[CaseVerdict], extra: list[tuple[str, bool]]
) -> None:
    more = cases + [
        advisory(f"{area}.advisory.{n}", n % 3, ("SHOULD", "MAY")[n % 2], passed)
        for n, (area, passed) in enumerate(extra)
    ]
    before, after = compute_levels(cases), compute_levels(more)
    assert [a.level for a in before.areas] == [a.level for a in after.areas]
    assert before.headline == after.headline


@given(verdicts_of_cases(), st.data())
def test_should_and_may_checks_of_must_cases_never_move_any_level(
    cases: list[CaseVerdict], data: st.DataObject
) -> None:
    """Findings (weaker checks failing in a MUST case) are reported, never counted."""
    flipped = [
        verdict(
            c.id,
            c.level,
            c.requirement,
            {r: ok if r == "MUST" else data.draw(st.booleans()) for r, ok in c.checks.items()},
            c.outcome,
        )
        for c in cases
    ]
    before, after = compute_levels(cases), compute_levels(flipped)
    assert [(a.level, a.must, a.blocking) for a in before.areas] == [
        (a.level, a.must, a.blocking) for a in after.areas
    ]
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


@pytest.mark.parametrize("outcome", ["failed", "errored", "skipped", "timeout", "flaky"])
def test_anything_but_passed_counts_as_not_passed(a_case: CaseResult, outcome: str) -> None:
    load = PartResult("load", "passed", checks=(Check("load", "MUST", True),))
    passed = CaseResult(
        a_case.case,
        (load, PartResult("submit", "passed", checks=(Check("scenario", "MUST", True),))),
    )
    checks = () if outcome == "failed" else (Check("scenario", "MUST", False, "why"),)
    other = CaseResult(
        a_case.case,
        (load, PartResult("submit", outcome, "why", checks=checks)),  # type: ignore[arg-type]
    )
    [good] = verdicts([passed])
    [bad] = verdicts([other])
    assert good.passed
    assert good.checks == {"MUST": True}
    assert not bad.passed
    assert bad.outcome == outcome
    assert bad.checks == {"MUST": False}
    assert bad.message == "why"
    assert (bad.id, bad.area, bad.level, bad.requirement) == (
        "workflow.test.outcomes",
        "workflow",
        1,
        "MUST",
    )
    assert level_of(compute_levels([*full("workflow"), good]), "workflow") == 2
    assert level_of(compute_levels([*full("workflow"), bad]), "workflow") == 0


def test_a_finding_leaves_the_case_passed_and_counts_in_its_own_column(a_case: CaseResult) -> None:
    """A MUST case whose SHOULD and MAY checks fail still passes at MUST (R2: error codes SHOULD,
    pointers MAY)."""
    part = PartResult(
        "validation",
        "passed",
        checks=(
            Check("valid", "MUST", True),
            Check("error code entry-unknown", "SHOULD", False, "not reported"),
            Check("error code entry-unknown at /workflow/entry", "MAY", False, "not reported"),
        ),
    )
    [found] = verdicts([CaseResult(a_case.case, (part,))])
    assert found.passed
    assert found.checks == {"MUST": True, "SHOULD": False, "MAY": False}
    report = compute_levels([*full("workflow"), found])
    workflow = report.area("workflow")
    assert workflow is not None
    assert (workflow.level, workflow.must, workflow.should, workflow.may) == (
        2,
        (7, 7),
        (0, 1),
        (0, 1),
    )


# -- claims, spec versions, partial selections --------------------------------------------------


def test_the_headline_covers_the_claimed_areas_only() -> None:
    """Unclaimed areas are measured and shown, and do not pull the headline down."""
    cases = [*full("workflow"), *full("loops", {0: 1}), *full("compositions", {2: 1})]
    report = compute_levels(cases, claims={"workflow": 2})
    assert report.headline_areas == ("workflow",)
    assert report.headline == 2
    assert level_of(report, "loops") == BELOW_ZERO
    assert level_of(report, "compositions") == 1
    assert report.claim_notes == ()
    unclaimed = compute_levels(cases)
    assert unclaimed.headline_areas == areas_of("1.9")
    assert unclaimed.headline == BELOW_ZERO


def test_claimed_areas_are_listed_in_the_kit_order() -> None:
    claims = {"compositions": 3, "workflow": 2, "loops": 2}
    report = compute_levels(full("workflow") + full("loops"), claims=claims)
    assert report.headline_areas == ("workflow", "loops", "compositions")
    assert report.headline == 2  # compositions not assessed: no MUST check was run


def test_claims_the_measurement_does_not_bear_out_are_called_out() -> None:
    claims = {"workflow": 2, "loops": 2, "compositions": 3, "control": 5, "graphs": 1}
    report = compute_levels(full("workflow", {2: 1}) + full("loops"), claims=claims)
    assert report.claim_notes == (
        "claims compositions Level 3, measured not assessed",
        "claims control Level 5, but control has Levels 0-2",
        "claims 'graphs', which is not an area (" + ", ".join(AREAS) + ")",
        "claims workflow Level 2, measured 1",
    )
    assert report.headline_areas == ("workflow", "loops", "compositions", "control")
    assert report.headline == 1


def test_a_claimed_area_the_spec_version_does_not_have_is_called_out() -> None:
    report = compute_levels(full("workflow"), claims={"control": 1}, spec_version="1.5")
    assert [a.area for a in report.areas] == ["workflow", "loops", "compositions", "state-agents"]
    assert report.claim_notes == (
        "claims control Level 1, an area this spec version does not have",
    )
    assert report.spec_version == "1.5"


def test_a_partial_selection_says_so_and_is_silent_on_areas_it_did_not_run() -> None:
    claims = {"workflow": 2, "loops": 2}
    report = compute_levels(full("workflow", {2: 1}), claims=claims, partial=True)
    assert report.partial
    assert report.claim_notes == ("claims workflow Level 2, measured 1 on this partial selection",)


@pytest.mark.parametrize(
    ("version", "areas"),
    [
        ("1.3", ["workflow"]),
        ("1.4", ["workflow", "loops"]),
        ("1.4.1", ["workflow", "loops", "state-agents"]),
        ("1.5", ["workflow", "loops", "compositions", "state-agents"]),
        ("1.7", ["workflow", "loops", "compositions", "control", "state-agents"]),
        ("1.8", ["workflow", "loops", "compositions", "control", "state-agents", "extensions"]),
        (
            "1.9",
            list(AREAS),
        ),
    ],
)
def test_the_areas_of_a_spec_version(version: str, areas: list[str]) -> None:
    assert sorted(areas_of(version)) == sorted(areas)
    assert [a.area for a in compute_levels([], spec_version=version).areas] == [
        a for a in AREAS if a in areas
    ]
