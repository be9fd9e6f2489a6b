"""Two reports compared: what got worse, what got better, and how the levels moved.

Parts are matched by case id and part, checks by their id within the part. A *regression* is a
part that passed in OLD and does not in NEW, a check that passed in OLD and does not in NEW, or
a part (of a case, or a whole case) new in NEW that does not pass. A *fix* is the reverse.
Timings never matter, nor do messages of parts that fail in both. A different spec version or
catalog is stated first, since cases and levels then differ by design.

A NEW that cannot stand for the runtime fails the comparison on its own, whatever the
regressions (a crashed run's report has none): an unfinished run, a partial selection, another
spec version or another catalog than OLD's. Each is allowed on purpose by naming it
(:data:`ALLOWANCES`, ``ppconf compare --allow``).
"""

from __future__ import annotations

import html
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from conformance._basics.tables import render_table
from conformance._basics.text import markdown, markdown_code, terminal
from conformance._judging.levels import LevelReport, describe_level
from conformance._judging.records import PartRecord, Report
from conformance._report.groups import (
    AreaFailures,
    Entry,
    FailureGroup,
    group_entries,
    normalise,
    split_message,
)
from conformance._report.text import wrap

__all__ = [
    "ALLOWANCES",
    "COMPARE_FORMATS",
    "Comparison",
    "LevelChange",
    "PartChange",
    "by_kind",
    "compare",
    "grouped",
    "render_compare_markdown",
    "render_compare_text",
    "summary_line",
]


@dataclass(frozen=True)
class PartChange:
    """One part whose verdict changed.

    Attributes:
        old: the part in OLD (None: new in NEW).
        new: the part in NEW (None: gone from NEW).
        checks: the ids of the checks that changed the same way (passed -> not, or back).
    """

    old: PartRecord | None
    new: PartRecord | None
    checks: tuple[str, ...] = ()

    @property
    def record(self) -> PartRecord:
        """The part as NEW has it, else as OLD had it."""
        record = self.new or self.old
        assert record is not None
        return record

    def describe(self) -> str:
        """``passed -> failed``, ``new, failed``, ``gone, was skipped``, or for a change of checks
        only, ``passed; check error entry-unknown``."""
        old, new = self.old, self.new
        if old is None:
            assert new is not None
            return f"new, {new.outcome}"
        if new is None:
            return f"gone, was {old.outcome}"
        text = f"{old.outcome} -> {new.outcome}" if old.outcome != new.outcome else new.outcome
        if self.checks and old.passed == new.passed:
            shown = ", ".join(self.checks)
            text += f"; check{'s' if len(self.checks) > 1 else ''} {shown}"
        return text


@dataclass(frozen=True)
class LevelChange:
    """An area's level (or the headline's, area ``headline``) in OLD and in NEW."""

    area: str
    old: int | None
    new: int | None

    @property
    def changed(self) -> bool:
        return self.old != self.new

    @property
    def direction(self) -> str:
        """``up``, ``down``, ``newly assessed`` or ``""`` (unchanged); a level no longer
        assessed is down. An area OLD did not assess has no level to go up from."""
        if not self.changed:
            return ""
        if self.old is None:
            return "newly assessed"
        if self.new is None or self.new < self.old:
            return "down"
        return "up"

    def describe(self) -> str:
        """``2 -> 1 (down)``, ``3 (unchanged)``."""
        old, new = describe_level(self.old), describe_level(self.new)
        if not self.changed:
            return f"{new} (unchanged)"
        return f"{old} -> {new} ({self.direction})"


