"""Each example's script runs from several starts: its own, the entry, a named state and each
state-backed agents member (SEMANTICS R16: the start is a context, not one draw among others).

A runtime that breaks a rule at one start only is found on any pack and script that shows the
rule broken, whatever start the script drew; the finding names the start it came from, and its
exported case starts there.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import allowed
import breaking
from fuzz_packs import pack, state

from conformance import ReferenceAdapter, Runner, load_catalog
from conformance._fuzz.engine import Example, expect_all, fuzz, other_starts
from conformance._fuzz.report import export


def agents_pack() -> dict[str, Any]:
    """Two states, the member ``main`` backed by ``work``, ``aide`` by none, ``late`` by
    ``start``."""
    document = pack(
        {
            "start": state(on_event={"Go": "work"}),
            "work": state(on_event={"Go": "start"}),
        }
    )
    members = {"main": {"state": "work"}, "aide": {}, "late": {"state": "start"}}
    document["agents"] = {"entry": "main", "members": members}
    for name in ("aide", "late"):
        document["prompts"][name] = {
            "id": name,
            "name": "A",
            "version": "1.0.0",
            "system_template": "W",
        }
    return document


def test_the_other_starts_are_the_entry_a_named_state_and_a_state_backed_member() -> None:
    script = [{"start": {"at_state": "start"}}, {"event": "Go"}]
    assert other_starts(agents_pack(), script) == (None, {"at_state": "work"}, {"agent": "late"})


def test_the_start_a_script_drew_is_not_run_twice() -> None:
    script = [{"start": {"agent": "late"}}, {"event": "Go"}]
    assert other_starts(agents_pack(), script) == (None, {"at_state": "work"})
    # A script that drew none starts at the entry.
    assert None not in other_starts(agents_pack(), script[1:])


def test_a_pack_of_one_state_starts_at_it_by_name() -> None:
    document = pack({"start": state(on_event={"Go": "start"})})
    assert other_starts(document, [{"event": "Go"}]) == ({"at_state": "start"},)


def test_a_script_of_composition_runs_only_runs_from_its_own_start() -> None:
    run = {"run_composition": {"name": "c", "input": {"k": 0}, "mocks": {}}}
    assert other_starts(agents_pack(), [run, run]) == ()


def test_each_start_is_expected_once_and_in_order() -> None:
    # A start at a state the pack lacks is left out by the oracle (the session starts at the
    # entry): the entry's own run is then not repeated.
    script = ({"start": {"at_state": "nowhere"}}, {"event": "Go"}, {"event": "Go"})
    document = agents_pack()
    example = Example("state-agents", document, script, starts=other_starts(document, script))
    found = expect_all(example)
    assert [e.start for e in found] == [None, {"at_state": "work"}, {"agent": "late"}]
    # Each from its own start: two moves from work end at work, from start at start.
    assert [e.final["state"] for e in found if e.final] == ["start", "work", "start"]


def test_a_runtime_breaking_a_rule_at_an_agent_start_only_is_found_there_and_exported(
    tmp_path: Path,
) -> None:
    adapter = breaking.VisitBudgetIgnoredAtAgentStart()
    result = fuzz(adapter, areas=("state-agents",), examples_wanted=300, seed=1)
    finding = result.finding
    assert finding is not None, "not found in 300 examples"
    assert finding.kind == "divergence", finding.message
    assert "agent" in (finding.expected.start or {}), finding.expected.start
    assert finding.rule == "state-agents.execution.agent-start-total-visits"
    assert len(finding.expected.pack["workflow"]["states"]) <= 3
    path = export(finding, tmp_path, "breaking:VisitBudgetIgnoredAtAgentStart", 1)
    assert path.parent == tmp_path / "state-agents"
    (case,) = load_catalog(tmp_path).cases
    assert case.scenarios[0].start_agent == finding.expected.start["agent"]
    assert Runner(ReferenceAdapter()).run(case).passed
    assert not Runner(breaking.VisitBudgetIgnoredAtAgentStart()).run(case).passed
    # At the entry and at a named state it keeps the rule: the case is of the agent start.
    assert Runner(breaking.VisitBudgetIgnoredAtStateStart()).run(case).passed


def test_a_runtime_breaking_a_rule_at_a_named_state_only_is_found_there() -> None:
    adapter = breaking.VisitBudgetIgnoredAtStateStart()
    result = fuzz(adapter, areas=("loops", "state-agents"), examples_wanted=300, seed=1)
    finding = result.finding
    assert finding is not None, "not found in 300 examples"
    assert "at_state" in (finding.expected.start or {}), finding.expected.start


def test_a_runtime_starting_only_as_agents_gives_nothing_from_the_other_starts() -> None:
    # RFC 0011 leaves a start at a named state to the runtime (the kit's adapter contract):
    # a runtime refusing it skips those runs, and is held to the others.
    result = fuzz(
        allowed.StartsOnlyAsAgents(), areas=("state-agents",), examples_wanted=200, seed=1
    )
    assert result.finding is None, result.finding
    assert result.tally.exercised["runs from another start"] > 0
