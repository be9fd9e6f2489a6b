"""``ppconf run-composition``: a composition on the reference, with scripted mocks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance._cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "rfc"
BRANCH = str(EXAMPLES / "rfc0010-example2-branch.yaml")


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(["run-composition", *args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.fixture
def mocks(tmp_path: Path) -> Path:
    path = tmp_path / "mocks.yaml"
    path.write_text(
        "classify: [{output: {type: research_paper}}]\nextract_paper: [{output: {question: X}}]\n"
    )
    return path


def test_prints_the_step_trace_and_the_output(
    capsys: pytest.CaptureFixture[str], mocks: Path
) -> None:
    status, out, _ = run(
        capsys, BRANCH, "analyze_document", "--input", '{"text": "x"}', "--mocks", str(mocks)
    )
    assert status == 0
    rows = {line.split("|")[0].strip(): line for line in out.splitlines() if "|" in line}
    assert "completed" in rows["extract_paper"]
    assert "branch-not-taken" in rows["extract_general"]
    assert '"taken": "extract_paper"' in rows["route"]
    assert out.splitlines()[-1] == 'output: {"question": "X"}'


def test_json_is_the_result(capsys: pytest.CaptureFixture[str], mocks: Path) -> None:
    status, out, _ = run(
        capsys,
        BRANCH,
        "analyze_document",
        "--input",
        "{}",
        "--mocks",
        str(mocks),
        "--format",
        "json",
    )
    result = json.loads(out)
    assert status == 1  # ${input.text} is missing: the first step fails
    assert result["status"] == "failed"
    assert result["error"]["code"] == "reference-unresolved"
    assert result["trace"][0]["status"] == "failed"


def test_a_used_up_mock_fails_the_run(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    empty = tmp_path / "none.yaml"
    empty.write_text("{}\n")
    status, out, _ = run(
        capsys, BRANCH, "analyze_document", "--input", '{"text": "x"}', "--mocks", str(empty)
    )
    assert status == 1
    assert out.splitlines()[-1].startswith("failed: mock-exhausted at step classify")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--input", "{not json"], "--input:1:2: invalid JSON"),
        (["--mocks", "/no/such/file.yaml"], "cannot load"),
    ],
)
def test_unusable_input_is_one_error(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    status, out, err = run(capsys, BRANCH, "analyze_document", *args)
    assert status == 2
    assert out == ""
    assert err.startswith("ppconf: error: ")
    assert message in err
    assert "Traceback" not in err


def test_an_unknown_composition_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, BRANCH, "no_such_composition")
    assert status == 1
    assert "composition-unknown" in err
