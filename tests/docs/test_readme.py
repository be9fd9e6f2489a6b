"""The README's commands pass as written, and the docs' adapter runs as written.

Every ``ppconf`` (and ``pytest``) command of the README's code blocks runs, as a newcomer's
shell would run it after the set-up, in a scratch copy of the project's examples: the ``sh``
blocks line by line, the ``console`` blocks command by command, checking what they show of the
reference's own output (``trace``, ``run-composition``). A placeholder the README cannot avoid
(the reader's adapter, a baseline report from main) is replaced by a real one in one table,
:data:`STAND_INS`; a command that fails on purpose, or for a known reason, says so in
:data:`EXPECTED`; one that cannot run here says why in :data:`NOT_RUN`.

The adapter of docs/cases.md section 7 is pasted, as written, into ``mypackage/ppconf.py`` beside
``tests/docs/my_runtime.py`` (the runtime it adapts), and is the README's
``mypackage.ppconf:MyRuntimeAdapter``.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
CASES_DOC = ROOT / "docs" / "cases.md"
BIN = Path(sys.executable).parent
NODE = shutil.which("node")

STAND_INS = {
    "my-adapter.js": "examples/node/adapter.js",
}
"""What a README placeholder stands for here (the reader's file -> one of the project's)."""

EXPECTED: dict[str, tuple[int, str]] = {
    "fakes:ValidatesOnly": (1, "a deliberately broken runtime: the example shows a failing run"),
    "examples/packs/review.yaml": (1, "a pack with two errors, to show how they are reported"),
}
"""Commands that exit other than 0, and why (the one place known failures are listed)."""

NOT_RUN = {
    "python3 -m venv": "the set-up itself: it installs the kit, as CI's set-up does",
    "--catalog found/": "runs what fuzzing found: the docs' adapter diverges nowhere",
}
"""Commands not run here, and why."""


@dataclass
class Command:
    """A command of the README: as written, where, and the output a console block shows."""

    text: str
    line: int
    shown: list[str] = field(default_factory=list)
    console: bool = False


@dataclass
class Block:
    line: int
    commands: list[Command]


def _logical_lines(lines: list[str], first: int) -> Iterator[tuple[int, str]]:
    """Lines with their ``\\`` continuations joined, numbered."""
    pending, start = "", 0
    for offset, raw in enumerate(lines):
        if not pending:
            start = first + offset
        if raw.rstrip().endswith("\\"):
            pending += raw.rstrip()[:-1] + " "
            continue
        yield start, pending + raw
        pending = ""


def blocks() -> list[Block]:
    """The README's ``sh`` and ``console`` blocks that hold a ``ppconf`` or ``pytest`` command."""
    text = README.read_text("utf-8").splitlines()
    found: list[Block] = []
    index = 0
    while index < len(text):
        fence = re.match(r"^```(sh|console)\s*$", text[index])
        if not fence:
            index += 1
            continue
        end = text.index("```", index + 1)
        body = text[index + 1 : end]
        commands = (_console if fence.group(1) == "console" else _sh)(body, index + 2)
        if any(re.search(r"(^|\s)(ppconf|pytest)\s", c.text) for c in commands):
            found.append(Block(index + 1, commands))
        index = end + 1
    return found


def _sh(body: list[str], first: int) -> list[Command]:
    return [
        Command(line.strip(), number)
        for number, line in _logical_lines(body, first)
        if line.strip() and not line.lstrip().startswith("#")
    ]


def _console(body: list[str], first: int) -> list[Command]:
    commands: list[Command] = []
    for number, line in _logical_lines(body, first):
        if line.startswith("$ "):
            commands.append(Command(line[2:].strip(), number, console=True))
        elif commands:
            commands[-1].shown.append(line)
    return commands


def _reason_not_run(command: Command) -> str | None:
    return next((why for key, why in NOT_RUN.items() if key in command.text), None)


def _expected(command: Command) -> tuple[int, str]:
    return next(
        (expected for key, expected in EXPECTED.items() if key in command.text), (0, "passes")
    )


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A newcomer's checkout after the set-up: the examples, the test fakes the README names,
    the docs' adapter as ``mypackage``, and the files the README's prose makes first."""
    root = tmp_path_factory.mktemp("readme")
    shutil.copytree(ROOT / "examples", root / "examples")
    shutil.copytree(
        ROOT / "tests" / "conformance",
        root / "tests" / "conformance",
        ignore=shutil.ignore_patterns("__pycache__", "__snapshots__", "test_*.py"),
    )
    package = root / "mypackage"
    package.mkdir()
    (package / "__init__.py").write_text("", "utf-8")
    (package / "ppconf.py").write_text(docs_adapter(), "utf-8")
    shutil.copy(Path(__file__).with_name("my_runtime.py"), root / "my_runtime.py")
    # What the README's prose runs before its blocks: the report the views are rendered from,
    # and the report the last run on main kept (for `compare`).
    run(root, "ppconf run --report json run.jsonl", expect=0)
    (root / "baseline").mkdir()
    node = STAND_INS["my-adapter.js"]
    run(root, f"ppconf run --adapter 'cmd:node {node}' --report json baseline/main.jsonl")
    return root


def docs_adapter() -> str:
    """The Python block of docs/cases.md section 7, as written."""
    section = CASES_DOC.read_text("utf-8").split("## 7. Writing an adapter in Python", 1)[1]
    match = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert match, "docs/cases.md section 7 has no Python block"
    return match.group(1)


def environment(root: Path) -> dict[str, str]:
    """A shell with the kit installed and its virtual environment active (the README's set-up),
    the scratch copy importable as the current folder is (``mypackage``, ``my_runtime``)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "PPCONF_"))}
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = str(root)
    env["GITHUB_STEP_SUMMARY"] = str(root / "step-summary.md")
    return env


