"""Contexts (SEMANTICS R16): named once, declared per statement, derived per case part, and
reported by ``ppconf coverage``."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable
from pathlib import Path

import jsonschema_rs
import pytest

from conformance import Catalog
from conformance._basics.errors import CaseError
from conformance._basics.resources import schema_path
from conformance._catalog.cases import Case, load_case
from conformance._catalog.contexts import (
    CONTEXTS,
    DIMENSIONS,
    NEVER_REQUIRED,
    StatementContexts,
    load_context_table,
)
from conformance._catalog.exercised import part_contexts
from conformance._catalog.statements import Statement
from conformance._cli import main
from conformance._judging.context_coverage import ContextCoverage, context_coverage

WriteCatalog = Callable[[dict[str, str]], Path]


def case_of(catalog: Catalog, case_id: str) -> Case:
    return next(c for c in catalog.cases if c.id == case_id)


# -- named once ---------------------------------------------------------------------------------


def test_the_schemas_name_the_contexts_the_module_names() -> None:
    case_schema = json.loads(Path(schema_path("case.schema.json")).read_text(encoding="utf-8"))
    assert tuple(case_schema["$defs"]["Context"]["enum"]) == CONTEXTS
    table_schema = json.loads(Path(schema_path("contexts.schema.json")).read_text("utf-8"))
    applies = table_schema["$defs"]["Family"]["properties"]["applies"]["properties"]
    assert {d: tuple(v["items"]["enum"]) for d, v in applies.items()} == dict(DIMENSIONS)
    assert set(table_schema["$defs"]["Reasons"]["properties"]) == set(DIMENSIONS)
    assert set(NEVER_REQUIRED) <= set(CONTEXTS)


# -- the table ----------------------------------------------------------------------------------


def test_every_execution_statement_of_the_rfcs_is_in_the_table(catalog: Catalog) -> None:
    rows = context_coverage(catalog.registry, catalog.cases, load_context_table())
    undeclared = [row.statement.id for row in rows if row.status == "undeclared"]
    assert undeclared == [], "add them to cases/statements/contexts/ with their contexts"
    assert rows


def test_every_execution_statement_is_tested_in_every_context_it_applies_in(
    catalog: Catalog,
) -> None:
    """A statement newly tested in a scenario, or a context newly named for it, needs a MUST
    check in each context its entry gives (or the entry says why the context does not apply)."""
    rows = context_coverage(catalog.registry, catalog.cases, load_context_table())
    missing = {row.statement.id: row.missing for row in rows if row.missing}
    assert missing == {}


def test_the_table_lists_only_testable_must_statements_of_the_registry(catalog: Catalog) -> None:
    """A statement whose keyword or testability changes leaves the table with it."""
    table = load_context_table()
    unknown = sorted(set(table.entries) - set(catalog.registry.by_id))
    assert unknown == []
    weaker = sorted(
        statement
        for statement in table.entries
        if not catalog.registry.by_id[statement].testable
        or catalog.registry.by_id[statement].requirement() != "MUST"
    )
    assert weaker == []


def test_a_start_at_a_named_state_is_asked_for_wherever_an_agent_start_is() -> None:
    """No RFC restricts a statement that holds at an agent start to the starts the RFCs name,
    and a runtime may handle a start at a named state apart (R16): nothing exempts it."""
    assert NEVER_REQUIRED == {}
    for entry in load_context_table().entries.values():
        starts = entry.applies.get("start", ())
        assert "agent" not in starts or "state" in starts or "entry" not in starts, entry


def test_every_dimension_of_every_entry_applies_or_says_why() -> None:
    for entry in load_context_table().entries.values():
        assert set(entry.applies) | set(entry.not_applicable) == set(DIMENSIONS), entry
        assert all(len(reason) >= 10 for reason in entry.not_applicable.values())


TABLE = """\
families:
  - name: a family
    statements: [RFC0009.def.WorkflowBudget.3]
    applies:
      start: [entry, state, agent]
{more}"""

ALL_REASONS = """\
    not_applicable:
      source: no event moves the workflow here
      orchestration: the statement is not about one state
      budget: budgets are another family
      check: validate and load decide nothing here
      step: not a composition step