@dataclass(frozen=True)
class Comparison:
    """What changed from OLD to NEW.

    Attributes:
        old, new: the reports.
        notes: what makes the two runs differ besides the runtime (spec version, catalog,
            a partial or unfinished run), first thing a reader must know.
        regressions: parts that got worse, in NEW's run order.
        fixes: parts that got better, in NEW's run order.
        changed: parts failing in both whose outcome changed (``failed -> errored``).
        new_cases, removed_cases: case ids in only one of the reports.
        new_parts, removed_parts: parts of cases in both, in only one of the reports.
        levels: every area's level, then the headline, in OLD and NEW.
        problems: why NEW cannot be judged against OLD (unfinished, partial, another spec
            version or catalog), each not allowed; any of them fails the comparison.
    """

    old: Report
    new: Report
    notes: tuple[str, ...]
    regressions: tuple[PartChange, ...]
    fixes: tuple[PartChange, ...]
    changed: tuple[PartChange, ...]
    new_cases: tuple[str, ...]
    removed_cases: tuple[str, ...]
    new_parts: tuple[PartChange, ...]
    removed_parts: tuple[PartChange, ...]
    levels: tuple[LevelChange, ...]
    problems: tuple[str, ...] = ()

    @property
    def regressed(self) -> bool:
        """Whether anything got worse."""
        return bool(self.regressions)

    @property
    def failed(self) -> bool:
        """Whether the comparison fails (``ppconf compare`` then exits 1): a regression, or a
        NEW that cannot be judged."""
        return bool(self.regressions or self.problems)


ALLOWANCES = ("unfinished", "partial", "spec-version", "catalog")
"""What ``--allow`` accepts of NEW on purpose: a run that did not finish, a partial selection,
another spec version, another catalog than OLD's."""


def compare(old: Report, new: Report, allow: Collection[str] = ()) -> Comparison:
    """Compare two reports (see the module docstring).

    Arguments:
        old: the baseline.
        new: the run to judge against it.
        allow: which of :data:`ALLOWANCES` NEW may be without failing the comparison.
    """
    before = {(r.case, r.part): r for r in old.records}
    after = {(r.case, r.part): r for r in new.records}
    old_cases = dict.fromkeys(r.case for r in old.records)
    new_cases = dict.fromkeys(r.case for r in new.records)
    regressions: list[PartChange] = []
    fixes: list[PartChange] = []
    changed: list[PartChange] = []
    new_parts: list[PartChange] = []
    for key, record in after.items():
        previous = before.get(key)
        if previous is None:
            change = PartChange(None, record)
            if not record.passed:
                regressions.append(change)
            elif record.case in old_cases:
                new_parts.append(change)
            continue
        was = {c.id: c.passed for c in previous.checks}
        worse = tuple(c.id for c in record.checks if was.get(c.id) is True and not c.passed)
        better = tuple(c.id for c in record.checks if was.get(c.id) is False and c.passed)
        if previous.passed and not record.passed:
            regressions.append(PartChange(previous, record, worse))
        elif not previous.passed and record.passed:
            fixes.append(PartChange(previous, record, better))
        else:
            if worse:
                regressions.append(PartChange(previous, record, worse))
            if better:
                fixes.append(PartChange(previous, record, better))
            if not worse and not better and previous.outcome != record.outcome:
                changed.append(PartChange(previous, record))
    removed_parts = tuple(
        PartChange(record, None)
        for key, record in before.items()
        if key not in after and record.case in new_cases
    )
    return Comparison(
        old=old,
        new=new,
        notes=tuple(_notes(old, new)),
        regressions=tuple(regressions),
        fixes=tuple(fixes),
        changed=tuple(changed),
        new_cases=tuple(c for c in new_cases if c not in old_cases),
        removed_cases=tuple(c for c in old_cases if c not in new_cases),
        new_parts=tuple(new_parts),
        removed_parts=removed_parts,
        levels=_level_changes(old.levels(), new.levels()),
        problems=tuple(_problems(old, new, allow)),
    )


