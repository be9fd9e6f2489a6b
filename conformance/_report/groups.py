"""Failures that share one cause, shown once: what the text and Markdown views list.

A runtime that refuses every pack the same way fails dozens of parts with one message, each
prefixed with the place in its own case file. The views show such a cause once, with the count
and every case id, instead of one entry per part. Parts are grouped per area by their outcome
and their *normalised* message: the message without its case-specific prefix (the case file
and line, the scenario and step), and with quoted pack ids, case ids, scenario names and file
paths of the part's own case replaced by ``'...'``. Normalising is plain string work on the
record, so the same report always gives the same groups.

Areas come in the order the reader cares about: the areas the runtime claims first, then the
others, each in the kit's order. Inside an area, what blocks a claimed level comes first, then
other MUST failures, then SHOULD and MAY cases; within each, failures first (failed, errored,
timed out, flaky, expected), the lowest level first; skipped parts last, kept apart so that a
view can collapse them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from conformance._basics.areas import AREAS
from conformance._basics.contract import REQUIREMENTS
from conformance._judging.records import PartRecord, Report
from conformance._judging.verdicts import counted

__all__ = [
    "ELIDED",
    "GIST",
    "GROUP_MIN",
    "TAGS",
    "XFAIL",
    "AreaFailures",
    "Entry",
    "FailureGroup",
    "area_order",
    "failure_groups",
    "gist",
    "group_entries",
    "normalise",
    "split_message",
    "tag_of",
    "top_causes",
]

GROUP_MIN = 3
"""Parts sharing a cause are shown as one entry from this many on; fewer are listed one by one."""

XFAIL = "xfail"
"""The tag of a part that did not pass and is listed as an expected failure."""

TAGS = ("failed", "errored", "timeout", "flaky", XFAIL, "skipped")
"""The order of the tags in a view: failures first, expected failures next, skips last."""

ELIDED = "'...'"
"""What a quoted case-specific value is replaced with."""

_SCENARIO = re.compile(r"""scenario ('[^']*'|"[^"]*")(, step \d+ \(.*?\))?: """)
_QUOTED = re.compile(r"""'[^'\n]*'|"[^"\n]*\"""")
_FILE = re.compile(r"\.(ya?ml|json)$")


def split_message(record: PartRecord, message: str | None = None) -> tuple[str, str]:
    """A part's message as ``(where, cause)``: the case-specific prefix, and the rest normalised.

    ``where`` is ``file:line`` and the scenario and step (``workflow/x.yaml:34: scenario 'a',
    step 2 (event Go)``), or ``""``; ``cause`` is what parts failing for the same reason share.

    Arguments:
        record: the part.
        message: one of its checks' messages instead of the part's.
    """
    message = record.message if message is None else message
    where: list[str] = []
    if record.file and message.startswith(record.file):
        prefix = re.match(re.escape(record.file) + r"(:\d+)?: ", message)
        if prefix:
            where.append(prefix.group(0)[:-2])
            message = message[prefix.end() :]
    scenario = _SCENARIO.match(message)
    if scenario:
        where.append(scenario.group(0)[:-2])
        message = message[scenario.end() :]
    return ": ".join(where), _elide(message, _own_values(record))


def _own_values(record: PartRecord) -> set[str]:
    """The values that differ from case to case and say nothing of the cause."""
    values = {record.case, record.part, record.file}
    pack_id = (record.pack or {}).get("id")
    if isinstance(pack_id, str):
        values.add(pack_id)
    return values


def _elide(message: str, own: set[str]) -> str:
    def replace(match: re.Match[str]) -> str:
        inner = match.group(0)[1:-1]
        return ELIDED if inner in own or _FILE.search(inner) else match.group(0)

    return _QUOTED.sub(replace, message)


def normalise(record: PartRecord, message: str | None = None) -> str:
    """The cause of a part's failure, the same for parts that fail for the same reason.

    Arguments:
        record: the part.
        message: one of its checks' messages instead of the part's.
    """
    return split_message(record, message)[1]


@dataclass(frozen=True)
class FailureGroup:
    """Parts of one area that did not pass with the same tag and cause.

    Attributes:
        area: the area of every part.
        tag: the outcome (``failed``, ``errored``, ``timeout``, ``flaky``, ``skipped``), or
            ``xfail`` for parts listed as expected failures.
        cause: the normalised message (see :func:`normalise`).
        records: the parts, in run order.
        expected: the expected-failure reason the parts share (``xfail`` only).
    """

    area: str
    tag: str
    cause: str
    records: tuple[PartRecord, ...]
    expected: str | None = None

    @property
    def grouped(self) -> bool:
        """Whether a view shows the cause once (else each part on its own)."""
        return len(self.records) >= GROUP_MIN

    @property
    def cases(self) -> tuple[str, ...]:
        """The case ids of the parts, each once, in run order."""
        return tuple(dict.fromkeys(r.case for r in self.records))

    def scope(self) -> str:
        """The levels and requirements the parts have: ``L0 MUST``, ``L1-2 MUST/MAY``."""
        levels = sorted({r.level for r in self.records})
        shown = f"L{levels[0]}" if len(levels) == 1 else f"L{levels[0]}-{levels[-1]}"
        present = {r.requirement for r in self.records}
        requirements = [q for q in REQUIREMENTS if q in present]
        return f"{shown} {'/'.join(requirements)}"

    def places(self) -> list[str]:
        """``case [part]: file:line: scenario 's', step N (event E)`` per part, in run order:
        where each part failed, as its own entry would say."""
        lines = []
        for record in self.records:
            where = split_message(record)[0] or (
                f"{record.file}:{record.line}" if record.file else ""
            )
            lines.append(f"{record.case} [{record.part}]" + (f": {where}" if where else ""))
        return lines

    def members(self) -> list[str]:
        """``case [part, part]`` per case: every case id and part, compactly."""
        parts: dict[str, list[str]] = {}
        for record in self.records:
            parts.setdefault(record.case, []).append(record.part)
        return [f"{case} [{', '.join(names)}]" for case, names in parts.items()]


