"""A revised RFC text read against the registry: read in linear time, quiet on what is not
wording, a list of changes for what is."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from conformance._basics.quotes import SOURCE_FILES
from conformance._catalog.revision import check_revision
from conformance._catalog.statements import builtin
from conformance._catalog.text import plain, read_text, sentences
from conformance._catalog.wording import keywords

SPEC = Path(__file__).resolve().parents[2].parent / "shared" / "spec"
RFCS = ("RFC 0005", "RFC 0009", "RFC 0010", "RFC 0011", "RFC 0014", "RFC 0016", "RFC 0017")


def held(source: str) -> str:
    path = SPEC / SOURCE_FILES[source]
    if not path.is_file():
        pytest.skip(f"the RFC texts are not at {SPEC}: the revision check needs one")
    return path.read_text(encoding="utf-8")


# -- reading a text ---------------------------------------------------------------------------


PATHOLOGICAL = [
    "# x" + " " * 3000 + "y",  # the heading pattern used to backtrack cubically on this
    "#" + " " * 200_000,
    "## " + "#" * 100_000 + " " * 100_000 + "x",
    "[" * 200_000,
    "[a](" * 50_000,
    ("[" + "a" * 399) * 500,
    "a" + "_" * 200_000 + "a",
    "x:" + " " * 200_000 + "y",
    '"' + " " * 100_000 + '" } ' * 10_000,
    "- " + " " * 200_000 + "MUST" + "." * 100_000,
    "1" * 200_000 + ". " + "a " * 100_000,
    "| " * 100_000 + "\n|" + "---|" * 50_000,
    "**Status:**" + " " * 200_000 + "x",
    "<https:" + "a" * 200_000,
]


@pytest.mark.parametrize("line", PATHOLOGICAL, ids=lambda line: repr(line[:12]))
def test_pathological_lines_are_read_in_linear_time(line: str) -> None:
    text = f"# RFC 0014: x\n\n## Summary\n\n{line}\n\nA runtime MUST do it.\n"
    registry = builtin()  # read before the clock starts: only the text's reading is timed
    started = time.perf_counter()
    revision = check_revision(registry, "RFC 0014", text)
    elapsed = time.perf_counter() - started
    # A liveness margin, not a speed target: a linear reading of these few hundred kilobytes
    # takes well under a second; a pattern that backtracks takes minutes (101 s for the first).
    assert elapsed < 20, f"{elapsed:.1f} s: a pattern backtracks on {line[:20]!r}..."
    assert revision.changes


def test_sentences_keep_their_section_and_leave_code_out() -> None:
    text = (
        'Intro line\n\n# Rules\n\nA MUST b. C SHOULD d.\n\n```json\n{"x": "MUST"}\n```\n'
        "- an item that MAY e\n"
    )
    found = [(s.section, s.text, s.line) for s in sentences(text)]
    assert found == [
        ("Rules", "A MUST b.", 5),
        ("Rules", "C SHOULD d.", 5),
        ("Rules", "an item that MAY e", 10),
    ]


def test_header_fields_and_headings() -> None:
    document = read_text(
        "# RFC 0014: Control {#top}\n\n- **Status:** Implemented\n- **Updated:** 2026-10-07\n\n"
        "## Summary ##\n\n| Call site | Must produce |\n|---|---|\n| a | b |\n"
    )
    assert document.header == {"status": "Implemented", "updated": "2026-10-07"}
    assert [(h.title, h.level) for h in document.headings] == [
        ("RFC 0014: Control", 1),
        ("Summary", 2),
    ]
    assert [s.text for s in document.sentences] == ["| a | b |"]  # a table's header is no rule


def test_plain_text_without_blank_lines_finds_the_registrys_headings() -> None:
    text = (
        "Title\n- Status: Draft\nSummary\nOne sentence.\nMigration Path\nNo migration required.\n"
    )
    titles = frozenset(("summary", "migrationpath"))
    document = read_text(text, titles)
    assert [h.title for h in document.headings] == ["Summary", "Migration Path"]
    assert [(s.section, s.text) for s in document.sentences] == [
        ("", "Title"),
        ("Summary", "One sentence."),
        ("Migration Path", "No migration required."),
    ]


@pytest.mark.parametrize(
    ("written", "same"),
    [
        ("See [RFC 0002](./0002-yaml-format.md) for YAML.", "See RFC 0002 for YAML."),
        ("See [RFC 0002][yaml] for YAML.", "See RFC 0002 for YAML."),
        ("A state **MUST** name its _entry_.", "A state MUST name its entry."),
        ("The `max_visits` bound.", "The max_visits bound."),
        ("A long\nsentence wrapped.", "A long sentence wrapped."),
        ("Read <https://example.org/x>.", "Read https://example.org/x."),
        ("It \u201cyields\u201d.", 'It "yields".'),
    ],
)
def test_what_is_not_wording_is_left_out(written: str, same: str) -> None:
    assert plain(written) == plain(same)


def test_a_renamed_field_is_wording() -> None:
    assert plain("The `max_visits` bound.") != plain("The `maxvisits` bound.")


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("A runtime MUST NOT do it and SHOULD say so.", ("MUST NOT", "SHOULD")),
        ("Developers must write it.", ("MUST",)),
        ("This is not a validation error.", ("not-error",)),
        ("Such a pack is an error; the other is valid.", ("error", "valid")),
        ("Validators should warn.", ("SHOULD", "warning")),
        ("It MAY be omitted.", ("MAY",)),
        ("Nothing binding here.", ()),
    ],
)
def test_keywords_of_a_sentence(text: str, found: tuple[str, ...]) -> None:
    assert keywords(text) == found


# -- the kit's own copies ---------------------------------------------------------------------


@pytest.mark.parametrize("source", RFCS)
def test_the_text_the_registry_was_built_from_has_no_change(source: str) -> None:
    # Every sentence with normative wording is in the registry (informative ones with their
    # kind), and every statement stands in its own section.
    revision = check_revision(builtin(), source, held(source))
    assert [(c.kind, c.section, c.sentence and c.sentence.text) for c in revision.changes] == []
    assert revision.held == len([s for s in builtin().statements if s.source == source])


# -- cosmetic revisions -----------------------------------------------------------------------

RULE_2 = (
    "2. An absent `control` is equivalent to `control: user`. "
    "A runtime MUST NOT distinguish the two."
)
RULE_3_WARN = "Validators SHOULD warn on `control: agent` combined with `terminal: true`"


def revise(source: str, *edits: tuple[str, str]) -> str:
    text = held(source)
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new, 1)
    return text


COSMETIC = {
    "links": [("A runtime MUST NOT", "A [runtime](./runtimes.md#turns) MUST NOT")],
    "emphasis": [("MUST NOT distinguish the two", "**MUST NOT** _distinguish_ the two")],
    "code spans": [("`control: user`. A runtime", "control: user. A runtime")],
    "wrapping": [
        ("is equivalent to `control: user`. A", "is equivalent\n   to `control: user`.\n   A")
    ],
    "header": [
        ("- **Status:** Implemented", "- **Status:** Final"),
        ("- **Updated:** 2026-10-07", "- **Updated:** 2027-01-15"),
    ],
}


@pytest.mark.parametrize("kind", COSMETIC)
def test_a_cosmetic_revision_is_no_change(kind: str) -> None:
    revision = check_revision(builtin(), "RFC 0014", revise("RFC 0014", *COSMETIC[kind]))
    assert revision.changes == ()
    assert revision.passed
    assert revision.outdated == (("status", "updated") if kind == "header" else ())


def test_the_markdown_form_of_a_plain_text_rfc_is_no_change() -> None:
    # The kit's RFC 0009 is the plain text of its web page; its Markdown form (headings, list
    # markers, code fences, links and emphasis restored) reads the same.
    text = held("RFC 0009")
    markdown = "\n".join(
        f"## {line}" if line in ("Summary", "Motivation", "Goals", "Non-Goals") else line
        for line in text.splitlines()
    ).replace("(per RFC 0002)", "(per [RFC 0002](./0002-yaml-format.md))")
    assert markdown != text
    assert check_revision(builtin(), "RFC 0009", markdown).changes == ()


# -- normative revisions ----------------------------------------------------------------------


def only_change(source: str, *edits: tuple[str, str]) -> dict[str, object]:
    revision = check_revision(builtin(), source, revise(source, *edits))
    assert not revision.passed
    (change,) = revision.changes
    return change.to_dict()


def test_a_keyword_weakened() -> None:
    change = only_change(
        "RFC 0014", ("A runtime MUST NOT distinguish", "A runtime SHOULD NOT distinguish")
    )
    assert change["kind"] == "keyword changed"
    assert change["statement"] == "RFC0014.rule-2.2"
    assert (change["was"], change["now"], change["direction"]) == (
        "MUST NOT",
        "SHOULD NOT",
        "weakened",
    )
    assert (change["requirement"], change["becomes"]) == ("MUST", "SHOULD")


def test_a_keyword_strengthened() -> None:
    change = only_change("RFC 0014", (RULE_3_WARN, RULE_3_WARN.replace("SHOULD", "MUST")))
    assert change["kind"] == "keyword changed"
    assert (change["was"], change["now"], change["direction"]) == (
        "SHOULD, warning",
        "MUST, warning",
        "strengthened",
    )
    assert change["becomes"] == "MUST"


def test_wording_changed_with_the_keyword_kept() -> None:
    change = only_change(
        "RFC 0014",
        ("A runtime MUST NOT distinguish the two.", "A runtime MUST NOT tell the two apart."),
    )
    assert (change["kind"], change["statement"]) == ("wording changed", "RFC0014.rule-2.2")
    assert change["text"] == "A runtime MUST NOT tell the two apart."


def test_a_statement_removed() -> None:
    change = only_change("RFC 0014", (" A runtime MUST NOT distinguish the two.", ""))
    assert (change["kind"], change["statement"]) == ("removed", "RFC0014.rule-2.2")
    assert "text" not in change


@pytest.mark.parametrize(
    ("sentence", "now"),
    [
        ("A runtime MUST record every agent round it runs.", "MUST"),
        ("A runtime MAY skip the agent round of a state without tools.", "MAY"),
        ("A state with `control: agent` and no prompt is an error.", "error"),
        ("A pack with `control` on every state is valid.", "valid"),
        ("Runtimes should log the turn's holder.", "SHOULD"),
    ],
)
def test_a_new_sentence_with_its_keyword_and_section(sentence: str, now: str) -> None:
    change = only_change("RFC 0014", (RULE_2, f"{RULE_2}\n3. {sentence}"))
    assert (change["kind"], change["now"], change["section"]) == ("new", now, "Validation Rules")
    assert change["text"] == sentence


def test_a_change_inside_a_quote_that_occurs_more_than_once() -> None:
    # RFC 0010 writes '"additionalProperties": true' three times; closing Composition's engine
    # changes the one under "New Definition: Composition", and the others do not hide it.
    text = held("RFC 0010")
    composition = text.index("Composition", text.index("New Definition: Composition") + 30)
    at = text.index('"additionalProperties": true', composition)
    revised = text[:at] + '"additionalProperties": false' + text[at + 28 :]
    assert (
        revised.count('"additionalProperties": true')
        == text.count('"additionalProperties": true') - 1
    )
    revision = check_revision(builtin(), "RFC 0010", revised)
    assert [(c.kind, c.statement and c.statement.id) for c in revision.changes] == [
        ("constraint changed", "RFC0010.def.Composition.engine.additionalProperties")
    ]
    (change,) = revision.changes
    assert change.sentence is not None
    assert change.sentence.text.startswith('"additionalProperties": false')
    assert revised.splitlines()[change.sentence.line - 1].strip() == change.sentence.text


def test_a_changed_code_line_over_two_lines_is_a_constraint_changed() -> None:
    """Issue 28: a schema fragment whose value changes was reported as removed."""
    change = only_change(
        "RFC 0017",
        (
            '"provider": {\n    "type": "string",\n    "description": "Key of the provider '
            "requirement (requires",
            '"provider": {\n    "type": "integer",\n    "description": "Key of the provider '
            "requirement (requires",
        ),
    )
    assert (change["kind"], change["statement"]) == (
        "constraint changed",
        "RFC0017.def.Prompt.provider.type",
    )
    assert str(change["text"]).startswith('"provider": { "type": "integer"')


def test_one_block_two_definitions_quote_is_one_change_for_both() -> None:
    """RFC 0017 gives PromptStep and AgentStep one schema block: a change there is a change of
    both statements, neither reported removed."""
    block = '"provider": {\n    "type": "string",\n    "description": "Key of the provider '
    revision = check_revision(
        builtin(),
        "RFC 0017",
        revise(
            "RFC 0017",
            (
                block + "requirement that runs",
                block.replace("string", "integer") + "requirement that runs",
            ),
        ),
    )
    assert sorted((c.kind, c.statement and c.statement.id) for c in revision.changes) == [
        ("constraint changed", "RFC0017.def.AgentStep.provider.type"),
        ("constraint changed", "RFC0017.def.PromptStep.provider.type"),
    ]


def test_a_removed_code_line_is_removed() -> None:
    text = held("RFC 0010")
    composition = text.index("Composition", text.index("New Definition: Composition") + 30)
    at = text.index('"additionalProperties": true', composition)
    end = text.index("\n", at)
    revision = check_revision(builtin(), "RFC 0010", text[:at] + text[end:])
    kinds = {(c.kind, c.statement and c.statement.id) for c in revision.changes}
    assert ("removed", "RFC0010.def.Composition.engine.additionalProperties") in kinds


def test_a_reworded_rule_without_binding_words_of_its_own_is_a_wording_change() -> None:
    # "schema violation" is the rule's binding phrase; rewording around it keeps it.
    change = only_change(
        "RFC 0014",
        ("Any other value is a schema violation.", "Any other value is a schema violation too."),
    )
    assert (change["kind"], change["statement"]) == ("wording changed", "RFC0014.rule-1.2")