def _problems(old: Report, new: Report, allow: Collection[str]) -> list[str]:
    """Why NEW cannot be judged against OLD, for each reason not allowed."""
    problems = []
    expected = len(new.header.parts)
    if not new.complete and "unfinished" not in allow:
        problems.append(
            f"NEW is the report of a run that did not finish ({len(new.records)} of {expected} "
            "parts, no summary): a crashed, killed or timed-out run proves nothing; run "
            "again, or pass --allow unfinished"
        )
    elif new.complete and new.partial and "partial" not in allow:
        problems.append(
            f"NEW is a partial selection ({len(new.records)} of {expected} parts): it certifies "
            "nothing about the cases it left out; run the whole catalog, or pass --allow partial"
        )
    old_version, new_version = old.header.selection.spec_version, new.header.selection.spec_version
    if old_version != new_version and "spec-version" not in allow:
        problems.append(
            f"NEW assessed spec version {new_version}, OLD {old_version}: their cases and levels "
            "differ by design; compare reports of one spec version, or pass --allow spec-version"
        )
    if old.header.catalog_hash == new.header.catalog_hash and old.header.parts != new.header.parts:
        problems.append(
            f"OLD and NEW name one catalog ({new.header.catalog_hash}) but list different parts "
            f"({len(old.header.parts)} and {len(new.header.parts)}): one of them was altered "
            "after it was written; run again"
        )
    if old.header.catalog_hash != new.header.catalog_hash and "catalog" not in allow:
        problems.append(
            f"NEW ran another catalog than OLD ({new.header.catalog_hash}, "
            f"{new.header.catalog_cases} cases; OLD {old.header.catalog_hash}, "
            f"{old.header.catalog_cases} cases); rerun OLD with this catalog, or pass "
            "--allow catalog"
        )
    return problems


def _notes(old: Report, new: Report) -> list[str]:
    notes = []
    old_version, new_version = old.header.selection.spec_version, new.header.selection.spec_version
    if old_version != new_version:
        notes.append(
            f"different spec versions: OLD assessed {old_version}, NEW {new_version}; their "
            "cases and areas differ by design"
        )
    if old.header.catalog_hash != new.header.catalog_hash:
        notes.append(
            f"different catalogs: OLD ran {old.header.catalog_hash} "
            f"({old.header.catalog_cases} cases), NEW {new.header.catalog_hash} "
            f"({new.header.catalog_cases} cases); a case new in NEW that fails is a regression"
        )
    for name, report in (("OLD", old), ("NEW", new)):
        if not report.complete:
            notes.append(
                f"{name} is the report of a run that did not finish: its missing cases show as "
                "removed or new"
            )
        elif report.partial:
            notes.append(f"{name} is a partial selection: it ran only part of the catalog")
    return notes


def _level_changes(old: LevelReport, new: LevelReport) -> tuple[LevelChange, ...]:
    areas = [a.area for a in old.areas] + [a.area for a in new.areas if old.area(a.area) is None]
    changes = []
    for area in areas:
        before, after = old.area(area), new.area(area)
        changes.append(
            LevelChange(
                area,
                before.level if before is not None else None,
                after.level if after is not None else None,
            )
        )
    changes.append(LevelChange("headline", old.headline, new.headline))
    return tuple(changes)


# -- grouping ---------------------------------------------------------------------------------


def grouped(comparison: Comparison, changes: Sequence[PartChange]) -> list[AreaFailures]:
    """Changes grouped per area by NEW's outcome and cause, like the failures of a report.

    A change of checks only (the part passed, or failed, in both) is grouped by the message of
    its first changed check.

    Arguments:
        comparison: the comparison (NEW's claims order the areas).
        changes: some of its changes.
    """
    entries = []
    for change in changes:
        record = change.record
        message = None
        if change.old is not None and change.new is not None and change.old.passed == record.passed:
            check = next((c for c in record.checks if c.id in change.checks), None)
            message = check.message if check is not None else None
        tag = "failed" if message is not None else record.outcome
        entries.append(Entry(record, tag, normalise(record, message)))
    return group_entries(entries, comparison.new.header.capabilities.claims)


def by_kind(changes: Sequence[PartChange]) -> dict[str, list[PartChange]]:
    """Changes by :meth:`PartChange.describe` (``failed -> passed`` ...), in order."""
    found: dict[str, list[PartChange]] = {}
    for change in changes:
        found.setdefault(change.describe(), []).append(change)
    return found


