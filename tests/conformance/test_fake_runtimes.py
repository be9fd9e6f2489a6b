"""Deliberately broken runtimes come out at exactly the levels SEMANTICS section 5 gives them.

Each fake of ``fakes.py`` is measured three ways: in-process (runner, verdicts, levels), through
``ppconf run`` (table and exit status) and through the pytest plugin (summary table and exit
status, once under pytest-xdist). Assertions are on levels and on which cases fail and why,
never on case counts, so they hold while the catalog grows.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from pathlib import Path
from xml.etree import ElementTree

import breaking
import fakes
import pytest
from allowed import GenericSchemaCode

from conformance import (
    CaseResult,
    Catalog,
    LevelReport,
    Runner,
    compute_levels,
    load_adapter,
    verdicts,
)
from conformance._basics.areas import BY_NAME, TOP_LEVEL
from conformance._basics.spec_versions import NEWEST
from conformance._catalog.exercised import part_contexts
from conformance._cli import main
from conformance._judging.levels import BELOW_ZERO, areas_of, describe_level
from conformance._judging.verdicts import judge

pytest_plugins = ["pytester"]

HANG_TIMEOUT = 2.0
"""Seconds: well below HANG_SECONDS, and wide enough that no other case times out on a busy
machine (at 0.5 s, a 2 ms case once did, with the suite on both cores)."""

Levels = tuple[int, int, int, int]
"""(workflow, loops, compositions, headline)"""

# Levels count MUST checks only. Compositions: the fakes that validate with the reference
# validator but cannot run compositions reach Level 1 there; Hangs runs them as the reference
# does (Level 3). The headline is the largest N every area the fake claims (every area when it
# claims none) reaches min(N, its top level) (SEMANTICS 5 and section 0): ValidatesOnly and the
# IgnoresWorkflows pair claim workflow and loops, WorkflowsOnly those and compositions, the
# others nothing.
EXPECTED: dict[str, Levels] = {
    "IgnoresWorkflows": (0, 0, 0, 0),
    "IgnoresWorkflowsSilently": (0, 0, 0, 0),
    "ValidatesOnly": (1, 0, 1, 0),
    "ValidatesOnlyNoSessions": (1, 0, 1, 0),
    "RejectsWorkflows": (BELOW_ZERO, BELOW_ZERO, BELOW_ZERO, BELOW_ZERO),
    "AlwaysWrong": (BELOW_ZERO, BELOW_ZERO, BELOW_ZERO, BELOW_ZERO),
    "Hangs": (1, 2, 3, 1),
    "WorkflowsOnly": (2, 2, 1, 1),
}
FAKES = sorted(EXPECTED)
ALL_FAKES = [*FAKES, "RaisesSometimes"]


def raises_sometimes_levels(catalog: Catalog) -> Levels:
    """Errored counts as not passed: each area stops just below its lowest crashed MUST case."""
    hit = {c.id for c in catalog.cases if fakes.RaisesSometimes.LETTER in fakes.pack_id(c.pack)}
    levels = []
    for area in ("workflow", "loops", "compositions"):
        must = [c for c in catalog.cases if c.area == area and c.requirement == "MUST"]
        crashed = [c.level for c in must if c.id in hit]
        levels.append(min(crashed) - 1 if crashed else max(c.level for c in must))
    if BELOW_ZERO in levels:
        headline = BELOW_ZERO
    else:
        tops = (2, 2, 3)
        headline = max(
            n for n in range(4) if all(lv >= min(n, t) for lv, t in zip(levels, tops, strict=True))
        )
    return levels[0], levels[1], levels[2], headline


def expected_for(name: str, catalog: Catalog) -> Levels:
    if name == "RaisesSometimes":
        return raises_sometimes_levels(catalog)
    return EXPECTED[name]


def timeout_for(name: str) -> float:
    return HANG_TIMEOUT if name == "Hangs" else 10.0


_RESULTS: dict[str, list[CaseResult]] = {}


class FakeRuns:
    """``runs(name)``: the built-in catalog run in-process against a fake (once per session);
    ``runs.expected(name)``: the levels it must reach."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog

    def __call__(self, name: str) -> list[CaseResult]:
        if name not in _RESULTS:
            adapter = load_adapter(f"fakes:{name}")
            runner = Runner(adapter, timeout=timeout_for(name))
            _RESULTS[name] = runner.run_all(self.catalog.cases)
        return _RESULTS[name]

    def expected(self, name: str) -> Levels:
        return expected_for(name, self.catalog)


@pytest.fixture
def run_fake(catalog: Catalog) -> FakeRuns:
    return FakeRuns(catalog)


def claims_of(name: str) -> Mapping[str, int]:
    return load_adapter(f"fakes:{name}").capabilities().claims


def headline_areas(name: str) -> str:
    """The areas a fake's headline covers, as the level table names them."""
    claims = claims_of(name)
    return ", ".join(a for a in areas_of(NEWEST) if a in claims or not claims)


def levels_of(results: list[CaseResult], claims: Mapping[str, int] | None = None) -> LevelReport:
    return compute_levels(verdicts(results), claims=claims)


