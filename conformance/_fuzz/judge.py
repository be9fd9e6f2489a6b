"""Judging a runtime on a generated example: the example, written as a case, run by the runner.

The comparison is the case itself: what :mod:`conformance._fuzz.oracle` writes down is judged
by the same :class:`~conformance.Runner` that runs the catalog (every adapter call through the
:class:`~conformance._runtime.boundary.Guard`), so a divergence found here is exactly the failure
the exported case file gives under ``ppconf run --catalog DIR``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from conformance._catalog.cases import Case, _scenario, _validation
from conformance._fuzz.oracle import Expected
from conformance._judging.checks import Check
from conformance._judging.runner import PartResult, Runner
from conformance._runtime.adapter import PackInput

__all__ = ["SCENARIO", "SOURCE", "FuzzFinding", "Kind", "Verdict", "as_case", "case_body", "judge"]

SCENARIO = "fuzz"
"""The name of the one scenario of a generated case."""
SOURCE = "fuzz"

Kind = Literal["divergence", "fault"]


@dataclass(frozen=True)
class FuzzFinding:
    """What a runtime did wrong on one example.

    Attributes:
        kind: ``divergence`` (it did something the RFCs forbid, as the reference shows) or
            ``fault`` (it raised, broke the adapter interface, hung, or answered differently
            on the same input).
        expected: the example as a case the runtime must pass.
        part: ``load``, ``validation`` or the scenario's name.
        message: what happened, as the runner says it.
        step: the step (1-based; one past the last: ``final``), or ``None`` for load and
            validation.
        field: the observation that differs (``status``, ``visit_counts.start`` ...), if any.
        rule: the catalog case pinning the rule broken.
    """

    kind: Kind
    expected: Expected
    part: str
    message: str
    step: int | None = None
    field: str | None = None
    rule: str = ""
    expected_value: Any = None
    actual_value: Any = None
    hung: bool = False
    """The runtime did not answer within the time limit (a fault not worth shrinking: every
    try would take the whole limit)."""

    def signature(self) -> tuple[str, str, str, str]:
        """What tells two findings apart for ``--keep-going``: the kind, the rule broken, the
        part and the observation (its first key)."""
        observed = (self.field or "").split(".", 1)[0]
        part = self.part if self.part in ("load", "validation") else "run"
        return self.kind, self.rule, part, observed


@dataclass(frozen=True)
class Verdict:
    """How a runtime did on one example: a finding, or none; and what could not be run."""

    finding: FuzzFinding | None = None
    unsupported: str = ""


def case_body(expected: Expected) -> dict[str, Any]:
    """The ``pack``, ``validation`` and ``scenarios`` of the case an example gives."""
    body: dict[str, Any] = {"pack": expected.pack}
    if expected.load is not None:
        body["load"] = expected.load
    body["validation"] = {"valid": expected.valid}
    if expected.valid:
        scenario: dict[str, Any] = {"name": SCENARIO}
        if expected.start is not None:
            scenario["start"] = expected.start
        scenario["steps"] = expected.steps
        if expected.final is not None:
            scenario["final"] = expected.final
        if expected.steps or expected.final is not None or expected.start is not None:
            body["scenarios"] = [scenario]
    return body


def as_case(expected: Expected) -> Case:
    """The example as an in-memory :class:`Case` (MUST), without reading or checking a file.

    Its data is the example's own, not a copy: the runner hands the adapter copies of the pack
    (as for every case), and nothing else of it is changed after it is written.
    """
    body = case_body(expected)
    pack = body["pack"]
    text = json.dumps(pack, ensure_ascii=False, separators=(",", ":"))
    return Case(
        id=f"{expected.area}.fuzz.example",
        description="a generated example",
        area=expected.area,
        level=expected.level,
        requirement="MUST",
        statements=(),  # in memory only: the exported case cites its rule case's statements
        spec_versions=(),
        rules=(),
        pack=PackInput(text, "json", pack, SOURCE),
        load=expected.load,
        validation=_validation(body["validation"]),
        scenarios=tuple(
            _scenario(s, f"/scenarios/{i}") for i, s in enumerate(body.get("scenarios", []))
        ),
        file=Path(SOURCE),
        source=SOURCE,
    )


def judge(runner: Runner, expected: Expected, case: Case | None = None) -> Verdict:
    """Run the example's case (``as_case(expected)``, or ``case`` made by it, whose calls the
    runner may have sent ahead) on the runner's adapter; the first part that does not pass.

    Raises:
        RuntimeError: the kit itself failed while judging (a bug to report).
    """
    if case is None:
        case = as_case(expected)
    unsupported = ""
    for part in case.parts:
        result = runner.run_part(case, part)
        if result.outcome == "passed":
            continue
        if result.outcome == "skipped":
            unsupported = unsupported or result.message
            continue
        if result.message.startswith("kit error:"):
            raise RuntimeError(result.message)
        return Verdict(_finding(expected, result), unsupported)
    return Verdict(None, unsupported)


def _finding(expected: Expected, result: PartResult) -> FuzzFinding:
    kind: Kind = "divergence" if result.outcome == "failed" else "fault"
    check = next((c for c in result.checks if not c.passed and c.requirement == "MUST"), None)
    detail: Mapping[str, Any] = check.detail if isinstance(check, Check) else {}
    scenario = result.part not in ("load", "validation")
    step = detail.get("step") if scenario else None
    if step is None and scenario:
        step = 0  # the scenario failed before its first step: at the start
    observed = detail.get("field")
    rule = expected.load_rule if result.part == "load" else expected.rule_at(step, observed)
    return FuzzFinding(
        kind=kind,
        expected=expected,
        part=result.part,
        message=_without_place(result.message),
        step=step,
        field=observed,
        rule=rule,
        expected_value=detail.get("expected"),
        actual_value=detail.get("actual"),
        hung=result.outcome == "timeout",
    )


def _without_place(message: str) -> str:
    """The runner's message without its ``fuzz: scenario 'fuzz', step N (...): `` prefix."""
    for prefix in (f"{SOURCE}: ", f"scenario {SCENARIO!r}"):
        if message.startswith(prefix):
            message = message[len(prefix) :]
    if message.startswith(", step "):
        message = message.partition("): ")[2] or message
    elif message.startswith(": "):
        message = message[2:]
    return message
