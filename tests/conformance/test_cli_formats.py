"""One ``--format`` for every command: ``text`` by default, ``json`` everywhere (each command's
JSON shape published under ``schema/`` and checked here against what the command prints), then
the command's own views."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from referencing import Registry, Resource

from conformance._cli import _parser, main

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = {
    path.name: json.loads(path.read_text("utf-8")) for path in (ROOT / "schema").glob("*.json")
}
REGISTRY: Registry[Any] = Registry().with_resources(
    (schema["$id"], Resource.from_contents(schema)) for schema in SCHEMAS.values()
)

WITHOUT_FORMAT = {"serve": "it speaks the adapter protocol on stdout, nothing else"}
DEFAULT = {"graph": "mermaid"}  # a drawing has no text view: its default is a drawing language
EXAMPLE = ROOT / "examples" / "rfc"


def commands() -> dict[str, argparse.ArgumentParser]:
    """Every command of ``ppconf`` by its full name (``cases list``), from the parser itself."""
    found: dict[str, argparse.ArgumentParser] = {}

    def walk(parser: argparse.ArgumentParser, prefix: str) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, f"{prefix} {name}".strip())
                return
        found[prefix] = parser

    walk(_parser(), "")
    return found


def format_option(parser: argparse.ArgumentParser) -> argparse.Action | None:
    return next((a for a in parser._actions if "--format" in a.option_strings), None)


def schema_of(parser: argparse.ArgumentParser) -> str:
    """The schema file the command's ``--format json`` help names."""
    action = format_option(parser)
    assert action is not None
    assert action.help is not None
    return action.help.split("schema/")[1].split()[0].rstrip(";")


def test_every_command_has_one_format_option_with_text_and_json() -> None:
    found = commands()
    assert len(found) >= 13, sorted(found)  # the walk found the commands
    for name, parser in found.items():
        action = format_option(parser)
        if name in WITHOUT_FORMAT:
            assert action is None
            continue
        assert action is not None, f"ppconf {name} has no --format"
        assert action.choices is not None
        assert "json" in action.choices, name
        if name not in DEFAULT:
            assert list(action.choices)[:2] == ["text", "json"], name
        assert action.default == DEFAULT.get(name, "text"), name
        assert schema_of(parser) in SCHEMAS, f"ppconf {name}: no schema/{schema_of(parser)}"


def test_every_command_schema_is_a_2020_12_schema() -> None:
    for name, schema in SCHEMAS.items():
        jsonschema.Draft202012Validator.check_schema(schema)
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema", name
        assert schema["$id"].startswith("urn:ppconf:schema:"), name


def validate(schema_file: str, data: Any) -> None:
    validator = jsonschema.Draft202012Validator(SCHEMAS[schema_file], registry=REGISTRY)
    errors = sorted(validator.iter_errors(data), key=str)
    assert not errors, f"{schema_file}: {errors[0]}"


def json_of(capsys: pytest.CaptureFixture[str], argv: list[str], status: int | None = None) -> Any:
    code = main([*argv, "--format", "json"])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    if status is not None:
        assert code == status, err
    return json.loads(out)


# -- each command's JSON against its schema --------------------------------------------------

Runner = Callable[[pytest.CaptureFixture[str], Path], Any]

MOCKS = "classify: [{output: {type: research_paper}}]\nextract_paper: [{output: {question: X}}]\n"


def _trace(capsys: pytest.CaptureFixture[str], tmp: Path) -> Any:
    pack = EXAMPLE / "rfc0009-example1-codegen-corrected.yaml"
    return json_of(capsys, ["trace", str(pack), "--events", "PlanReady,Nope"], 0)


def _run_composition(capsys: pytest.CaptureFixture[str], tmp: Path) -> Any:
    (tmp / "mocks.yaml").write_text(MOCKS, encoding="utf-8")
    argv = ["run-composition", str(EXAMPLE / "rfc0010-example2-branch.yaml"), "analyze_document"]
    argv += ["--input", '{"text": "We study X."}', "--mocks", str(tmp / "mocks.yaml")]
    return json_of(capsys, argv, 0)


def _cases_list(capsys: pytest.CaptureFixture[str], tmp: Path) -> Any:
    data = json_of(capsys, ["cases", "list", "--id", "loops.*"], 0)
    assert len(data) > 10
    return data


