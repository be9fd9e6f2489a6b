"""docs/spec-editors.md shows the real output of its commands: each ``console`` block is run
here, on the files the walk-through describes, and must print what the page shows.

The page follows the kit: after a change to the registry or the catalog, run this module with
``PPCONF_UPDATE_DOCS=1`` to write the new output into the page, then read the diff.
"""

from __future__ import annotations

import copy
import json
import os
import re
import shlex
import shutil
from pathlib import Path

import pytest
from report_files import ReportFiles

from conformance._cli import main

pytestmark = pytest.mark.usefixtures("cached_catalog", "fakes_importable")

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "spec-editors.md"
SPEC = ROOT.parent / "shared" / "spec"
BLOCK = re.compile(r"```console\n(.*?)```", re.DOTALL)


def _edit(text: str, old: str, new: str) -> str:
    assert old in text, old
    return text.replace(old, new, 1)


def prepare(folder: Path, report_file: ReportFiles) -> None:
    """The files of the walk-through, as the page describes them."""
    if not SPEC.is_dir():
        pytest.skip(f"the RFC texts are not at {SPEC}: the walk-through edits them")
    rfc17 = (SPEC / "rfc-0017-provider-references.md").read_text(encoding="utf-8")
    (folder / "rfc-0017.md").write_text(
        _edit(rfc17, "`default` is always valid, because", "`default` SHOULD be accepted, because"),
        encoding="utf-8",
    )
    rfc9 = (SPEC / "rfc-0009-agent-loops.txt").read_text(encoding="utf-8")
    rfc9 = _edit(rfc9, "- Status: Draft", "- **Status:** Implemented")
    rfc9 = _edit(rfc9, "- Updated: 2026-03-26", "- **Updated:** 2026-04-18")
    rfc9 = _edit(rfc9, "(per RFC 0002)", "(per [RFC 0002](./0002-yaml-format.md))")
    (folder / "rfc-0009.md").write_text(rfc9, encoding="utf-8")
    schema = json.loads((SPEC / "promptpack-1.9.0.schema.json").read_text(encoding="utf-8"))
    closed = copy.deepcopy(schema)
    closed["$defs"]["Composition"]["properties"]["engine"]["additionalProperties"] = False
    closed["$defs"]["Composition"]["minProperties"] = 1
    (folder / "promptpack-2.0.0.schema.json").write_text(json.dumps(closed), encoding="utf-8")
    shutil.copy(report_file("breaking:RejectsUndeclaredDefault"), folder / "runtime-x.jsonl")
    shutil.copy(report_file("reference"), folder / "reference.jsonl")


def commands(block: str) -> list[tuple[str, str]]:
    """Each ``$ ...`` line of a console block, with the output shown under it."""
    lines = block.rstrip("\n").split("\n")
    starts = [i for i, line in enumerate(lines) if line.startswith("$ ")]
    return [
        (lines[start][2:], "\n".join(lines[start + 1 : end]))
        for start, end in zip(starts, [*starts[1:], len(lines)], strict=True)
    ]


def run(command: str, folder: Path, capsys: pytest.CaptureFixture[str]) -> tuple[str, int]:
    argv = shlex.split(command)
    assert argv[0] == "ppconf", command
    cwd = Path.cwd()
    os.chdir(folder)
    try:
        status = main(argv[1:])
    finally:
        os.chdir(cwd)
    return capsys.readouterr().out.rstrip("\n"), status


def test_the_page_shows_what_its_commands_print(
    tmp_path: Path, report_file: ReportFiles, capsys: pytest.CaptureFixture[str]
) -> None:
    prepare(tmp_path, report_file)
    capsys.readouterr()
    page = PAGE.read_text(encoding="utf-8")
    blocks = BLOCK.findall(page)
    assert blocks, "the page has console blocks"
    status = 0
    for block in blocks:
        printed = []
        for command, shown in commands(block):
            if command == "echo $?":
                output = str(status)
            else:
                output, status = run(command, tmp_path, capsys)
            printed.append(f"$ {command}\n{output}")
            if not os.environ.get("PPCONF_UPDATE_DOCS"):
                assert output == shown, (
                    f"docs/spec-editors.md: `{command}` now prints:\n{output}\n"
                    "(PPCONF_UPDATE_DOCS=1 writes it into the page)"
                )
        page = page.replace(block, "\n".join(printed) + "\n", 1)
    if os.environ.get("PPCONF_UPDATE_DOCS"):
        PAGE.write_text(page, encoding="utf-8")