def level_triple(levels: LevelReport) -> tuple[int | None, ...]:
    areas = [levels.area(name) for name in ("workflow", "loops", "compositions")]
    assert all(area is not None for area in areas)
    return (*(area.level for area in areas if area is not None), levels.headline)


def must_level0_with_workflow(catalog: Catalog, area: str) -> list[str]:
    """The MUST Level 0 cases of an area whose pack carries a ``workflow`` field."""
    return sorted(
        c.id
        for c in catalog.cases
        if c.area == area
        and c.level == 0
        and c.requirement == "MUST"
        and "workflow" in (c.pack.document or {})
    )


def failing_ids(results: list[CaseResult]) -> list[str]:
    return sorted(r.case.id for r in results if not r.passed)


# -- in-process ---------------------------------------------------------------------------------


def test_the_catalog_can_tell_the_fakes_apart(catalog: Catalog) -> None:
    """The preconditions the expected levels rest on (SEMANTICS 5), stated so a gap is named."""
    for area in ("workflow", "loops"):
        assert must_level0_with_workflow(catalog, area), f"no MUST Level 0 {area} case"
        for level in (1, 2):
            assert any(
                c.area == area and c.level == level and c.requirement == "MUST"
                for c in catalog.cases
            ), f"no MUST Level {level} {area} case"
    # loops Level 1 includes enforcing max_visits (X5): some MUST case runs a session.
    assert any(
        c.area == "loops" and c.level == 1 and c.requirement == "MUST" and c.scenarios
        for c in catalog.cases
    )
    hang = [
        c for c in catalog.cases if (c.pack.document or {}).get("id") == fakes.Hangs.HANG_PACK_ID
    ]
    assert [(c.id, c.level, c.requirement) for c in hang] == [
        ("workflow.execution.unknown-event", 2, "MUST")
    ]


def test_the_reference_is_the_control(catalog: Catalog) -> None:
    results = Runner(load_adapter("conformance:ReferenceAdapter")).run_all(catalog.cases)
    assert failing_ids(results) == []
    assert level_triple(levels_of(results)) == (2, 2, 3, 3)


@pytest.mark.parametrize("name", ALL_FAKES)
def test_levels_in_process(
    name: str, catalog: Catalog, run_fake: Callable[[str], list[CaseResult]]
) -> None:
    levels = levels_of(run_fake(name), claims_of(name))
    assert level_triple(levels) == expected_for(name, catalog)
    assert ", ".join(levels.headline_areas) == headline_areas(name)


@pytest.mark.parametrize("name", ["IgnoresWorkflows", "IgnoresWorkflowsSilently"])
def test_ignoring_workflows_loads_everything_and_nothing_more(
    name: str, run_fake: Callable[[str], list[CaseResult]]
) -> None:
    for result in run_fake(name):
        for part in result.parts:
            if part.part == "load":
                assert part.outcome == "passed", (result.case.id, part.message)
            elif part.part == "validation" and name == "IgnoresWorkflowsSilently":
                assert part.outcome in ("passed", "failed")
            else:
                assert part.outcome == "skipped", (result.case.id, part)
                assert part.message.startswith("unsupported by the runtime: this runtime does not")
    levels = levels_of(run_fake(name))
    for area in ("workflow", "loops"):
        measured = levels.area(area)
        assert measured is not None
        assert measured.reason.startswith("Level 1 needs")
        assert all(case_id.startswith(f"{area}.") for case_id in measured.blocking)


@pytest.mark.parametrize("name", ["ValidatesOnly", "ValidatesOnlyNoSessions"])
def test_validating_only_fails_every_blocking_case_in_a_session(
    name: str, catalog: Catalog, run_fake: Callable[[str], list[CaseResult]]
) -> None:
    results = run_fake(name)
    for result in results:
        for part in result.parts:
            if part.part in ("load", "validation"):
                assert part.outcome == "passed", (result.case.id, part.message)
    levels = levels_of(results)
    workflow, loops = levels.area("workflow"), levels.area("loops")
    assert workflow is not None
    assert loops is not None
    for area in (workflow, loops):
        assert area.blocking
        for case_id in area.blocking:
            case = catalog.get(case_id)
            assert case is not None
            assert case.scenarios, case_id
    assert {catalog.get(i).level for i in workflow.blocking} == {2}  # type: ignore[union-attr]
    assert {catalog.get(i).level for i in loops.blocking} == {1}  # type: ignore[union-attr]
    wanted = "skipped" if name == "ValidatesOnlyNoSessions" else "failed"
    blocked = [r for r in results if r.case.id in workflow.blocking]
    assert {r.outcome for r in blocked} == {wanted}


def test_rejecting_workflows_is_below_level_0_naming_the_cases(
    catalog: Catalog, run_fake: Callable[[str], list[CaseResult]]
) -> None:
    results = run_fake("RejectsWorkflows")
    levels = levels_of(results)
    for area in ("workflow", "loops"):
        measured = levels.area(area)
        assert measured is not None
        expected = must_level0_with_workflow(catalog, area)
        assert list(measured.blocking) == expected
        assert measured.reason.startswith(
            f"fails Level 0 MUST cases (packs carrying {BY_NAME[area].carries} must still load "
            "and run as before): "
        )
        for case_id in expected:
            assert case_id in measured.reason
    by_id = {r.case.id: r for r in results}
    for case_id in must_level0_with_workflow(catalog, "workflow"):
        message = by_id[case_id].parts[0].message
        assert "the runtime refused a pack it must load: unknown field 'workflow'" in message
    assert by_id["workflow.load.pack-without-workflow"].passed


