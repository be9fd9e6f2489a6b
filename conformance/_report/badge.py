"""The badge view: a shields.io *endpoint* JSON for the headline level, or one area's.

CI uploads the file where shields.io can fetch it and points an endpoint badge at it
(``https://img.shields.io/endpoint?url=...``), so the README shows the level of the last run.
"""

from __future__ import annotations

import json

from conformance._basics.errors import KitError
from conformance._judging.levels import BELOW_ZERO
from conformance._judging.records import Report
from conformance._judging.verdicts import judge_report

__all__ = ["badge", "render_badge"]


def badge(report: Report, area: str | None = None) -> dict[str, object]:
    """The badge's fields: ``schemaVersion``, ``label``, ``message``, ``color``.

    The message is ``level N of TOP`` (``below level 0``, ``not assessed``), marked
    ``(partial)`` for a filtered run and ``(incomplete)`` for one that did not finish, whose
    levels certify nothing: those are grey; a run whose verdict is FAILED (R14: a claimed
    area misses its claimed level) is red and marked ``(failed)``, whatever its level.

    Arguments:
        report: the run.
        area: one area's level instead of the headline.

    Raises:
        KitError: the report has no such area.
    """
    levels = report.levels()
    label = f"PromptPack {levels.spec_version}"
    if area is None:
        level = levels.headline
        assessed = [
            a.top for a in levels.areas if a.area in levels.headline_areas and a.level is not None
        ]
        top = max(assessed, default=0)
    else:
        found = levels.area(area)
        if found is None:
            known = ", ".join(a.area for a in levels.areas)
            raise KitError(f"the report has no area {area!r}; its areas: {known}")
        level, top = found.level, found.top
        label += f" {area}"
    if level is None:
        message = "not assessed"
    elif level == BELOW_ZERO:
        message = "below level 0"
    else:
        message = f"level {level} of {top}"
    notes = [
        n for n, on in (("partial", levels.partial), ("incomplete", not report.complete)) if on
    ]
    failed = judge_report(report).status == "failed"
    if notes:
        message += f" ({', '.join(notes)})"
    elif failed:
        message += " (failed)"
    return {
        "schemaVersion": 1,
        "label": label,
        "message": message,
        "color": "red" if failed and not notes else _color(level, top, bool(notes)),
    }


def _color(level: int | None, top: int, uncertain: bool) -> str:
    if level is None or uncertain:
        return "lightgrey"
    if level == BELOW_ZERO:
        return "red"
    if level == 0:
        return "orange"
    return "brightgreen" if level >= top else "yellowgreen"


def render_badge(report: Report, area: str | None = None) -> str:
    """The badge as shields.io endpoint JSON (see :func:`badge`)."""
    return json.dumps(badge(report, area), ensure_ascii=False) + "\n"
