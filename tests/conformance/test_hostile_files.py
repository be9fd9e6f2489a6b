"""What the kit reads and writes, against a hostile world: special files, symlink loops,
over-deep and over-long input, outputs that would overwrite inputs or each other, concurrent
writers, bounds on the numbers a user gives. Each is one clear error (exit 2), never a hang, a
traceback or a file lost.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest
from hostile import ONE, one_error, ppconf
from report_files import ReportFiles

from conformance._cli import main
from conformance._report.outputs import open_locked
from conformance._runtime.reference_adapter import ReferenceAdapter
from conformance._runtime.serve import Server


def fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


# -- reports that are not reports ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "kind"),
    [("/dev/zero", "a character device"), ("/dev/urandom", "a character device")],
)
def test_report_refuses_a_device(capsys: pytest.CaptureFixture[str], path: str, kind: str) -> None:
    """/dev/urandom grew to 12-15 GB; /dev/zero was OOM-killed."""
    status, out, err = ppconf(capsys, "report", path)
    assert status == 2
    assert out == ""
    one_error(err, f"{path}: cannot read the report: it is {kind}, not a file")


def test_report_and_compare_refuse_a_fifo(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, report_file: ReportFiles
) -> None:
    """Both hung, waiting for a writer."""
    pipe = fifo(tmp_path / "pipe.jsonl")
    status, _, err = ppconf(capsys, "report", pipe)
    assert status == 2
    one_error(err, "it is a FIFO (named pipe), not a file")
    status, _, err = ppconf(capsys, "compare", report_file("reference"), pipe)
    assert status == 2
    one_error(err, "it is a FIFO (named pipe), not a file")


def test_report_refuses_a_symlink_loop(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "a.jsonl").symlink_to(tmp_path / "b.jsonl")
    (tmp_path / "b.jsonl").symlink_to(tmp_path / "a.jsonl")
    status, _, err = ppconf(capsys, "report", tmp_path / "a.jsonl")
    assert status == 2
    one_error(err, "it is a symlink loop")


def edited(source: Path, target: Path, edit: Callable[[list[str]], None]) -> Path:
    lines = source.read_text("utf-8").splitlines(keepends=True)
    edit(lines)
    target.write_text("".join(lines), "utf-8")
    return target


def with_extra(index: int, text: str) -> Callable[[list[str]], None]:
    """Add ``text`` as a field of line ``index`` (the JSON of its value, spliced in raw)."""

    def edit(lines: list[str]) -> None:
        lines[index] = lines[index].rstrip("\n")[:-1] + f', "extra": {text}}}\n'

    return edit


@pytest.mark.parametrize(
    ("name", "edit", "reason"),
    [
        (
            "deep",
            with_extra(1, "[" * 100_000 + "]" * 100_000),
            "arrays and objects nested deeper than 256",
        ),
        ("digits", with_extra(1, "9" * 5000), "an integer of 5,000 digits"),
        ("surrogate", with_extra(1, '"\\ud800"'), "a string holds a lone surrogate escape"),
        ("nan", with_extra(1, "NaN"), "NaN is not a JSON value"),
    ],
)
def test_report_refuses_json_it_cannot_read(  # noqa: PLR0917
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    report_file: ReportFiles,
    name: str,
    edit: Callable[[list[str]], None],
    reason: str,
) -> None:
    """A 100k-deep array, a 5,000-digit integer and a lone surrogate each gave a traceback (or,
    for the surrogate, crashed every view)."""
    bad = edited(report_file("reference"), tmp_path / f"{name}.jsonl", edit)
    for command in (("report", bad), ("compare", report_file("reference"), bad)):
        status, out, err = ppconf(capsys, *command)
        assert status == 2
        assert out == ""
        one_error(err, f"{bad}:2: not JSON the kit reads: {reason}")


def test_report_refuses_an_over_long_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, report_file: ReportFiles
) -> None:
    bad = edited(
        report_file("reference"),
        tmp_path / "long.jsonl",
        with_extra(1, '"' + "B" * (33 * 2**20) + '"'),
    )
    status, _, err = ppconf(capsys, "report", bad)
    assert status == 2
    one_error(err, f"{bad}:2: a line longer than 32 MB")


@pytest.mark.parametrize("version", ["9.9", "1.05", "1.2"])
def test_report_refuses_a_spec_version_the_kit_does_not_know(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, report_file: ReportFiles, version: str
) -> None:
    def edit(lines: list[str]) -> None:
        header = json.loads(lines[0])
        header["spec_version"] = header["selection"]["spec_version"] = version
        lines[0] = json.dumps(header) + "\n"

    bad = edited(report_file("reference"), tmp_path / "version.jsonl", edit)
    status, _, err = ppconf(capsys, "report", bad)
    assert status == 2
    one_error(err, f"{bad}:1: the run assessed ")


@pytest.mark.parametrize("version", ["1.05", "01.5", "1.5.x", "9.9"])
def test_run_refuses_a_spec_version_the_kit_does_not_know(
    capsys: pytest.CaptureFixture[str], version: str
) -> None:
    """1.05 was accepted and labelled "PromptPack 1.05"."""
    status, _, err = ppconf(capsys, "run", "--spec-version", version, *ONE)
    assert status == 2
    one_error(err, version)


# -- catalogs ------------------------------------------------------------------------------------


CASE_WITH_PACK_FILE = """\
id: workflow.test.hostile
description: a case whose pack file is hostile
area: workflow
level: 0
requirement: MUST
statements: [RFC0005.def.WorkflowState.on_event.2]
spec_versions: [">=1.5"]
rules: [X4]
pack_file: packs/p.yaml
validation: {valid: true}
"""


def catalog_with_pack_file(root: Path, make: Callable[[Path], object]) -> Path:
    (root / "workflow" / "packs").mkdir(parents=True)
    (root / "workflow" / "hostile.yaml").write_text(CASE_WITH_PACK_FILE, "utf-8")
    make(root / "workflow" / "packs" / "p.yaml")
    return root


def symlink_loop(path: Path) -> None:
    other = path.with_name("q.yaml")
    path.symlink_to(other)
    other.symlink_to(path)


@pytest.mark.parametrize(
    ("make", "reason"),
    [(fifo, "it is a FIFO (named pipe), not a file"), (symlink_loop, "it is a symlink loop")],
)
def test_a_hostile_pack_file_is_one_error(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    make: Callable[[Path], object],
    reason: str,
) -> None:
    """A FIFO pack_file hung `run` and `cases check`; a symlink loop gave a traceback."""
    root = catalog_with_pack_file(tmp_path / "catalog", make)
    status, _, err = ppconf(capsys, "run", "--catalog", root)
    assert status == 2
    one_error(err, "hostile.yaml", "/pack_file", f"cannot read pack_file 'packs/p.yaml': {reason}")
    status, out, _ = ppconf(capsys, "cases", "check", "--catalog", root, "--no-coverage")
    assert status == 1  # a problem of the catalog, among the others it may have
    assert reason in out


def test_a_symlink_loop_among_case_files_is_one_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    folder = tmp_path / "catalog" / "workflow"
    folder.mkdir(parents=True)
    symlink_loop(folder / "a.yaml")
    status, _, err = ppconf(capsys, "run", "--catalog", tmp_path / "catalog")
    assert status == 2
    one_error(err, "a.yaml", "it is a symlink loop")


@pytest.mark.parametrize("name", ["a.yml", "a.json", "a.YAML"])
def test_a_case_file_the_catalog_would_skip_is_said(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    write_catalog: Callable[[Mapping[str, str]], Path],
    case_text: Callable[..., str],
    name: str,
) -> None:
    """`.yml` and `.json` files were skipped without a word: a case silently not run."""
    root = write_catalog(
        {"workflow/ok.yaml": case_text(), f"workflow/{name}": case_text("workflow.x.y")}
    )
    status, _, err = ppconf(capsys, "cases", "list", "--catalog", root)
    assert status == 2
    one_error(err, name, "case files are named .yaml")
    # Pack files may be anything, in a packs/ folder.
    (root / "workflow" / name).rename(root / "ok-pack")
    (root / "packs").mkdir()
    (root / "ok-pack").rename(root / "packs" / name)
    assert ppconf(capsys, "cases", "list", "--catalog", root)[0] == 0


# -- outputs -------------------------------------------------------------------------------------


def test_two_reports_at_one_path_are_refused_before_the_run(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, cached_catalog: object
) -> None:
    """`--report json X --report html X` overwrote the JSON at the end."""
    path = tmp_path / "x"
    status, out, err = ppconf(
        capsys, "run", *ONE, "--report", "json", path, "--report", "html", path
    )
    assert status == 2
    assert out == ""
    one_error(err, f"--report html {path} is the file of --report json")
    assert not path.exists()


def test_an_output_is_never_an_input(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    report_file: ReportFiles,
    cached_catalog: object,
) -> None:
    """`report R --format md R` overwrote its own input."""
    report = tmp_path / "r.jsonl"
    report.write_bytes(report_file("reference").read_bytes())
    before = report.read_bytes()
    status, _, err = ppconf(capsys, "report", report, "--format", "md", report)
    assert status == 2
    one_error(err, "is the file of the report (an input)")
    assert report.read_bytes() == before
    alias = tmp_path / "alias.jsonl"
    alias.symlink_to(report)
    status, _, err = ppconf(capsys, "report", report, "--format", "md", alias)
    assert status == 2
    expected = tmp_path / "expected.yaml"
    expected.write_text("{}\n", "utf-8")
    status, _, err = ppconf(
        capsys, "run", *ONE, "--expected-failures", expected, "--write-expected-failures", expected
    )
    assert status == 2
    one_error(err, "--write-expected-failures", "is the file of --expected-failures (an input)")
    log = tmp_path / "log"
    status, _, err = ppconf(capsys, "run", *ONE, "--protocol-log", log, "--report", "json", log)
    assert status == 2


def test_a_report_that_cannot_be_written_fails_a_passing_run(
    capsys: pytest.CaptureFixture[str], cached_catalog: object
) -> None:
    """The run passed, the Markdown was not written, and the exit status said 0."""
    status, _, err = ppconf(capsys, "run", *ONE, "--report", "md", "/proc/ppconf-summary.md")
    assert status == 2
    assert "ppconf: error: cannot write the md report /proc/ppconf-summary.md: " in err
    assert err.endswith("ppconf: error: 1 output(s) asked for were not written (see above)\n")


def test_a_report_being_written_is_not_written_twice(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, cached_catalog: object
) -> None:
    """Two runs writing one report interleaved their lines without a warning."""
    path = tmp_path / "shared.jsonl"
    other = open_locked(path)  # another run, writing it
    other.write(b"the other run's line\n")
    other.flush()
    try:
        status, _, err = ppconf(capsys, "run", *ONE, "--report", "json", path)
        assert status == 2
        one_error(err, f"the json report {path} is being written by another ppconf command")
        assert path.read_bytes() == b"the other run's line\n"
    finally:
        other.close()
    assert ppconf(capsys, "run", *ONE, "--report", "json", path)[0] == 0  # free again
    assert path.read_text("utf-8").startswith('{"adapter"')


@pytest.mark.parametrize("fmt", ["md", "json"])
def test_a_report_on_stdout(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    cached_catalog: object,
    fmt: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`--report md -` wrote a file named `-`."""
    monkeypatch.chdir(tmp_path)
    status, out, err = ppconf(capsys, "run", *ONE, "--report", fmt, "-")
    assert status == 0
    assert not (tmp_path / "-").exists()
    if fmt == "md":
        assert out.startswith("# ppconf: ppconf-reference ")
    else:
        assert [json.loads(line)["type"] for line in out.splitlines()] == ["run", "part", "summary"]
    assert "headline level" in err  # the summary, out of the report's way
    status, _, err = ppconf(capsys, "run", *ONE, "--report", "md", "-", "--report", "text", "-")
    assert status == 2
    one_error(err, "both go to stdout")


