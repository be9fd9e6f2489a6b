"""``--ppconf-catalog``: a catalog folder of one's own instead of the built-in one."""

from __future__ import annotations

import pickle
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from conformance._catalog.cases import load_catalog

pytest_plugins = ["pytester"]

RunPytest = Callable[..., pytest.RunResult]


def test_a_catalog_of_ones_own(
    write_catalog: Callable[[Mapping[str, str]], Path],
    case_text: Callable[..., str],
    run_pytest: RunPytest,
    level_table: Callable[..., dict[str, str]],
) -> None:
    root = write_catalog(
        {
            "workflow/a.yaml": case_text("workflow.mine.a", level=0, body="load: true\n"),
            "loops/b.yaml": case_text("loops.mine.b", level=1),
        }
    )
    collected = run_pytest(
        "--ppconf-adapter=reference", f"--ppconf-catalog={root}", "--collect-only", "-q"
    )
    assert {line.removeprefix("::") for line in collected.outlines if "ppconf::" in line} == {
        "ppconf::workflow.mine.a::load",
        "ppconf::loops.mine.b::submit",
    }
    result = run_pytest("--ppconf-adapter=reference", f"--ppconf-catalog={root}")
    result.assert_outcomes(passed=2)
    assert level_table(result.outlines) == {
        "workflow": "0",
        "loops": "1",
        "compositions": "not assessed",
        "control": "not assessed",
        "state-agents": "not assessed",
        "extensions": "not assessed",
        "providers": "not assessed",
        "headline": "0",
        # what the reference claims
        "headline areas": "workflow, loops, compositions, control, state-agents, extensions, "
        "providers",
    }


def test_a_broken_catalog_is_a_usage_error_naming_the_file(
    write_catalog: Callable[[Mapping[str, str]], Path], run_pytest: RunPytest
) -> None:
    root = write_catalog({"workflow/bad.yaml": "id: workflow.bad\n"})
    result = run_pytest("--ppconf-adapter=reference", f"--ppconf-catalog={root}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [f"ERROR: ppconf: {root / 'workflow' / 'bad.yaml'}:1:1 at /: field /: *"]
    )


def test_a_catalog_needs_an_adapter(tmp_path: Path, run_pytest: RunPytest) -> None:
    result = run_pytest(f"--ppconf-catalog={tmp_path}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: ppconf: --ppconf-catalog needs --ppconf-adapter"])


def test_xdist_workers_take_the_controllers_catalog_and_leave_no_file(
    write_catalog: Callable[[Mapping[str, str]], Path],
    case_text: Callable[..., str],
    run_pytest_subprocess: RunPytest,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    root = write_catalog(
        {
            "workflow/a.yaml": case_text("workflow.mine.a", level=0, body="load: true\n"),
            "loops/b.yaml": case_text("loops.mine.b", level=1),
        }
    )
    handed = tmp_path / "handed"
    handed.mkdir()
    monkeypatch.setenv("TMPDIR", str(handed))  # where the controller writes what it hands
    result = run_pytest_subprocess(
        "--ppconf-adapter=reference", f"--ppconf-catalog={root}", "-n", "2"
    )
    result.assert_outcomes(passed=2)
    assert list(handed.iterdir()) == []


def test_a_session_reads_back_the_catalog_an_earlier_one_kept_in_pytests_cache(
    write_catalog: Callable[[Mapping[str, str]], Path],
    case_text: Callable[..., str],
    pytester: pytest.Pytester,
    tmp_path: Path,
) -> None:
    root = write_catalog({"workflow/a.yaml": case_text("workflow.mine.a", body="load: true\n")})
    own = ("-p", "no:hypothesispytest", "-p", "no:syrupy")  # pytest's cache on
    args = (*own, "--ppconf-adapter=reference", f"--ppconf-catalog={root}", "--co", "-q")
    assert "ppconf::workflow.mine.a::load" in pytester.runpytest(*args).stdout.str()
    [kept] = (pytester.path / ".pytest_cache" / "d" / "ppconf-catalog").iterdir()
    # What the next session finds there is what it runs: another catalog, under the same key.
    other = tmp_path / "other"
    (other / "workflow").mkdir(parents=True)
    (other / "workflow" / "b.yaml").write_text(case_text("workflow.mine.b", body="load: true\n"))
    kept.write_bytes(pickle.dumps(load_catalog(other)))
    assert "ppconf::workflow.mine.b::load" in pytester.runpytest(*args).stdout.str()
    # An edited case file is another key: loaded afresh.
    (root / "workflow" / "a.yaml").write_text(case_text("workflow.mine.c", body="load: true\n"))
    assert "ppconf::workflow.mine.c::load" in pytester.runpytest(*args).stdout.str()