def test_always_wrong_fails_every_case(run_fake: Callable[[str], list[CaseResult]]) -> None:
    results = run_fake("AlwaysWrong")
    outcomes = {(r.case.id, p.part): p.outcome for r in results for p in r.parts}
    assert {k: v for k, v in outcomes.items() if v != "failed"} == {}


def test_raising_sometimes_errors_those_cases_and_the_run_goes_on(
    catalog: Catalog, run_fake: Callable[[str], list[CaseResult]]
) -> None:
    results = run_fake("RaisesSometimes")
    letter = fakes.RaisesSometimes.LETTER
    hit = {c.id for c in catalog.cases if letter in fakes.pack_id(c.pack)}
    assert hit, f"no pack id contains {letter!r}: the fake crashes on nothing"
    assert len(hit) < len(catalog.cases)
    assert len(results) == len(catalog.cases)
    for result in results:
        if result.case.id in hit:
            assert result.outcome == "errored"
            for part in result.parts:
                assert part.outcome == "errored"
                assert re.match(
                    r"adapter fault: the adapter raised RuntimeError in [a-z_]+\(\): "
                    r"crashed on pack ",
                    part.message,
                ), part.message
                assert re.search(r"fakes\.py:\d+$", part.message), part.message
        else:
            assert result.passed, (result.case.id, result.failures())

    levels = levels_of(results, claims_of("RaisesSometimes"))
    assert level_triple(levels) == raises_sometimes_levels(catalog)
    for area in levels.areas:
        assert set(area.blocking) <= hit


def test_a_hang_times_out_and_the_next_cases_still_run(
    catalog: Catalog, run_fake: Callable[[str], list[CaseResult]]
) -> None:
    results = run_fake("Hangs")
    ids = [r.case.id for r in results]
    assert ids == [c.id for c in catalog.cases]
    hung = ids.index("workflow.execution.unknown-event")
    assert results[hung].outcome == "timeout"
    assert results[hung].parts[0].message == f"no answer within {HANG_TIMEOUT:g} s"
    # Not a speed target: the part is cut off at its 2 s timeout, and HANG_SECONDS (60 s) is how
    # long the fake would block, so a busy machine has most of a minute of margin.
    assert results[hung].duration < fakes.HANG_SECONDS
    assert hung + 1 < len(results), "the hanging case is the last one; nothing runs after it"
    assert all(r.passed for i, r in enumerate(results) if i != hung)


# -- ppconf run ---------------------------------------------------------------------------------


def cli_run(name: str, *extra: str) -> list[str]:
    return [
        "run",
        "--adapter",
        f"fakes:{name}",
        "--timeout",
        f"{timeout_for(name):g}",
        *extra,
    ]


def shown(levels: Levels, name: str) -> dict[str, str]:
    workflow, loops, compositions, headline = levels
    return {
        "workflow": describe_level(workflow),
        "loops": describe_level(loops),
        "compositions": describe_level(compositions),
        "headline": describe_level(headline),
        "headline areas": headline_areas(name),
    }


MEASURED_AREAS = ("workflow", "loops", "compositions")
"""The areas the fakes are measured on; the others have rows too, left out of the comparison
as the catalog gains their cases (the headline still counts them where a fake claims none)."""


def printed_levels(lines: list[str], level_table: Callable[..., dict[str, str]]) -> dict[str, str]:
    """The printed table's rows of the areas the fakes are measured on, and the headline."""
    table = level_table(lines)
    assert set(areas_of(NEWEST)) <= set(table)
    return {k: v for k, v in table.items() if k in MEASURED_AREAS or k.startswith("headline")}


def claims_reached(name: str, levels: Levels) -> bool:
    """Whether the run passes by default (R14): the fake claims areas, and each reaches its
    claimed level (or the area's top, when the claim is higher). A fake that claims nothing
    fails on any MUST check, which every fake here fails."""
    claims = claims_of(name)
    reached = dict(zip(MEASURED_AREAS, levels, strict=False))
    return bool(claims) and all(
        reached[area] >= min(claim, TOP_LEVEL[area]) for area, claim in claims.items()
    )


