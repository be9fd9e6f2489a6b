"""Tests of ``ppconf validate``'s views for editors and CI (text, json, github, sarif), of its
inputs (directories, ``-``), and of the code descriptions the SARIF rules carry.

The SARIF output is checked against the SARIF 2.1.0 schema of OASIS, kept beside this file
(``sarif/``, with its notice), and the JSON output against ``schema/validate.schema.json``.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

import reference
from conformance._basics import contract as _contract
from conformance._catalog.codes import CODES, LOAD_ERROR, describe
from conformance._cli import main
from conformance._views.validate import Input, validate_input
from conformance._views.validate_views import (
    SARIF_SCHEMA,
    artifact_uri,
    escape_data,
    escape_property,
    render_sarif,
)

ROOT = Path(__file__).resolve().parents[2]
SARIF_SCHEMA_FILE = Path(__file__).parent / "sarif" / "sarif-schema-2.1.0.json"
SARIF_SCHEMA_SHA256 = "c3b4bb2d6093897483348925aaa73af03b3e3f4bd4ca38cef26dcb4212a2682e"

# Two errors (a typo of a prompt, a typo of a state) and a warning (an event not in PascalCase).
PACK = """\
id: review-loop
name: Review loop
version: 1.0.0
template_engine:
  version: v1
  syntax: "{{variable}}"
prompts:
  main:
    id: main
    name: Main
    version: 1.0.0
    system_template: Draft the text.
workflow:
  version: 1
  entry: draft
  states:
    draft:
      prompt_task: mian
      on_event:
        submit: review
    review:
      prompt_task: main
      on_event:
        Approve: done
        Revise: darft
    done:
      prompt_task: main
      terminal: true
"""

VALID_PACK = PACK.replace("mian", "main").replace("darft", "done").replace("submit", "Submit")

EXPECTED = [  # (severity, code, pointer, line, column, message ending)
    ("error", "prompt-task-unknown", "/workflow/states/draft/prompt_task", 18, 20, "'main'?"),
    (
        "error",
        "event-target-unknown",
        "/workflow/states/review/on_event/Revise",
        25,
        17,
        "'draft'?",
    ),
    ("warning", "event-name-style", "/workflow/states/draft/on_event/submit", 20, 17, "PascalCase"),
]


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return status, out, err


@pytest.fixture
def pack(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The pack above, as ``pack.yaml`` in the current directory (so paths are relative)."""
    monkeypatch.chdir(tmp_path)
    Path("pack.yaml").write_text(PACK, encoding="utf-8")
    return "pack.yaml"


def json_twin(directory: Path) -> str:
    """The same pack as JSON (indented, so lines and columns differ from the YAML's)."""
    path = directory / "pack.json"
    path.write_text(json.dumps(reference.load_pack_string(PACK), indent=2), encoding="utf-8")
    return str(path)


# -- text -------------------------------------------------------------------------------------


