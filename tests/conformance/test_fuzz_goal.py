"""The fuzzer's goal (issue 25): every runtime the catalog catches, ``ppconf fuzz`` finds over
the areas it claims (no ``--area``) within 1,000 examples. That every runtime making only
choices the RFCs allow gives nothing over the same examples (seed 1, the areas it claims) is
``test_fuzz.test_rfc_allowed_variants_give_no_divergence``.

One fixed seed, so every run of this test draws the same examples; a finding is not shrunk
(the fuzzer's shrinking has tests of its own), so a runtime costs the examples until its first
divergence.
"""

from __future__ import annotations

from typing import Any

import breaking
import pytest

from conformance import Adapter
from conformance._fuzz.engine import FuzzResult, default_areas, fuzz

SEED = 1
EXAMPLES = 1000

CAUGHT = (
    *breaking.SESSION_BUGS,
    "AcceptsBooleansAsIntegers",
    *breaking.RFC0014_RFC0011_BUGS,
    *breaking.AREA_BUGS,
    *breaking.CONTEXT_BUGS,
    "IgnoresInsideNot",
    "RefusesVendorKinds",
)
"""The breaking runtimes the catalog catches that break a rule the fuzzer draws examples for:
of :data:`breaking.MUTANT_BUGS`, the predicate rule inside ``not`` (the schema breakers reach
every depth of a predicate) and the kit's Level 3 test extensions (drawn for a runtime that
claims them); not ``HandsOnAnotherValue``, which changes only what later steps read of a test
extension's output through ``${...}`` references, and the fuzzer's steps read the composition's
input alone."""


def _fuzzed(adapter: Adapter) -> FuzzResult:
    areas = default_areas(adapter.capabilities().claims)
    return fuzz(adapter, areas=areas, examples_wanted=EXAMPLES, seed=SEED, shrink=False)


MISSED: dict[str, str] = {}
"""What the fuzzer does not yet find at this seed within the bound, and why (strict: once it
is found, the entry must go)."""


def _table() -> list[Any]:
    return [
        pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=MISSED[name]))
        if name in MISSED
        else name
        for name in CAUGHT
    ]


@pytest.mark.parametrize("name", _table())
def test_each_runtime_the_catalog_catches_is_found_over_all_its_areas(name: str) -> None:
    result = _fuzzed(getattr(breaking, name)())
    finding = result.finding
    assert finding is not None, f"{name} not found in {EXAMPLES} examples (seed {SEED})"
    assert finding.kind == "divergence", f"{finding.kind} {finding.rule}: {finding.message}"
    assert result.found_after <= EXAMPLES