@pytest.mark.usefixtures("cached_catalog", "fakes_importable")
@pytest.mark.parametrize("name", ALL_FAKES)
def test_levels_through_the_cli(
    name: str,
    catalog: Catalog,
    capsys: pytest.CaptureFixture[str],
    level_table: Callable[..., dict[str, str]],
) -> None:
    expected = expected_for(name, catalog)
    headline = expected[3]

    passes = claims_reached(name, expected)
    assert main(cli_run(name)) == (0 if passes else 1)
    out = capsys.readouterr().out
    assert printed_levels(out.splitlines(), level_table) == shown(expected, name)
    assert ("FAILED: " in out) is not passes
    assert f"against {getattr(fakes, name).NAME}" in out

    # With a level asked for, the headline must reach it as well.
    status = main(cli_run(name, "--require-level", str(max(headline, 0))))
    out = capsys.readouterr().out
    assert printed_levels(out.splitlines(), level_table) == shown(expected, name)
    if headline >= 0:
        assert status == (0 if passes else 1)
        assert "FAILED: headline level" not in out
    else:
        assert status == 1
        assert "FAILED: headline level below 0 is below the required 0" in out
        for area, level in zip(("workflow", "loops"), expected, strict=False):
            if level == BELOW_ZERO:
                assert f"{area}: fails Level 0 MUST cases" in out
    if name == "RaisesSometimes":
        hit = [c.id for c in catalog.cases if fakes.RaisesSometimes.LETTER in fakes.pack_id(c.pack)]
        failures = out.split("\nspec version ")[0]  # what is printed before the level table
        for case_id in hit:  # on its own ERRORED line, or listed under a shared cause
            assert case_id in failures


