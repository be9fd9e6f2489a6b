"""Adapter faults over the protocol: each fake program in ``protocol_fakes/`` breaks it once.

Every fake is the reference behind the protocol until one chosen request (see
``protocol_fakes/fake_protocol_server.py``). Which case part sends that request is read off a
well-behaved run of the same server that logs every request (``traffic``), so each test knows
exactly which part must end ``errored`` and why; every other case must end exactly as it does
against the in-process reference, and the JSON report must still have one line per case.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import conformance._protocol.connection
from conformance import (
    Case,
    CaseResult,
    Catalog,
    PartResult,
    ReferenceAdapter,
    Runner,
)
from conformance._basics.errors import AdapterFault
from conformance._cli import main
from conformance._judging.runner import OUTCOMES, worst
from conformance._protocol import SubprocessAdapter

pytestmark = pytest.mark.usefixtures("cached_catalog")

FAKES = Path(__file__).resolve().parent / "protocol_fakes"
Outcomes = tuple[str, tuple[tuple[str, str], ...]]  # case outcome, (part, outcome) per part


def command(fake: str, *args: object) -> list[str]:
    """The command line running ``protocol_fakes/FAKE.py ARGS``."""
    return [sys.executable, str(FAKES / f"{fake}.py"), *map(str, args)]


def spec(fake: str, *args: object) -> str:
    return "cmd:" + shlex.join(command(fake, *args))


def outcomes(result: CaseResult) -> Outcomes:
    return result.outcome, tuple((p.part, p.outcome) for p in result.parts)


def id_options(cases: Iterable[Case]) -> list[str]:
    return [arg for case in cases for arg in ("--id", case.id)]


@pytest.fixture(scope="module")
def baseline(catalog: Catalog) -> dict[str, Outcomes]:
    """Case id -> outcomes, against the in-process reference."""
    runner = Runner(ReferenceAdapter(), timeout=None)
    return {result.case.id: outcomes(result) for result in runner.run_all(catalog.cases)}


@dataclass(frozen=True)
class Sent:
    """One request of a well-behaved run: its number in the process, op, case and part."""

    number: int
    op: str
    case: str
    part: str


@pytest.fixture(scope="module")
def traffic(catalog: Catalog, tmp_path_factory: pytest.TempPathFactory) -> list[Sent]:
    """Every request the catalog makes, in order, with the part that makes it."""
    log = tmp_path_factory.mktemp("traffic") / "ops.log"
    log.touch()
    adapter = SubprocessAdapter(command("fake_protocol_server", "--log", log))
    runner = Runner(adapter)
    sent: list[Sent] = []
    try:
        for case in catalog.cases:
            for part in case.parts:
                assert runner.run_part(case, part).outcome == "passed", (case.id, part)
                ops = log.read_text(encoding="utf-8").splitlines()
                sent.extend(
                    Sent(number, op, case.id, part)
                    for number, op in enumerate(ops[len(sent) :], start=len(sent) + 1)
                )
    finally:
        adapter.close()
    assert [s.op for s in sent].count("hello") == 1  # one process throughout
    return sent


@dataclass
class Run:
    """What ``ppconf run`` did: exit status, output, the JSON report's records, wall time."""

    status: int
    out: str
    err: str
    records: list[dict[str, Any]]
    seconds: float

    @property
    def parts(self) -> list[dict[str, Any]]:
        """The report's part records, in the order they ran."""
        return [r for r in self.records if r["type"] == "part"]

    @property
    def cases(self) -> list[dict[str, Any]]:
        """The part records grouped by case, in the order the cases ran: ``id``, ``outcome``
        (the worst of its parts'), ``parts``."""
        grouped: dict[str, list[dict[str, Any]]] = {}
        for record in self.parts:
            grouped.setdefault(record["case"], []).append(record)
        return [
            {"id": case, "outcome": worst(p["outcome"] for p in parts), "parts": parts}
            for case, parts in grouped.items()
        ]

    def message(self, case: str, part: str) -> str:
        record = next(r for r in self.cases if r["id"] == case)
        return str(next(p for p in record["parts"] if p["part"] == part)["message"])

    def outcomes(self) -> dict[str, Outcomes]:
        return {
            r["id"]: (r["outcome"], tuple((p["part"], p["outcome"]) for p in r["parts"]))
            for r in self.cases
        }


