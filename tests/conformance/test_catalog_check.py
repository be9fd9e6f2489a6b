"""``ppconf cases check`` refuses a check stronger than the statements it cites (SEMANTICS R8)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from conformance._judging.catalog_check import check_catalog

WriteCatalog = Callable[[Mapping[str, str]], Path]
CaseText = Callable[..., str]

EXAMPLE = "RFC0005.example-1.1"
"""An example's line: it never requires anything (R8)."""


def problems_of(root: Path) -> list[str]:
    _, problems = check_catalog(root, coverage=False)
    return problems


def test_a_must_case_citing_only_an_example_is_refused(
    write_catalog: WriteCatalog, case_text: CaseText
) -> None:
    root = write_catalog(
        {
            "workflow/example.yaml": case_text("workflow.t.example", statement=EXAMPLE),
            "workflow/may.yaml": case_text("workflow.t.may", requirement="MAY", statement=EXAMPLE),
            "workflow/bound.yaml": case_text("workflow.t.bound"),
        }
    )
    found = problems_of(root)
    assert len(found) == 1, found
    assert found[0].startswith("workflow/example.yaml:5: workflow.t.example [submit]")
    assert "is MUST, but what it cites gives at most MAY" in found[0]
    assert f"{EXAMPLE} (example)" in found[0]


def test_a_should_statement_does_not_carry_a_must_case(
    write_catalog: WriteCatalog, case_text: CaseText
) -> None:
    should = "RFC0009.rule-1.1"  # "If terminal is true, on_event should be empty or omitted."
    root = write_catalog(
        {
            "workflow/a.yaml": case_text("workflow.t.a", statement=should),
            "workflow/b.yaml": case_text("workflow.t.b", requirement="SHOULD", statement=should),
        }
    )
    found = problems_of(root)
    assert [p.split(" [")[0] for p in found] == ["workflow/a.yaml:5: workflow.t.a"]
    assert "gives at most SHOULD" in found[0]


def test_an_unknown_statement_is_refused(write_catalog: WriteCatalog, case_text: CaseText) -> None:
    root = write_catalog({"workflow/a.yaml": case_text("workflow.t.a", statement="RFC0005.nope")})
    found = problems_of(root)
    assert len(found) == 1
    assert "cites RFC0005.nope, which the statement registry does not hold" in found[0]


def test_a_catalog_may_bring_its_own_statements(
    write_catalog: WriteCatalog, case_text: CaseText
) -> None:
    draft = (
        "source: RFC 0005\ntitle: a revision\nrevision: a draft\nstatements:\n"
        "  - {id: RFC0005.draft-rule, section: Validation Rules, keyword: MUST, quote: a rule}\n"
    )
    root = write_catalog(
        {
            "statements/draft.yaml": draft,
            "workflow/a.yaml": case_text("workflow.t.a", statement="RFC0005.draft-rule"),
        }
    )
    assert problems_of(root) == []


def test_a_warning_keeps_a_pack_valid_at_must(
    write_catalog: WriteCatalog, case_text: CaseText
) -> None:
    warning = "RFC0009.rule-1.2"  # "Validators should warn if a terminal state declares ..."
    body = "validation:\n  valid: true\n  warnings: [{code: terminal-with-transitions}]\n"
    root = write_catalog(
        {"workflow/a.yaml": case_text("workflow.t.a", level=1, body=body, statement=warning)}
    )
    # The validity check is MUST (R10), the warning's own check SHOULD: both what it cites gives.
    assert problems_of(root) == []
