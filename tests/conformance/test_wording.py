"""What a sentence's words bind where it stands (R17): one reading for the registry check and the
revision check."""

from __future__ import annotations

import pytest

from conformance._catalog.wording import (
    informative_section,
    keywords,
    normalized,
    normative_core,
    upper_case_binding,
    upper_case_weaker,
    wording_of,
)


@pytest.mark.parametrize(
    ("quote", "section", "strength", "ruling"),
    [
        ("A runtime MUST NOT distinguish the two.", "Detailed Design", "binding", ""),
        ("Using `state` without a workflow is an error.", "Validation Rules", "binding", ""),
        ("Any other value is a schema violation.", "Validation Rules", "binding", ""),
        ("Packs carrying it remain valid", "Runtime Support Levels", "binding", ""),
        ("Declaring it there is not an error", "Detailed Design", "binding", ""),
        ("The entry field must reference a key", "Validation Rules: 1. Entry", "binding", "R17"),
        ("Must reference a key in the states object.", "#/$defs/X/properties/y", "binding", "R17"),
        ("Required when orchestration: composition", "Schema Changes: Amendment", "binding", "R17"),
        ("A runtime that claims it must honour it;", "Motivation: Non-Goals", "none", ""),
        ("What it may not do is claim a constraint", "Detailed Design: Levels", "permissive", ""),
        ("Unknown keys SHOULD be preserved; a validator must not drop them", "#/x", "advisory", ""),
        ("the runtime should warn", "Validation Rules", "advisory", ""),
        ("Runtimes MAY ignore it.", "Detailed Design", "permissive", ""),
        ("Map of state names to state definitions.", "Schema Changes", "none", ""),
    ],
)
def test_wording_binds_as_r17_reads_it(
    quote: str, section: str, strength: str, ruling: str
) -> None:
    found = wording_of(quote, section)
    assert (found.strength, found.ruling) == (strength, ruling), found


def test_a_schema_constraint_binds_whatever_its_words() -> None:
    assert wording_of("minimum 1", "#/$defs/X", schema=True).strength == "binding"


def test_sections() -> None:
    assert informative_section("Motivation: Non-Goals")
    assert informative_section("Examples: Example 5")
    assert not informative_section("Detailed Design: Validation rules")
    assert normative_core("Detailed Design: Validation rules")
    assert normative_core("#/$defs/Step/properties/kind")
    assert normative_core("Schema Changes: New Definition: Step")
    assert not normative_core("Runtime Support Levels")
    assert not normative_core("Testing Strategy: Validation Tests")


def test_upper_case_binding_words() -> None:
    assert upper_case_binding("an undeclared prefix SHOULD warn and MUST NOT error") == (
        "MUST NOT",
    )
    assert upper_case_binding("it must") == ()


def test_upper_case_weaker_words() -> None:
    assert upper_case_weaker("it SHOULD NOT, is NOT RECOMMENDED, MAY and MUST") == (
        "SHOULD NOT",
        "NOT RECOMMENDED",
        "MAY",
    )
    assert upper_case_weaker("it may") == ()


@pytest.mark.parametrize(
    ("sentence", "keyword"),
    [
        ("Such packs are valid.", "valid"),
        ("Such packs are always valid.", "valid"),
        ("A pack that carries it remains valid.", "valid"),
        ("An unknown kind is a schema error.", "error"),
        ("Any other value is a schema violation.", "error"),
        ("Declaring it there is not a validation error.", "not-error"),
    ],
)
def test_a_phrase_that_binds_is_a_keyword_a_revision_shows(sentence: str, keyword: str) -> None:
    """The binding phrases are read once: every one that makes a sentence binding is a keyword
    a revision reports as changed when it goes ("are valid" bound, yet was no keyword)."""
    assert wording_of(sentence, "Detailed Design").strength == "binding"
    assert keyword in keywords(sentence)


def test_one_sentence_compares_equal_across_sources() -> None:
    assert normalized("Absent means 'default'.") == normalized("Absent means \u2018default\u2019")
    assert normalized("`owner` names a **team**") == normalized("owner names a team")
