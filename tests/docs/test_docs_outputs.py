"""The outputs docs/ shows are those of the runs they show: each ``console`` block's commands
run as written, from the checkout, and every line the block shows is a line of the output (a
line ending in ``...`` is the start of one; a line ``...`` stands for lines left out). When the
catalog grows, a block's counts move and this test says which line to paste again."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent

TEMPLATES = {
    "mypackage.ppconf:MyRuntimeAdapter": "a template: the reader's own adapter stands there "
    "(the output shown is breaking:AppendReplaces's, and Hypothesis's shrinking varies)",
}
"""Commands that are templates the reader fills in, and why they are not run."""

OWN_TESTS = {
    "spec-editors.md": "its blocks run in order on files the earlier ones make; "
    "tests/conformance/test_spec_editors_doc.py holds them to their runs",
}
"""Pages whose console blocks another test runs, and why."""


def console_blocks() -> list[tuple[str, int, list[tuple[str, list[str]]]]]:
    """``(file, line, [(command, shown lines)])`` for every console block of docs/."""
    found = []
    for path in sorted((ROOT / "docs").glob("*.md")):
        if path.name in OWN_TESTS:
            continue
        lines = path.read_text("utf-8").splitlines()
        for start, line in enumerate(lines):
            if line.strip() != "```console":
                continue
            end = lines.index("```", start + 1)
            commands: list[tuple[str, list[str]]] = []
            for body in lines[start + 1 : end]:
                if body.startswith("$ "):
                    commands.append((body[2:], []))
                elif commands:
                    commands[-1][1].append(body)
            found.append((path.name, start + 1, commands))
    return found


def _template(command: str) -> str | None:
    return next((why for key, why in TEMPLATES.items() if key in command), None)


@pytest.mark.parametrize(
    ("doc", "line", "commands"),
    console_blocks(),
    ids=lambda v: str(v) if isinstance(v, (str, int)) else "",
)
def test_a_console_block_shows_what_its_run_prints(
    doc: str, line: int, commands: list[tuple[str, list[str]]]
) -> None:
    ran = 0
    for command, shown in commands:
        if _template(command) is not None:
            continue
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "PPCONF_"))}
        env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
        done = subprocess.run(
            ["bash", "-c", command],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        assert "Traceback" not in done.stderr, f"docs/{doc}:{line}: {command}"
        actual = [a.rstrip() for a in done.stdout.splitlines()]
        for expected in (s.rstrip() for s in shown):
            if expected in ("", "..."):
                continue
            if expected.endswith("..."):
                assert any(a.startswith(expected[:-3]) for a in actual), (doc, line, expected)
                continue
            assert expected in actual, (
                f"docs/{doc}:{line} shows a line its run does not print:\n{expected}\n"
                "the run prints:\n" + "\n".join(actual)
            )
        ran += 1
    assert ran or all(_template(c) for c, _ in commands)


def test_every_template_is_in_a_block() -> None:
    commands = [c for _, _, block in console_blocks() for c, _ in block]
    for key in TEMPLATES:
        assert any(key in command for command in commands), key
    assert re.search(r"tinyflow", " ".join(commands))  # the level table's run is run