@dataclass
class Kit:
    """Runs fakes through ``ppconf run`` and checks the results against the reference's."""

    capsys: pytest.CaptureFixture[str]
    tmp_path: Path
    catalog: Catalog
    baseline: dict[str, Outcomes]
    traffic: list[Sent]

    @property
    def once(self) -> list[str]:
        """``--once MARKER``: the fake misbehaves once in this test."""
        return ["--once", str(self.tmp_path / "misbehaved")]

    def nth(self, op: str, n: int) -> Sent:
        """The Nth request of ``op`` (``any``: of any op) in the well-behaved run."""
        matching = [s for s in self.traffic if op in ("any", s.op)]
        assert len(matching) >= n, f"the catalog sends only {len(matching)} {op} requests"
        return matching[n - 1]

    def count(self, op: str) -> int:
        return sum(s.op == op for s in self.traffic)

    def run(self, adapter: str, *args: str, timeout: float = 10) -> Run:
        report = self.tmp_path / "report.jsonl"
        report.unlink(missing_ok=True)
        argv = ["run", "--adapter", adapter, "--timeout", str(timeout)]
        started = time.perf_counter()
        status = main([*argv, "--report", "json", str(report), *args])
        seconds = time.perf_counter() - started
        captured = self.capsys.readouterr()
        records = (
            [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()]
            if report.exists()
            else []
        )
        return Run(status, captured.out, captured.err, records, seconds)

    def expected(
        self, cases: Iterable[Case] | None = None, errored: Iterable[tuple[str, str]] = ()
    ) -> dict[str, Outcomes]:
        """The reference's outcomes of ``cases`` (default all), the ``errored`` parts errored."""
        broken = set(errored)
        expected = {}
        for case in self.catalog.cases if cases is None else cases:
            parts = tuple(
                PartResult(part, "errored" if (case.id, part) in broken else outcome)  # type: ignore[arg-type]
                for part, outcome in self.baseline[case.id][1]
            )
            expected[case.id] = outcomes(CaseResult(case, parts))
        return expected

    def assert_complete_report(self, run: Run, expected: Mapping[str, Outcomes]) -> None:
        """A run line, one line per case part in catalog order, and a summary with the counts."""
        parts = sum(len(self.baseline[case][1]) for case in expected)
        assert [r["type"] for r in run.records] == ["run"] + ["part"] * parts + ["summary"]
        assert [r["id"] for r in run.cases] == list(expected)
        counts = dict.fromkeys(OUTCOMES, 0)
        for outcome, _ in expected.values():
            counts[outcome] += 1
        assert run.records[-1]["counts"] == counts
        assert run.outcomes() == expected

    def assert_one_fault(self, run: Run, at: Sent, *reasons: str) -> None:
        """Exactly the part that sent ``at`` is errored, with every reason in its message."""
        assert at.op != "close", "a fault on close does not show (the kit ignores close errors)"
        self.assert_complete_report(run, self.expected(errored=[(at.case, at.part)]))
        message = run.message(at.case, at.part)
        assert message.startswith("adapter fault: ")
        for reason in reasons:
            assert reason in message
        assert run.status == 1
        assert f"ERRORED {at.case} [{at.part}]" in run.out.splitlines()[0]


@pytest.fixture
def kit(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    catalog: Catalog,
    baseline: dict[str, Outcomes],
    traffic: list[Sent],
) -> Kit:
    return Kit(capsys, tmp_path, catalog, baseline, traffic)


