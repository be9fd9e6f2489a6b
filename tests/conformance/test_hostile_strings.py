"""Every string a runtime sends is hostile: it stays text in every view and record.

The attacks of a runtime that poisons the views of its own results (its name, and a rejection
code of its choosing, in every part): Markdown and HTML faking a verdict in a CI step summary,
remote images, control characters that make JUnit XML ill-formed or drive a terminal, a string
of a million characters, a lone surrogate. And the two ways an in-process adapter could make
the kit blame itself or end the run silently: ``Rejected(None)`` and ``os._exit(0)``.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from xml.etree import ElementTree

import pytest
from hostile import CONTROL, LONG, MARKDOWN

from conformance._basics.text import TEXT_LIMIT, kept, markdown, markdown_code, terminal, xml_text
from conformance._cli import main

HERE = Path(__file__).resolve().parent
VIEWS = ("json", "md", "junit", "html", "text")
FEW = ("--id", "workflow.execution.*")  # 46 parts: every one refused the runtime's way


def hostile_protocol(*options: str) -> str:
    command = [sys.executable, str(HERE / "protocol_fakes" / "hostile_protocol.py"), *options]
    return "cmd:" + shlex.join(command)


Run = Callable[..., tuple[int, dict[str, Path], str, str]]


@pytest.fixture
def run_views(tmp_path: Path, capsys: pytest.CaptureFixture[str], fakes_importable: Path) -> Run:
    """``ppconf run --adapter ADAPTER`` on a few cases with every view written; returns the
    status, the view files, stdout and stderr."""

    def run(adapter: str, *extra: str) -> tuple[int, dict[str, Path], str, str]:
        folder = tmp_path / re.sub(r"[^a-zA-Z0-9]+", "-", adapter)[-40:]
        folder.mkdir()
        paths = {fmt: folder / f"report.{fmt}" for fmt in VIEWS}
        reports = [arg for fmt, path in paths.items() for arg in ("--report", fmt, str(path))]
        status = main(["run", "--adapter", adapter, *FEW, *reports, *extra])
        captured = capsys.readouterr()
        return status, paths, captured.out, captured.err

    return run


def faked_verdicts(text: str) -> list[str]:
    """What of the Markdown attack survived as Markdown or HTML rather than text."""
    found = []
    if any(line.startswith("# PASSED") for line in text.splitlines()):
        found.append("a heading of the runtime's")
    for raw in ("<h1>", "</details><h1>", "<img", "![pixel](", "[link](", "$x$"):
        if re.search(r"(?<!\\)" + re.escape(raw), text):  # not backslash-escaped
            found.append(raw)
    return found


def test_markdown_views_show_the_runtimes_markdown_as_text(
    run_views: Run, capsys: pytest.CaptureFixture[str]
) -> None:
    """`run --report md`, `report --format md` and `compare --format md` copied runtime strings
    raw: a PASSED heading (through a newline in the runtime's name), a closed <details> and an
    <h1>, remote images landed in $GITHUB_STEP_SUMMARY."""
    status, paths, _, _ = run_views("hostile:MarkdownName")
    assert status == 1
    summary = paths["md"].read_text("utf-8")
    assert faked_verdicts(summary) == []
    assert summary.splitlines()[0].startswith("# ppconf: x\\\\x0a\\# PASSED: level 3")
    assert main(["report", str(paths["json"]), "--format", "md"]) == 0
    again = capsys.readouterr().out
    assert faked_verdicts(again) == []
    assert again.splitlines()[0] == summary.splitlines()[0]
    _, reference, _, _ = run_views("reference")
    compared = ["compare", str(reference["json"]), str(paths["json"]), "--format", "md"]
    assert main([*compared, "--allow", "partial"]) == 1
    shown = capsys.readouterr().out
    assert faked_verdicts(shown) == []
    assert "\\<h1\\>PASSED\\</h1\\>" in shown


def test_control_characters_are_written_out(run_views: Run) -> None:
    """JUnit XML carried raw C0 characters (not well-formed: CI refuses the file); the terminal
    got the runtime's escape sequences (clear screen, retitle), and its own line."""
    status, paths, out, _ = run_views("hostile:ControlName")
    assert status == 1
    root = ElementTree.parse(paths["junit"]).getroot()  # well-formed
    failures = [f.get("message", "") for f in root.iter("error")] + [
        f.get("message", "") for f in root.iter("failure")
    ]
    assert any("\\x1b[2J" in message for message in failures)
    for fmt in ("md", "text", "html"):
        data = paths[fmt].read_bytes()
        assert not re.search(rb"[\x00-\x08\x0b-\x1f\x7f]", data), fmt
        assert "\u202e".encode() not in data, fmt
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", out)
    assert not any(line.startswith("FAKE LINE") for line in out.splitlines())
    assert "\\x1b[2J\\x1b]0;retitled\\x07" in out


def test_a_long_string_is_cut_with_its_size_in_every_view(run_views: Run) -> None:
    """A 1 MB runtime string gave about 700 MB of views for 46 cases."""
    status, paths, out, _ = run_views("hostile:LongName")
    assert status == 1
    for fmt, path in paths.items():
        assert path.stat().st_size < 2_000_000, fmt
    assert len(out) < 500_000
    record = next(
        json.loads(line)
        for line in paths["json"].read_text("utf-8").splitlines()
        if '"type": "part"' in line and "rejected with" in line
    )
    assert "characters cut ...]" in record["message"]
    assert len(record["message"]) < TEXT_LIMIT + 200
    assert record["message"].endswith("A" * 100 + ", expected acceptance")  # the tail is kept
    for fmt in ("md", "text", "html"):
        sizes = re.findall(r"of ([\d,]+) characters cut", paths[fmt].read_text("utf-8"))
        assert sizes, fmt
        assert all(int(size.replace(",", "")) >= len(LONG) for size in sizes), fmt


def test_a_lone_surrogate_from_an_in_process_runtime_stays_text(run_views: Run) -> None:
    """It crashed the JSON report half way, and no other view was written."""
    status, paths, out, err = run_views("hostile:SurrogateName")
    assert status == 1
    assert "Traceback" not in err
    for fmt, path in paths.items():
        text = path.read_text("utf-8")  # UTF-8: a lone surrogate could not be written
        if fmt == "json":
            text = json.loads(text.splitlines()[0])["adapter"]["name"]
        shown = markdown("bad \\ud800 text") if fmt == "md" else "bad \\ud800 text"
        assert shown in text, fmt
    assert "bad \\ud800 text" in out


@pytest.mark.parametrize("where", ["code", "state"])
def test_a_lone_surrogate_from_a_protocol_adapter_is_an_adapter_fault(
    run_views: Run, where: str
) -> None:
    """Legal JSON text, but no character: it crashed `run` with a traceback."""
    status, paths, _, err = run_views(hostile_protocol("--surrogate", where))
    assert status == 1
    assert "Traceback" not in err
    parts = [
        json.loads(line)
        for line in paths["json"].read_text("utf-8").splitlines()
        if '"type": "part"' in line
    ]
    faults = [p for p in parts if "lone surrogate" in p["message"]]
    assert faults
    assert all(p["outcome"] == "errored" for p in faults)
    assert faults[0]["message"].startswith("adapter fault: stray or malformed output on stdout")


def test_a_lone_surrogate_in_the_hello_answer_stops_the_run_with_one_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "run.jsonl"
    adapter = hostile_protocol("--surrogate", "name")
    assert main(["run", "--adapter", adapter, *FEW, "--report", "json", str(report)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("ppconf: error: the adapter failed to describe itself: AdapterFault: ")
    assert "a string holds a lone surrogate escape" in err


@pytest.mark.usefixtures("fakes_importable")
def test_a_fuzzed_runtime_answering_a_lone_surrogate_is_a_fault(
    capsys: pytest.CaptureFixture[str],
) -> None:
    adapter = hostile_protocol("--surrogate", "state")
    status = main(["fuzz", "--adapter", adapter, "--examples", "50", "--no-database"])
    captured = capsys.readouterr()
    assert status == 1
    assert "Traceback" not in captured.err
    assert captured.out.startswith("ADAPTER FAULT")
    assert "lone surrogate" in captured.out


def test_rejected_without_a_code_is_the_adapters_fault(run_views: Run) -> None:
    """Rejected(None) was reported as the kit's own error ("please report it")."""
    status, paths, _, _ = run_views("hostile:RejectsWithoutCode")
    assert status == 1
    parts = [
        json.loads(line)
        for line in paths["json"].read_text("utf-8").splitlines()
        if '"type": "part"' in line
    ]
    messages = [p["message"] for p in parts if p["outcome"] == "errored"]
    assert messages
    assert not [m for m in messages if "kit error" in m]
    assert messages[0].startswith(
        "adapter fault: the adapter raised Rejected(None) in send(): a rejection needs its "
        "code, a string such as 'unknown-event'"
    )


def test_an_adapter_calling_os_exit_does_not_end_the_run_as_passed(tmp_path: Path) -> None:
    """os._exit(0) in an in-process adapter ended the run there, exit status 0, no report.
    (A process of its own: were the refusal to fail, the test's own process would end.)"""
    report = tmp_path / "run.jsonl"
    command = [sys.executable, "-m", "conformance", "run", "--adapter", "hostile:ExitsZero"]
    done = subprocess.run(
        [*command, *FEW, "--report", "json", str(report)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(HERE)},
        timeout=300,
        check=False,
    )
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    lines = report.read_text("utf-8").splitlines()
    assert json.loads(lines[-1])["type"] == "summary"
    errored = [json.loads(line) for line in lines if '"outcome": "errored"' in line]
    assert errored
    assert "os._exit(0) was called, which would end the run at once" in errored[0]["message"]


# -- the helpers, one per view family -----------------------------------------------------------


def test_each_view_family_has_its_escaping() -> None:
    assert markdown("a|b") == "a\\|b"
    assert markdown("- item") == "\\- item"
    assert markdown("12. item") == "12\\. item"
    assert markdown("<b>&amp;</b>") == "\\<b\\>\\&amp;\\</b\\>"
    assert markdown("x\ny") == "x\\\\x0ay"  # renders as x\x0ay: one line
    assert markdown_code("a`b") == "``a`b``"
    assert markdown_code("`") == "`` ` ``"
    assert terminal("\x1b[2J\r\n\u202e") == "\\x1b[2J\\x0d\\x0a\\u202e"
    assert xml_text("a\x00b\tc\nd\ufffe") == "a\\x00b\tc\nd\\ufffe"
    assert kept("a\ud800b") == "a\\ud800b"


def test_a_cut_keeps_the_head_and_the_tail() -> None:
    text = "H" * 10_000 + "T" * 10_000
    shown = kept(text, 300)
    assert shown.startswith("H" * 157 + " [... 19,764 of 20,000 characters cut ...] ")
    assert shown.endswith(" " + "T" * 79)
    assert len(shown) <= 300
    assert kept(shown, 300) == shown  # cut once, as a record, and shown again unchanged
    assert kept("short", 300) == "short"


def test_hostile_payloads_are_what_they_claim() -> None:
    assert "\n# PASSED" in MARKDOWN
    assert "\x1b" in CONTROL


def test_the_terminal_lines_of_fuzz_and_smoke_show_runtime_text_written_out(
    capsys: pytest.CaptureFixture[str], fakes_importable: Path
) -> None:
    """`ppconf fuzz` printed a runtime's answer as it was in its diff, `ppconf smoke` in its
    checks: an escape sequence reached the terminal."""
    assert main(["fuzz", "--adapter", "hostile:ControlName", "--examples", "30", "--no-database"])
    out = capsys.readouterr().out
    assert out.startswith("DIVERGENCE in a ")
    assert "\x1b" not in out
    assert "\\x1b[2J" in out
    assert main(["smoke", "--adapter", "hostile:ControlName"]) == 1
    out = capsys.readouterr().out
    assert "\x1b" not in out
    assert "DIFF makes one transition: the declared event Go was rejected with \\x1b[2J" in out