def _cases_show(capsys: pytest.CaptureFixture[str], tmp: Path) -> Any:
    data = json_of(capsys, ["cases", "show", "workflow.validation.entry-unknown"], 0)
    assert data["case"]["id"] == data["id"] == "workflow.validation.entry-unknown"
    return data


def _cases_check(capsys: pytest.CaptureFixture[str], tmp: Path) -> Any:
    case = (ROOT / "cases" / "workflow" / "validation-entry-unknown.yaml").read_text("utf-8")
    (tmp / "workflow").mkdir()
    (tmp / "workflow" / "a.yaml").write_text(case, encoding="utf-8")
    (tmp / "workflow" / "b.yaml").write_text(case, encoding="utf-8")  # the same id twice
    data = json_of(capsys, ["cases", "check", "--catalog", str(tmp), "--no-coverage"], 1)
    assert data["passed"] is False
    assert data["problems"]
    return data


def _smoke(capsys: pytest.CaptureFixture[str], tmp: Path) -> Any:
    data = json_of(capsys, ["smoke"], 0)
    assert data["verdict"] == "works"
    assert {c["verdict"] for c in data["checks"]} == {"passes"}
    return data


def _graph(capsys: pytest.CaptureFixture[str], tmp: Path) -> Any:
    data = json_of(capsys, ["graph", str(EXAMPLE / "rfc0005-example2-multi-phase.yaml")], 0)
    assert data["nodes"]
    assert data["edges"]
    return data


def _validate(capsys: pytest.CaptureFixture[str], tmp: Path) -> Any:
    return json_of(capsys, ["validate", str(EXAMPLE)], 1)


def _fuzz(capsys: pytest.CaptureFixture[str], tmp: Path) -> Any:
    argv = ["fuzz", "--adapter=breaking:IgnoresUnknownEvents", "--seed=2", "--examples=300"]
    data = json_of(capsys, [*argv, f"--database={tmp / 'db'}", f"--export={tmp / 'out'}"], 1)
    assert data["verdict"] == "divergence"
    assert data["exported"] is not None
    assert Path(data["exported"]).is_file()
    return data


def _coverage(capsys: pytest.CaptureFixture[str], tmp: Path) -> Any:
    data = json_of(capsys, ["coverage", "--source", "RFC 0014"], 0)
    assert [s["source"] for s in data["sources"]] == ["RFC 0014"]
    return data


def _statements_list(capsys: pytest.CaptureFixture[str], tmp: Path) -> Any:
    data = json_of(capsys, ["statements", "list", "--source", "0014", "--keyword", "MUST"], 0)
    assert data
    assert {s["requirement"] for s in data} == {"MUST"}
    return data


def _statements_check(capsys: pytest.CaptureFixture[str], tmp: Path) -> Any:
    revised = tmp / "rfc.md"
    revised.write_text("# Validation Rules\n\nA runtime MUST do something new.\n", "utf-8")
    data = json_of(capsys, ["statements", "check", "RFC 0014", str(revised)], 1)
    assert {c["kind"] for c in data["changes"]} == {"removed", "new"}
    (new,) = [c for c in data["changes"] if c["kind"] == "new"]
    assert new["text"] == "A runtime MUST do something new."
    return data


CASES: Mapping[str, tuple[str, Runner]] = {
    "coverage": ("coverage.schema.json", _coverage),
    "statements list": ("statements-list.schema.json", _statements_list),
    "statements check": ("statements-check.schema.json", _statements_check),
    "trace": ("trace.schema.json", _trace),
    "run-composition": ("run-composition.schema.json", _run_composition),
    "cases list": ("cases-list.schema.json", _cases_list),
    "cases show": ("cases-show.schema.json", _cases_show),
    "cases check": ("cases-check.schema.json", _cases_check),
    "smoke": ("smoke.schema.json", _smoke),
    "graph": ("graph.schema.json", _graph),
    "validate": ("validate.schema.json", _validate),
    "fuzz": ("fuzz.schema.json", _fuzz),
}