"""


def write_table(tmp_path: Path, text: str) -> Path:
    folder = tmp_path / "statements" / "contexts"
    folder.mkdir(parents=True)
    (folder / "more.yaml").write_text(text, encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (TABLE.format(more=""), "says nothing of dimension 'source'"),
        (
            TABLE.format(more=ALL_REASONS).replace("[entry, state, agent]", "[entry, agent]"),
            "applies in start entry, agent but not state: say why",
        ),
        (
            TABLE.format(more=ALL_REASONS).replace("state, agent]", "somewhere, agent]"),
            "field /families/0/applies/start/1",
        ),
    ],
)
def test_a_malformed_table_is_one_error_with_its_place(
    tmp_path: Path, text: str, words: str
) -> None:
    folder = write_table(tmp_path, text)
    with pytest.raises(CaseError) as raised:
        load_context_table(folder)
    assert words in str(raised.value)
    assert "more.yaml:" in str(raised.value)


def test_a_statement_in_two_families_is_refused(tmp_path: Path) -> None:
    folder = write_table(
        tmp_path,
        TABLE.format(more=ALL_REASONS).replace(
            "RFC0009.def.WorkflowBudget.3", "RFC0009.def.WorkflowState.max_visits.1"
        ),
    )
    with pytest.raises(CaseError, match="listed twice"):
        load_context_table(folder)


def test_a_family_with_every_reason_loads(tmp_path: Path) -> None:
    text = TABLE.format(more=ALL_REASONS).replace(
        "RFC0009.def.WorkflowBudget.3", "RFC0000.not-in-the-built-in-table"
    )
    table = load_context_table(write_table(tmp_path, text))
    entry = table.entries["RFC0000.not-in-the-built-in-table"]
    assert entry.required == ("start:entry", "start:state", "start:agent")
    assert entry.not_applicable["budget"] == "budgets are another family"


# -- derived from the case ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("case_id", "part", "expected"),
    [
        (
            "state-agents.execution.agent-start-wall-time",
            "agent-start-agent-event",
            {"start:agent", "source:agent", "budget:max_wall_time_sec", "orchestration:internal"},
        ),
        (
            "state-agents.execution.state-start-wall-time",
            "state-start-agent-event",
            {"start:state", "source:agent", "budget:max_wall_time_sec", "orchestration:internal"},
        ),
        (
            "loops.budget.all-kinds-agent-events",
            "wall-time-first-entry-start",
            {"start:entry", "source:host", "budget:all", "orchestration:internal"},
        ),
        (
            "workflow.orchestration.hybrid-agent-event",
            "agent-moves-on",
            {"start:entry", "source:agent", "orchestration:hybrid", "orchestration:internal"},
        ),
        ("workflow.load.extensions-everywhere", "load", {"check:load"}),
        (
            "compositions.agent.in-parallel",
            "bounded-loop",
            {"step:parallel"},
        ),
        (
            "compositions.execution.parallel-append",
            "three-branches",
            {"step:parallel"},
        ),
    ],
)
def test_contexts_are_derived_from_the_case(
    catalog: Catalog, case_id: str, part: str, expected: set[str]
) -> None:
    assert part_contexts(case_of(catalog, case_id), part) == expected


def test_the_orchestration_is_of_the_states_the_scenario_is_in(catalog: Catalog) -> None:
    """An external state the script never enters is not exercised."""
    case = case_of(catalog, "workflow.orchestration.external-host-event")
    (scenario,) = case.scenarios
    assert "orchestration:external" in part_contexts(case, scenario.name)
    untouched = case_of(catalog, "state-agents.execution.agent-start-wall-time")
    for scenario in untouched.scenarios:
        assert "orchestration:external" not in part_contexts(untouched, scenario.name)


def test_written_contexts_are_added_to_the_derived(
    write_catalog: WriteCatalog, case_text: Callable[..., str]
) -> None:
    text = case_text().replace(
        "rules: [X4]\n", "rules: [X4]\ncontexts: [step:parallel]\n"
    ) + textwrap.indent("contexts: [budget:all]\n", "    ")
    root = write_catalog({"workflow/a.yaml": text})
    case = load_case(root / "workflow" / "a.yaml", root)
    assert case.contexts == ("step:parallel",)
    assert part_contexts(case, "submit") == {
        "start:entry",
        "source:host",
        "orchestration:internal",
        "step:parallel",
        "budget:all",
    }


def test_an_unknown_written_context_is_refused(
    write_catalog: WriteCatalog, case_text: Callable[..., str]
) -> None:
    text = case_text().replace("rules: [X4]\n", "rules: [X4]\ncontexts: [start:nowhere]\n")
    root = write_catalog({"workflow/a.yaml": text})
    with pytest.raises(CaseError, match="/contexts/0"):
        load_case(root / "workflow" / "a.yaml", root)


# -- coverage ----------------------------------------------------------------------------------


def test_a_statement_is_full_only_when_a_must_check_exercises_every_context() -> None:
    statement = Statement("RFC0000.a", "RFC 0000", "s", "MUST", "q")
    entry = StatementContexts(
        "RFC0000.a",
        "f",
        {"start": ("entry", "agent"), "budget": ("all",)},
        dict.fromkeys(("source", "orchestration", "check", "step"), "reason given"),
    )
    both = {"start:entry": ("c1",), "start:agent": ("c2",), "budget:all": ("c2",)}
    assert ContextCoverage(statement, entry, both, ("loops",)).status == "full"
    one = {"start:entry": ("c1",), "budget:all": ("c1",)}
    row = ContextCoverage(statement, entry, one, ("loops",))
    assert row.status == "missing"
    assert row.missing == ("start:agent",)
    assert ContextCoverage(statement, None, both, ()).status == "undeclared"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return status, out


def test_coverage_json_reports_contexts_in_its_published_shape(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out = run(capsys, "coverage", "--format", "json")
    assert status == 0
    data = json.loads(out)
    schema = json.loads(Path(schema_path("coverage.schema.json")).read_text(encoding="utf-8"))
    jsonschema_rs.validator_for(schema).validate(data)
    contexts = data["contexts"]
    sources = {s["name"]: s for s in contexts["sources"]}
    assert set(sources) >= {"RFC 0005", "RFC 0009", "RFC 0011", "RFC 0014", "RFC 0016"}
    wall = next(
        s
        for s in contexts["statements"]
        if s["id"] == "RFC0009.def.WorkflowBudget.max_wall_time_sec.1"
    )
    assert "start:agent" in wall["required"]
    assert "state-agents.execution.agent-start-wall-time" in wall["exercised"]["start:agent"]
    assert wall["not_applicable"]["check"]


def test_coverage_views_show_the_context_half(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    status, out = run(capsys, "coverage", "--source", "RFC 0009")
    assert status == 0
    assert "fully covered in their contexts" in out
    assert "RFC 0009 |" in out
    markdown = run(capsys, "coverage", "--format", "md")[1]
    assert "## Execution statements in their contexts" in markdown
    page = tmp_path / "coverage.html"
    assert run(capsys, "coverage", "--format", "html", "-o", str(page))[0] == 0
    text = page.read_text(encoding="utf-8")
    assert '<h2 id="contexts">' in text
    assert text.index('<h2 id="contexts">') < text.index("</body>")


def test_a_schema_only_selection_has_no_context_half(capsys: pytest.CaptureFixture[str]) -> None:
    status, out = run(capsys, "coverage", "--source", "schema 1.9.0", "--format", "json")
    assert status == 0
    assert "contexts" not in json.loads(out)
