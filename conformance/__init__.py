"""The ppconf conformance kit: cases, runner, adapters, levels, reports, CLI and pytest plugin.

Run the catalog against a runtime::

    from conformance import Runner, compute_levels, load_catalog, verdicts
    from conformance import ReferenceAdapter

    results = Runner(ReferenceAdapter()).run_all(load_catalog().cases)
    print(compute_levels(verdicts(results)).headline)

Write an adapter for your runtime by implementing :class:`Adapter` (see ``docs/cases.md``).
Fuzz it against the reference with ``ppconf fuzz``, or in your own Hypothesis tests with
:mod:`conformance.strategies` and :func:`assert_matches_reference` (see ``docs/fuzzing.md``).
"""

from __future__ import annotations

from conformance._basics.errors import (
    AdapterError,
    AdapterFault,
    CaseError,
    KitError,
    PackRejected,
    Rejected,
    Unsupported,
)
from conformance._catalog.cases import Case, Catalog, Scenario, Selection, load_case, load_catalog
from conformance._catalog.steps import Step
from conformance._fuzz import FuzzFinding, assert_matches_reference, check_against_reference
from conformance._judging.checks import Check
from conformance._judging.levels import AreaLevel, CaseVerdict, LevelReport, compute_levels
from conformance._judging.runner import CaseResult, PartResult, Runner
from conformance._judging.verdicts import verdicts
from conformance._runtime.adapter import (
    Adapter,
    AdapterSession,
    Capabilities,
    Closable,
    CompositionAdapter,
    CompositionSession,
    PackInput,
    StateStartingAdapter,
    TurnSession,
)
from conformance._runtime.adapter_spec import load_adapter
from conformance._runtime.reference_adapter import ReferenceAdapter

__all__ = [
    "Adapter",
    "AdapterError",
    "AdapterFault",
    "AdapterSession",
    "AreaLevel",
    "Capabilities",
    "Case",
    "CaseError",
    "CaseResult",
    "CaseVerdict",
    "Catalog",
    "Check",
    "Closable",
    "CompositionAdapter",
    "CompositionSession",
    "FuzzFinding",
    "KitError",
    "LevelReport",
    "PackInput",
    "PackRejected",
    "PartResult",
    "ReferenceAdapter",
    "Rejected",
    "Runner",
    "Scenario",
    "Selection",
    "StateStartingAdapter",
    "Step",
    "TurnSession",
    "Unsupported",
    "assert_matches_reference",
    "check_against_reference",
    "compute_levels",
    "load_adapter",
    "load_case",
    "load_catalog",
    "verdicts",
]
