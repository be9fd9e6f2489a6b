"""``pytest --ppconf-adapter=cmd:...``: the catalog as test items, run over the protocol."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from conformance import Catalog, ReferenceAdapter, Runner, compute_levels, verdicts
from conformance._basics.spec_versions import NEWEST
from conformance._judging.levels import areas_of, describe_level

pytest_plugins = ["pytester"]

RunPytest = Callable[..., pytest.RunResult]
FAKES = Path(__file__).resolve().parent / "protocol_fakes"
SERVE = "cmd:" + shlex.join([sys.executable, "-m", "conformance", "serve"])


def items(catalog: Catalog) -> int:
    return sum(len(case.parts) for case in catalog.cases)


def level_section(result: pytest.RunResult) -> list[str]:
    """The lines of the ppconf support levels section, up to the headline."""
    lines = result.outlines
    start = next(i for i, line in enumerate(lines) if "ppconf support levels" in line)
    end = next(i for i, line in enumerate(lines) if line.startswith("headline level:"))
    return lines[start + 1 : end + 1]


def reference_headline(catalog: Catalog) -> str:
    results = Runner(ReferenceAdapter(), timeout=None).run_all(catalog.cases)
    claims = ReferenceAdapter().capabilities().claims
    return describe_level(compute_levels(verdicts(results), claims=claims).headline)


def test_the_served_reference_gives_the_reference_table(
    run_pytest: RunPytest, catalog: Catalog, level_table: Callable[..., dict[str, str]]
) -> None:
    reference = run_pytest("--ppconf-adapter=reference", "-q")
    served = run_pytest(f"--ppconf-adapter={SERVE}", "--ppconf-validate-protocol", "-q")
    assert served.ret == pytest.ExitCode.OK
    served.assert_outcomes(passed=items(catalog))
    levels = level_table(served.outlines)
    assert levels["workflow"] == levels["loops"] == "2"
    assert levels["headline"] == reference_headline(catalog)
    claims = ReferenceAdapter().capabilities().claims
    assert levels["headline areas"] == ", ".join(a for a in areas_of(NEWEST) if a in claims)
    table = level_section(served)
    # the spec version, header, rule, a row per area of the spec version, headline
    assert table[0] == "spec version 1.9"
    assert len(table) == 4 + len(areas_of(NEWEST))
    assert table == level_section(reference)  # counts and claims too


def test_a_fault_fails_one_item_and_the_session_goes_on(
    run_pytest: RunPytest, catalog: Catalog, tmp_path: Path
) -> None:
    fake = [sys.executable, str(FAKES / "crash_on_third.py"), "--op", "send", "--nth", "20"]
    adapter = "cmd:" + shlex.join([*fake, "--once", str(tmp_path / "crashed")])
    result = run_pytest(f"--ppconf-adapter={adapter}", "-q", "-rf")
    result.assert_outcomes(passed=items(catalog) - 1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "errored: adapter fault: the adapter process exited (status 3) before answering "
            "'send'; adapter stderr: crash_on_third: segmentation fault in the runtime "
            "(request *, send)"
        ]
    )


def test_under_xdist_each_worker_serves_its_own(
    run_pytest_subprocess: RunPytest,
    catalog: Catalog,
    level_table: Callable[..., dict[str, str]],
    tmp_path: Path,
) -> None:
    """Two workers, an adapter process each; the controller only says hello (for the table)."""
    log = tmp_path / "ops.log"
    server = [sys.executable, str(FAKES / "fake_protocol_server.py"), "--log", str(log)]
    result = run_pytest_subprocess(f"--ppconf-adapter=cmd:{shlex.join(server)}", "-n", "2", "-q")
    assert result.ret == pytest.ExitCode.OK
    result.assert_outcomes(passed=items(catalog))
    assert level_table(result.outlines)["headline"] == reference_headline(catalog)
    ops = log.read_text(encoding="utf-8").splitlines()
    assert ops.count("hello") == 3


def test_garbage_left_at_exit_is_still_finalized(
    run_pytest_subprocess: RunPytest, pytester: pytest.Pytester, tmp_path: Path
) -> None:
    """The plugin spares the process's shutdown its walks over what is still alive, not the
    collection of garbage: an object in a reference cycle, dropped as the session ends with the
    collector off, is finalized at exit all the same."""
    finalized = tmp_path / "finalized"
    pytester.makeconftest(
        f"""
        import gc

        class Cycle:
            def __init__(self):
                self.me = self

            def __del__(self):
                open({str(finalized)!r}, "w").close()

        kept = [Cycle()]

        def pytest_unconfigure(config):
            gc.disable()  # only the collections at exit can find it now
            kept.clear()
        """
    )
    result = run_pytest_subprocess("--ppconf-adapter=reference", "--ppconf-area=loops", "-q")
    assert result.ret == pytest.ExitCode.OK
    assert finalized.exists()
