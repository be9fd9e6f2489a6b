"""Spec versions: which cases and areas a run for one PromptPack spec version assesses (R6).

A case lists the versions it applies to: a version (``"1.5"``: every 1.5.x release) or a range
(``">=1.7"``, ``">=1.4.1"``, ``">=1.5 <1.8"``). A run targets one version, by default the newest
the kit knows, and takes the cases whose versions include it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = [
    "KNOWN",
    "NEWEST",
    "OLDEST",
    "SpecVersionError",
    "Version",
    "applies",
    "check_target",
    "parse_version",
]

Version = tuple[int, int, int]

NEWEST = "1.9"
"""The newest spec version the kit knows: the default target of a run."""
OLDEST = "1.3"
"""The first spec version with workflows (RFC 0005)."""
KNOWN = ("1.3", "1.4", "1.4.1", "1.5", "1.6", "1.7", "1.8", "1.9")
"""The spec versions the kit knows, oldest first: each minor version, and the patch versions
that brought workflow fields (1.4.1: RFC 0011's ``AgentDef.state``)."""

_NUMBER = r"(0|[1-9][0-9]*)"
_VERSION = rf"{_NUMBER}\.{_NUMBER}(?:\.{_NUMBER})?"
"""MAJOR.MINOR or MAJOR.MINOR.PATCH, without leading zeros: ``1.05`` is no version (read as a
number it would be 1.5, and be shown as 1.05 everywhere)."""
_ITEM = re.compile(rf"(>=)?{_VERSION}(?: <{_VERSION})?")


class SpecVersionError(ValueError):
    """A spec version or range that cannot be read, or one the kit does not know."""


def parse_version(text: str) -> Version:
    """``"1.4.1"`` -> ``(1, 4, 1)``; ``"1.5"`` -> ``(1, 5, 0)``.

    Raises:
        SpecVersionError: not of the form MAJOR.MINOR or MAJOR.MINOR.PATCH.
    """
    match = re.fullmatch(_VERSION, text.strip()) if isinstance(text, str) else None
    if match is None:
        raise SpecVersionError(
            f"{str(text)[:40]!r} is not a spec version such as 1.9 or 1.4.1 (numbers without "
            "leading zeros)"
        )
    major, minor, patch = match.groups()
    return int(major), int(minor), int(patch or 0)


def check_target(text: str) -> str:
    """Check a version a run may target: between :data:`OLDEST` and :data:`NEWEST`; return it
    as the kit writes it (``" 1.5 "`` -> ``1.5``).

    Raises:
        SpecVersionError: unreadable, or outside the versions the kit knows.
    """
    version = parse_version(text)
    if not parse_version(OLDEST) <= version < _next_minor(parse_version(NEWEST)):
        raise SpecVersionError(
            f"spec version {text.strip()[:40]} is not one the kit knows: use {OLDEST} to {NEWEST}"
        )
    return text.strip()


def _next_minor(version: Version) -> Version:
    return version[0], version[1] + 1, 0


def applies(ranges: Iterable[str], target: str) -> bool:
    """Whether a case with these ``spec_versions`` applies to the ``target`` version.

    A bare ``"1.5"`` covers every 1.5.x release; a range's bounds are inclusive below and
    exclusive above.
    """
    version = parse_version(target)
    for item in ranges:
        match = _ITEM.fullmatch(item.strip())
        if match is None:
            raise SpecVersionError(f"{item!r} is not a spec version or range such as >=1.7")
        at_least, *bounds = match.groups()
        low = _join(bounds[0:3])
        if at_least is None:
            if low[:2] == version[:2] and (low[2] == 0 or low == version):
                return True
            continue
        high = _join(bounds[3:6]) if bounds[3] is not None else None
        if low <= version and (high is None or version < high):
            return True
    return False


def _join(parts: list[str | None]) -> Version:
    major, minor, patch = parts
    return int(major or 0), int(minor or 0), int(patch or 0)
