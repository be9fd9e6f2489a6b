"""From results to verdicts, and from verdicts to the exit status, for the CLI and the plugin.

``ppconf run``, ``pytest --ppconf-adapter`` and every view of a report decide alike (R14):

- by default, a run fails exactly when an area the runtime claims does not reach its claimed
  level at the target spec version: a MUST check failed (or was not judged: skipped, errored,
  timed out, flaky) in a case of that area at or below the claimed level. A runtime that claims
  nothing fails on any MUST check. SHOULD and MAY failures are findings, shown, never fatal;
  an adapter fault (errored, timed out, flaky: a MUST check that varied, R20) is no finding
  and counts at any requirement;
- with ``strict``, every check counts: any failed check, at any requirement, in any area,
  fails the run, a SHOULD or MAY finding of a passing part included (the reference's own CI
  runs so);
- with ``require_level`` N, the headline level must also reach N, which a partial selection
  cannot show;
- with an expected-failures file, a counted failure that is listed does not fail the run, and a
  listed case that passes (or, listed as flaky, is not flaky) does, so the list stays honest;
- a run that did not finish, or ran a partial selection, is INCOMPLETE: never PASSED, whatever
  it measured (its failures still fail it).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from conformance._basics.areas import TOP_LEVEL
from conformance._catalog.expected_failures import ExpectedFailure
from conformance._judging.levels import CaseVerdict, LevelReport, describe_level
from conformance._judging.records import Report, case_verdicts, records_of
from conformance._judging.runner import CaseResult

__all__ = ["FAULTS", "Judgement", "Status", "counted", "judge", "judge_report", "verdicts"]


def verdicts(results: Iterable[CaseResult]) -> list[CaseVerdict]:
    """One verdict per case result (see :func:`conformance._judging.records.case_verdicts`)."""
    return case_verdicts(records_of(results))


Status = Literal["passed", "failed", "incomplete"]

FAULTS = frozenset({"errored", "timeout", "flaky"})
"""Outcomes that fail the run at any requirement: the runtime gave no answer to judge."""


@dataclass(frozen=True)
class Judgement:
    """Whether a run passes, and every reason it does not.

    Attributes:
        problems: one line per reason the run fails (empty: it does not fail).
        unexpected_failures: counted failures that are not expected (by case id).
        unexpected_passes: listed expected failures that did not fail as listed.
        incomplete: why the run cannot pass whatever it measured (did not finish, or ran a
            partial selection); empty when it is complete.
        required_level: the headline level the run had to reach, and whether it did.
        strict: whether every check counted.
    """

    problems: tuple[str, ...]
    unexpected_failures: tuple[str, ...]
    unexpected_passes: tuple[str, ...]
    incomplete: str = ""
    required_level: tuple[int, bool] | None = None
    strict: bool = False

    @property
    def passed(self) -> bool:
        """Whether nothing fails the run (an incomplete run may still not fail: its exit
        status is 0, its verdict INCOMPLETE)."""
        return not self.problems

    @property
    def status(self) -> Status:
        """``failed`` when something fails the run, else ``incomplete`` when it did not finish
        or ran a partial selection, else ``passed``."""
        if self.problems:
            return "failed"
        return "incomplete" if self.incomplete else "passed"

    @property
    def label(self) -> str:
        """``PASSED``, ``FAILED`` or ``INCOMPLETE``, as every view shows it."""
        return self.status.upper()

    def to_dict(self) -> dict[str, object]:
        data: dict[str, object] = {
            "status": self.status,
            "passed": self.passed,
            "problems": list(self.problems),
            "unexpected_failures": list(self.unexpected_failures),
            "unexpected_passes": list(self.unexpected_passes),
            "strict": self.strict,
        }
        if self.incomplete:
            data["incomplete"] = self.incomplete
        if self.required_level is not None:
            level, met = self.required_level
            data["required_level"] = {"level": level, "met": met}
        return data


def counted(verdict: CaseVerdict, levels: LevelReport, *, strict: bool = False) -> bool:
    """Whether a case fails the run (R14): with ``strict``, any case with a failed check at
    any requirement (findings included); else one failing a MUST check, or faulting
    (:data:`FAULTS`) at any requirement, in a claimed area at or below its claimed level (in
    any area when the runtime claims none)."""
    if strict:
        # A part's outcome judges only the checks at its case's requirement: a failed weaker
        # check leaves it "passed", and strict is about every check.
        return _strict_outcome(verdict) != "passed"
    # A fault is no choice an RFC allows: the runtime crashed, hung or flipped, so the case
    # was never judged, whatever its requirement.
    if verdict.outcome not in FAULTS and verdict.checks.get("MUST", True):
        return False
    claims = levels.claims
    if not any(area.area in claims for area in levels.areas):
        return True
    claim = claims.get(verdict.area)
    return claim is not None and verdict.level <= min(claim, TOP_LEVEL.get(verdict.area, 3))


def _strict_outcome(verdict: CaseVerdict) -> str:
    """The case's outcome when every check counts: a passing case with a failed weaker check
    (a finding) has failed."""
    if verdict.passed and not all(verdict.checks.values()):
        return "failed"
    return verdict.outcome


def judge(
    verdicts: Sequence[CaseVerdict],
    levels: LevelReport,
    *,
    expected: Mapping[str, ExpectedFailure] | None = None,
    require_level: int | None = None,
    strict: bool = False,
    complete: bool = True,
) -> Judgement:
    """Decide whether a run passes (see the module docstring)."""
    expected = expected or {}
    unexpected_failures = []
    unexpected_passes = []
    for verdict in verdicts:
        entry = expected.get(verdict.id)
        outcome = _strict_outcome(verdict) if strict else verdict.outcome
        if entry is not None and entry.covers(outcome):
            continue
        if entry is not None and outcome == "passed":
            unexpected_passes.append(verdict.id)
        elif counted(verdict, levels, strict=strict):
            unexpected_failures.append(verdict.id)
    problems = []
    required = None
    if require_level is not None:
        headline = levels.headline
        met = not levels.partial and headline is not None and headline >= require_level
        required = (require_level, met)
        if levels.partial:
            problems.append(
                f"FAILED: the required level {require_level} cannot be judged on a partial "
                "selection; run the whole catalog of the spec version"
            )
        elif not met:
            problems.append(
                f"FAILED: headline level {describe_level(headline)} is below the required "
                f"{require_level}"
            )
    if unexpected_failures:
        claimed = sorted(set(levels.claims) & {area.area for area in levels.areas})
        if strict:
            scope = " (strict: every check counts)"
        elif claimed:
            scope = (
                " in the claimed areas, up to the claimed levels ("
                + ", ".join(f"{area} {levels.claims[area]}" for area in claimed)
                + ")"
            )
        else:
            scope = " at MUST"
        problems.append(
            f"FAILED: {len(unexpected_failures)} case(s) failed{scope}"
            + (" and are not in the expected failures" if expected else "")
        )
    if unexpected_passes:
        problems.append(
            "FAILED: expected failures that did not fail as listed (update the file): "
            + ", ".join(unexpected_passes)
        )
    incomplete = ""
    if not complete:
        incomplete = "the run did not finish"
    elif levels.partial:
        incomplete = "a partial selection: its levels certify nothing"
    return Judgement(
        tuple(problems),
        tuple(unexpected_failures),
        tuple(unexpected_passes),
        incomplete=incomplete,
        required_level=required,
        strict=strict,
    )


def judge_report(report: Report) -> Judgement:
    """:func:`judge` on a report, with the expected failures and required level it ran with."""
    return judge(
        report.verdicts(),
        report.levels(),
        expected=report.header.expected_failures,
        require_level=report.header.require_level,
        strict=report.header.strict,
        complete=report.complete,
    )
