"""From results to verdicts, and from verdicts to the exit status, for the CLI and the plugin.

``ppconf run`` and ``pytest --ppconf-adapter`` decide alike:

- without a required level, the run fails if any case of an area the runtime claims (of every
  area, when it claims none) did not pass (skipped, errored, timed out and flaky cases
  included) and is not listed as an expected failure; cases of unclaimed areas are measured and
  shown, and fail nothing;
- with ``--require-level N``, it fails if the headline level is below N, and it cannot be
  judged on a partial selection (a filtered run certifies nothing);
- with an expected-failures file, a listed case that passes (or, listed as flaky, is not flaky)
  fails the run, so that the list is kept honest.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from conformance._expected_failures import ExpectedFailure
from conformance._levels import CaseVerdict, LevelReport, describe_level
from conformance._records import Report, case_verdicts, records_of
from conformance._runner import CaseResult


def verdicts(results: Iterable[CaseResult]) -> list[CaseVerdict]:
    """One verdict per case result (see :func:`conformance._records.case_verdicts`)."""
    return case_verdicts(records_of(results))


@dataclass(frozen=True)
class Judgement:
    """Whether a run passes, and every reason it does not.

    Attributes:
        problems: one line per reason the run fails (empty: it passes).
        unexpected_failures: cases that did not pass and are not expected to fail.
        unexpected_passes: listed expected failures that did not fail as listed.
    """

    problems: tuple[str, ...]
    unexpected_failures: tuple[str, ...]
    unexpected_passes: tuple[str, ...]

    @property
    def passed(self) -> bool:
        return not self.problems

    def to_dict(self) -> dict[str, object]:
        return {
            "passed": self.passed,
            "problems": list(self.problems),
            "unexpected_failures": list(self.unexpected_failures),
            "unexpected_passes": list(self.unexpected_passes),
        }


def judge(
    verdicts: Sequence[CaseVerdict],
    levels: LevelReport,
    *,
    expected: Mapping[str, ExpectedFailure] | None = None,
    require_level: int | None = None,
) -> Judgement:
    """Decide whether a run passes (see the module docstring)."""
    expected = expected or {}
    unexpected_failures = []
    unexpected_passes = []
    claimed = set(levels.claims) & {area.area for area in levels.areas}
    for verdict in verdicts:
        if claimed and verdict.area not in claimed and verdict.id not in expected:
            continue  # measured and shown; not what the runtime claims to do
        entry = expected.get(verdict.id)
        if entry is None:
            if not verdict.passed:
                unexpected_failures.append(verdict.id)
        elif not entry.covers(verdict.outcome):
            if verdict.passed:
                unexpected_passes.append(verdict.id)
            else:
                unexpected_failures.append(verdict.id)
    problems = []
    if require_level is not None:
        headline = levels.headline
        if levels.partial:
            problems.append(
                f"FAILED: the required level {require_level} cannot be judged on a partial "
                "selection; run the whole catalog of the spec version"
            )
        elif headline is None or headline < require_level:
            problems.append(
                f"FAILED: headline level {describe_level(headline)} is below the required "
                f"{require_level}"
            )
    if (expected or require_level is None) and unexpected_failures:
        scope = f" in the claimed areas ({', '.join(sorted(claimed))})" if claimed else ""
        problems.append(
            f"FAILED: {len(unexpected_failures)} case(s){scope} did not pass"
            + (" and are not in the expected failures" if expected else "")
        )
    if unexpected_passes:
        problems.append(
            "FAILED: expected failures that did not fail as listed (update the file): "
            + ", ".join(unexpected_passes)
        )
    return Judgement(tuple(problems), tuple(unexpected_failures), tuple(unexpected_passes))


def judge_report(report: Report) -> Judgement:
    """:func:`judge` on a report, with the expected failures and required level it ran with."""
    return judge(
        report.verdicts(),
        report.levels(),
        expected=report.header.expected_failures,
        require_level=report.header.require_level,
    )
