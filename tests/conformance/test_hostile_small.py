"""The small ones of a hostile world: each a traceback, a wrong file or a document its own
schema refuses, now one clear answer."""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
from hostile import ppconf

from conformance._basics.resources import schema_path
from conformance._cli import main

HERE = Path(__file__).resolve().parent


def test_fuzz_json_writes_a_lone_surrogate_out(capsys: pytest.CaptureFixture[str]) -> None:
    """NEW-11: ``fuzz --format json`` against a runtime answering a lone surrogate: a
    UnicodeEncodeError traceback."""
    command = [sys.executable, str(HERE / "protocol_fakes" / "hostile_protocol.py")]
    adapter = "cmd:" + shlex.join([*command, "--surrogate", "state"])
    status, out, _ = ppconf(
        capsys, "fuzz", "--adapter", adapter, "--examples", "50", "--no-database",
        "--format", "json",
    )  # fmt: skip
    assert status == 1
    data = json.loads(out)
    assert "\\ud800" in json.dumps(data, ensure_ascii=False)
    out.encode("utf-8")


def test_compare_json_of_a_newly_assessed_area_follows_its_schema(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """NEW-12: ``"change": "newly assessed"``, which compare.schema.json refused."""
    old, new = tmp_path / "old.jsonl", tmp_path / "new.jsonl"
    assert main(["run", "--area", "workflow", "--report", "json", str(old)]) == 0
    assert main(["run", "--area", "workflow", "--area", "loops", "--report", "json", str(new)]) == 0
    capsys.readouterr()
    status, out, err = ppconf(capsys, "compare", old, new, "--allow", "partial", "--format", "json")
    assert status == 0, err
    data = json.loads(out)
    assert "newly assessed" in {level["change"] for level in data["levels"]}
    schema = json.loads(schema_path("compare.schema.json").read_text("utf-8"))
    jsonschema_rs.validator_for(schema).validate(data)


@pytest.mark.parametrize("command", [("statements", "list"), ("coverage",)])
def test_a_symlink_loop_among_extra_statements_is_one_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, command: tuple[str, ...]
) -> None:
    """NEW-13: a RuntimeError traceback."""
    (tmp_path / "statements").mkdir()
    os.symlink("loop.yaml", tmp_path / "statements" / "loop.yaml")
    status, out, err = ppconf(capsys, *command, "--extra-catalog", tmp_path)
    assert status == 2
    assert out == ""
    assert err.count("\n") == 1
    assert "loop.yaml: cannot read the statement file: it is a symlink loop" in err


def test_validate_refuses_an_empty_pattern(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """NEW-14: ``validate --pattern ''``: a ValueError traceback."""
    with pytest.raises(SystemExit) as stop:
        main(["validate", "--pattern", "", str(tmp_path)])
    assert stop.value.code == 2
    assert "'' is no file-name pattern" in capsys.readouterr().err


def test_coverage_output_dash_is_stdout(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """NEW-16: ``coverage -o -`` wrote a file named ``-``."""
    monkeypatch.chdir(tmp_path)
    for fmt in ("text", "json"):
        status, out, _ = ppconf(capsys, "coverage", "--format", fmt, "-o", "-")
        assert status == 0
        assert "RFC 0005" in out
    assert not (tmp_path / "-").exists()


def test_no_message_prints_where_the_kit_is_installed() -> None:
    """A kit error named the kit's file by its absolute path (``/home/.../site-packages/...``);
    a runtime's own file stays as it is, for its author to find."""
    import conformance._judging.runner as runner_module  # noqa: PLC0415
    from conformance._basics.files import shown_source  # noqa: PLC0415
    from conformance._runtime.boundary import where_raised  # noqa: PLC0415

    assert shown_source(runner_module.__file__) == "conformance/_judging/runner.py"
    assert shown_source(__file__) == __file__
    # A function of the kit's own (compiled as one of its files) that raises.
    space: dict[str, Any] = {}
    exec(compile("def broken():\n    raise KeyError(1)\n", runner_module.__file__, "exec"), space)
    try:
        space["broken"]()
    except KeyError as error:
        inner = error.with_traceback(error.__traceback__.tb_next)  # type: ignore[union-attr]
        where = where_raised(inner)
    assert where == " at conformance/_judging/runner.py:2"
