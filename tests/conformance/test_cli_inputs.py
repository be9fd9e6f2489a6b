"""Bad inputs to the CLI get one clear error and exit 2; extra catalogs add cases on top."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import pytest
import yaml
from conftest import count_values

from conformance._cli import main

EXAMPLE = str(Path(__file__).resolve().parents[2] / "examples/rfc/rfc0010-example2-branch.yaml")


@pytest.mark.parametrize("where", ["missing", "file"])
def test_a_catalog_that_is_no_folder(
    where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "x"
    if where == "file":
        path.write_text("id: x\n", "utf-8")
    for command in (["run"], ["cases", "list"]):
        assert main([*command, "--catalog", str(path)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1
        assert "the catalog does not exist" in err or "the catalog is not a folder" in err


def test_an_extra_catalog_runs_on_top_of_the_built_in_one(
    write_catalog: Callable[[Mapping[str, str]], Path],
    case_text: Callable[..., str],
    capsys: pytest.CaptureFixture[str],
) -> None:
    extra = write_catalog({"workflow/mine.yaml": case_text("workflow.mine.submit")})
    assert main(["run", "--extra-catalog", str(extra), "--id", "workflow.mine.*"]) == 0
    assert "1 cases (1 passed)" in capsys.readouterr().out
    assert main(["cases", "list", "--extra-catalog", str(extra), "--id", "workflow.mine.*"]) == 0
    assert "workflow.mine.submit" in capsys.readouterr().out
    clash = write_catalog(
        {
            "workflow/x.yaml": case_text(
                "workflow.execution.unknown-event", description="A clashing case of my own"
            )
        }
    )
    assert main(["run", "--extra-catalog", str(clash)]) == 2
    assert "already used by" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("given", "words"),
    [
        ('{"a": NaN}', "--input:1:7: invalid JSON: NaN is not a JSON value"),
        ('{"a": 1e999}', "--input:1"),
        ('{"a": 1, "a": 2}', "duplicate key 'a'"),
        ("{", "--input:1"),
    ],
)
def test_composition_input_must_be_json(
    given: str, words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run-composition", EXAMPLE, "analyze_document", "--input", given]) == 2
    err = capsys.readouterr().err
    assert words in err
    assert err.count("\n") == 1


def test_malformed_mocks_are_unusable_input_with_their_location(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mocks = tmp_path / "mocks.yaml"
    mocks.write_text("classify: [{outptu: 1}]\n", "utf-8")
    status = main(
        ["run-composition", EXAMPLE, "analyze_document", "--input", "{}", "--mocks", str(mocks)]
    )
    assert status == 2
    err = capsys.readouterr().err
    assert f"{mocks}: mocks/classify/0: unknown response fields ['outptu']" in err


COMMANDS_READING_A_PACK = {
    "validate": ["validate", EXAMPLE],
    "trace": ["trace", EXAMPLE, "--events", "Start"],
    "graph": ["graph", EXAMPLE],
    "run-composition": ["run-composition", EXAMPLE, "analyze_document", "--input", "{}"],
}
"""Every command that reads a user's pack file, as one reads the example pack."""


@pytest.mark.parametrize("command", sorted(COMMANDS_READING_A_PACK))
def test_every_command_reading_a_pack_takes_max_values(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 29: a pack over the limit is refused by each command with the same error, and
    ``--max-values`` raises the limit on each, not only on ``validate``."""
    count = count_values(yaml.safe_load(Path(EXAMPLE).read_text("utf-8")))
    argv = COMMANDS_READING_A_PACK[command]
    assert main([*argv, f"--max-values={count - 1}"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err, err
    assert f"holds more than {count - 1:,} values" in err
    assert "--max-values of the ppconf command that reads it" in err
    main([*argv, f"--max-values={count}"])  # read: what follows is the command's own verdict
    assert "values" not in capsys.readouterr().err


def test_run_composition_reads_its_mocks_within_max_values(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    count = count_values(yaml.safe_load(Path(EXAMPLE).read_text("utf-8")))
    mocks = tmp_path / "mocks.yaml"
    mocks.write_text(yaml.safe_dump({"classify": [{"output": list(range(count))}]}), "utf-8")
    argv = ["run-composition", EXAMPLE, "analyze_document", "--mocks", str(mocks)]
    assert main([*argv, f"--max-values={count}"]) == 2
    err = capsys.readouterr().err
    assert f"{mocks}" in err
    assert f"holds more than {count:,} values" in err
    main([*argv, f"--max-values={count + 10}"])
    assert "values" not in capsys.readouterr().err