def _members(changes: Sequence[PartChange]) -> tuple[str | None, list[str]]:
    """What the changes share (``passed -> failed``), if anything, and ``case [part]`` for
    each, with its own change when they do not share one."""
    kinds = {c.describe() for c in changes}
    common = kinds.pop() if len(kinds) == 1 else None
    return common, [
        f"{c.record.case} [{terminal(c.record.part)}]"
        + ("" if common else f" ({terminal(c.describe())})")
        for c in changes
    ]


def _message(change: PartChange) -> str:
    """Why the part does not pass in NEW (its message, or its first changed check's)."""
    record = change.record
    if change.new is None:
        return ""
    if record.message:
        return record.message
    return next((c.message for c in record.checks if c.id in change.checks), "")


def _runtime(report: Report) -> str:
    capabilities = report.header.capabilities
    name = f"{capabilities.name} {capabilities.version}".strip()
    counts = report.counts()
    return (
        f"{name} (adapter {report.header.adapter}), spec version "
        f"{report.header.selection.spec_version}, {sum(counts.values())} cases"
    )


# Each view escapes the text of the reports (see conformance._basics.text): the text view here, the
# Markdown view in _md_* and render_compare_markdown.


def _parts(count: int) -> str:
    return f"{count} part{'' if count == 1 else 's'}"


def summary_line(comparison: Comparison) -> str:
    """``3 regressions, 1 fix, 2 new cases, 0 removed cases``."""
    counts = (
        (len(comparison.regressions), "regression", "regressions"),
        (len(comparison.fixes), "fix", "fixes"),
        (len(comparison.new_cases), "new case", "new cases"),
        (len(comparison.removed_cases), "removed case", "removed cases"),
    )
    return ", ".join(f"{n} {one if n == 1 else many}" for n, one, many in counts)


def _others(comparison: Comparison) -> list[tuple[str, Sequence[PartChange]]]:
    return [
        ("fixes", comparison.fixes),
        ("outcome changed, still not passing", comparison.changed),
        ("new parts, passing", comparison.new_parts),
        ("parts gone", comparison.removed_parts),
    ]


# -- text ------------------------------------------------------------------------------------


def render_compare_text(comparison: Comparison) -> str:
    """The comparison for a terminal: notes, levels, regressions (grouped by cause), fixes and
    the other changes (by kind), new and removed cases, and a summary line."""
    lines = [
        f"OLD: {terminal(_runtime(comparison.old))}",
        f"NEW: {terminal(_runtime(comparison.new))}",
    ]
    lines += [f"note: {terminal(note)}" for note in comparison.notes]
    rows = [[c.area, terminal(c.describe())] for c in comparison.levels]
    lines.append(render_table(["area", "level OLD -> NEW"], rows))
    if comparison.regressions:
        lines.append(f"REGRESSIONS ({_parts(len(comparison.regressions))}):")
        changes = {(c.record.case, c.record.part): c for c in comparison.regressions}
        for area in grouped(comparison, comparison.regressions):
            for group in area.groups:
                lines += _text_group(group, [changes[(r.case, r.part)] for r in group.records])
    for title, changes_ in _others(comparison):
        if changes_:
            lines.append(f"{title} ({_parts(len(changes_))}):")
            for kind, members in by_kind(changes_).items():
                lines.append(f"  {terminal(kind)} ({len(members)}):")
                lines += wrap(_members(members)[1], indent="    ")
    for title, cases in (
        ("new cases", comparison.new_cases),
        ("removed cases", comparison.removed_cases),
    ):
        if cases:
            lines.append(f"{title} ({len(cases)}):")
            lines += wrap(list(cases))
    lines.append(summary_line(comparison))
    lines += [f"FAILED: {terminal(problem)}" for problem in comparison.problems]
    return "\n".join(lines)


