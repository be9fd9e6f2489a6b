"""Impossible claims never pass, numbers never slip through as NaN, and a report whose header
and records disagree is refused.

A runtime's hello is as hostile as its answers: a level no RFC defines, a negative one, an area
the kit does not know are refused at hello (exit 2, saying which), so that "the claimed areas
reach their claimed levels" never holds of a claim nothing could reach. A claim above the levels
the kit assesses but within the RFC's is no lie: it is judged up to what the kit assesses.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hostile import ONE, one_error, ppconf

from conformance._cli import main

HERE = Path(__file__).resolve().parent
PYTEST = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q"]


@pytest.mark.usefixtures("fakes_importable")
@pytest.mark.parametrize(
    ("fake", "said"),
    [
        ("OddClaims", "workflow Level 99999999999999999999 is not a level of RFC 0005"),
        ("ClaimsNegative", "loops Level -1 is not a level of RFC 0009; claim a level from 0"),
        ("ClaimsUnknownArea", "'x\\x1b[2J' is not an area the kit knows"),
    ],
)
def test_an_impossible_claim_is_refused_at_hello(
    capsys: pytest.CaptureFixture[str], fake: str, said: str
) -> None:
    """Workflow Level 99999999999999999999, loops -1 and an area named ``x\\x1b`` got "PASSED:
    the claimed areas reach their claimed levels"."""
    for command in (["run", *ONE], ["fuzz", "--examples", "1"]):
        status, out, err = ppconf(capsys, *command, "--adapter", f"hostile:{fake}")
        assert status == 2
        assert "PASSED" not in out
        one_error(err, "capabilities().claims: ", said)
        assert "\x1b" not in err


@pytest.mark.usefixtures("fakes_importable")
def test_a_claim_above_the_kit_within_the_rfc_is_judged(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Providers Level 3 is a level of RFC 0017 that the kit does not assess: refusing it would
    fail an honest runtime. It is judged up to the kit's Level 1."""
    report = tmp_path / "r.jsonl"
    status, _, err = ppconf(
        capsys, "run", "--adapter", "hostile:ClaimsAboveTheKit", "--area", "providers",
        "--report", "json", report,
    )  # fmt: skip
    assert status == 0, err
    assert json.loads(report.read_text("utf-8").splitlines()[0])["adapter"]["claims"] == {
        "providers": 3
    }


def test_the_plugin_refuses_an_impossible_claim(tmp_path: Path) -> None:
    done = subprocess.run(
        [*PYTEST, "--ppconf-adapter=hostile:ClaimsNegative", "--ppconf-area=loops"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"PYTHONPATH": str(HERE), "PATH": "/usr/bin:/bin"},
        check=False,
    )
    assert done.returncode == 4, done.stdout + done.stderr
    assert "loops Level -1 is not a level of RFC 0009" in done.stderr
    assert "PASSED" not in done.stdout


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "-1", "101", "1e999"])
def test_fail_under_refuses_what_is_not_a_percentage(
    capsys: pytest.CaptureFixture[str], value: str
) -> None:
    """``--fail-under nan`` never failed: no coverage is under NaN."""
    with pytest.raises(SystemExit) as stop:
        main(["coverage", f"--fail-under={value}"])
    assert stop.value.code == 2
    assert "is not a percentage from 0 to 100" in capsys.readouterr().err


# -- reports altered after they were written ----------------------------------------------------


def _lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text("utf-8").split("\n") if line]


def _write(path: Path, lines: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), "utf-8")
    return path


@pytest.fixture(scope="module")
def whole(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("whole") / "whole.jsonl"
    assert main(["run", "--area", "workflow", "--report", "json", str(path)]) in (0, 1)
    return path


def test_compare_refuses_a_report_with_parts_removed(
    capsys: pytest.CaptureFixture[str], whole: Path, tmp_path: Path
) -> None:
    """NEW-23: 50 parts removed from a report's header and records, its catalog hash kept,
    compared as "50 removed cases", exit 0."""
    lines = _lines(whole)
    header, records, summary = lines[0], lines[1:-1], lines[-1]
    gone = {(r["case"], r["part"]) for r in records[:50]}
    parts = [p for p in header["parts"] if (p[0], p[1]) not in gone]  # type: ignore[attr-defined]
    tampered = _write(
        tmp_path / "tampered.jsonl", [{**header, "parts": parts}, *records[50:], summary]
    )
    for old, new in ((whole, tampered), (tampered, whole)):
        status, out, err = ppconf(capsys, "compare", old, new)
        assert status == 2
        assert out == ""
        one_error(err, "tampered.jsonl: ", "the report was altered after it was written")


@pytest.mark.parametrize("how", ["a record not in the header", "a summary's counts"])
def test_a_report_whose_header_and_records_disagree_is_refused(
    capsys: pytest.CaptureFixture[str], whole: Path, tmp_path: Path, how: str
) -> None:
    lines = _lines(whole)
    if how == "a record not in the header":
        lines[1] = {**lines[1], "part": "invented"}
    else:
        counts = dict(lines[-1]["counts"])  # type: ignore[call-overload]
        counts["failed"] += 3
        lines[-1] = {**lines[-1], "counts": counts}
    altered = _write(tmp_path / "altered.jsonl", lines)
    status, _, err = ppconf(capsys, "report", altered)
    assert status == 2
    one_error(err, "the report was altered after it was written")


def test_compare_refuses_two_reports_of_one_catalog_listing_different_parts(
    capsys: pytest.CaptureFixture[str], whole: Path, tmp_path: Path
) -> None:
    """The header's case count altered too: each report is consistent alone, not together."""
    lines = _lines(whole)
    header = lines[0]
    parts = header["parts"][:-1]  # type: ignore[index]
    last_case = header["parts"][-1][0]  # type: ignore[index]
    whole_cases = len({p[0] for p in parts})
    catalog = {**header["catalog"], "cases": whole_cases}  # type: ignore[dict-item]
    records = [r for r in lines[1:-1] if [r["case"], r["part"]] in parts]
    summary = lines[-1]
    altered = _write(
        tmp_path / "altered.jsonl",
        [{**header, "parts": parts, "catalog": catalog}, *records],
    )
    assert last_case
    status, out, _ = ppconf(capsys, "compare", whole, altered, "--allow", "unfinished")
    assert status == 1
    assert "list different parts" in out
    assert summary
