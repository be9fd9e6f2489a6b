"""Support levels, as SEMANTICS.md section 5 defines them, counted on MUST checks (R1-R5).

An area reaches level L when every case of that area with level <= L passes its MUST checks;
a case that errored, was skipped, timed out or was flaky passes none of its checks. An area
whose Level 0 cases fail is *below Level 0* (the runtime rejects valid packs carrying the
feature). SHOULD and MAY checks never move a level: the table shows, per area, how many cases
pass their SHOULD checks (advisory) and their MAY checks (informational).

The *headline* level covers the areas the runtime claims (every area when it claims none): the
largest N (0-3) such that each of them reaches ``min(N, its top level)``. Unclaimed areas are
measured and shown all the same. Levels of a *partial* selection (a filtered run) describe only
the cases run and certify nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from conformance._basics.areas import AREAS, BY_NAME, REGISTRY, TOP_LEVEL
from conformance._basics.contract import Requirement
from conformance._basics.spec_versions import NEWEST, parse_version

__all__ = [
    "BELOW_ZERO",
    "AreaLevel",
    "CaseVerdict",
    "LevelReport",
    "areas_of",
    "compute_levels",
    "describe_level",
]

BELOW_ZERO = -1


@dataclass(frozen=True)
class CaseVerdict:
    """What levels need to know of one case.

    Attributes:
        id, area, level, requirement: the case's.
        outcome: the worst outcome of its parts (``passed``, ``failed``, ``errored`` ...).
        checks: for each requirement the case has checks of, whether all of them passed.
        message: why it did not pass, in a line.
    """

    id: str
    area: str
    level: int
    requirement: str
    outcome: str
    checks: Mapping[Requirement, bool] = field(default_factory=dict)
    message: str = ""

    @property
    def passed(self) -> bool:
        """Whether every part passed (findings of weaker checks aside)."""
        return self.outcome == "passed"


@dataclass(frozen=True)
class AreaLevel:
    """The measured level of one area.

    Attributes:
        area: ``workflow``, ``loops``, ``compositions``, ``control`` or ``state-agents``.
        level: 0-3, ``BELOW_ZERO``, or ``None`` when no MUST check of the area was run.
        top: the highest level the area's RFC defines.
        blocking: the cases failing MUST checks at the first level not reached (their ids).
        reason: why the area is where it is, in a sentence.
        must: (passed, total) cases with MUST checks.
        should: (passed, total) cases with SHOULD checks: the advisory score.
        may: (passed, total) cases with MAY checks: informational.
    """

    area: str
    level: int | None
    top: int
    blocking: tuple[str, ...]
    reason: str
    must: tuple[int, int]
    should: tuple[int, int]
    may: tuple[int, int]

    @property
    def should_percent(self) -> float | None:
        passed, total = self.should
        return 100.0 * passed / total if total else None


@dataclass(frozen=True)
class LevelReport:
    """Levels per area, the headline level, and what they mean.

    Attributes:
        areas: one per area of the spec version, in the kit's order.
        headline: the headline level (``None``: no claimed area was assessed).
        headline_areas: the areas the headline covers.
        spec_version: the spec version the run targeted.
        partial: whether the run took a filtered selection (levels then certify nothing).
        claims: the runtime's claims, area -> level.
        claim_notes: claims that the measurement does not bear out, or that make no sense.
    """

    areas: tuple[AreaLevel, ...]
    headline: int | None
    headline_areas: tuple[str, ...] = ()
    spec_version: str = NEWEST
    partial: bool = False
    claims: Mapping[str, int] = field(default_factory=dict)
    claim_notes: tuple[str, ...] = ()

    def area(self, name: str) -> AreaLevel | None:
        return next((a for a in self.areas if a.area == name), None)


def describe_level(level: int | None) -> str:
    """``"2"``, ``"below 0"`` or ``"not assessed"``."""
    if level is None:
        return "not assessed"
    return "below 0" if level == BELOW_ZERO else str(level)


def areas_of(spec_version: str) -> tuple[str, ...]:
    """The areas a spec version has (R6): those its RFCs had introduced by then."""
    version = parse_version(spec_version)
    return tuple(area.name for area in REGISTRY if parse_version(area.since) <= version)


def compute_levels(
    verdicts: Iterable[CaseVerdict],
    *,
    claims: Mapping[str, int] | None = None,
    spec_version: str = NEWEST,
    partial: bool = False,
) -> LevelReport:
    """Compute the level of each area and the headline level from case verdicts.

    Arguments:
        verdicts: one per case run.
        claims: the runtime's claimed levels (the headline covers these areas; all when empty).
        spec_version: the run's target, which decides the areas shown.
        partial: whether the cases are a filtered selection.
    """
    claims = dict(claims or {})
    by_area: dict[str, list[CaseVerdict]] = {area: [] for area in areas_of(spec_version)}
    for verdict in verdicts:
        by_area.setdefault(verdict.area, []).append(verdict)
    areas = tuple(_area_level(area, cases) for area, cases in by_area.items())
    measured = {a.area: a.level for a in areas}
    claimed = [area for area in measured if area in claims]  # in the kit's order, however claimed
    covered = tuple(claimed) if claimed else tuple(measured)
    headline = _headline({area: measured[area] for area in covered})
    return LevelReport(
        areas=areas,
        headline=headline,
        headline_areas=covered,
        spec_version=spec_version,
        partial=partial,
        claims=claims,
        claim_notes=tuple(_claim_notes(claims, measured, partial)),
    )


def _count(cases: list[CaseVerdict], requirement: Requirement) -> tuple[int, int]:
    judged = [c.checks[requirement] for c in cases if requirement in c.checks]
    return sum(judged), len(judged)


def _area_level(area: str, cases: list[CaseVerdict]) -> AreaLevel:
    top = TOP_LEVEL.get(area, 3)
    must = [c for c in cases if "MUST" in c.checks]
    counts = (_count(cases, "MUST"), _count(cases, "SHOULD"), _count(cases, "MAY"))
    if not must:
        return AreaLevel(area, None, top, (), "no MUST check was run", *counts)
    level = BELOW_ZERO
    blocking: tuple[str, ...] = ()
    # A level above every MUST case that was run is not shown, so it is not claimed.
    for candidate in range(max(c.level for c in must) + 1):
        failing = tuple(sorted(c.id for c in must if c.level == candidate and not c.checks["MUST"]))
        if failing:
            blocking = failing
            break
        level = candidate
    if level == BELOW_ZERO:
        carries = BY_NAME[area].carries if area in BY_NAME else f"{area} fields"
        reason = (
            f"fails Level 0 MUST cases (packs carrying {carries} must still load and run "
            "as before): " + ", ".join(blocking)
        )
    elif blocking:
        reason = f"Level {level + 1} needs {len(blocking)} more MUST case(s) to pass: " + ", ".join(
            blocking
        )
    elif level < top:
        reason = f"every MUST case run passes; none of Level {level + 1} or above was run"
    else:
        reason = "every MUST case passes"
        if area in BY_NAME and BY_NAME[area].above_top:
            reason += f" (not assessed: {BY_NAME[area].above_top})"
    return AreaLevel(area, level, top, blocking, reason, *counts)


def _headline(levels: Mapping[str, int | None]) -> int | None:
    assessed = {area: level for area, level in levels.items() if level is not None}
    if not assessed:
        return None
    if any(level == BELOW_ZERO for level in assessed.values()):
        return BELOW_ZERO
    # Levels above every assessed area's top say nothing, so the headline stops there.
    best = 0
    for candidate in range(max(TOP_LEVEL.get(area, 3) for area in assessed) + 1):
        if all(level >= min(candidate, TOP_LEVEL.get(area, 3)) for area, level in assessed.items()):
            best = candidate
    return best


def _claim_notes(
    claims: Mapping[str, int], measured: Mapping[str, int | None], partial: bool
) -> list[str]:
    notes = []
    for area, claim in sorted(claims.items()):
        if area not in TOP_LEVEL:
            notes.append(f"claims {area!r}, which is not an area ({', '.join(AREAS)})")
        elif area not in measured:
            notes.append(f"claims {area} Level {claim}, an area this spec version does not have")
        elif not 0 <= claim <= TOP_LEVEL[area]:
            notes.append(f"claims {area} Level {claim}, but {area} has Levels 0-{TOP_LEVEL[area]}")
        elif (level := measured[area]) is None and partial:
            continue  # not in this selection: nothing measured, nothing to say
        elif level is None or level < claim:
            shown = describe_level(level)
            qualifier = " on this partial selection" if partial else ""
            notes.append(f"claims {area} Level {claim}, measured {shown}{qualifier}")
    return notes
