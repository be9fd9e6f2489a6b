"""The RFC 0011 examples, as shipped in ``examples/rfc/``, through the reference.

* Example 1 is the RFC's pack verbatim; Example 2 is its ``agents:`` fragment verbatim, completed
  with a header and the two prompts its member keys name (both compared with the RFC text in
  ``../shared/spec`` when that folder is present);
* both validate with no errors (Example 1 draws only the kit's lint for a loop without a budget);
* Example 1's ``triage`` agent runs the triage -> investigate loop from its state, and its
  prompt-backed ``analyst`` is no way into the workflow.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

import reference

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "rfc"
RFC = ROOT.parent / "shared" / "spec" / "rfc-0011-workflow-states-as-agents.md"
EXAMPLE_1 = "rfc0011-example1-security-review.yaml"
EXAMPLE_2 = "rfc0011-example2-single-prompt-agents.yaml"

needs_spec = pytest.mark.skipif(not RFC.is_file(), reason=f"the RFC text is not at {RFC}")


def load(name: str) -> dict[str, Any]:
    return reference.load_pack(str(EXAMPLES / name))


def rfc_yaml(heading: str) -> Any:
    """The first YAML block after ``heading`` in the RFC text, parsed."""
    text = RFC.read_text(encoding="utf-8")
    after = text[text.index(heading) :]
    match = re.search(r"```yaml\n(.*?)```", after, flags=re.S)
    assert match is not None
    return yaml.safe_load(match.group(1))


def test_the_rfc0011_examples_are_the_two_files() -> None:
    names = sorted(p.name for p in EXAMPLES.iterdir() if p.name.startswith("rfc0011-"))
    assert names == [EXAMPLE_1, EXAMPLE_2]


@needs_spec
def test_example1_is_the_rfc_pack() -> None:
    heading = "### Example 1: Exposing a looping workflow state as an agent"
    assert load(EXAMPLE_1) == rfc_yaml(heading)


@needs_spec
def test_example2_holds_the_rfc_fragment() -> None:
    fragment = rfc_yaml("### Example 2: Single-prompt agents only (unchanged)")
    pack = load(EXAMPLE_2)
    assert pack["agents"] == fragment["agents"]
    assert set(pack["prompts"]) == {pack["agents"]["entry"], *pack["agents"]["members"]}
    assert "workflow" not in pack


def test_example1_is_valid_with_only_the_budget_lint() -> None:
    found = [(d.severity, d.code, d.path) for d in reference.validate(load(EXAMPLE_1))]
    assert found == [("warning", "loop-without-budget", "/workflow")]


def test_example2_is_valid_without_diagnostics() -> None:
    assert reference.validate(load(EXAMPLE_2)) == []


def test_example1_triage_agent_runs_its_loop() -> None:
    session = reference.start_session(load(EXAMPLE_1), agent="triage")
    for event in ("NextFinding", "Done", "NextFinding", "Done", "AllTriaged"):
        session.send(event, source="host")
    state = session.state()
    assert (state["current_state"], state["status"]) == ("done", "completed")
    assert state["visit_counts"] == {"triage": 3, "investigate": 2, "done": 1}


def test_example1_analyst_is_no_way_into_the_workflow() -> None:
    with pytest.raises(reference.Rejection) as refused:
        reference.start_session(load(EXAMPLE_1), agent="analyst")
    assert refused.value.code == "agent-not-state-backed"