def some_cases(catalog: Catalog, per_area: int) -> list[Case]:
    """The first cases of each area, a restoring and a validating one: in catalog order."""
    chosen = {
        c.id
        for area in ("workflow", "loops", "compositions")
        for c in [c for c in catalog.cases if c.area == area][:per_area]
    }
    chosen.add(
        next(
            c.id
            for c in catalog.cases
            if any(step.kind == "snapshot_restore" for s in c.scenarios for step in s.steps)
        )
    )
    chosen.add(next(c.id for c in catalog.cases if c.validation is not None))
    return [c for c in catalog.cases if c.id in chosen]


# -- the process dies ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("op", "which"),
    [("start", "middle"), ("send", "middle"), ("state", "first"), ("validate", "last")],
)
def test_a_crash_errors_that_part_only(kit: Kit, op: str, which: str) -> None:
    """The crash's exit status and last words on stderr are in the message; the run goes on."""
    n = {"first": 1, "middle": kit.count(op) // 2, "last": kit.count(op)}[which]
    at = kit.nth(op, n)
    run = kit.run(spec("crash_on_third", "--op", op, "--nth", n, *kit.once))
    kit.assert_one_fault(
        run,
        at,
        f"the adapter process exited (status 3) before answering {op!r}",
        f"; adapter stderr: crash_on_third: segmentation fault in the runtime "
        f"(request {at.number}, {op})",
    )


def test_the_default_crash_is_on_the_third_request(kit: Kit) -> None:
    at = kit.nth("any", 3)
    run = kit.run(spec("crash_on_third", *kit.once))
    kit.assert_one_fault(run, at, f"before answering {at.op!r}", f"(request 3, {at.op})")


def test_a_process_that_crashes_every_time_errors_every_part(kit: Kit) -> None:
    """No ``--once``: each fresh process dies on its first request after hello; nothing is lost.

    Each part gets a fresh process, whose own last words (not the previous one's) are reported.
    """
    cases = some_cases(kit.catalog, 2)
    run = kit.run(spec("crash_on_third", "--op", "any", "--nth", 2), *id_options(cases))
    errored = [(case.id, part) for case in cases for part in case.parts]
    kit.assert_complete_report(run, kit.expected(cases, errored))
    for case_id, part in errored:
        assert re.fullmatch(
            r"adapter fault: the adapter process exited \(status 3\) before answering '(\w+)'; "
            r"adapter stderr: crash_on_third: segmentation fault in the runtime "
            r"\(request 2, \1\)",
            run.message(case_id, part),
        ), run.message(case_id, part)


# -- the process hangs --------------------------------------------------------------------------

HANG_TIMEOUT = 5.0
"""Short, but longer than a fresh process takes to say hello on a busy machine (about 1 s): the
timeout bounds the hello of the process started after the fault too."""


def test_a_hang_is_cut_off_at_the_timeout(kit: Kit) -> None:
    at = kit.nth("validate", 1)
    run = kit.run(spec("hangs", *kit.once), timeout=HANG_TIMEOUT)
    kit.assert_one_fault(
        run,
        at,
        f"no answer to 'validate' within {HANG_TIMEOUT:g} s (hung?)",
        f"; adapter stderr: hangs: waiting forever (request {at.number}, validate)",
    )
    # One timeout, not one per remaining case. Not a speed target: the small catalog runs in
    # well under a second, so twelve timeouts' worth leaves a busy machine most of a minute.
    assert run.seconds < 12 * HANG_TIMEOUT


def test_a_hang_in_the_middle_of_a_scenario(kit: Kit) -> None:
    n = kit.count("state") // 2
    at = kit.nth("state", n)
    run = kit.run(spec("hangs", "--op", "state", "--nth", n, *kit.once), timeout=HANG_TIMEOUT)
    kit.assert_one_fault(run, at, f"no answer to 'state' within {HANG_TIMEOUT:g} s (hung?)")


# -- the process writes what it must not --------------------------------------------------------


def test_a_line_that_is_not_json(kit: Kit) -> None:
    at = kit.nth("start", 3)
    run = kit.run(spec("not_json", *kit.once))
    kit.assert_one_fault(
        run,
        at,
        "stray or malformed output on stdout: not JSON",
        "'{this is not json: answer=42'",
        f"; adapter stderr: not_json: answering with garbage (request {at.number}, start)",
    )


def test_an_answer_with_the_wrong_id(kit: Kit) -> None:
    at = kit.nth("send", 3)
    run = kit.run(spec("wrong_id", *kit.once))
    kit.assert_one_fault(
        run,
        at,
        f"the answer to request {at.number} ('send') carries id {at.number + 1000}",
        f"; adapter stderr: wrong_id: answering with id {at.number + 1000}",
    )


def test_a_log_line_on_stdout(kit: Kit) -> None:
    """The correct answer follows the stray line, but the line is what the kit reads first."""
    at = kit.nth("start", 5)
    run = kit.run(spec("stray_stdout", *kit.once))
    kit.assert_one_fault(
        run,
        at,
        "stray or malformed output on stdout",
        "'INFO runtime: creating a session'",
        f"; adapter stderr: stray_stdout: logging to stdout (request {at.number}, start)",
    )


def test_a_second_answer_errors_the_part_that_got_it(kit: Kit) -> None:
    """Written with the first, the second answer is noticed at once: the right part errors."""
    at = kit.nth("state", 2)
    run = kit.run(spec("answers_twice", *kit.once))
    kit.assert_one_fault(
        run,
        at,
        f"a stray line after the answer to 'state' (request {at.number}): "
        f'\'{{"id":{at.number},"ok":true,"state":{{',
        f"; adapter stderr: answers_twice: answering twice (request {at.number}, state)",
    )


def test_a_late_second_answer_names_the_request_it_follows(kit: Kit) -> None:
    """Written only when the next request comes, it is noticed there: that part errors, and
    the message names the request that was answered twice."""
    n, at = next(
        (n, s)
        for n in range(2, kit.count("state"))
        if (s := kit.nth("state", n)) and kit.traffic[s.number].op != "close"
    )
    following = kit.traffic[at.number]  # numbers count from 1: this is the next request
    run = kit.run(spec("answers_twice", "--late", "--nth", n, *kit.once))
    kit.assert_one_fault(
        run,
        following,
        f"a stray line after the previous answer to 'state' (request {at.number}): ",
        f"; adapter stderr: answers_twice: answering twice (request {at.number}, state)",
    )


def test_nan_in_an_answer_is_not_json(kit: Kit) -> None:
    at = kit.nth("state", 1)
    run = kit.run(spec("nan_answer", *kit.once))
    kit.assert_one_fault(
        run,
        at,
        "stray or malformed output on stdout: not JSON: NaN is not a JSON value: ",
        f"; adapter stderr: nan_answer: answering with NaN (request {at.number}, state)",
    )


CAP = 256 * 1024


@pytest.mark.parametrize("validate", [[], ["--validate-protocol"]])
def test_a_line_over_the_cap(
    kit: Kit, monkeypatch: pytest.MonkeyPatch, validate: list[str]
) -> None:
    """The answer is correct JSON (padded with spaces), one byte longer than the cap allows."""
    monkeypatch.setattr(conformance._protocol.connection, "MAX_LINE_BYTES", CAP)
    at = kit.nth("state", 2)
    run = kit.run(spec("huge_line", "--bytes", CAP + 1, *kit.once), *validate)
    kit.assert_one_fault(
        run,
        at,
        f"a response line is longer than {CAP:,} bytes",
        f"; adapter stderr: huge_line: answering with a line of {CAP + 1} bytes",
    )


def test_a_line_at_the_cap_is_fine(kit: Kit, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(conformance._protocol.connection, "MAX_LINE_BYTES", CAP)
    cases = some_cases(kit.catalog, 3)
    adapter = spec("huge_line", "--bytes", CAP, "--op", "any", "--nth", 3)
    run = kit.run(adapter, "--validate-protocol", *id_options(cases))
    kit.assert_complete_report(run, kit.expected(cases))
    assert run.status == 0


def test_the_fake_really_writes_beyond_the_default_cap() -> None:
    """Without --bytes, huge_line's line is over the real 16 MiB cap (not only a patched one)."""
    hello = b'{"id":1,"op":"hello","protocol":1}\n'
    done = subprocess.run(
        command("huge_line", "--op", "hello", "--nth", 1),
        input=hello,
        capture_output=True,
        check=True,
    )
    [line] = done.stdout.splitlines(keepends=True)
    assert len(line) > conformance._protocol.connection.MAX_LINE_BYTES == 16 * 1024 * 1024
    assert json.loads(line)["protocol"] == 1


# -- the process speaks another protocol --------------------------------------------------------


def test_a_newer_protocol_makes_the_run_unusable(kit: Kit) -> None:
    run = kit.run(spec("bad_hello"))
    assert run.status == 2
    assert run.err.startswith(
        "ppconf: error: the adapter failed to describe itself: AdapterFault: "
        "the adapter speaks protocol 2, not 1; "
        "adapter stderr: bad_hello: speaking protocol 2 (request 1, hello)"
    )
    assert run.records == []


def test_a_newer_protocol_errors_parts_until_the_adapter_gives_up(catalog: Catalog) -> None:
    """Straight through the adapter (no hello first): each part starts a fresh process, three
    times; then the adapter gives up, starting no other."""
    cases = some_cases(catalog, 2)
    adapter = SubprocessAdapter(command("bad_hello"), timeout=5)
    reason = (
        "the adapter speaks protocol 2, not 1; "
        "adapter stderr: bad_hello: speaking protocol 2 (request 1, hello)"
    )
    errors = []
    try:
        for case in cases:
            try:
                adapter.load(case.pack)
            except AdapterFault as fault:
                errors.append((type(fault).__name__, str(fault)))
    finally:
        adapter.close()
    gave_up = f"gave up on the adapter after 3 failed starts in a row; the last: {reason}"
    assert errors == [("AdapterFault", reason)] * 2 + [("AdapterGaveUp", gave_up)] * (
        len(cases) - 2
    )


# -- slow is not broken -------------------------------------------------------------------------


def test_slow_but_correct_passes_everything(kit: Kit) -> None:
    """50 ms per answer, well within the limit per request: as good as the reference."""
    cases = some_cases(kit.catalog, 2)
    run = kit.run(spec("slow_but_correct"), "--validate-protocol", *id_options(cases), timeout=3)
    kit.assert_complete_report(run, kit.expected(cases))
    assert run.status == 0
    assert run.seconds > sum(len(c.parts) for c in cases) * 0.05  # the delay did happen


def test_a_timeout_applies_to_each_request_not_the_part(kit: Kit) -> None:
    """Parts of many requests take longer than the timeout in all, and still pass."""
    long = [c for c in kit.catalog.cases if c.scenarios and len(c.scenarios[0].steps) >= 6][:2]
    assert len(long) == 2
    adapter = SubprocessAdapter(command("slow_but_correct", "--delay", 0.1), timeout=10)
    try:
        adapter.capabilities()  # start-up and hello, which a busy machine may make slow
        adapter.client.timeout = 0.5
        results = Runner(adapter).run_all(long)
    finally:
        adapter.close()
    assert {r.case.id: outcomes(r) for r in results} == kit.expected(long)
    scenario_parts = [p for r in results for p in r.parts if p.part not in ("load", "validation")]
    assert scenario_parts
    assert all(p.duration > adapter.client.timeout for p in scenario_parts)


# -- a session of a dead process ----------------------------------------------------------------


def test_a_fault_mid_scenario_starts_one_fresh_process(kit: Kit) -> None:
    n = kit.count("send") // 2
    at = kit.nth("send", n)
    log = kit.tmp_path / "ops.log"
    run = kit.run(spec("crash_on_third", "--op", "send", "--nth", n, *kit.once, "--log", log))
    kit.assert_one_fault(run, at, "before answering 'send'")
    ops = log.read_text(encoding="utf-8").splitlines()
    assert ops[: at.number] == [s.op for s in kit.traffic[: at.number]]
    after = ops[at.number :]
    assert after.count("hello") == 1, after[:4]  # one fresh process for the rest of the run
    assert after[1] != "close"  # the dead process's session is not closed in the new one