@dataclass(frozen=True)
class AreaFailures:
    """The parts of one area that did not pass, grouped.

    Attributes:
        area: the area.
        failures: groups of parts that failed, errored, timed out, were flaky or were expected
            to fail; worst tag first, then the lowest level, then run order.
        skipped: groups of skipped parts, in the same order.
    """

    area: str
    failures: tuple[FailureGroup, ...]
    skipped: tuple[FailureGroup, ...]

    @property
    def groups(self) -> tuple[FailureGroup, ...]:
        return self.failures + self.skipped


def tag_of(report: Report, record: PartRecord) -> str:
    """``xfail`` for a part listed as an expected failure that ended as listed, else its
    outcome."""
    entry = report.header.expected_failures.get(record.case)
    return XFAIL if entry is not None and entry.covers(record.outcome) else record.outcome


def area_order(claims: Iterable[str], areas: Iterable[str]) -> list[str]:
    """Areas the runtime claims first, then the others; the kit's order in each."""
    claimed = set(claims)
    known = {area: index for index, area in enumerate(AREAS)}
    return sorted(set(areas), key=lambda a: (a not in claimed, known.get(a, len(known)), a))


@dataclass(frozen=True)
class Entry:
    """A part to group, with what it is grouped by.

    Attributes:
        record: the part.
        tag: its outcome, or another tag of :data:`TAGS`.
        cause: usually :func:`normalise` of the record.
        expected: the expected-failure reason, for ``xfail``.
    """

    record: PartRecord
    tag: str
    cause: str
    expected: str | None = None
    tier: int = 1
    """0: it blocks a claimed level; 1: another MUST failure; 2: a SHOULD or MAY case."""


def group_entries(entries: Iterable[Entry], claims: Iterable[str]) -> list[AreaFailures]:
    """Parts grouped per area by tag, cause and expected reason, in the order of the module
    docstring.

    Arguments:
        entries: the parts, in run order.
        claims: the areas the runtime claims (they come first).
    """
    keyed: dict[tuple[str, str, str, str | None], list[tuple[int, PartRecord]]] = {}
    tiers: dict[tuple[str, str, str, str | None], int] = {}
    for index, entry in enumerate(entries):
        key = (entry.record.area, entry.tag, entry.cause, entry.expected)
        keyed.setdefault(key, []).append((index, entry.record))
        tiers[key] = min(tiers.get(key, entry.tier), entry.tier)

    def order(key: tuple[str, str, str, str | None]) -> tuple[int, int, int, int]:
        members = keyed[key]
        rank = TAGS.index(key[1]) if key[1] in TAGS else len(TAGS)
        # What blocks a claimed level first, then other MUST failures, then the weaker ones.
        return tiers[key], rank, min(r.level for _, r in members), members[0][0]

    by_area: dict[str, list[FailureGroup]] = {}
    for key in sorted(keyed, key=order):
        area, tag, cause, reason = key
        records = tuple(record for _, record in keyed[key])
        by_area.setdefault(area, []).append(FailureGroup(area, tag, cause, records, reason))
    return [
        AreaFailures(
            area,
            tuple(g for g in by_area[area] if g.tag != "skipped"),
            tuple(g for g in by_area[area] if g.tag == "skipped"),
        )
        for area in area_order(claims, by_area)
    ]


def failure_groups(report: Report) -> list[AreaFailures]:
    """The parts of a report that did not pass, grouped per area by tag and cause.

    Every part that did not pass is in exactly one group.

    Arguments:
        report: the run.
    """
    expected = report.header.expected_failures
    levels = report.levels()
    blocking = {v.id for v in report.verdicts() if counted(v, levels)}
    entries = []
    for record in report.records:
        if not record.passed:
            tag = tag_of(report, record)
            reason = expected[record.case].reason if tag == XFAIL else None
            tier = 0 if record.case in blocking else 1 if record.requirement == "MUST" else 2
            entries.append(Entry(record, tag, normalise(record), reason, tier))
    return group_entries(entries, report.header.capabilities.claims)


def top_causes(report: Report, shown: int = 3) -> dict[str, list[str]]:
    """Per area, its blocking cases' causes, the most cases first: ``12 cases: rejected with
    unknown-event, expected acceptance`` (what the level table names, not only ids)."""
    levels = report.levels()
    out: dict[str, list[str]] = {}
    for area in levels.areas:
        blocked = set(area.blocking)
        if not blocked:
            continue
        by_cause: dict[str, set[str]] = {}
        for record in report.records:
            if record.case in blocked and not record.passed:
                by_cause.setdefault(normalise(record), set()).add(record.case)
        ranked = sorted(by_cause.items(), key=lambda item: -len(item[1]))
        out[area.area] = [
            f"{len(cases)} case{'s' if len(cases) != 1 else ''}: {gist(cause, 200)}"
            for cause, cases in ranked[:shown]
        ]
    return out


GIST = 600
"""Characters of a message a summary line shows (the failure, or the JSON report, has it all)."""


def gist(message: str, limit: int = GIST) -> str:
    """A message in a summary line: its start, the rest left to where it is shown in full (a
    cut here would hide the size of the text the record already cut)."""
    if not message:
        return "(no message)"
    first = message.splitlines()[0] if message.strip() else message
    if first != message:  # the lines after the first (an adapter's stderr) are where it is shown
        return first[: limit - 3].rstrip() + "..."
    return message if len(message) <= limit else message[: limit - 3].rstrip() + "..."
