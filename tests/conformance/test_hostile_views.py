"""One escaping per view, everywhere: the same hostile strings through every view of every
command, and none survives raw.

The strings (:data:`hostile.ODDITIES`): terminal escapes, BEL, NUL, a bidirectional override,
a line separator, a lone surrogate, GitHub workflow commands (``::error ...``), HTML that closes
a fold and fakes a heading, a script, URLs that Markdown would link, a Markdown table and a
fence. They reach the views as a runtime's name and answers (``run``, ``report``, the matrix,
JUnit), as a pack's keys (``validate``), and as statement texts (``statements list`` and
``check``, ``coverage``). Each view shows them through its family's one escaping function
(:mod:`conformance._basics.text`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from xml.etree import ElementTree

import pytest
import yaml
from conftest import make_case_text
from hostile import EVERY_ODDITY

from conformance._cli import main

RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
"""What no view shows raw: control characters (tab and newline aside), separators, bidi."""
SURROGATE = re.compile("[\ud800-\udfff]")

Check = Callable[[str], list[str]]


def _common(text: str) -> list[str]:
    found = [f"raw {m.group()!r}" for m in RAW_CONTROL.finditer(text)]
    found += [f"raw {m.group()!r}" for m in SURROGATE.finditer(text)]
    found += [f"a workflow command: {line[:40]!r}" for line in text.split("\n")
              if line.lstrip().startswith("::")]  # fmt: skip
    return found


def text_view(text: str) -> list[str]:
    return _common(text)


def markdown_view(text: str) -> list[str]:
    found = _common(text)
    for line in text.split("\n"):
        if line.startswith("<"):  # a line of HTML (a fold's summary): not read as Markdown
            found += html_view(line)
            continue
        for raw in ("<h1>FAKE", "<script>", "https://evil", "www.evil", "| a |"):
            if re.search(r"(?<!\\)" + re.escape(raw), line):
                found.append(f"raw {raw!r}")
    if re.search("(?m)^fenced", text):
        found.append("a fence of the runtime's")
    return found


def html_view(text: str) -> list[str]:
    found = [f for f in _common(text) if "workflow command" not in f]
    found += [f"raw {raw!r}" for raw in ("<h1>FAKE", "<script>alert") if raw in text]
    return found


def xml_view(text: str) -> list[str]:
    ElementTree.fromstring(text.encode("utf-8"))  # well-formed, whatever the runtime said
    return [f for f in _common(text) if "workflow command" not in f]


BY_VIEW: dict[str, Check] = {
    "text": text_view,
    "md": markdown_view,
    "html": html_view,
    "junit": xml_view,
    "json": lambda text: [m.group() for m in SURROGATE.finditer(text)],
    "badge": lambda text: [m.group() for m in SURROGATE.finditer(text)],
}


def shown(capsys: pytest.CaptureFixture[str], *args: object) -> tuple[int, str]:
    status = main([str(a) for a in args])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return status, captured.out + captured.err


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A report of a runtime named with every oddity and refusing every event with it, and
    the reference's report of the same cases."""
    folder = tmp_path_factory.mktemp("views")
    hostile, reference = folder / "hostile.jsonl", folder / "reference.jsonl"
    few = ["--id", "workflow.execution.*"]
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(Path(__file__).resolve().parent))
        status = main(
            ["run", "--adapter", "hostile:EveryOddity", *few, "--report", "json", str(hostile)]
        )
    assert status == 1
    assert main(["run", *few, "--report", "json", str(reference)]) == 0
    return hostile, reference


@pytest.mark.usefixtures("fakes_importable")
@pytest.mark.parametrize("view", ["text", "md", "html", "junit"])
def test_run_shows_a_runtimes_oddities_as_text(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, view: str
) -> None:
    path = tmp_path / f"out.{view}"
    status, printed = shown(
        capsys, "run", "--adapter", "hostile:EveryOddity", "--id", "workflow.execution.*",
        "--report", view, path,
    )  # fmt: skip
    assert status == 1
    assert text_view(printed) == []
    assert BY_VIEW[view](path.read_text("utf-8")) == []


