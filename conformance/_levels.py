"""Support levels, exactly as SEMANTICS.md section 5 defines them.

An area reaches level L when every MUST case of that area with level <= L passes; skipped,
errored and timed-out cases count as not passed. An area whose Level 0 cases fail is *below
Level 0* (the runtime rejects valid packs carrying the feature). The headline level is the
largest N (0-3) such that every assessed area reaches ``min(N, its top level)``, and at most
the highest top level among the assessed areas (an area without MUST cases is not assessed).
SHOULD cases give an advisory percentage per area, MAY cases an informational count; neither
moves a level.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from conformance._contract import AREAS, TOP_LEVEL

BELOW_ZERO = -1


@dataclass(frozen=True)
class CaseVerdict:
    """What levels need to know of one case: where it belongs and whether it passed."""

    id: str
    area: str
    level: int
    requirement: str
    passed: bool
    message: str = ""


@dataclass(frozen=True)
class AreaLevel:
    """The measured level of one area.

    Attributes:
        area: ``workflow``, ``loops`` or ``compositions``.
        level: 0-3, ``BELOW_ZERO``, or ``None`` when no MUST case of the area was run.
        top: the highest level the area's RFC defines.
        blocking: the failing MUST cases at the first level not reached (their ids).
        reason: why the area is where it is, in a sentence.
        must: (passed, total) MUST cases.
        should: (passed, total) SHOULD cases: the advisory score.
        may: (passed, total) MAY cases: informational.
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
    """Levels per area and the headline level."""

    areas: tuple[AreaLevel, ...]
    headline: int | None

    def area(self, name: str) -> AreaLevel | None:
        return next((a for a in self.areas if a.area == name), None)


def describe_level(level: int | None) -> str:
    """``"2"``, ``"below 0"`` or ``"not assessed"``."""
    if level is None:
        return "not assessed"
    return "below 0" if level == BELOW_ZERO else str(level)


def compute_levels(verdicts: Iterable[CaseVerdict]) -> LevelReport:
    """Compute the level of each area and the headline level from case verdicts."""
    by_area: dict[str, list[CaseVerdict]] = {area: [] for area in AREAS}
    for verdict in verdicts:
        by_area.setdefault(verdict.area, []).append(verdict)
    areas = tuple(_area_level(area, cases) for area, cases in by_area.items())
    return LevelReport(areas, _headline({a.area: a.level for a in areas}))


def _count(cases: list[CaseVerdict], requirement: str) -> tuple[int, int]:
    chosen = [c for c in cases if c.requirement == requirement]
    return sum(c.passed for c in chosen), len(chosen)


def _area_level(area: str, cases: list[CaseVerdict]) -> AreaLevel:
    top = TOP_LEVEL.get(area, 3)
    must = [c for c in cases if c.requirement == "MUST"]
    counts = (_count(cases, "MUST"), _count(cases, "SHOULD"), _count(cases, "MAY"))
    if not must:
        return AreaLevel(area, None, top, (), "no MUST case was run", *counts)
    level = BELOW_ZERO
    blocking: tuple[str, ...] = ()
    # A level above every MUST case that was run is not shown, so it is not claimed.
    for candidate in range(max(c.level for c in must) + 1):
        failing = tuple(sorted(c.id for c in must if c.level == candidate and not c.passed))
        if failing:
            blocking = failing
            break
        level = candidate
    if level == BELOW_ZERO:
        reason = (
            f"the runtime fails Level 0 cases (packs carrying {area} fields must still load): "
            + ", ".join(blocking)
        )
    elif blocking:
        reason = f"Level {level + 1} needs {len(blocking)} more MUST case(s) to pass"
    elif level < top:
        reason = f"every MUST case run passes; none of Level {level + 1} or above was run"
    else:
        reason = "every MUST case passes"
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