def run(root: Path, command: str, expect: int | None = None) -> subprocess.CompletedProcess[str]:
    for placeholder, stand_in in STAND_INS.items():
        command = command.replace(placeholder, stand_in)
    done = subprocess.run(
        ["bash", "-c", command],
        cwd=root,
        env=environment(root),
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    if expect is not None:
        assert done.returncode == expect, (
            f"{command}\nexit {done.returncode}, expected {expect}\n"
            f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        )
    return done


def _block_id(block: Block) -> str:
    return f"README.md:{block.line}"


@pytest.mark.parametrize("block", blocks(), ids=_block_id)
def test_a_readme_block_runs_as_written(scratch: Path, block: Block) -> None:
    for command in block.commands:
        if _reason_not_run(command) is not None:
            continue
        if "node " in command.text and NODE is None:
            pytest.skip("no node on the PATH (the Node.js example needs it)")
        if command.text.startswith("cat "):
            # The file is one of the repository's, as shown: the reader has it too.
            shown = (scratch / command.text.split()[1]).read_text("utf-8")
            assert shown == "\n".join(command.shown) + "\n", command.text
            continue
        status, why = _expected(command)
        done = run(scratch, command.text, expect=status)
        assert "Traceback" not in done.stderr, why
        if command.console:
            # Every line shown is a line of the output (a line ending in "..." the start of
            # one), the counts of the level tables included: when the catalog grows, this says
            # which lines to paste again. Only the time a run took varies from run to run.
            actual = [line.rstrip() for line in done.stdout.splitlines()]
            missing = [
                line
                for line in (shown.rstrip() for shown in command.shown)
                if line.strip() not in ("", "...")
                and not line.startswith("ran in ")
                and line not in actual
                and not (line.endswith("...") and any(a.startswith(line[:-3]) for a in actual))
            ]
            assert not missing, (
                f"{command.text}: README.md:{command.line} shows lines not output:\n"
                + "\n".join(missing)
            )


def test_every_command_is_run_or_said_why_not() -> None:
    """The tables above cannot silently grow stale: each of their keys matches a command."""
    texts = [c.text for b in blocks() for c in b.commands]
    for table in (STAND_INS, EXPECTED, NOT_RUN):
        for key in table:
            assert any(key in text for text in texts), f"{key!r} is in no README command"
    assert sum(1 for b in blocks() for c in b.commands if _reason_not_run(c) is None) >= 15


def test_the_readme_sets_up_a_shell_where_ppconf_is_found() -> None:
    """`ppconf: command not found` after the README's set-up, which never activated the venv."""
    setup = next(b for b in blocks() if any("python3 -m venv" in c.text for c in b.commands))
    for command in setup.commands:
        assert ". .venv/bin/activate" in command.text, command.text
    (tinyflow,) = [
        c for b in blocks() for c in b.commands if "TinyflowAdapter" in c.text and not c.console
    ]
    assert "--spec-version 1.5" in tinyflow.text  # certified at the version it was written for


def test_the_docs_adapter_is_complete_and_wired_right(scratch: Path) -> None:
    """docs/cases.md's adapter used an undefined ManualClock and MySession: pasted as written,
    it now passes `ppconf smoke` and reaches the levels it claims (the runtime it adapts being
    the reference behind another API)."""
    adapter = "mypackage.ppconf:MyRuntimeAdapter"
    smoke = run(scratch, f"ppconf smoke --adapter {adapter}", expect=0)
    assert "the wiring works" in smoke.stdout
    done = run(scratch, f"ppconf run --adapter {adapter} --require-level 2", expect=0)
    assert "headline level: 2 (over the claimed areas: workflow, loops)" in done.stdout
    # Its annotations name my_runtime.Run, ManualClock and MySession when the class is made:
    # an undefined one fails the import above, and an undefined name in a method the run.


def test_commands_are_split_as_a_shell_splits_them() -> None:
    for block in blocks():
        for command in block.commands:
            shlex.split(command.text, comments=True)  # no unclosed quote in the README


def python_blocks() -> list[tuple[int, str]]:
    """The README's ``python`` blocks that use the reference, with their lines."""
    text = README.read_text("utf-8")
    return [
        (text.count("\n", 0, match.start()) + 1, match.group(1))
        for match in re.finditer(r"```python\n(.*?)```", text, re.DOTALL)
        if "import reference" in match.group(1)
    ]


@pytest.mark.parametrize(("line", "code"), python_blocks(), ids=lambda v: str(v)[:12])
def test_a_python_block_runs_as_written(scratch: Path, line: int, code: str) -> None:
    """Every file it reads is one the reader has (the examples), not a name to fill in."""
    script = scratch / f"readme_{line}.py"
    script.write_text(code, "utf-8")
    done = run(scratch, f"python {script.name}", expect=0)
    assert "Traceback" not in done.stderr, f"README.md:{line}"