@pytest.mark.usefixtures("fakes_importable")
@pytest.mark.parametrize("view", ["text", "md", "html", "junit"])
def test_a_same_as_mismatch_shows_both_of_a_runtimes_values_as_text(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, view: str
) -> None:
    """``$same_as`` compares two values the runtime reported: both reach the message."""
    path = tmp_path / f"out.{view}"
    status, printed = shown(
        capsys, "run", "--adapter", "hostile:OddValuesHandedOn",
        "--id", "compositions.extension.upper-between-steps", "--report", view, path,
    )  # fmt: skip
    assert status == 1
    assert "not the value at /trace/0/output/headline" in printed
    assert text_view(printed) == []
    assert BY_VIEW[view](path.read_text("utf-8")) == []


@pytest.mark.parametrize("view", ["text", "md", "html", "junit", "json", "badge"])
def test_report_shows_a_runtimes_oddities_as_text(
    capsys: pytest.CaptureFixture[str], reports: tuple[Path, Path], view: str
) -> None:
    status, printed = shown(capsys, "report", reports[0], "--format", view)
    assert status == 0
    assert BY_VIEW[view](printed) == []


@pytest.mark.parametrize("view", ["text", "md", "html"])
def test_the_matrix_shows_a_runtimes_oddities_as_text(
    capsys: pytest.CaptureFixture[str], reports: tuple[Path, Path], view: str
) -> None:
    """NEW-2, NEW-3, NEW-19: the many-runtime views copied names and messages raw."""
    status, printed = shown(capsys, "report", *reports, "--format", view)
    assert status == 0
    assert BY_VIEW[view](printed) == []
    assert "FAKE" in printed  # shown, as text


@pytest.mark.parametrize("view", ["text", "md"])
def test_compare_shows_a_runtimes_oddities_as_text(
    capsys: pytest.CaptureFixture[str], reports: tuple[Path, Path], view: str
) -> None:
    status, printed = shown(capsys, "compare", reports[1], reports[0], "--format", view)
    assert status == 1
    assert BY_VIEW[view](printed) == []