@pytest.mark.usefixtures("cached_catalog", "fakes_importable")
@pytest.mark.parametrize("command", CASES)
def test_the_json_of_a_command_matches_its_schema(
    command: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    schema_file, produce = CASES[command]
    assert schema_of(commands()[command]) == schema_file
    data = produce(capsys, tmp_path)
    validate(schema_file, data)


def test_a_schema_check_can_fail(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    data = _smoke(capsys, tmp_path)
    data["checks"][0]["verdict"] = "great"
    with pytest.raises(AssertionError, match=r"smoke\.schema\.json"):
        validate("smoke.schema.json", data)


def test_every_command_with_json_is_tied_to_its_schema_here() -> None:
    tied = {*CASES, "run", "report", "compare"}  # the last three: below
    with_json = {name for name in commands() if name not in WITHOUT_FORMAT}
    assert with_json == tied


# -- run, report and compare: the report's records --------------------------------------------


@pytest.fixture
def two_reports(
    tmp_path: Path,
    small_catalog: Path,
    capsys: pytest.CaptureFixture[str],
) -> tuple[Path, Path, str]:
    """Reports of the small catalog on the reference and on ``fakes:ValidatesOnly``, and what
    ``ppconf run --format json`` printed for the second."""
    old, new = tmp_path / "old.jsonl", tmp_path / "new.jsonl"
    assert main(["run", "--catalog", str(small_catalog), "--report", "json", str(old)]) == 0
    capsys.readouterr()
    argv = ["run", "--catalog", str(small_catalog), "--adapter", "fakes:ValidatesOnly"]
    assert main([*argv, "--report", "json", str(new), "--format", "json"]) == 1
    return old, new, capsys.readouterr().out


@pytest.fixture
def small_catalog(write_catalog: Callable[[Mapping[str, str]], Path], case_text: Any) -> Path:
    """A load case, a validation case and a scenario case (which fakes:ValidatesOnly fails)."""
    return write_catalog(
        {
            "workflow/a.yaml": case_text("workflow.t.a", level=0, body="load: true\n"),
            "workflow/b.yaml": case_text(
                "workflow.t.b", level=1, body="validation: {valid: true}\n", pack_id="b"
            ),
            "workflow/c.yaml": case_text("workflow.t.c", level=2, pack_id="c"),
        }
    )


@pytest.mark.usefixtures("fakes_importable")
def test_run_json_is_the_summary_line_of_the_report(two_reports: tuple[Path, Path, str]) -> None:
    _, new, printed = two_reports
    last = new.read_text("utf-8").splitlines()[-1]
    assert printed == last + "\n"
    data = json.loads(printed)
    assert data["type"] == "summary"
    assert data["verdict"]["passed"] is False
    validate("summary.schema.json", data)
    assert schema_of(commands()["run"]) == "summary.schema.json"


@pytest.mark.usefixtures("fakes_importable")
def test_report_json_is_the_summary_even_of_a_run_cut_short(
    two_reports: tuple[Path, Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, new, printed = two_reports
    assert main(["report", str(new), "--format", "json"]) == 0
    assert capsys.readouterr().out == printed
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(new.read_text("utf-8").splitlines(keepends=True)[:-2]), "utf-8")
    assert main(["report", str(cut), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    validate("summary.schema.json", data)
    assert sum(data["counts"].values()) == 2  # the parts the cut report holds
    assert schema_of(commands()["report"]) == "summary.schema.json"


@pytest.mark.usefixtures("fakes_importable")
def test_run_prints_any_view_of_its_report(
    two_reports: tuple[Path, Path, str], small_catalog: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old, _, _ = two_reports
    assert main(["run", "--catalog", str(small_catalog), "--format", "md"]) == 0
    printed = capsys.readouterr().out
    assert main(["report", str(old), "--format", "md"]) == 0
    assert printed == capsys.readouterr().out
    assert printed.startswith("#")


@pytest.mark.usefixtures("fakes_importable")
def test_compare_json(
    two_reports: tuple[Path, Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    old, new, _ = two_reports
    data = json_of(capsys, ["compare", str(old), str(new)], 1)
    validate("compare.schema.json", data)
    assert data["regressed"] is True
    assert [(c["case"], c["old"], c["new"]) for c in data["regressions"]] == [
        ("workflow.t.c", "passed", "failed")
    ]
    assert data["old"]["adapter"] == "reference"
    assert data["new"]["adapter"] == "fakes:ValidatesOnly"
    assert {level["area"] for level in data["levels"]} >= {"workflow", "headline"}
    back = json_of(capsys, ["compare", str(new), str(old)], 0)
    assert back["regressed"] is False
    assert [c["case"] for c in back["fixes"]] == ["workflow.t.c"]
    assert schema_of(commands()["compare"]) == "compare.schema.json"
