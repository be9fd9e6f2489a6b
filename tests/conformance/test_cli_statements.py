"""The spec editor's workbench: ``ppconf coverage`` and ``ppconf statements list|check``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance._catalog.revision import source_name
from conformance._catalog.statements import Statement
from conformance._cli import main
from conformance._judging.coverage import Citation, StatementCoverage

SPEC = Path(__file__).resolve().parents[2].parent / "shared" / "spec"
RFC0014 = SPEC / "rfc-0014-workflow-state-control.md"
RULE_4 = (
    "This is not a validation error; it is bounded at runtime by `max_visits` and `engine.budget`."
)


@pytest.fixture
def rfc0014() -> str:
    if not RFC0014.is_file():
        pytest.skip(f"the RFC texts are not at {SPEC}: the revised-text check needs one")
    return RFC0014.read_text(encoding="utf-8")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return status, out, err


# -- statements check -------------------------------------------------------------------------


def test_the_text_the_registry_was_built_from_holds_every_statement(
    rfc0014: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "rfc.md").write_text(rfc0014, encoding="utf-8")
    status, out, _ = run(capsys, "statements", "check", "RFC 0014", str(tmp_path / "rfc.md"))
    assert status == 0, out
    assert out.splitlines()[-1].endswith(" held, 0 stale, 0 new normative sentence(s)"), out


def test_a_changed_rule_names_the_statement_and_the_cases_citing_it(
    rfc0014: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert RULE_4 in rfc0014
    changed = rfc0014.replace(RULE_4, "This is a validation error.")
    (tmp_path / "rfc.md").write_text(changed, encoding="utf-8")
    status, out, _ = run(
        capsys, "statements", "check", "RFC 0014", str(tmp_path / "rfc.md"), "--format", "json"
    )
    assert status == 1
    removed, new = json.loads(out)["changes"]
    # The sentence keeps too few of the rule's words to be read as it: the rule is removed,
    # and the new sentence is said with its binding words.
    assert (removed["kind"], removed["statement"]) == ("removed", "RFC0014.rule-4.2")
    assert removed["keyword"] == "not-error"
    assert removed["cases"], "the catalog's cases citing rule 4 are named"
    assert all(case.startswith("control.") for case in removed["cases"])
    assert (new["kind"], new["now"], new["section"]) == ("new", "error", "Validation Rules")
    assert new["text"] == "This is a validation error."


def test_a_removed_statement_is_stale_and_a_new_rule_is_new(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "rfc.md").write_text(
        "# RFC 0017\n\n## Validation Rules\n\n6. A runtime MUST refuse a provider named twice.\n"
        "\n## Open questions\n\nShould it warn?\n",
        encoding="utf-8",
    )
    status, out, _ = run(capsys, "statements", "check", "0017", str(tmp_path / "rfc.md"))
    assert status == 1
    assert "removed: RFC0017.rule-1.1" in out  # every statement is gone from this text
    assert "new MUST sentence [Validation Rules] " in out
    assert "rfc.md:5:\n    A runtime MUST refuse a provider named twice." in out
    assert "Should it warn?" not in out  # a question states nothing


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["statements", "check", "RFC 9999", "x.md"], "no source 'RFC 9999' in the registry"),
        (["statements", "check", "RFC 0014", "/dev/null/x"], "cannot read"),
        (["statements", "check", "kit", "x.md"], "no source 'kit'"),
    ],
)
def test_unusable_input_is_one_error_line(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _, err = run(capsys, *argv)
    assert status == 2
    assert message in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("written", "name"),
    [
        ("RFC 0014", "RFC 0014"),
        ("rfc0014", "RFC 0014"),
        ("0014", "RFC 0014"),
        ("14", "RFC 0014"),
        ("rfc-0014", "RFC 0014"),
        ("schema 1.9.0", "schema 1.9.0"),
        ("0015", None),
    ],
)
def test_a_source_is_found_however_an_editor_writes_it(written: str, name: str | None) -> None:
    assert source_name(written, ["RFC 0005", "RFC 0014", "schema 1.9.0"]) == name


# -- coverage ---------------------------------------------------------------------------------


def test_coverage_of_one_source(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "coverage", "--source", "RFC 0014", "--format", "json")
    assert status == 0
    (source,) = json.loads(out)["sources"]
    assert source["source"] == "RFC 0014"
    counts = source["counts"]
    assert sum(counts.values()) == len(source["statements"])
    rule4 = next(s for s in source["statements"] if s["id"] == "RFC0014.rule-4.2")
    assert rule4["status"] == "covered"
    assert {c["requirement"] for c in rule4["citations"]} >= {"MUST"}
    governance = [s for s in source["statements"] if s["status"] == "untestable"]
    assert all(s["why"] for s in governance)


def test_fail_under_fails_when_testable_musts_are_not_all_covered(
    capsys: pytest.CaptureFixture[str],
) -> None:
    data = json.loads(run(capsys, "coverage", "--source", "schema 1.4.0", "--format", "json")[1])
    must = data["sources"][0]["must"]
    assert must["covered"] < must["testable"]  # the older schema is mostly not cited
    status, _, err = run(capsys, "coverage", "--source", "schema 1.4.0", "--fail-under", "100")
    assert status == 1
    assert f"schema 1.4.0: {must['covered']}/{must['testable']} testable MUST" in err
    assert run(capsys, "coverage", "--source", "schema 1.4.0", "--fail-under", "0")[0] == 0


def test_the_views_name_every_source(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    status, out, _ = run(capsys, "coverage")
    assert status == 0
    for source in ("RFC 0005", "RFC 0009", "RFC 0010", "RFC 0011", "RFC 0014", "RFC 0016"):
        assert source in out
    page = tmp_path / "coverage.html"
    assert run(capsys, "coverage", "--format", "html", "-o", str(page))[0] == 0
    text = page.read_text(encoding="utf-8")
    assert "Content-Security-Policy" in text
    assert 'id="s-RFC0014-rule-4-2"' in text
    assert "<script" not in text


def test_status_follows_the_strongest_citing_check() -> None:
    must = Statement("RFC0000.a", "RFC 0000", "s", "MUST", "q")
    cite = Citation("workflow.a", "validation", "valid", "SHOULD", "f")
    assert StatementCoverage(must, ()).status == "not covered"
    assert StatementCoverage(must, (cite,)).status == "partial"
    strong = Citation("workflow.b", "validation", "valid", "MUST", "f")
    assert StatementCoverage(must, (cite, strong)).status == "covered"
    untestable = Statement("RFC0000.b", "RFC 0000", "s", "MUST", "q", "host-side", "needs a host")
    assert StatementCoverage(untestable, (strong,)).status == "untestable"
    warning = Statement("RFC0000.c", "RFC 0000", "s", "warning", "q")
    assert StatementCoverage(warning, (strong,)).status == "covered"


def test_cases_list_by_statement(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(
        capsys, "cases", "list", "--statement", "RFC0014.rule-4", "--format", "json"
    )
    assert status == 0
    listed = json.loads(out)
    assert listed
    assert all(any(i.startswith("RFC0014.rule-4") for i in c["statements"]) for c in listed)


@pytest.mark.parametrize("rfc", ["0005", "0009", "0010", "0011", "0014", "0016", "0017"])
def test_every_testable_must_statement_of_an_rfc_has_a_must_check(
    capsys: pytest.CaptureFixture[str], rfc: str
) -> None:
    # A statement that no case can test is marked untestable, with the reason, in the registry.
    status, _, err = run(capsys, "coverage", "--source", f"RFC {rfc}", "--fail-under", "100")
    assert status == 0, err