def test_validate_shows_a_packs_oddities_as_text(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """NEW-10: keys and file names were printed raw in validate's text view."""
    pack = {
        "id": "odd",
        "name": "Odd",
        "version": "1.0.0",
        "template_engine": {"version": "v1", "syntax": "{{variable}}"},
        "prompts": {"main": {"id": "main", "name": "Main", "version": "1.0.0",
                             "system_template": "x"}},
        "workflow": {
            "version": 1,
            "entry": EVERY_ODDITY.replace("\ud800", "?"),  # YAML holds no lone surrogate
            "states": {"a": {"prompt_task": "main", EVERY_ODDITY.replace("\ud800", "?"): 1}},
        },
    }  # fmt: skip
    path = tmp_path / "odd \x1b[2J ::error x.pack.yaml"
    path.write_text(yaml.safe_dump(pack, allow_unicode=True), "utf-8")
    status, printed = shown(capsys, "validate", path)
    assert status == 1
    assert text_view(printed) == []
    assert "\\x1b[2J" in printed


@pytest.fixture(scope="module")
def odd_statements(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An extra catalog whose one statement's section and quote hold every oddity."""
    folder = tmp_path_factory.mktemp("extra")
    (folder / "statements").mkdir()
    odd = EVERY_ODDITY.replace("\ud800", "?").replace("\x00", "?")  # what YAML can hold
    source = {
        "source": "RFC 0901",
        "title": "Odd",
        "revision": odd,
        "statements": [
            {"id": "RFC0901.odd.1", "section": odd, "keyword": "MUST", "quote": f"It MUST {odd}"}
        ],
    }
    text = yaml.safe_dump(source, allow_unicode=True)
    (folder / "statements" / "odd.yaml").write_text(text, "utf-8")
    return folder


@pytest.mark.parametrize(
    ("command", "view"),
    [
        (("statements", "list"), "text"),
        (("coverage",), "text"),
        (("coverage", "--format", "md"), "md"),
        (("coverage", "--format", "html"), "html"),
    ],
)
def test_statement_views_show_a_files_oddities_as_text(
    capsys: pytest.CaptureFixture[str], odd_statements: Path, command: tuple[str, ...], view: str
) -> None:
    """NEW-15: RFC texts and extra statements were printed raw (coverage HTML too)."""
    status, printed = shown(capsys, *command, "--extra-catalog", odd_statements)
    assert status in (0, 1), printed
    assert BY_VIEW[view](printed) == []
    assert "x1b" in printed  # shown, written out


def test_statements_check_shows_a_texts_oddities_as_text(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    odd = EVERY_ODDITY.replace("\ud800", "?")
    text = tmp_path / "rfc.md"
    text.write_text(f"# RFC 0014 {odd}\n\n## {odd}\n\nThe runtime MUST {odd}.\n", "utf-8")
    status, printed = shown(capsys, "statements", "check", "RFC 0014", text)
    assert status in (0, 1), printed
    assert text_view(printed) == []
    assert "FAKE" in printed


def test_junit_writes_out_a_bidi_override(
    capsys: pytest.CaptureFixture[str], reports: tuple[Path, Path]
) -> None:
    """NEW-24: U+202E was raw in JUnit."""
    status, printed = shown(capsys, "report", reports[0], "--format", "junit")
    assert status == 0
    assert "\u202e" not in printed
    assert "\\u202e" in printed


@pytest.fixture(scope="module")
def odd_catalog(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A catalog folder whose statements, context table and case notes hold every oddity: an
    execution statement (cited at MUST by the case) in a context the case does not exercise,
    and a schema constraint no case breaks, so that both reach the contexts and breakers parts
    of ``coverage``."""
    folder = tmp_path_factory.mktemp("odd-catalog")
    odd = EVERY_ODDITY.replace("\ud800", "?").replace("\x00", "?")  # what YAML can hold
    reason = odd.replace("\n", " ")  # a reason is one line
    source = {
        "source": "RFC 0901",
        "title": odd,
        "revision": odd,
        "statements": [
            {"id": "RFC0901.odd.1", "section": odd, "keyword": "MUST", "quote": f"It MUST {odd}"},
            {
                "id": "RFC0901.def.Odd.kind.type",
                "section": odd,
                "keyword": "schema",
                "quote": f'{odd} "type": "string"',
            },
        ],
    }
    table = {
        "not_applicable": dict.fromkeys(
            ("source", "orchestration", "budget", "check", "step"), reason
        ),
        "families": [
            {
                "name": "odd",
                "statements": ["RFC0901.odd.1"],
                "applies": {"start": ["agent"]},
                "not_applicable": {"start": reason},
            }
        ],
    }
    files = {
        "statements/odd.yaml": yaml.safe_dump(source, allow_unicode=True),
        "statements/contexts/odd.yaml": yaml.safe_dump(table, allow_unicode=True),
        "workflow/odd.yaml": make_case_text("workflow.odd.case", statement="RFC0901.odd.1")
        + yaml.safe_dump({"notes": odd}, allow_unicode=True),
    }
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, "utf-8")
    return folder


@pytest.mark.parametrize("view", ["text", "md", "html", "json"])
def test_coverage_shows_a_catalogs_oddities_as_text_in_every_part(
    capsys: pytest.CaptureFixture[str], odd_catalog: Path, view: str
) -> None:
    """Issue 27: the contexts and breakers parts of ``coverage`` show what a catalog copy's
    statements and context table say through their view's one escaping, as the statements
    part does."""
    status, printed = shown(capsys, "coverage", "--catalog", odd_catalog, "--format", view)
    assert status == 0, printed
    assert BY_VIEW[view](printed) == []
    if view == "json":
        data = json.loads(printed)
        contexts = data["contexts"]["statements"]
        assert any(row["id"] == "RFC0901.odd.1" for row in contexts)
        assert any(s["source"] == "RFC 0901" for s in data["breakers"])
        return
    assert "RFC0901.odd.1" in printed  # the execution statement missing start:agent
    assert "RFC0901.def.Odd.kind.type" in printed or view == "text"  # listed apart
    if view == "html":
        contexts, breakers = printed.split('id="contexts"', 1)[1].split('id="breakers"', 1)
        assert "x1b" in contexts  # the quote and the reasons, written out
        assert "RFC0901.def.Odd.kind.type" in breakers
        assert "x1b" in breakers  # the constraint's quote, written out