def _text_group(group: FailureGroup, changes: Sequence[PartChange]) -> list[str]:
    if not group.grouped:
        lines = []
        for change in changes:
            record = change.record
            lines.append(
                f"REGRESSION {record.case} [{terminal(record.part)}] ({record.area} "
                f"L{record.level} {record.requirement}): {terminal(change.describe())}"
            )
            message = _message(change)
            if message:
                lines.append(f"  {terminal(message)}")
        return lines
    common, members = _members(changes)
    return [
        f"REGRESSION {len(changes)} parts ({group.area} {group.scope()}), "
        f"{terminal(common or 'now ' + group.tag)}: {terminal(group.cause)}",
        *wrap(members),
    ]


# -- Markdown --------------------------------------------------------------------------------


_cell = markdown


def _md_part(change: PartChange, detail: str = "", *, kind: bool = True) -> str:
    record = change.record
    text = (
        f"- {markdown_code(record.case)} [{_cell(record.part)}] L{record.level} "
        f"{record.requirement}"
    )
    if kind:
        text += f": {_cell(change.describe())}"
    return text + (f": {_cell(detail)}" if detail else "")


def _details(summary: str, lines: list[str]) -> list[str]:
    # The summary line is an HTML block, where Markdown's escapes do not apply: HTML's do.
    shown = html.escape(terminal(summary), quote=True)
    return ["", f"<details><summary>{shown}</summary>", "", *lines, "", "</details>", ""]


def render_compare_markdown(comparison: Comparison) -> str:
    """The comparison in Markdown, for a CI step summary: the level table, regressions grouped
    by cause (their parts collapsed), then everything else collapsed."""
    lines = [
        "# ppconf compare",
        "",
        f"- **OLD**: {_cell(_runtime(comparison.old))}",
        f"- **NEW**: {_cell(_runtime(comparison.new))}",
        "",
    ]
    lines += [f"> **FAILED**: {_cell(problem)}" for problem in comparison.problems]
    lines += [f"> **note**: {_cell(note)}" for note in comparison.notes]
    lines += ["", "| area | OLD | NEW | change |", "|---|---|---|---|"]
    for change in comparison.levels:
        lines.append(
            f"| {change.area} | {describe_level(change.old)} | {describe_level(change.new)} | "
            f"{change.direction} |"
        )
    lines += ["", f"**{summary_line(comparison)}**", ""]
    if comparison.regressions:
        lines += ["## Regressions", ""]
        changes = {(c.record.case, c.record.part): c for c in comparison.regressions}
        for area in grouped(comparison, comparison.regressions):
            lines += [f"### {area.area}", ""]
            for group in area.groups:
                members = [changes[(r.case, r.part)] for r in group.records]
                if not group.grouped:
                    lines += [_md_part(c, _message(c)) for c in members]
                    continue
                common, _ = _members(members)
                lines.append(
                    f"- **{_cell(common or 'now ' + group.tag)}**, {len(members)} parts "
                    f"({group.scope()}): {_cell(group.cause)}"
                )
                lines += _details(
                    f"the {len(members)} parts",
                    [_md_part(c, split_message(c.record)[0], kind=common is None) for c in members],
                )
            lines.append("")
    for title, changes_ in _others(comparison):
        if changes_:
            lines += [f"## {title[0].upper()}{title[1:]} ({_parts(len(changes_))})"]
            for kind, members in by_kind(changes_).items():
                lines += _details(
                    f"{kind}: {_parts(len(members))}", [_md_part(c, kind=False) for c in members]
                )
    for title, cases in (
        ("New cases", comparison.new_cases),
        ("Removed cases", comparison.removed_cases),
    ):
        if cases:
            lines += [f"## {title} ({len(cases)})"]
            lines += _details(f"{len(cases)} cases", [f"- {markdown_code(case)}" for case in cases])
    kept = [line for i, line in enumerate(lines) if line or (i > 0 and lines[i - 1])]
    return "\n".join(kept).strip("\n") + "\n"


COMPARE_FORMATS = {"text": render_compare_text, "md": render_compare_markdown}
"""The formats of ``ppconf compare``."""