@pytest.mark.usefixtures("cached_catalog", "fakes_importable")
@pytest.mark.parametrize("name", ["IgnoresWorkflows", "ValidatesOnly", "Hangs"])
def test_the_cli_fails_a_run_one_level_short(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    headline = EXPECTED[name][3]
    assert main(cli_run(name, "--require-level", str(headline + 1))) == 1
    out = capsys.readouterr().out
    assert f"FAILED: headline level {headline} is below the required {headline + 1}" in out


# -- the pytest plugin --------------------------------------------------------------------------


def expected_failures_file(path: Path, ids: list[str]) -> Path:
    path.write_text("".join(f"{i}: known to fail in this fake\n" for i in ids), encoding="utf-8")
    return path


def plugin_args(name: str, *extra: str) -> list[str]:
    return [
        f"--ppconf-adapter=fakes:{name}",
        f"--ppconf-timeout={timeout_for(name):g}",
        *extra,
    ]


@pytest.mark.parametrize("name", ALL_FAKES)
def test_levels_through_the_plugin(
    name: str,
    pytester: pytest.Pytester,
    run_pytest: Callable[..., pytest.RunResult],
    run_fake: FakeRuns,
    level_table: Callable[..., dict[str, str]],
) -> None:
    """The fake's failures are listed as expected, so --ppconf-require-level alone decides."""
    expected = run_fake.expected(name)
    headline = expected[3]
    required = max(headline, 0)
    listed = expected_failures_file(pytester.path / "xfail.yaml", failing_ids(run_fake(name)))
    result = run_pytest(
        *plugin_args(
            name,
            f"--ppconf-expected-failures={listed}",
            f"--ppconf-require-level={required}",
        )
    )
    assert printed_levels(result.outlines, level_table) == shown(expected, name)
    outcomes = result.parseoutcomes()
    assert outcomes.get("failed", 0) == 0
    if headline >= 0:
        result.stdout.fnmatch_lines([f"required level {required}: met (headline {headline})"])
        assert result.ret == pytest.ExitCode.OK
    else:
        result.stdout.fnmatch_lines(["required level 0: NOT met (headline below 0)"])
        assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_levels_through_the_plugin_under_xdist(
    pytester: pytest.Pytester,
    run_pytest_subprocess: Callable[..., pytest.RunResult],
    run_fake: Callable[[str], list[CaseResult]],
    level_table: Callable[..., dict[str, str]],
) -> None:
    """Distributed over two workers, the controller still sees every part and decides."""
    failing = failing_ids(run_fake("ValidatesOnly"))
    passing = "workflow.load.pack-with-workflow"
    assert passing not in failing
    listed = expected_failures_file(pytester.path / "xfail.yaml", [*failing, passing])
    result = run_pytest_subprocess(
        "-n",
        "2",
        *plugin_args(
            "ValidatesOnly",
            f"--ppconf-expected-failures={listed}",
            "--ppconf-require-level=0",
        ),
    )
    result.stdout.fnmatch_lines(["*2 workers*"])
    assert printed_levels(result.outlines, level_table) == shown(
        EXPECTED["ValidatesOnly"], "ValidatesOnly"
    )
    result.stdout.fnmatch_lines(
        [
            "required level 0: met (headline 0)",
            f"FAILED: expected failures that did not fail as listed (update the file): {passing}",
        ]
    )
    assert result.parseoutcomes().get("failed", 0) == 0
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # the unexpected pass, nothing else


# -- RFC-allowed variants and RFC-breaking runtimes (SEMANTICS section 0) ------------------------

ALLOWED_VARIANTS = (
    "BudgetStatusAtOnce",
    "SchemaErrorsWithoutPointers",
    "RedundantErrors",
    "NoKitLints",
    "Version3AsVersion2",
    "OtherMergeOrder",
    "BranchJumps",
    "EndsAtVisitLimit",
    "StepTextAsString",
    "OneCodeForRefusedStarts",
    "DropsFailingBranch",
    "RenamesCodes",
    "EveryErrorCode",
    "WarningsInMapOrder",
    "GenericSchemaCode",
    "NoRetries",
    "LooseEquality",
    "OneCodeAfterTheEnd",
    "OtherTestExtensions",
    "FailsAtMaxSteps",
    "FewerAttempts",
    "ListsDeclaredEvents",
    "StartsOnlyAsAgents",
    "NoStartAtState",
)
NO_START_AT_STATE = ("StartsOnlyAsAgents", "NoStartAtState")
BREAKING = (
    *breaking.SESSION_BUGS,
    "AcceptsEverything",
    "StartReturnsNone",
    "SkipsEverything",
    "Flaky",
    "ExitsTheProcess",
    "RaisesBaseException",
    "FiresTerminalTransitions",
)
_MEASURED: dict[str, tuple[LevelReport, list[CaseResult]]] = {}


def measured(spec: str, catalog: Catalog) -> tuple[LevelReport, list[CaseResult]]:
    """The levels (over the adapter's claims) and results of the catalog against ``spec``, run
    in-process once per session; every part twice for ``Flaky`` (R5)."""
    if spec not in _MEASURED:
        adapter = load_adapter(spec)
        repeat = 2 if spec == "breaking:Flaky" else 1
        results = Runner(adapter, timeout=10.0, repeat=repeat).run_all(catalog.cases)
        levels = levels_of(results, adapter.capabilities().claims)
        _MEASURED[spec] = (levels, results)
    return _MEASURED[spec]


def area_levels(levels: LevelReport) -> dict[str, int | None]:
    return {area.area: area.level for area in levels.areas}


@pytest.mark.usefixtures("fakes_importable")
@pytest.mark.parametrize("name", ALLOWED_VARIANTS)
def test_an_rfc_allowed_variant_keeps_the_reference_levels(name: str, catalog: Catalog) -> None:
    """A choice the RFCs allow never fails a MUST check: every area at the reference's level,
    the same headline; what it does differently shows in SHOULD and MAY cases only."""
    reference, _ = measured("conformance:ReferenceAdapter", catalog)
    levels, results = measured(f"allowed:{name}", catalog)
    assert area_levels(levels) == area_levels(reference)
    assert (levels.headline, levels.headline_areas) == (
        reference.headline,
        reference.headline_areas,
    )
    failing_must = [v.id for v in verdicts(results) if not v.checks.get("MUST", True)]
    assert failing_must == []
    if name not in NO_START_AT_STATE:
        assert [a.must for a in levels.areas] == [a.must for a in reference.areas]
        return
    # Starting at a named state is the kit's adapter contract (kit.pick.start-at-state): the
    # MUST cases whose every scenario starts there are judged at MAY only, and no others.
    _, judged = measured("conformance:ReferenceAdapter", catalog)
    unjudged = {v.id for v in verdicts(judged) if "MUST" in v.checks} - {
        v.id for v in verdicts(results) if "MUST" in v.checks
    }
    by_id = {case.id: case for case in catalog.cases}
    assert unjudged
    assert all(
        by_id[case].load is None
        and by_id[case].validation is None
        and all(s.start_state is not None for s in by_id[case].scenarios)
        for case in unjudged
    )


@pytest.mark.usefixtures("fakes_importable")
def test_extra_errors_on_an_invalid_pack_fail_only_the_kits_picks(catalog: Catalog) -> None:
    """R2: extra errors on an invalid pack are allowed, so a runtime adding every error code of
    the kit's vocabulary to each invalid pack fails no SHOULD check, only ``absent`` checks at
    MAY (a strict run notices); one error on a valid pack still fails at the case's level."""
    levels, results = measured("allowed:EveryErrorCode", catalog)
    cases = verdicts(results)
    assert [v.id for v in cases if not v.checks.get("SHOULD", True)] == []
    findings = {v.id for v in cases if v.passed and not all(v.checks.values())}
    assert "workflow.validation.schema-missing-entry" in findings, sorted(findings)[:20]
    assert not judge(cases, levels, strict=True).passed


@pytest.mark.usefixtures("fakes_importable")
def test_strict_counts_every_check_a_part_passing_its_requirement_leaves_behind(
    catalog: Catalog, capsys: pytest.CaptureFixture[str]
) -> None:
    """Codes of its own for an RFC-named warning and an unknown step kind fail only weaker
    checks inside parts that pass: every level holds and a default run passes, while a strict
    run, where every check counts, fails, in the judgement and in what ``ppconf run`` prints."""
    levels, results = measured("allowed:RenamesCodes", catalog)
    cases = verdicts(results)
    findings = sorted(v.id for v in cases if v.passed and not all(v.checks.values()))
    assert "loops.warning.budget-below-max-visits" in findings
    assert any(".step-kind-unknown" in case for case in findings), findings
    assert judge(cases, levels).passed
    strict = judge(cases, levels, strict=True)
    assert not strict.passed
    assert sorted(strict.unexpected_failures) == findings
    assert main(["run", "--adapter", "allowed:RenamesCodes"]) == 0
    capsys.readouterr()
    assert main(["run", "--adapter", "allowed:RenamesCodes", "--strict"]) == 1
    out = capsys.readouterr().out
    assert f"FAILED: {len(findings)} case(s) failed (strict: every check counts)" in out
    assert "PASSED" not in out


@pytest.mark.usefixtures("fakes_importable")
def test_a_terminal_state_may_list_its_declared_events_but_never_take_them(
    catalog: Catalog,
) -> None:
    """The events a state offers are the kit's pick (MAY): a runtime listing a terminal state's
    declared transitions keeps every level and a default run, failing only weaker checks of the
    terminal cases; one that takes those transitions loses loops Level 1 on the same cases."""
    terminal = {"loops.terminal.entry", "loops.terminal.declared-transitions-never-fire"}
    levels, results = measured("allowed:ListsDeclaredEvents", catalog)
    cases = verdicts(results)
    findings = {v.id for v in cases if v.passed and not all(v.checks.values())}
    assert terminal <= findings, findings
    assert judge(cases, levels).passed
    assert not judge(cases, levels, strict=True).passed
    reference, _ = measured("conformance:ReferenceAdapter", catalog)
    broken, results = measured("breaking:FiresTerminalTransitions", catalog)
    failing_must = {v.id for v in verdicts(results) if not v.checks.get("MUST", True)}
    assert terminal <= failing_must, failing_must
    assert area_levels(broken)["loops"] == 0 < (area_levels(reference)["loops"] or 0)


@pytest.mark.usefixtures("fakes_importable")
def test_the_generic_schema_code_passes_even_a_strict_run(catalog: Catalog) -> None:
    """R19: ``schema`` for a schema violation is an accepted answer at every requirement, so a
    runtime that never names one more precisely fails no check, not even in a strict run."""
    levels, results = measured("allowed:GenericSchemaCode", catalog)
    renamed = [
        r.case.id
        for r in results
        if r.case.validation is not None
        and any(
            code in GenericSchemaCode.SCHEMA_VIOLATIONS
            for ref in r.case.validation.errors
            for code in ref.codes
        )
    ]
    assert len(renamed) >= 20, renamed
    assert [(r.case.id, c.id) for r in results for _, c in r.findings()] == []
    assert judge(verdicts(results), levels, strict=True).passed


@pytest.mark.usefixtures("fakes_importable")
def test_the_kit_s_test_extensions_values_fail_only_a_strict_run(catalog: Catalog) -> None:
    """What ppconf.upper and ppconf.join give is the kit's definition (MAY): other values keep
    compositions Level 3 and a default run, and fail exactly the MAY cases comparing them; a
    runtime that fails the registered kinds when run loses Level 3 (RFC 0010 Level 3)."""
    reference, _ = measured("conformance:ReferenceAdapter", catalog)
    levels, results = measured("allowed:OtherTestExtensions", catalog)
    cases = verdicts(results)
    failing = sorted(v.id for v in cases if not v.passed)
    assert failing == [
        "compositions.extension.join-with-separator-values",
        "compositions.extension.join-without-separator-values",
        "compositions.extension.upper-between-steps-values",
        "compositions.extension.upper-inside-parallel-values",
        "compositions.extension.upper-step-kind",
    ]
    assert {v.requirement for v in cases if v.id in failing} == {"MAY"}
    assert area_levels(levels)["compositions"] == area_levels(reference)["compositions"] == 3
    assert judge(cases, levels).passed
    assert not judge(cases, levels, strict=True).passed
    refusing, results = measured("breaking:RefusesVendorKinds", catalog)
    assert area_levels(refusing)["compositions"] == 2
    lost = sorted(v.id for v in verdicts(results) if not v.checks.get("MUST", True))
    assert lost == [
        "compositions.extension.join-with-separator",
        "compositions.extension.join-without-separator",
        "compositions.extension.upper-between-steps",
        "compositions.extension.upper-inside-parallel",
    ]
    assert not judge(verdicts(results), refusing).passed


@pytest.mark.usefixtures("fakes_importable")
def test_later_steps_must_receive_the_vendor_step_s_own_value(catalog: Catalog) -> None:
    """Whatever a registered vendor step or reducer gives, later steps read that value (RFC
    0010 step output references, a reducer's ``into``): a runtime handing on another one loses
    Level 3 on the cases comparing the two ($same_as), where each value alone is accepted; one
    giving other values but handing them on (OtherTestExtensions, above) keeps it."""
    levels, results = measured("breaking:HandsOnAnotherValue", catalog)
    assert area_levels(levels)["compositions"] == 2
    lost = sorted(v.id for v in verdicts(results) if not v.checks.get("MUST", True))
    assert lost == [
        "compositions.extension.join-with-separator",
        "compositions.extension.upper-between-steps",
    ]
    assert not judge(verdicts(results), levels).passed


@pytest.mark.usefixtures("fakes_importable")
@pytest.mark.parametrize(
    ("name", "failing"),
    [
        ("FailsAtMaxSteps", "compositions.agent.max-steps-graceful-exit"),
        ("FewerAttempts", "compositions.execution.retry-exhausted"),
    ],
)
def test_the_runtime_s_own_agent_exit_and_attempt_count_show_below_must(
    name: str, failing: str, catalog: Catalog
) -> None:
    """An agent step failing at max_steps (the kit picks completing) and one attempt fewer than
    max_attempts allows (R18) fail MAY cases only: a default run passes, a strict one fails."""
    levels, results = measured(f"allowed:{name}", catalog)
    cases = verdicts(results)
    assert failing in [v.id for v in cases if not v.passed]
    assert {v.requirement for v in cases if not v.passed} == {"MAY"}
    assert judge(cases, levels).passed
    assert not judge(cases, levels, strict=True).passed


@pytest.mark.usefixtures("fakes_importable")
def test_a_part_varying_only_below_must_is_no_flake(catalog: Catalog) -> None:
    """Warnings put at another state of their loop on every call vary only MAY checks: under
    ``repeat`` no part is flaky, every level holds and the run passes (R20); the variation is
    a finding that says which runs differed."""
    reference, _ = measured("conformance:ReferenceAdapter", catalog)
    adapter = load_adapter("allowed:WarningsInMapOrder")
    results = Runner(adapter, timeout=10.0, repeat=3).run_all(catalog.cases)
    levels = levels_of(results, adapter.capabilities().claims)
    assert area_levels(levels) == area_levels(reference)
    assert [p.part for r in results for p in r.parts if p.outcome == "flaky"] == []
    varied = {
        (r.case.id, c.requirement)
        for r in results
        for _, c in r.findings()
        if c.message.startswith("flaky: 3 runs did not end the same way")
    }
    assert ("workflow.warning.cycle-one-per-component", "MAY") in varied
    assert {requirement for _, requirement in varied} == {"MAY"}
    assert judge(verdicts(results), levels).passed
    assert not judge(verdicts(results), levels, strict=True).passed


def test_strict_fails_a_finding_in_the_plugin_and_the_junit_file(
    run_pytest: Callable[..., pytest.RunResult], tmp_path: Path
) -> None:
    """The plugin's strict option fails the item whose part passed with a failed weaker check,
    and the JUnit file makes that finding the part's failure; without it, both pass."""
    common = (
        "--ppconf-adapter=allowed:RenamesCodes",
        "--ppconf-area=loops",
        "-k",
        "loops.warning.budget-below-max-visits",
    )
    default = run_pytest(*common)
    default.assert_outcomes(passed=1)
    junit = tmp_path / "strict.xml"
    strict = run_pytest(*common, "--ppconf-strict", "--ppconf-report", "junit", str(junit))
    strict.assert_outcomes(failed=1)
    assert strict.ret == pytest.ExitCode.TESTS_FAILED
    strict.stdout.fnmatch_lines(["*strict: * check * failed*"])
    failures = ElementTree.parse(junit).getroot().findall(".//testcase/failure")
    assert len(failures) == 1
    assert "strict:" in (failures[0].get("message") or "")


@pytest.mark.usefixtures("fakes_importable")
def test_a_level_0_runtime_of_rfc_0016_and_0017_keeps_its_other_levels(catalog: Catalog) -> None:
    """Treating ``provider`` and ``extensions`` as unknown fields is their RFCs' Level 0 (R11):
    the areas of the pack parts carrying them keep their levels, and the runtime, which claims
    neither extensions nor providers, passes."""
    reference, _ = measured("conformance:ReferenceAdapter", catalog)
    levels, results = measured("allowed:IgnoresProviderAndExtensions", catalog)
    mine, best = area_levels(levels), area_levels(reference)
    for area in ("workflow", "loops", "compositions", "control", "state-agents"):
        assert mine[area] == best[area], area
    assert "providers" not in levels.claims
    assert "extensions" not in levels.claims
    assert mine["providers"] is not None
    assert mine["providers"] < best["providers"]  # type: ignore[operator]  # it validates none
    assert judge(verdicts(results), levels).passed


@pytest.mark.usefixtures("fakes_importable")
@pytest.mark.parametrize("code", sorted(breaking.RFC_NAMED_WARNINGS))
def test_a_warning_reported_as_an_error_loses_a_level_in_its_area(
    code: str, catalog: Catalog
) -> None:
    """An RFC-named warning is not an error (R10): a runtime that makes it one refuses packs
    the RFC calls valid, and loses a level in the warning's area."""
    area = breaking.RFC_NAMED_WARNINGS[code]
    reference, _ = measured("conformance:ReferenceAdapter", catalog)
    levels, results = measured(f"breaking:WarningAsError_{code.replace('-', '_')}", catalog)
    mine, best = area_levels(levels)[area], area_levels(reference)[area]
    assert mine is not None
    assert best is not None
    assert mine < best, (code, area, mine)
    assert not judge(verdicts(results), levels).passed


@pytest.mark.usefixtures("fakes_importable")
def test_the_independent_runtime_reaches_the_reference_levels_in_what_it_claims(
    catalog: Catalog,
) -> None:
    """MiniRuntime, with no bug, claims workflow and loops: the control for the breaking ones."""
    reference, _ = measured("conformance:ReferenceAdapter", catalog)
    levels, results = measured("breaking:MiniRuntime", catalog)
    assert levels.headline_areas == ("workflow", "loops")
    for area in levels.headline_areas:
        assert area_levels(levels)[area] == area_levels(reference)[area]
    assert judge(verdicts(results), levels).passed


@pytest.mark.usefixtures("fakes_importable")
@pytest.mark.parametrize("name", BREAKING)
def test_an_rfc_breaking_runtime_loses_a_level_and_fails_the_run(
    name: str, catalog: Catalog
) -> None:
    reference, _ = measured("conformance:ReferenceAdapter", catalog)
    levels, results = measured(f"breaking:{name}", catalog)
    claimed = levels.headline_areas
    assert claimed == ("workflow", "loops")
    mine, best = area_levels(levels), area_levels(reference)
    assert any(mine[area] < best[area] for area in claimed), mine  # type: ignore[operator]
    assert levels.headline is not None
    assert reference.headline is not None
    assert levels.headline < min(best[area] for area in claimed)  # type: ignore[type-var]
    assert not judge(verdicts(results), levels).passed


@pytest.mark.usefixtures("fakes_importable")
@pytest.mark.parametrize("name", sorted(breaking.AREA_BUGS))
def test_a_runtime_breaking_rfc_0016_0017_or_a_terminal_turn_loses_a_level(
    name: str, catalog: Catalog
) -> None:
    """Each claims every area; breaking one rule of extensions, providers or the turn at a
    terminal state costs a level (in that area, or in the area whose Level 0 it breaks: a pack
    carrying ``extensions`` must run as it would without them) and fails the run."""
    reference, _ = measured("conformance:ReferenceAdapter", catalog)
    levels, results = measured(f"breaking:{name}", catalog)
    mine, best = area_levels(levels), area_levels(reference)
    lost = {a for a, top in best.items() if (level := mine[a]) is not None and level < (top or 0)}
    assert lost, mine
    area = breaking.AREA_BUGS[name]
    assert area in lost or "workflow" in lost, (area, lost)
    assert not judge(verdicts(results), levels).passed


@pytest.mark.usefixtures("fakes_importable")
@pytest.mark.parametrize("name", sorted(breaking.CONTEXT_BUGS))
def test_a_runtime_breaking_a_statement_in_one_context_loses_a_level_there(
    name: str, catalog: Catalog
) -> None:
    """Each breaks one statement in one context only (SEMANTICS R16) and claims every area: it
    loses a level in the area of the cases that exercise that context, fails the run, and every
    case part it fails at MUST exercises the context (its other contexts are the reference's)."""
    area, context = breaking.CONTEXT_BUGS[name]
    reference, _ = measured("conformance:ReferenceAdapter", catalog)
    levels, results = measured(f"breaking:{name}", catalog)
    mine, best = area_levels(levels)[area], area_levels(reference)[area]
    assert mine is not None
    assert best is not None
    assert mine < best, (area, mine)
    assert not judge(verdicts(results), levels).passed
    failing = [
        (result.case, part.part)
        for result in results
        for part in result.failures()
        if any(not c.passed and c.requirement == "MUST" for c in part.checks)
        or (not part.checks and result.case.requirement == "MUST")
    ]
    assert failing
    outside = [
        (case.id, part) for case, part in failing if context not in part_contexts(case, part)
    ]
    assert outside == [], f"{name} fails MUST checks outside {context}"


@pytest.mark.usefixtures("fakes_importable")
@pytest.mark.parametrize("name", sorted(breaking.MUTANT_BUGS))
def test_a_runtime_breaking_a_rule_as_a_surviving_mutant_did_loses_a_level(
    name: str, catalog: Catalog
) -> None:
    """The cases written for the reference's surviving mutants catch a runtime that breaks
    the rule the same way, at MUST."""
    reference, _ = measured("conformance:ReferenceAdapter", catalog)
    levels, results = measured(f"breaking:{name}", catalog)
    mine, best = area_levels(levels), area_levels(reference)
    area = breaking.MUTANT_BUGS[name]
    assert (mine[area] or 0) < (best[area] or 0), (area, mine)
    assert not judge(verdicts(results), levels).passed


@pytest.mark.usefixtures("fakes_importable")
def test_no_false_pass_from_a_start_that_returns_nothing(catalog: Catalog) -> None:
    """A ``start()`` that returns None is an adapter fault, never an expected refusal."""
    _, results = measured("breaking:StartReturnsNone", catalog)
    refusals = [r for r in results if any(s.start_rejection for s in r.case.scenarios)]
    assert refusals, "no case expects a refusal at start"
    for result in refusals:
        assert result.outcome == "errored", result.case.id
        assert any("adapter fault" in p.message for p in result.parts)


@pytest.mark.usefixtures("fakes_importable")
def test_a_flaky_runtime_is_reported_flaky(catalog: Catalog) -> None:
    _, results = measured("breaking:Flaky", catalog)
    flaky = [p for r in results for p in r.parts if p.outcome == "flaky"]
    assert flaky
    assert all(p.message.startswith("flaky: 2 runs did not end the same way") for p in flaky)
    assert all(not c.passed for p in flaky for c in p.checks)
