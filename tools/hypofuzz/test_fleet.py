"""The fuzzing recipe of ``docs/fuzzing.md``, as a ``@given`` test HypoFuzz can drive.

The runtime under test is ``breaking:BudgetOffByOne`` (``tests/conformance``): it ends a budget
one step late, which RFC 0009 forbids, so a campaign that works finds it.
"""

from __future__ import annotations

from breaking import BudgetOffByOne  # type: ignore[import-not-found]  # tests/conformance
from hypothesis import given
from hypothesis import strategies as st

from conformance import assert_matches_reference, strategies


@given(st.data())
def test_matches_the_reference(data: st.DataObject) -> None:
    pack = data.draw(strategies.packs(max_states=4))
    script = data.draw(strategies.scripts(pack, snapshots=False))
    assert_matches_reference(BudgetOffByOne(), pack, script)
