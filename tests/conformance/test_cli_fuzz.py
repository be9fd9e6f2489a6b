"""``ppconf fuzz``: exit statuses, the printed diff, the exported case, usage errors."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from conformance._cli import main
from conformance._fuzz.engine import BATCH

FAKES = "tests/conformance"


def fuzz(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(["fuzz", *args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.mark.usefixtures("fakes_importable")
def test_a_divergence_is_printed_exported_and_exits_1(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    exported = tmp_path / "found"
    status, out, _ = fuzz(
        capsys,
        "--adapter=breaking:IgnoresUnknownEvents",
        "--seed=2",
        "--examples=300",
        f"--export={exported}",
        f"--database={tmp_path / 'db'}",
    )
    assert status == 1
    assert out.startswith("DIVERGENCE in a workflow example")
    assert "expected (RFC 0005, via the reference): refused: unknown-event" in out
    assert "got: accepted" in out
    assert "rule: workflow.execution.unknown-event-mid-run (MUST): " in out
    (path,) = exported.glob("workflow/*.yaml")
    assert f"written: {path}" in out
    assert main(["run", f"--catalog={exported}"]) == 0
    assert main(["run", f"--catalog={exported}", "--adapter=breaking:IgnoresUnknownEvents"]) == 1
    capsys.readouterr()
    # The failure was kept: the next run tries it first, in its first test case.
    status, out, _ = fuzz(
        capsys, "--adapter=breaking:IgnoresUnknownEvents", f"--database={tmp_path / 'db'}"
    )
    assert status == 1
    after = re.search(r"\(after (\d+) examples?;", out)
    assert after is not None
    assert int(after.group(1)) <= BATCH


@pytest.mark.usefixtures("fakes_importable")
def test_the_control_area_on_a_runtime_that_ignores_control(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    status, out, _ = fuzz(
        capsys,
        "--adapter=breaking:IgnoresControl",
        "--area=control",
        "--examples=300",
        f"--export={tmp_path}",
        "--no-database",
    )
    assert status == 1
    assert out.startswith("DIVERGENCE in a control example")
    assert 'got: turn "user"' in out
    (path,) = tmp_path.glob("control/*.yaml")
    assert "spec_versions: ['>=1.7']" in path.read_text(encoding="utf-8")
    assert main(["run", f"--catalog={tmp_path}"]) == 0


def test_no_divergence_exits_0_with_what_was_exercised(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = fuzz(capsys, "--adapter=reference", "--examples=60", "--no-database")
    assert status == 0
    first, *rest = out.splitlines()
    assert first.startswith("no divergence in 60 examples against reference (seed 0, ")
    assert any(line.startswith("  areas: compositions ") for line in rest)
    assert any(line.startswith("  workflow states per pack: ") for line in rest)
    assert any(line.startswith("  exercised: ") for line in rest)


@pytest.mark.usefixtures("fakes_importable")
def test_an_adapter_fault_is_not_a_divergence(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    status, out, _ = fuzz(
        capsys,
        "--adapter=breaking:RaisesBaseException",
        "--area=workflow",
        "--no-database",
        f"--export={tmp_path}",
    )
    assert status == 1
    assert out.startswith("ADAPTER FAULT")
    assert "an adapter fault, not a divergence" in out
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "ppconf fuzz needs --adapter SPEC"),
        (["--adapter=nosuchmodule:Adapter"], "cannot import adapter module 'nosuchmodule'"),
    ],
)
def test_usage_errors_exit_2(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    status, _, err = fuzz(capsys, *args)
    assert status == 2
    assert message in err


@pytest.mark.parametrize("arg", ["--examples=0", "--max-time=-1", "--seed=x"])
def test_bad_numbers_exit_2(capsys: pytest.CaptureFixture[str], arg: str) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["fuzz", "--adapter=reference", arg])
    assert exited.value.code == 2


@pytest.mark.usefixtures("fakes_importable")
def test_the_timeout_holds_for_an_in_process_runtime(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--timeout` was ignored in process: a hung runtime hung `ppconf fuzz` for ever. The
    hang is a fault, found once and not shrunk (each try would take the whole limit)."""
    monkeypatch.setenv("PPCONF_TEST_MARK", str(tmp_path / "hung"))
    status, out, err = fuzz(
        capsys, "--adapter=hostile:HangsOnStart", "--timeout=0.5", "--examples=20", "--no-database"
    )
    assert status == 1
    assert "Traceback" not in err
    assert out.startswith("ADAPTER FAULT in a ")
    assert "got: no answer within 0.5 s" in out
    assert "(after 1 example; shrunk to " in out


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.usefixtures("fakes_importable")
def test_progress_shows_on_a_terminal(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`fuzz` printed nothing while it ran."""
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    monkeypatch.setattr("conformance._cli.fuzz._Progress.EVERY", 0.0)
    assert main(["fuzz", "--adapter=reference", "--examples=30", "--no-database"]) == 0
    shown = terminal.getvalue()
    assert re.search(r"\rfuzz: 1 examples \([\d.,]+/s\), 0 divergence\(s\) ", shown)
    assert re.search(r"\rfuzz: 30 examples \([\d.,]+/s\), 0 divergence\(s\) ", shown)
    assert shown.endswith("\r" + " " * 70 + "\r")  # cleared before the summary
    capsys.readouterr()


@pytest.mark.usefixtures("fakes_importable")
def test_keep_going_collects_several_minimal_divergences(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    exported = tmp_path / "found"
    status, out, _ = fuzz(
        capsys,
        "--adapter=fakes:AlwaysWrong",
        "--keep-going",
        "--examples=60",
        "--area=workflow",
        "--no-database",
        f"--export={exported}",
    )
    assert status == 1
    cases = sorted(exported.glob("workflow/*.yaml"))
    assert len(cases) >= 2
    rules = re.findall(r"^  rule: (\S+) ", out, re.MULTILINE)
    assert len(rules) == len(cases)
    assert len(set(rules)) == len(rules)  # each fails another way
    assert out.splitlines()[-1] == (
        f"{len(cases)} finding(s) that fail in different ways, in 60 examples (seed 0)"
    )
    assert main(["run", "--catalog", str(exported), "--adapter", "fakes:AlwaysWrong"]) == 1
    assert main(["run", "--catalog", str(exported)]) == 0  # each passes on the reference


@pytest.mark.parametrize("adapter", ["no_such_module:Adapter", "reference"])
def test_an_export_folder_it_made_is_removed_when_nothing_was_exported(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, adapter: str
) -> None:
    # An adapter that cannot start (exit 2), and a runtime with no divergence (exit 0): no
    # empty folder is left for `ppconf run --catalog` to find no case in.
    exported = tmp_path / "found" / "deeper"
    status, _, _ = fuzz(
        capsys, f"--adapter={adapter}", "--examples=5", f"--export={exported}", "--no-database"
    )
    assert status == (2 if adapter.startswith("no_such") else 0)
    assert list(tmp_path.iterdir()) == []


def test_an_export_folder_that_was_there_stays(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    status, _, _ = fuzz(
        capsys, "--adapter=no_such_module:Adapter", f"--export={tmp_path}", "--no-database"
    )
    assert status == 2
    assert tmp_path.is_dir()
