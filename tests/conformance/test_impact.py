"""What a revision does to runtimes already measured: ``statements check --reports``, on the
stored reports of the reference and of a runtime that breaks one RFC 0017 rule."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema_rs
import pytest
from report_files import ReportFiles

from conformance._basics.resources import schema_path
from conformance._cli import main

pytestmark = pytest.mark.usefixtures("cached_catalog", "fakes_importable")

SPEC = Path(__file__).resolve().parents[2].parent / "shared" / "spec"
RULE_1_2 = "`default` is always valid, because RFC 0012"
BREAKS = "breaking:RejectsUndeclaredDefault"  # refuses `provider: default` when undeclared


def revised(tmp_path: Path, old: str, new: str) -> Path:
    path = SPEC / "rfc-0017-provider-references.md"
    if not path.is_file():
        pytest.skip(f"the RFC texts are not at {SPEC}: the revision check needs one")
    text = path.read_text(encoding="utf-8")
    assert old in text
    (tmp_path / "rfc.md").write_text(text.replace(old, new), encoding="utf-8")
    return tmp_path / "rfc.md"


def check(
    capsys: pytest.CaptureFixture[str], rfc: Path, *reports: Path
) -> tuple[int, dict[str, object]]:
    argv = ["statements", "check", "RFC 0017", str(rfc), "--format", "json", "--reports"]
    status = main([*argv, *map(str, reports)])
    data = json.loads(capsys.readouterr().out)
    with open(schema_path("statements-check.schema.json"), encoding="utf-8") as stream:
        jsonschema_rs.validator_for(json.load(stream)).validate(data)
    return status, data


def levels(impact: dict[str, object]) -> dict[str, tuple[str, str]]:
    return {a["area"]: (a["was"], a["becomes"]) for a in impact["levels"]}  # type: ignore[attr-defined]


def test_a_weakened_rule_lifts_the_runtime_that_breaks_it_and_not_the_reference(
    tmp_path: Path, report_file: ReportFiles, capsys: pytest.CaptureFixture[str]
) -> None:
    broken, reference = report_file(BREAKS), report_file("reference")
    rfc = revised(tmp_path, RULE_1_2, "`default` SHOULD be accepted, because RFC 0012")
    status, data = check(capsys, rfc, broken, reference)
    assert status == 1  # the revision weakens a statement
    (change,) = data["changes"]  # type: ignore[misc]
    assert (change["was"], change["now"], change["becomes"]) == ("valid", "SHOULD", "SHOULD")
    first, second = data["impact"]  # type: ignore[misc]
    moved = {(c["case"], c["was"], c["becomes"], c["outcome"]) for c in first["cases"]}
    assert moved == {
        ("providers.validation.prompt-provider-default-not-listed", "MUST", "SHOULD", "failed"),
        ("providers.validation.prompt-provider-default-undeclared", "MUST", "SHOULD", "failed"),
    }
    assert levels(first)["providers"] == ("0", "1")
    assert all(was == now for area, (was, now) in levels(first).items() if area != "providers")
    # The reference passes those checks: their requirement moves, its levels do not.
    assert {c["outcome"] for c in second["cases"]} == {"passed"}
    assert all(was == now for was, now in levels(second).values())


def test_the_text_view_says_whose_level_moves(
    tmp_path: Path, report_file: ReportFiles, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = report_file(BREAKS)
    rfc = revised(tmp_path, RULE_1_2, "`default` SHOULD be accepted, because RFC 0012")
    status = main(["statements", "check", "0017", str(rfc), "--reports", str(broken)])
    out = capsys.readouterr().out
    assert status == 1
    assert "  providers: Level 0 -> Level 1\n" in out
    assert "if RFC0017.rule-1.2 became SHOULD, rejects-undeclared-default" in out
    assert "would reach providers Level 1" in out


def test_a_removed_rule_leaves_its_checks_resting_on_nothing(
    tmp_path: Path, report_file: ReportFiles, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = report_file(BREAKS)
    rfc = revised(
        tmp_path,
        "with one exception: `default` is always valid, because RFC 0012 reserves it for the "
        "primary LLM and does not require it to be declared.",
        "without exception.",
    )
    status, data = check(capsys, rfc, broken)
    assert status == 1
    kinds = {c["statement"]: c["kind"] for c in data["changes"]}  # type: ignore[attr-defined]
    # Rule 1's first sentence loses its exception (its wording changed); the exception is gone.
    assert kinds == {"RFC0017.rule-1.1": "wording changed", "RFC0017.rule-1.2": "removed"}
    (impact,) = data["impact"]  # type: ignore[misc]
    assert {c["becomes"] for c in impact["cases"]} == {"MAY"}
    assert levels(impact)["providers"] == ("0", "1")


def test_an_unchanged_text_moves_nothing(
    report_file: ReportFiles, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    broken = report_file(BREAKS)
    rfc = revised(tmp_path, RULE_1_2, RULE_1_2)
    status, data = check(capsys, rfc, broken)
    assert status == 0
    (impact,) = data["impact"]  # type: ignore[misc]
    assert impact["cases"] == []
    assert all(was == now for was, now in levels(impact).values())


def test_a_report_that_is_not_one_is_one_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rfc = revised(tmp_path, RULE_1_2, RULE_1_2)
    (tmp_path / "x.jsonl").write_text("not json\n", encoding="utf-8")
    assert (
        main(["statements", "check", "0017", str(rfc), "--reports", str(tmp_path / "x.jsonl")]) == 2
    )
    err = capsys.readouterr().err
    assert "x.jsonl" in err
    assert len(err.strip().splitlines()) == 1
