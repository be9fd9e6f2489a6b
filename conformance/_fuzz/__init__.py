"""Differential fuzzing: generated examples run on the reference and a runtime side by side.

- :mod:`~conformance._fuzz.oracle`: what the RFCs require of a runtime on an example (MUST
  only), written as case data, from the reference's run;
- :mod:`~conformance._fuzz.judge`: the runtime judged on that case by the kit's runner;
- :mod:`~conformance._fuzz.engine`: Hypothesis drawing, shrinking and replaying examples;
- :mod:`~conformance._fuzz.report`: the minimal example as a diff and as a case file.

:func:`check_against_reference` and :func:`assert_matches_reference` are the oracle for
runtime authors' own Hypothesis tests (exported by :mod:`conformance`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from conformance._fuzz.judge import FuzzFinding, judge
from conformance._fuzz.oracle import expect_run
from conformance._fuzz.report import render_finding
from conformance._judging.runner import Runner
from conformance._runtime.adapter import Adapter

__all__ = ["FuzzFinding", "assert_matches_reference", "check_against_reference"]


def check_against_reference(
    adapter: Adapter,
    pack: Mapping[str, Any],
    script: Sequence[Mapping[str, Any]] = (),
    *,
    area: str | None = None,
    timeout: float | None = None,
) -> FuzzFinding | None:
    """Run ``pack`` and ``script`` on the reference and on ``adapter``; compare what the RFCs
    make MUST.

    Arguments:
        adapter: the runtime.
        pack: a valid pack (e.g. from :func:`conformance.strategies.packs`).
        script: steps in the case-file format (e.g. from
            :func:`conformance.strategies.scripts`); steps whose outcome the RFCs leave open
            are left out on both sides.
        area: the area to file a finding under (default: ``compositions`` for a pack without
            workflow, ``control`` for one with ``control`` on a state, ``state-agents`` for
            one with ``agents``, else ``loops``).
        timeout: seconds each part may take on the adapter (``None``: no limit).

    The adapter is left open: close it when your tests are done with it.

    Returns:
        ``None`` when the runtime did what the RFCs require, else the first
        :class:`FuzzFinding` (a divergence, or an adapter fault).
    """
    document = _copy(pack)
    chosen = area or _area_of(document)
    expected = expect_run(chosen, document, [_copy(step) for step in script])
    return judge(Runner(adapter, timeout=timeout), expected).finding


def assert_matches_reference(
    adapter: Adapter,
    pack: Mapping[str, Any],
    script: Sequence[Mapping[str, Any]] = (),
    *,
    area: str | None = None,
    timeout: float | None = None,
) -> None:
    """Like :func:`check_against_reference`, raising ``AssertionError`` with the diff."""
    finding = check_against_reference(adapter, pack, script, area=area, timeout=timeout)
    if finding is not None:
        raise AssertionError(render_finding(finding, found_after=1, shrink_runs=0))


def _area_of(pack: Mapping[str, Any]) -> str:
    workflow = pack.get("workflow")
    if not isinstance(workflow, Mapping):
        return "compositions"
    states = workflow.get("states")
    if isinstance(states, Mapping) and any(
        isinstance(state, Mapping) and "control" in state for state in states.values()
    ):
        return "control"
    return "state-agents" if isinstance(pack.get("agents"), Mapping) else "loops"


def _copy(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_copy(v) for v in value]
    return value
