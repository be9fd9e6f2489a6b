"""A ``--catalog`` folder made from the built-in one, its ``statements/`` included: the copy's
statements are the built-in ones, not second definitions of their ids, so a failing runtime's
failures are explained as on the built-in catalog; an edited copy is still a clash."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conformance._basics.resources import catalog_root
from conformance._cli import main


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    folder = tmp_path / "catalog"
    shutil.copytree(catalog_root(), folder)
    return folder


def run(*args: str) -> int:
    return main(["run", "--area=workflow", *args])


@pytest.mark.usefixtures("fakes_importable")
def test_a_copied_catalog_with_its_statements_runs_a_failing_runtime(
    copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(f"--catalog={copy}") == 0
    capsys.readouterr()
    # A failure is explained from the statements: the run reaches its verdict, exit 1.
    assert run(f"--catalog={copy}", "--adapter=fakes:ValidatesOnly") == 1
    captured = capsys.readouterr()
    assert "already defined" not in captured.err
    assert "FAILED" in captured.out
    assert "why: " in captured.out


@pytest.mark.usefixtures("fakes_importable")
def test_an_edited_copy_of_a_statement_file_is_still_a_clash(
    copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    guide = copy / "statements" / "guide.yaml"
    # A comment changes no statement: the file is still a copy.
    (copy / "statements" / "kit.yaml").write_text(
        (copy / "statements" / "kit.yaml").read_text("utf-8") + "# a comment\n", encoding="utf-8"
    )
    text = guide.read_text("utf-8")
    guide.write_text(text.replace("keyword: informative", "keyword: MAY", 1), encoding="utf-8")
    assert run(f"--catalog={copy}", "--adapter=fakes:ValidatesOnly") == 2
    err = capsys.readouterr().err
    assert f"{guide}: statement id 'guide.intro.1' is already defined in" in err
    assert "kit.yaml" not in err
    assert "keep in it only files of its own, or unchanged copies" in err
