"""The RFC 0014 examples, as shipped in ``examples/rfc/``, through the reference.

* each file holds the RFC's ``workflow:`` block verbatim (only whitespace differs; checked
  against the RFC text in ``../shared/spec`` when that folder is present), completed into a
  full pack, and the catalog's copies in ``cases/packs/`` are the same files;
* they validate with exactly the warnings listed here (``test_published_schema.py`` compares
  them with the published 1.9.0 schema, the first with ``control``);
* Example 2 runs its loop without user turns (RFC 0014 X18), and its compile limit ends a
  failing loop before ``fix`` can reach its own (``cases/control/example-rfc0014-*.yaml``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import reference

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "rfc"
PACKS = ROOT / "cases" / "packs"
SPEC = ROOT.parent / "shared" / "spec"
RFC = SPEC / "rfc-0014-workflow-state-control.md"

# file -> (heading of the example in the RFC, its copy in cases/packs, its warnings)
EXAMPLES_0014: dict[str, tuple[str, str, list[tuple[str, str]]]] = {
    "rfc0014-example1-support-triage.yaml": (
        "### Example 1: Basic Usage",
        "control-rfc0014-example1-support-triage.yaml",
        [],
    ),
    # Every state keeps the floor and the loop has max_visits everywhere, but no engine.budget.
    "rfc0014-example2-codegen-loop.yaml": (
        "### Example 2: Advanced Usage",
        "control-rfc0014-example2-codegen-loop.yaml",
        [("loop-without-budget", "/workflow")],
    ),
}

needs_spec = pytest.mark.skipif(
    not SPEC.is_dir(), reason=f"the RFC texts are not available ({SPEC} is absent)"
)


def load(name: str) -> dict[str, Any]:
    return reference.load_pack(str(EXAMPLES / name))


def _rfc_yaml_block(heading: str) -> list[str]:
    """The non-blank lines, stripped, of the first YAML code block after ``heading``."""
    lines = RFC.read_text(encoding="utf-8").splitlines()
    begin = lines.index("```yaml", lines.index(heading))
    end = lines.index("```", begin + 1)
    return [line.strip() for line in lines[begin + 1 : end] if line.strip()]


@needs_spec
@pytest.mark.parametrize("name", sorted(EXAMPLES_0014))
def test_example_holds_the_rfc_workflow_verbatim(name: str) -> None:
    block = _rfc_yaml_block(EXAMPLES_0014[name][0])
    assert block[0] == "workflow:"
    text = (EXAMPLES / name).read_text(encoding="utf-8")
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    starts = [i for i in range(len(lines)) if lines[i : i + len(block)] == block]
    assert len(starts) == 1
    assert lines[starts[0] + len(block) :] == []  # the workflow ends the file


@pytest.mark.parametrize("name", sorted(EXAMPLES_0014))
def test_catalog_copy_is_the_same_file(name: str) -> None:
    copy = PACKS / EXAMPLES_0014[name][1]
    assert copy.read_bytes() == (EXAMPLES / name).read_bytes()


@pytest.mark.parametrize("name", sorted(EXAMPLES_0014))
def test_example_is_valid_with_exactly_these_warnings(name: str) -> None:
    diagnostics = reference.validate(load(name))
    assert [(d.code, d.path) for d in diagnostics] == EXAMPLES_0014[name][2]
    assert all(d.severity == "warning" for d in diagnostics)


def test_example2_loops_without_user_turns() -> None:
    session = reference.start_session(load("rfc0014-example2-codegen-loop.yaml"))
    assert session.turn == "user"  # X17: starting is not a transition
    for event, state in (
        ("CompileFailed", "fix"),
        ("PatchApplied", "compile"),
        ("CompileOk", "test"),
    ):
        session.send(event, source="agent")
        assert (session.current_state, session.turn) == (state, "agent")
    session.send("TestsPassed", source="agent")
    assert (session.current_state, session.status, session.turn) == ("report", "completed", "user")


def test_example2_compile_limit_comes_before_the_fix_limit() -> None:
    session = reference.start_session(load("rfc0014-example2-codegen-loop.yaml"))
    for _ in range(4):
        session.send("CompileFailed", source="agent")
        session.send("PatchApplied", source="agent")
    session.send("CompileFailed", source="agent")
    assert session.state()["visit_counts"] == {"compile": 5, "fix": 5}
    with pytest.raises(reference.Rejection) as refused:
        session.send("PatchApplied", source="agent")
    assert refused.value.code == "max-visits-exceeded"
    assert (session.status, session.turn) == ("budget_exhausted", "user")