@pytest.mark.parametrize(
    "args",
    [
        ("run", *ONE, "--write-expected-failures", "/proc/ppconf/expected.yaml"),
        ("run", "--adapter", "cmd:true", *ONE, "--protocol-log", "/nonexistent/x.log"),
    ],
)
def test_an_unwritable_output_is_one_error(
    capsys: pytest.CaptureFixture[str], args: tuple[str, ...], cached_catalog: object
) -> None:
    """Each gave a traceback (FileNotFoundError)."""
    status, _, err = ppconf(capsys, *args)
    assert status == 2
    one_error(err, "does not exist")


# -- bounds --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (
            ("run", "--repeat", "10000000000", *ONE),
            "argument --repeat: 10000000000 is not from 1 to 1,000",
        ),
        (("run", "--repeat", "9" * 5000, *ONE), "argument --repeat: '999999"),
        (("run", "--timeout", "1e10", *ONE), "argument --timeout: 1e10 is not a number of seconds"),
        (
            ("fuzz", "--adapter", "reference", "--examples", str(10**12)),
            "argument --examples: 1000000000000 is not from 1 to 10,000,000",
        ),
        (("fuzz", "--adapter", "reference", "--max-time", "1e300"), "argument --max-time: 1e300"),
    ],
)
def test_numbers_beyond_any_use_are_refused(
    capsys: pytest.CaptureFixture[str], args: tuple[str, ...], said: str
) -> None:
    """--timeout 1e10 made every in-process part a kit error; --repeat had no bound."""
    with pytest.raises(SystemExit) as exited:
        main(list(args))
    assert exited.value.code == 2
    assert said in capsys.readouterr().err


