"""``ppconf cases check`` refuses a check stronger than the statements it cites (SEMANTICS R8), a
keyword stronger than its statement's wording (R17), a MUST resting on untestable statements or
on a rationale, one sentence classified two ways, and a quote that is not in its text."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from conformance._catalog.registry_check import quote_problems
from conformance._catalog.statements import load_source
from conformance._cli import main
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
    statement = (
        "{id: RFC0005.draft-rule, section: Validation Rules, keyword: MUST, quote: a MUST rule}"
    )
    root = write_catalog(
        {
            "statements/draft.yaml": draft(statement),
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


# -- the registry's own honesty (R17) --------------------------------------------------------------


def draft(*statements: str, source: str = "RFC 0005") -> str:
    """A statement file of ``source`` holding ``statements`` (YAML flow mappings)."""
    return f"source: {source}\ntitle: a revision\nrevision: a draft\nstatements:\n" + "".join(
        f"  - {s}\n" for s in statements
    )


def bound(case_text: CaseText) -> dict[str, str]:
    """One case citing a binding statement of the built-in registry: a catalog needs a case."""
    return {"workflow/bound.yaml": case_text("workflow.t.bound")}


def registry_problems(
    write_catalog: WriteCatalog, case_text: CaseText, *statements: str, source: str = "RFC 0005"
) -> list[str]:
    """The problems of a catalog of one bound case and a statement file of ``statements``."""
    files = {"statements/draft.yaml": draft(*statements, source=source), **bound(case_text)}
    return problems_of(write_catalog(files))


def test_a_binding_keyword_on_should_not_wording_is_refused(
    write_catalog: WriteCatalog, case_text: CaseText
) -> None:
    """A MUST statement quoting a plain "should not" sentence, cited alone by a MUST case: the
    keyword is stronger than the words, whatever the case does."""
    statement = (
        "{id: RFC0005.draft-rule, section: Validation Rules, keyword: MUST, "
        "quote: a validator should not reject it}"
    )
    root = write_catalog(
        {
            "statements/draft.yaml": draft(statement),
            "workflow/a.yaml": case_text("workflow.t.a", statement="RFC0005.draft-rule"),
        }
    )
    found = problems_of(root)
    assert len(found) == 1, found
    assert "statements/draft.yaml:5: statement RFC0005.draft-rule is MUST" in found[0]
    assert "binds only as advisory ('should not')" in found[0]


@pytest.mark.parametrize(
    ("section", "ruling", "refused"),
    [
        ("Validation Rules", "", "name the ruling that reads it as binding (ruling: R17)"),
        ("Validation Rules", ", ruling: R17", None),
        ("Motivation", ", ruling: R17", "only in the normative core"),
        ("Motivation", "", "binds only as none ('must')"),
    ],
)
def test_lower_case_must_binds_only_by_ruling_in_the_normative_core(
    write_catalog: WriteCatalog, case_text: CaseText, section: str, ruling: str, refused: str | None
) -> None:
    statement = (
        f"{{id: RFC0005.draft-rule, section: {section}, keyword: MUST{ruling}, "
        "quote: the entry must name a state}"
    )
    found = [
        p
        for p in registry_problems(write_catalog, case_text, statement)
        if "RFC0005.draft-rule" in p
    ]
    if refused is None:
        assert found == []
    else:
        assert len(found) == 1, found
        assert refused in found[0]


@pytest.mark.parametrize(
    ("statement", "said"),
    [
        pytest.param(
            "{id: RFC0005.draft-rule, section: Validation Rules, keyword: MUST, ruling: R17, "
            "quote: the entry MUST name a state}",
            "its wording binds by itself (MUST): drop the ruling",
            id="ruling-not-needed",
        ),
        pytest.param(
            "{id: RFC0005.draft-rule, section: Detailed Design, keyword: SHOULD, "
            "quote: it SHOULD warn and MUST NOT fail}",
            "is 'SHOULD' but quotes an upper-case MUST NOT",
            id="weaker-quoting-must",
        ),
    ],
)
def test_a_statement_its_own_words_contradict_is_refused(
    write_catalog: WriteCatalog, case_text: CaseText, statement: str, said: str
) -> None:
    """A ruling the upper-case wording makes needless; a SHOULD quoting an upper-case MUST."""
    found = registry_problems(write_catalog, case_text, statement)
    assert any(said in p for p in found), found


def test_a_must_resting_only_on_untestable_statements_is_refused(
    write_catalog: WriteCatalog, case_text: CaseText
) -> None:
    """A MAY case raised to MUST whose only MUST-giving citation is marked untestable."""
    statement = (
        "{id: RFC0005.draft-rule, section: Validation Rules, keyword: MUST, "
        "quote: it MUST hold, untestable: host-side, why: the host decides}"
    )
    root = write_catalog(
        {
            "statements/draft.yaml": draft(statement),
            "workflow/a.yaml": case_text("workflow.t.a", statement="RFC0005.draft-rule"),
        }
    )
    found = problems_of(root)
    assert len(found) == 1, found
    assert "is MUST only by RFC0005.draft-rule, which the registry marks untestable" in found[0]


def test_a_must_citing_a_rationale_is_refused(
    write_catalog: WriteCatalog, case_text: CaseText
) -> None:
    """``RFC0005.def.workflow.engine.2`` says why engine exists, not what it is."""
    rationale = "RFC0005.def.workflow.engine.2"
    case = case_text("workflow.t.a", statement=f"RFC0005.def.WorkflowState.on_event.2, {rationale}")
    root = write_catalog({"workflow/a.yaml": case})
    found = problems_of(root)
    assert len(found) == 1, found
    assert "cites RFC0005.def.workflow.engine.2, a rationale or an illustration" in found[0]


def test_one_sentence_classified_two_ways_is_refused(
    write_catalog: WriteCatalog, case_text: CaseText
) -> None:
    """The 1.9.0 schema's "Absent means 'default'." is host-side; a copy calling it testable
    (or another keyword) disagrees with it."""
    statement = (
        "{id: RFC0017.draft-copy, section: 'Detailed Design: Schema Changes', "
        "keyword: definition, quote: \"Absent means 'default'.\"}"
    )
    found = registry_problems(write_catalog, case_text, statement, source="RFC 0017")
    assert len(found) == 1, found
    assert "one sentence, classified 2 ways" in found[0]
    assert "RFC0017.draft-copy (definition, testable)" in found[0]


def test_a_quote_not_in_its_text_is_refused(tmp_path: Path) -> None:
    (tmp_path / "rfc-0005-workflow.txt").write_text("The entry field must reference a state.\n")
    file = tmp_path / "draft.yaml"
    file.write_text(
        draft(
            "{id: RFC0005.a, section: Validation Rules, keyword: informative, "
            "quote: The entry field must reference a state.}",
            "{id: RFC0005.b, section: Validation Rules, keyword: informative, "
            "quote: The entry field may reference a state.}",
        )
        + "text: rfc-0005-workflow.txt\n"
    )
    source = load_source(file)
    found = quote_problems([source], tmp_path)
    assert len(found) == 1, found
    assert "draft.yaml:6: statement RFC0005.b: its quote is not in" in found[0]
    assert quote_problems([source], tmp_path / "nowhere")[0].count("cannot be compared") == 1


def test_a_quote_standing_twice_in_its_section_is_refused(tmp_path: Path) -> None:
    """A change at one of its places would leave the quote in the other: not located."""
    (tmp_path / "rfc-0005-workflow.txt").write_text(
        "Validation Rules\n\nFirst, a state MUST name a prompt. "
        "Later, a state MUST name a prompt.\n\nExamples\n\nAn entry MUST name a state.\n"
    )
    file = tmp_path / "draft.yaml"
    file.write_text(
        draft(
            "{id: RFC0005.a, section: Validation Rules, keyword: MUST, "
            "quote: a state MUST name a prompt}",
            "{id: RFC0005.b, section: Validation Rules, keyword: MUST, "
            "quote: 'Later, a state MUST name a prompt'}",
        )
        + "text: rfc-0005-workflow.txt\n"
    )
    found = quote_problems([load_source(file)], tmp_path)
    assert len(found) == 1, found
    assert "statement RFC0005.a: its quote stands 2 times in its section" in found[0]


SPEC = Path(__file__).resolve().parents[2].parent / "shared" / "spec"


def test_an_edited_quote_fails_the_command(
    write_catalog: WriteCatalog, case_text: CaseText, capsys: pytest.CaptureFixture[str]
) -> None:
    """``ppconf cases check --texts DIR``: a quote of a spec editor's catalog that is not in the
    RFC's text fails the command a user runs, not only a test."""
    if not SPEC.is_dir():
        pytest.skip(f"the spec texts are not at {SPEC}")
    edited = (
        "{id: RFC0005.draft-rule, section: 'Validation Rules: 1. Entry State Validation', "
        "keyword: MUST, ruling: R17, quote: The entry field must reference a key in the prompts "
        "object}"
    )
    text = draft(edited) + "text: rfc-0005-workflow.txt\n"
    root = write_catalog({"statements/draft.yaml": text, **bound(case_text)})
    argv = ["cases", "check", f"--catalog={root}", "--no-coverage"]
    assert main([*argv, "--texts", str(SPEC)]) == 1
    out = capsys.readouterr().out
    assert "statement RFC0005.draft-rule: its quote is not in" in out
    assert main([*argv, "--texts", str(root / "nowhere")]) == 2
