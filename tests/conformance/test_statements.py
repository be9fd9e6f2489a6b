"""The statement registry: quotes verbatim, ids unique, keywords as R8 reads them, every check of
the catalog citing statements no weaker than itself.

The spec texts the quotes are compared with are the ones the project was written against, in
``../shared/spec`` (the kit ships quotes, not texts); the comparison ignores whitespace and
Markdown emphasis, which the plain-text copies of the RFCs lost.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from pathlib import Path

import pytest

from conformance import Catalog
from conformance._basics.errors import CaseError
from conformance._basics.quotes import SOURCE_FILES, normalize
from conformance._basics.resources import catalog_root
from conformance._catalog.documents import read_yaml
from conformance._catalog.registry_check import quote_problems, registry_problems
from conformance._catalog.statements import (
    BINDING,
    INFORMATIVE,
    Registry,
    Statement,
    builtin,
    load_registry,
    load_source,
    statement_files,
)
from conformance._judging.catalog_check import citation_problems

SPEC = Path(__file__).resolve().parents[2].parent / "shared" / "spec"


@pytest.fixture(scope="module")
def spec_folder() -> Path:
    if not SPEC.is_dir():
        pytest.skip(f"the spec texts are not at {SPEC}; the quotes cannot be compared")
    return SPEC


@cache
def spec_text(source: str) -> str:
    return normalize((SPEC / SOURCE_FILES[source]).read_text(encoding="utf-8"))


def test_every_quote_is_verbatim(spec_folder: Path) -> None:
    # The comparison ``ppconf cases check`` makes (--texts, by default this folder).
    wrong = quote_problems(builtin().sources, spec_folder)
    assert not wrong, "quotes not found in their source:\n" + "\n".join(wrong)


def test_every_keyword_follows_its_wording() -> None:
    """R17: binding keywords on binding wording or by a ruling in the normative core, no
    weaker statement quoting an upper-case MUST, one classification per sentence."""
    assert registry_problems(builtin()) == []


def test_every_source_names_the_text_it_was_built_from() -> None:
    for source in builtin().sources:
        if source.name == "kit":
            continue
        assert source.text == SOURCE_FILES[source.name], source.file
        assert source.revision.strip(), source.file


def test_the_registry_covers_the_seven_rfcs_and_the_published_schemas() -> None:
    names = {source.name for source in builtin().sources}
    rfcs = {f"RFC {n}" for n in ("0005", "0009", "0010", "0011", "0014", "0016", "0017")}
    assert rfcs <= names
    assert {"schema 1.4.0", "schema 1.5.1", "schema 1.9.0", "kit"} <= names


def test_ids_are_unique_and_carry_their_source() -> None:
    seen: set[str] = set()
    for statement in builtin().statements:
        assert statement.id not in seen, statement.id
        seen.add(statement.id)
        prefix = statement.source.replace(" ", "").replace("schema", "schema-")
        assert statement.id.startswith(prefix + "."), statement.id


@pytest.mark.parametrize(
    ("keyword", "behaviour", "validity"),
    [
        ("MUST", "MUST", "MUST"),
        ("MUST NOT", "MUST", "MUST"),
        ("error", "MUST", "MUST"),
        ("not-error", "MUST", "MUST"),
        ("valid", "MUST", "MUST"),
        ("schema", "MUST", "MUST"),
        ("definition", "MUST", "MUST"),
        ("warning", "SHOULD", "MUST"),
        ("SHOULD", "SHOULD", "SHOULD"),
        ("lean", "SHOULD", "SHOULD"),
        ("MAY", "MAY", "MAY"),
        ("example", "MAY", "MAY"),
        ("design", "MAY", "MAY"),
        ("level", "MAY", "MAY"),
        ("testing", "MAY", "MAY"),
        ("kit", "MAY", "MAY"),
    ],
)
def test_requirements_follow_the_keyword(keyword: str, behaviour: str, validity: str) -> None:
    statement = Statement("RFC0000.x", "RFC 0000", "s", keyword, "q")
    assert statement.requirement() == behaviour
    assert statement.requirement(validity=True) == validity


def test_a_kit_code_is_should_only_where_an_rfc_names_its_condition() -> None:
    registry = builtin()
    codes = [s for s in registry.statements if s.keyword == "code"]
    assert codes
    for code in codes:
        for named in code.names:
            statement = registry.get(named)
            assert statement is not None, f"{code.id} names {named}, which does not exist"
            assert statement.source != "kit", code.id
            # Only a statement that itself requires something can make a code SHOULD.
            assert statement.requirement(validity=True) != "MAY", f"{code.id}: {named}"
        assert code.requirement() == ("SHOULD" if code.names else "MAY")


def test_informative_statements_are_never_testable_requirements() -> None:
    for statement in builtin().statements:
        if statement.keyword in INFORMATIVE:
            assert statement.requirement() == "MAY", statement.id
        if statement.untestable is not None:
            assert statement.why.strip(), statement.id


def test_binding_keywords_are_the_r8_list() -> None:
    assert {"MUST", "MUST NOT", "REQUIRED", "SHALL", "error", "not-error", "valid"} <= BINDING
    assert "warning" not in BINDING
    assert not BINDING & INFORMATIVE


def test_the_catalog_cites_only_what_exists_and_nothing_stronger(catalog: Catalog) -> None:
    assert citation_problems(catalog.cases, catalog.registry) == []


def test_every_case_cites_a_statement(catalog: Catalog) -> None:
    assert all(case.statements for case in catalog.cases)


def test_a_must_case_cites_a_statement_that_requires_it(catalog: Catalog) -> None:
    registry = catalog.registry
    for case in catalog.cases:
        if case.requirement == "MUST":
            given = [
                registry.derived(case.statements_of(p), validity=p == "validation")
                for p in case.parts
            ]
            assert "MUST" in given, case.id


def test_a_stronger_check_than_its_statement_is_refused(catalog: Catalog) -> None:
    registry: Registry = catalog.registry
    informative = next(s for s in registry.statements if s.keyword == "example")
    case = next(c for c in catalog.cases if c.requirement == "MUST" and c.load is not None)
    overreaching = replace(case, statements=(informative.id,))
    problems = citation_problems([overreaching], registry)
    assert problems
    assert "gives at most MAY" in problems[0]


def test_an_unknown_statement_id_is_refused(catalog: Catalog) -> None:
    case = catalog.cases[0]
    problems = citation_problems([replace(case, statements=("RFC0005.no-such",))], catalog.registry)
    assert problems
    assert "does not hold" in problems[0]


def test_each_statement_knows_its_line() -> None:
    """The lines read in one pass over a file are where the document locates each item."""
    files = statement_files(catalog_root())
    assert len(files) > 5
    for file in files:
        document = read_yaml(file)
        statements = load_source(file).statements
        for index, statement in enumerate(statements):
            assert statement.line == document.locate(f"/statements/{index}").line, statement.id


def test_a_malformed_statement_file_says_where(tmp_path: Path) -> None:
    folder = tmp_path / "statements"
    folder.mkdir()
    (folder / "x.yaml").write_text(
        "source: RFC 0005\ntitle: t\nrevision: r\nstatements:\n"
        "  - {id: RFC0005.a, section: s, keyword: MUSTY, quote: q}\n"
    )
    with pytest.raises(CaseError) as error:
        load_source(folder / "x.yaml")
    assert "x.yaml:5" in str(error.value)
    assert "/statements/0/keyword" in str(error.value)


def test_an_extra_catalog_may_add_statements_but_not_redefine_one(tmp_path: Path) -> None:
    folder = tmp_path / "statements"
    folder.mkdir()
    (folder / "draft.yaml").write_text(
        "source: RFC 0014\ntitle: a draft\nrevision: draft\nstatements:\n"
        "  - {id: RFC0014.rule-9, section: Validation Rules, keyword: MUST, quote: new rule}\n"
    )
    registry = load_registry(tmp_path)
    assert registry.get("RFC0014.rule-9") is not None
    assert registry.get("RFC0014.rule-4.2") is not None
    (folder / "clash.yaml").write_text(
        "source: RFC 0014\ntitle: a clash\nrevision: draft\nstatements:\n"
        "  - {id: RFC0014.rule-4.2, section: x, keyword: MAY, quote: other}\n"
    )
    with pytest.raises(CaseError, match="already defined"):
        load_registry(tmp_path)