# -- fuzz outputs --------------------------------------------------------------------------------


@pytest.mark.usefixtures("fakes_importable")
def test_fuzz_refuses_a_database_that_is_a_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """`fuzz --database FILE` kept nothing, silently."""
    database = tmp_path / "db"
    database.write_text("a file", "utf-8")
    status, _, err = ppconf(
        capsys, "fuzz", "--adapter", "fakes:AlwaysWrong", "--examples", "5", "--database", database
    )
    assert status == 2
    one_error(err, f"--database {database} is a file: the example database is a folder")


@pytest.mark.usefixtures("fakes_importable")
def test_fuzz_refuses_an_export_folder_it_cannot_make(capsys: pytest.CaptureFixture[str]) -> None:
    """A traceback (FileNotFoundError), after the whole fuzz run."""
    status, out, err = ppconf(
        capsys, "fuzz", "--adapter", "fakes:AlwaysWrong", "--no-database", "--export", "/proc/x/y"
    )
    assert status == 2
    assert out == ""
    one_error(err, "--export /proc/x/y: cannot make the folder")


# -- serve ---------------------------------------------------------------------------------------


def test_serve_answers_an_over_deep_request_and_goes_on() -> None:
    """A 100k-deep request crashed `ppconf serve` (RecursionError)."""
    server = Server(ReferenceAdapter())
    deep = (
        b'{"id": 1, "op": "hello", "protocol": 1, "x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}\n"
    )
    reply, stop = server.answer(deep)
    assert not stop
    assert reply["ok"] is False
    assert reply["error"]["code"] == "bad-request"
    assert "nested deeper than 256" in reply["error"]["message"]
    assert server.answer(b'{"id": 2, "op": "hello", "protocol": 1}\n')[0]["ok"] is True