def test_text_is_one_line_per_diagnostic_then_the_verdict(
    pack: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run(["validate", pack], capsys)
    assert status == 1
    assert err == ""
    lines = out.splitlines()
    assert len(lines) == len(EXPECTED) + 1
    for line, (severity, code, pointer, row, column, ending) in zip(lines, EXPECTED, strict=False):
        assert line.startswith(f"pack.yaml:{row}:{column}: {severity} [{code}] {pointer}: ")
        assert line.endswith(ending)
    assert lines[-1] == "pack.yaml: invalid (2 errors, 1 warning)"


def test_text_is_the_default(pack: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["validate", pack], capsys) == run(["validate", "--format", "text", pack], capsys)


# -- json -------------------------------------------------------------------------------------

VALIDATE_SCHEMA = json.loads((ROOT / "schema" / "validate.schema.json").read_text("utf-8"))


def test_json_matches_its_published_schema(
    pack: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    jsonschema.Draft202012Validator.check_schema(VALIDATE_SCHEMA)
    Path("dup.yaml").write_text("id: a\nid: b\n", encoding="utf-8")
    Path("valid.yaml").write_text(VALID_PACK, encoding="utf-8")
    inputs = [pack, json_twin(tmp_path), "dup.yaml", "valid.yaml", "missing.yaml"]
    status, out, _ = run(["validate", "--format", "json", *inputs], capsys)
    assert status == 2
    data = json.loads(out)
    jsonschema.Draft202012Validator(VALIDATE_SCHEMA).validate(data)
    files = data["files"]
    assert [f["file"] for f in files] == inputs
    assert [f["valid"] for f in files] == [False, False, False, True, False]
    found = [
        (d["severity"], d["code"], d["path"], d["line"], d["column"])
        for d in files[0]["diagnostics"]
    ]
    assert found == [e[:5] for e in EXPECTED]
    # the JSON twin: the same diagnostics, each at its own line and column
    twin = files[1]["diagnostics"]
    assert [(d["code"], d["path"]) for d in twin] == [(e[1], e[2]) for e in EXPECTED]
    text = Path(inputs[1]).read_text("utf-8").splitlines()
    for d in twin:
        value = reference.read_pack(inputs[1]).data
        for token in d["path"].split("/")[1:]:
            value = value[token]
        assert text[d["line"] - 1][d["column"] - 1 :].startswith(json.dumps(value))


def test_the_json_schema_refuses_what_the_command_never_prints(
    pack: str, capsys: pytest.CaptureFixture[str]
) -> None:
    data = json.loads(run(["validate", "--format", "json", pack], capsys)[1])
    validator = jsonschema.Draft202012Validator(VALIDATE_SCHEMA)
    data["files"][0]["diagnostics"][0]["severity"] = "info"
    assert not validator.is_valid(data)
    data["files"][0]["diagnostics"][0]["severity"] = "error"
    data["files"][0]["extra"] = 1
    assert not validator.is_valid(data)


# -- github -----------------------------------------------------------------------------------


def test_github_annotates_each_diagnostic_at_its_line(
    pack: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run(["validate", "--format", "github", pack], capsys)
    assert status == 1
    assert err == ""
    assert out.splitlines() == [
        "::error file=pack.yaml,line=18,col=20,title=ppconf prompt-task-unknown::"
        "/workflow/states/draft/prompt_task: prompt_task 'mian' is not a key of prompts; "
        "did you mean 'main'?",
        "::error file=pack.yaml,line=25,col=17,title=ppconf event-target-unknown::"
        "/workflow/states/review/on_event/Revise: event 'Revise' targets 'darft', which is not "
        "a state; did you mean 'draft'?",
        "::warning file=pack.yaml,line=20,col=17,title=ppconf event-name-style::"
        "/workflow/states/draft/on_event/submit: event name 'submit' is not PascalCase",
    ]


def test_github_prints_nothing_for_a_valid_pack(
    pack: str, capsys: pytest.CaptureFixture[str]
) -> None:
    Path("valid.yaml").write_text(VALID_PACK, encoding="utf-8")
    assert run(["validate", "--format", "github", "valid.yaml"], capsys) == (0, "", "")


def test_github_annotates_a_file_that_cannot_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("dup.yaml").write_text("id: a\nname: b\nid: c\n", encoding="utf-8")
    status, out, _ = run(["validate", "--format", "github", "dup.yaml"], capsys)
    assert status == 2
    assert out.startswith(
        "::error file=dup.yaml,line=3,col=1,title=ppconf load-error::cannot load: "
        "duplicate key 'id' ("
    )


def test_github_escapes_what_would_end_or_forge_a_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    # An event name (which the pointer holds as is) with a line break that would start a
    # command of its own, and a file name with the characters that end a property.
    hostile = "Re\n::error file=forged.yaml::100% forged\r"
    data = reference.load_pack_string(PACK)
    events = data["workflow"]["states"]["review"]["on_event"]
    events[hostile] = events.pop("Revise")
    name = "a,b:c%d.json"
    Path(name).write_text(json.dumps(data), encoding="utf-8")
    _, out, _ = run(["validate", "--format", "github", name], capsys)
    lines = out.splitlines()
    assert len(lines) == 4  # the three findings, and the hostile name is not PascalCase either
    assert all(line.startswith(("::error file=", "::warning file=")) for line in lines)
    # GitHub reads the properties up to the first "::": the file's and nothing forged
    assert {line.split("::")[1].split(",")[0] for line in lines} == {
        "error file=a%2Cb%3Ac%25d.json",
        "warning file=a%2Cb%3Ac%25d.json",
    }
    target = next(line for line in lines if "event-target-unknown" in line)
    assert target.startswith("::error file=a%2Cb%3Ac%25d.json,line=1,col=")
    assert "/on_event/Re%0A::error file=forged.yaml::100%25 forged%0D: event " in target


def test_the_escapes_are_githubs() -> None:
    assert escape_data("50% done\r\nnext") == "50%25 done%0D%0Anext"
    assert escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"
    assert escape_data("a:b,c") == "a:b,c"  # only properties escape : and ,


# -- sarif ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sarif_validator() -> Any:
    data = SARIF_SCHEMA_FILE.read_bytes()
    assert hashlib.sha256(data).hexdigest() == SARIF_SCHEMA_SHA256, "the vendored schema changed"
    schema = json.loads(data)
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    return validator_class(schema)


def sarif_of(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    status, out, err = run(["validate", "--format", "sarif", *argv], capsys)
    assert err == ""
    return status, json.loads(out)


def test_sarif_is_valid_sarif_2_1_0(
    pack: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], sarif_validator: Any
) -> None:
    Path("dup.yaml").write_text("id: a\nid: b\n", encoding="utf-8")
    status, log = sarif_of([pack, json_twin(tmp_path), "dup.yaml", "missing.yaml"], capsys)
    assert status == 2
    errors = sorted(sarif_validator.iter_errors(log), key=str)
    assert not errors, errors[0]
    assert log["version"] == "2.1.0"
    assert log["$schema"] == SARIF_SCHEMA == sarif_validator.schema["id"]


def test_the_sarif_schema_check_can_fail(sarif_validator: Any) -> None:
    log = json.loads(render_sarif([validate_input(Input("p.yaml", None), io.BytesIO(b"a: 1"))]))
    assert sarif_validator.is_valid(log)
    log["runs"][0]["results"][0]["level"] = "fatal"
    assert not sarif_validator.is_valid(log)


def test_sarif_has_one_rule_per_code_with_its_description(
    pack: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _, log = sarif_of([pack], capsys)
    driver = log["runs"][0]["tool"]["driver"]
    assert driver["name"] == "ppconf"
    rules = driver["rules"]
    assert [r["id"] for r in rules] == [*CODES, LOAD_ERROR.code]
    for rule in rules:
        code = describe(rule["id"])
        assert rule["shortDescription"]["text"] == code.summary
        assert rule["defaultConfiguration"]["level"] == code.severity
        # The RFC statements naming the code's condition, where an RFC names it (R9).
        assert rule["properties"].get("statements", []) == list(code.statements)
    assert describe("entry-unknown").statements == ("RFC0005.rule-1.1",)
    assert describe("no-terminal-path").statements == ()  # the kit's own lint


def test_sarif_results_have_file_line_column_and_pointer(
    pack: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _, log = sarif_of([pack], capsys)
    run_ = log["runs"][0]
    assert run_["columnKind"] == "unicodeCodePoints"
    rules = run_["tool"]["driver"]["rules"]
    found = []
    for result in run_["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        (location,) = result["locations"]
        physical = location["physicalLocation"]
        assert physical["artifactLocation"]["uri"] == "pack.yaml"
        region = physical["region"]
        found.append(
            (
                result["level"],
                result["ruleId"],
                result["properties"]["pointer"],
                region["startLine"],
                region["startColumn"],
            )
        )
        assert result["message"]["text"].endswith(f"(at {result['properties']['pointer']})")
    assert found == [e[:5] for e in EXPECTED]


def test_sarif_reports_a_file_that_cannot_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("bad.json").write_text('{"id": "a",\n  "x": }', encoding="utf-8")
    status, log = sarif_of(["bad.json"], capsys)
    assert status == 2
    (result,) = log["runs"][0]["results"]
    assert result["ruleId"] == "load-error"
    assert result["level"] == "error"
    assert result["locations"][0]["physicalLocation"]["region"] == {
        "startLine": 2,
        "startColumn": 8,
    }
    assert result["message"]["text"].startswith("cannot load: invalid JSON")


def test_a_code_citing_statements_carries_them_in_its_rule(sarif_validator: Any) -> None:
    result = validate_input(Input("p.yaml", None), io.BytesIO(PACK.encode()))
    log = json.loads(render_sarif([result]))
    assert sarif_validator.is_valid(log)
    rules = {r["id"]: r for r in log["runs"][0]["tool"]["driver"]["rules"]}
    entry = rules["entry-unknown"]
    assert entry["properties"]["statements"] == ["RFC0005.rule-1.1"]
    # The rule's help quotes the RFC sentence that names the condition, with where it stands.
    assert "RFC0005.rule-1.1 (RFC 0005, Validation Rules" in entry["help"]["text"]
    assert "The entry field must reference a key in the states object" in entry["help"]["text"]
    assert "statements" not in rules["no-terminal-path"]["properties"]
    assert "help" not in rules["no-terminal-path"]


@pytest.mark.parametrize(
    ("file", "uri"),
    [
        ("pack.yaml", "pack.yaml"),
        ("packs/a b#1.yaml", "packs/a%20b%231.yaml"),
        ("-", "-"),
    ],
)
def test_artifact_uris(file: str, uri: str) -> None:
    assert artifact_uri(file) == uri


def test_an_absolute_path_is_a_file_uri(tmp_path: Path) -> None:
    assert artifact_uri(str(tmp_path / "p.yaml")) == (tmp_path / "p.yaml").as_uri()


# -- inputs: directories and standard input -------------------------------------------------


def test_a_directory_is_searched_recursively_in_sorted_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    valid = VALID_PACK
    for name in ("packs/b.yaml", "packs/a.yml", "packs/deep/er/c.json", "packs/.hidden/x.yaml"):
        Path(name).parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps(reference.load_pack_string(valid)) if name.endswith("json") else valid
        Path(name).write_text(text, encoding="utf-8")
    Path("packs/notes.txt").write_text("not a pack", encoding="utf-8")
    status, out, _ = run(["validate", "packs"], capsys)
    assert status == 0
    assert [line.split(":")[0] for line in out.splitlines()] == [
        "packs/a.yml",
        "packs/b.yaml",
        "packs/deep/er/c.json",
    ]


def test_pattern_picks_the_files_of_a_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    for name in ("repo/app.pack.yaml", "repo/ci/config.yaml", "repo/flows/x.pack.yaml"):
        Path(name).parent.mkdir(parents=True, exist_ok=True)
        Path(name).write_text(PACK, encoding="utf-8")
    status, out, _ = run(["validate", "--pattern", "*.pack.yaml", "repo"], capsys)
    assert status == 1
    shown = sorted({line.split(":")[0] for line in out.splitlines()})
    assert shown == ["repo/app.pack.yaml", "repo/flows/x.pack.yaml"]
    _, out, _ = run(["validate", "--pattern", "ci/*.yaml", "repo"], capsys)
    assert {line.split(":")[0] for line in out.splitlines()} == {"repo/ci/config.yaml"}


def test_a_directory_without_packs_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "readme.txt").write_text("x", encoding="utf-8")
    status, out, err = run(["validate", str(tmp_path)], capsys)
    assert status == 2
    assert out == ""
    assert err == (
        f"ppconf: error: {tmp_path}: the directory holds no file matching *.json, *.yaml, "
        "*.yml (give the packs' pattern with --pattern)\n"
    )


def _stdin(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))


@pytest.mark.parametrize("form", ["yaml", "json"])
def test_dash_reads_standard_input(
    form: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    data = PACK if form == "yaml" else json.dumps(reference.load_pack_string(PACK), indent=1)
    _stdin(monkeypatch, data.encode())
    status, out, _ = run(["validate", "-"], capsys)
    assert status == 1
    lines = out.splitlines()
    assert lines[-1] == "-: invalid (2 errors, 1 warning)"
    assert re.match(r"-:\d+:\d+: error \[prompt-task-unknown\] ", lines[0])


def test_stdin_filename_names_standard_input_and_its_format(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # "1.0" is a YAML document too: the name says it is JSON, whose error is the right one.
    _stdin(monkeypatch, b'{"id": 1.0,}')
    status, _, err = run(["validate", "--stdin-filename", "packs/p.json", "-"], capsys)
    assert status == 2
    assert err.startswith("packs/p.json:1:12: error [load-error] /: cannot load: invalid JSON")


def test_stdin_that_is_no_mapping_is_said_so(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _stdin(monkeypatch, b"\n- a\n- b\n")
    status, _, err = run(["validate", "-"], capsys)
    assert status == 2
    assert err.startswith(
        "-:2:1: error [load-error] /: cannot load: a pack is a mapping of fields, but the document "
    )


# The line an editor's problem matcher reads: file, line, column, severity, [code], pointer.
MATCHER = re.compile(r"^([^:]+):(\d+):(\d+): (error|warning) \[([\w-]+)\] (/\S*): (.+)$")


def test_load_errors_and_diagnostics_share_the_problem_matchers_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "bad.yaml").write_text(PACK, encoding="utf-8")
    (tmp_path / "broken.yaml").write_text("a: [\n", encoding="utf-8")
    (tmp_path / "dup.yaml").write_text("id: a\nid: b\n", encoding="utf-8")
    status, out, err = run(["validate", str(tmp_path)], capsys)
    assert status == 2
    diagnostics = [line for line in out.splitlines() if not line.endswith(")")]
    loads = [line for line in err.splitlines() if not line.startswith("  hint: ")]
    assert len(diagnostics) == 3
    assert len(loads) == 2
    for line in diagnostics + loads:
        assert MATCHER.match(line), line
    codes = {match.group(5) for line in loads if (match := MATCHER.match(line))}
    assert codes == {"load-error"}


def test_dash_twice_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(["validate", "-", "-"], capsys)
    assert status == 2
    assert "can be read once" in err


# -- the codes --------------------------------------------------------------------------------


def _codes_in_the_validator() -> set[str]:
    """The codes the validator's source reports as literals, and those the contract lists."""
    literal = re.compile(r'\b(?:error|warning|Diagnostic)\(\s*"([a-z][a-z-]+)"')
    found = set()
    for path in (ROOT / "reference").rglob("*.py"):
        found.update(literal.findall(path.read_text("utf-8")))
    for name in dir(_contract):
        if name.endswith(("_ERROR_CODES", "_WARNING_CODES")):
            found.update(getattr(_contract, name))
    return found


def test_every_code_of_the_validator_is_described() -> None:
    in_the_validator = _codes_in_the_validator()
    assert len(in_the_validator) > 40  # the scan found them
    assert sorted(in_the_validator - set(CODES)) == []
    assert sorted(set(CODES) - in_the_validator) == []


def test_every_described_code_is_in_the_semantics_document() -> None:
    text = (ROOT / "docs" / "semantics.md").read_text("utf-8")
    missing = [code for code in CODES if f"| `{code}` |" not in text and code != "schema"]
    assert missing == []


def test_severities_are_those_of_the_contract() -> None:
    errors = {*_contract.WORKFLOW_ERROR_CODES, *_contract.COMPOSITION_ERROR_CODES}
    errors.update(_contract.NEWER_ERROR_CODES)
    warnings = {*_contract.WORKFLOW_WARNING_CODES, *_contract.COMPOSITION_WARNING_CODES}
    warnings.update(_contract.NEWER_WARNING_CODES)
    assert {c for c in errors if CODES[c].severity != "error"} == set()
    assert {c for c in warnings if CODES[c].severity != "warning"} == set()
    assert all(code.summary and not code.summary.endswith(".") for code in CODES.values())


def test_an_unknown_code_is_described_as_such() -> None:
    assert describe("from-a-newer-kit").summary == "diagnostic code from-a-newer-kit"
