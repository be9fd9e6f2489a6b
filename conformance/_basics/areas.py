"""The areas the kit assesses: one row per RFC with its own support levels.

Every list of areas in the kit is read from :data:`REGISTRY`: levels and spec versions, the
CLI's and the pytest plugin's choices, the fuzzer, the reference adapter's claims, and the case
and report schemas (a test ties those to it). Adding an area is one row here plus its cases.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Area:
    """One area: the support levels of one RFC.

    Attributes:
        name: the area's name, the first part of its case ids.
        rfc: the RFC whose levels the area follows.
        title: what the area is about, in a few words.
        since: the spec version that introduced it.
        top: the highest level the kit assesses.
        rfc_top: the highest level the RFC defines (above ``top``: what needs a host).
        carries: what a Level 0 pack carries, for "packs carrying ... must still load".
        above_top: why the levels above ``top`` are not assessed (empty when none are left out).
    """

    name: str
    rfc: str
    title: str
    since: str
    top: int
    rfc_top: int
    carries: str
    above_top: str = ""


REGISTRY: tuple[Area, ...] = (
    Area("workflow", "RFC 0005", "states, events, transitions", "1.3", 2, 2, "workflow fields"),
    Area("loops", "RFC 0009", "terminal states, loop guards, artifacts, budgets", "1.4", 2, 2,
         "loop fields"),
    Area("compositions", "RFC 0010", "step graphs", "1.5", 3, 3, "compositions"),
    Area("control", "RFC 0014", "who holds the next turn", "1.7", 2, 2, "control fields"),
    Area("state-agents", "RFC 0011", "agents backed by workflow states", "1.4.1", 2, 2,
         "state-backed agents"),
    Area("extensions", "RFC 0016", "extensions slots", "1.8", 1, 2, "extensions",
         "Level 2 enforces governance declarations, outside the kit's areas"),
    Area("providers", "RFC 0017", "provider references", "1.9", 1, 3, "provider references",
         "Levels 2 and 3 route calls to the providers a host binds, which the adapter "
         "interface does not carry"),
)  # fmt: skip
"""Every area, in the order reports show them."""

AREAS: tuple[str, ...] = tuple(area.name for area in REGISTRY)
BY_NAME: dict[str, Area] = {area.name: area for area in REGISTRY}
TOP_LEVEL: dict[str, int] = {area.name: area.top for area in REGISTRY}
"""The highest level the kit assesses in each area."""


def area(name: str) -> Area:
    """The area of this name.

    Raises:
        KeyError: no such area.
    """
    return BY_NAME[name]


def claims_problem(claims: Mapping[str, int]) -> str | None:
    """What makes a runtime's claims impossible (None: nothing): an area the kit does not know,
    or a level below 0 or above the highest its RFC defines. A claim above what the kit assesses
    but within the RFC's levels is possible (it is judged up to :attr:`Area.top`).

    Arguments:
        claims: area name -> level, as a runtime's hello states them.
    """
    for name, level in sorted(claims.items(), key=lambda item: str(item[0])):
        known = BY_NAME.get(name)
        if known is None:
            return f"{name[:60]!r} is not an area the kit knows; claim levels of {', '.join(AREAS)}"
        if not 0 <= level <= known.rfc_top:
            return (
                f"{name} Level {str(level)[:30]} is not a level of {known.rfc}; claim a level "
                f"from 0 to {known.rfc_top}"
            )
    return None


__all__ = ["AREAS", "BY_NAME", "REGISTRY", "TOP_LEVEL", "Area", "area", "claims_problem"]
