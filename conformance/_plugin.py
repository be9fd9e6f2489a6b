"""The ppconf pytest plugin: the catalog as test items, and support levels in the summary.

Registered through the ``pytest11`` entry point and inert unless ``--ppconf-adapter`` is given.
Each case part (``load``, ``validation``, each scenario) is one test item with markers for its
area (``ppconf_workflow``), level (``ppconf_level_2``) and requirement (``ppconf_must``). With
``--ppconf-items case`` or ``area`` an item runs the parts of a whole case, or of a whole area
(with its area's marker only): fewer items, for a runtime faster than pytest's own handling of
an item.

Each item carries its part's record (outcome and checks) to the session, across pytest-xdist
workers, and the session is judged exactly as ``ppconf run`` judges a run: the same verdicts,
levels and exit rules (a skipped part does not pass; a required level is not met on a partial
selection, such as one narrowed with ``-k`` or ``-m``). Items report what each part did; the
session's exit status is the run's verdict when only catalog parts failed, so a failing part of
an unclaimed area, or one below a required level that is met, leaves the session green.

A stop signal (SIGINT, SIGTERM, SIGHUP; see :mod:`conformance._basics.stopping`) stops the session
as it stops ``ppconf run``: after the item running, the reports written as an unfinished run, the
adapter's process group killed, exit status 128 + the signal.
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import json
import os
import pickle
import random
import sys
import tempfile
import warnings
from collections.abc import Generator, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from conformance._basics.areas import AREAS
from conformance._basics.errors import AdapterError, AdapterGaveUp, CaseError, KitError
from conformance._basics.spec_versions import SpecVersionError, check_target
from conformance._basics.stopping import STOP, signal_name, stop_signals
from conformance._basics.text import terminal
from conformance._catalog.cases import Case, Catalog, Selection, load_catalog
from conformance._catalog.expected_failures import ExpectedFailure, load_expected_failures
from conformance._catalog.stored import stored_catalog
from conformance._judging.explain import failure_lines
from conformance._judging.levels import describe_level
from conformance._judging.records import PartRecord, Report, RunHeader
from conformance._judging.runner import Runner
from conformance._judging.verdicts import Judgement, judge_report
from conformance._options import RUN_OPTIONS, add_run_option
from conformance._plugin_settings import add_settings, apply_settings
from conformance._report.jsonl import JsonLinesWriter
from conformance._report.outputs import OutputError, check_outputs, write_output
from conformance._report.text import render_findings, render_levels
from conformance._report.views import VIEWS, render_view
from conformance._runtime.adapter import Capabilities
from conformance._runtime.adapter_spec import REFERENCE, load_adapter
from conformance._runtime.boundary import refusing_exit

if TYPE_CHECKING:
    from hypothesis.database import ExampleDatabase

__all__ = [
    "CaseFailure",
    "CaseItem",
    "CatalogCollector",
    "FuzzItem",
    "GroupItem",
    "pytest_addoption",
    "pytest_configure",
]

_STATE = pytest.StashKey["_PluginState"]()
_RECORD = "ppconf_record"
"""The attribute of an item's call report that carries its parts' records from an xdist worker to
the controller: the JSON text of their list, which xdist sends as one string (as nested data it
sent every key and value on its own). Only the call report has it: the setup and teardown reports
do not repeat it, and a serial session keeps the records themselves, with no text made or read."""


def pytest_addoption(parser: pytest.Parser) -> None:
    """Add the ``--ppconf-*`` options, in their own group, and their settings-file lines
    (``ppconf_adapter = ...``); an option's default is applied by :func:`apply_settings`."""
    group = parser.getgroup("ppconf", "PromptPack workflow conformance (ppconf)")
    for option in RUN_OPTIONS:
        if option.plugin:
            add_run_option(group, option.dest, prefix="ppconf-")
    add_settings(parser)


class _PluginState:
    """What the plugin keeps for one session."""

    def __init__(self, config: pytest.Config) -> None:
        option = config.option
        self.adapter_spec: str = option.ppconf_adapter
        try:
            version = check_target(option.ppconf_spec_version)
        except SpecVersionError as error:
            raise pytest.UsageError(f"ppconf: --ppconf-spec-version: {error}") from None
        self.selection = Selection(spec_version=version, areas=tuple(option.ppconf_area))
        self.require_level: int | None = option.ppconf_require_level
        self.strict: bool = option.ppconf_strict
        if self.require_level is not None and self.selection.partial:
            raise pytest.UsageError(
                "ppconf: --ppconf-require-level judges the whole catalog of a spec version; "
                "drop --ppconf-area (a partial selection certifies nothing)"
            )
        timeout = option.ppconf_timeout
        self.timeout: float = timeout
        self.fuzz: int | None = option.ppconf_fuzz
        self.items: str = option.ppconf_items
        if self.fuzz is not None and self.items != "part":
            raise pytest.UsageError(
                "ppconf: --ppconf-items groups the catalog's parts; --ppconf-fuzz runs no "
                "catalog: drop one of them"
            )
        self.fuzz_database: ExampleDatabase | None = (
            _fuzz_database(option.ppconf_fuzz_database, config.rootpath)
            if self.fuzz is not None and option.ppconf_fuzz_database
            else None
        )
        for fmt, _ in option.ppconf_report:
            if fmt != "json" and fmt not in VIEWS:
                raise pytest.UsageError(
                    f"ppconf: --ppconf-report {fmt}: use one of json, {', '.join(VIEWS)}"
                )
        inputs = [("--ppconf-expected-failures", option.ppconf_expected_failures or "")]
        try:
            check_outputs([(f"--ppconf-report {f}", p) for f, p in option.ppconf_report], inputs)
        except OutputError as error:
            raise pytest.UsageError(f"ppconf: {error}") from None
        try:
            # Fuzzing runs no case: the catalog is not loaded.
            self.catalog: Catalog = (
                Catalog(Path(), ())
                if self.fuzz is not None
                else _handed_catalog(config) or _load_catalog(config)
            )
            self.expected: dict[str, ExpectedFailure] = (
                load_expected_failures(
                    option.ppconf_expected_failures, [c.id for c in self.catalog.cases]
                )
                if option.ppconf_expected_failures
                else {}
            )
        except CaseError as error:
            raise pytest.UsageError(f"ppconf: {error}") from None
        # Loaded now, so a bad spec is a usage error before anything runs (each xdist worker
        # loads its own).
        try:
            adapter = load_adapter(
                self.adapter_spec,
                timeout=timeout,
                validate_protocol=option.ppconf_validate_protocol,
            )
        except KitError as error:
            raise pytest.UsageError(f"ppconf: {error}") from None
        self.runner = Runner(adapter, timeout=timeout, repeat=option.ppconf_repeat)
        self.reports: list[tuple[str, str]] = [(fmt, path) for fmt, path in option.ppconf_report]
        self.records: dict[tuple[str, str], PartRecord] = {}
        self.other_failures = 0  # failed tests of the session that are not catalog parts
        self.report: Report | None = None
        self.judgement: Judgement | None = None
        self.unwritten = 0  # reports asked for that could not be written
        self.stop_signal: int | None = None  # the stop signal that ended the session, if any
        self.handed: Path | None = None  # the catalog as handed to xdist workers (see below)
        self._header: RunHeader | None = None
        self.streams: list[JsonLinesWriter] = []  # the JSON reports, written as parts end
        self.broken = False  # a report could not be written: the session stops, judging nothing

    def hand_catalog(self) -> str:
        """The catalog, pickled once into a private file for the xdist workers: each reads it
        in a twentieth of the time parsing the case files takes (the controller parsed and
        checked them already)."""
        if self.handed is None:
            descriptor, name = tempfile.mkstemp(prefix="ppconf-catalog-", suffix=".pickle")
            with os.fdopen(descriptor, "wb") as out:
                pickle.dump(self.catalog, out, protocol=pickle.HIGHEST_PROTOCOL)
            self.handed = Path(name)
        return str(self.handed)

    def drop_handed(self) -> None:
        if self.handed is not None:
            self.handed.unlink(missing_ok=True)
            self.handed = None

    def capabilities(self) -> Capabilities:
        try:
            return self.runner.guard.capabilities()
        except AdapterError as error:  # impossible claims too: nothing could be judged
            raise pytest.UsageError(f"ppconf: {error}") from None

    def header(self) -> RunHeader:
        """The run's header, made once (the streamed report starts with it)."""
        if self._header is None:
            self._header = RunHeader.of(
                self.adapter_spec,
                self.capabilities(),
                self.catalog,
                self.selection,
                repeat=self.runner.repeat,
                expected_failures=self.expected,
                require_level=self.require_level,
                strict=self.strict,
            )
        return self._header

    def open_streams(self) -> None:
        """Start each JSON report asked for with the run's header: the records follow as the
        parts end (as ``ppconf run`` streams its report), so a session that dies leaves every
        part it finished.

        Raises:
            OutputError: a report cannot be written (the others are closed).
        """
        for fmt, path in self.reports:
            if fmt != "json":
                continue
            try:
                self.streams.append(JsonLinesWriter(path, self.header()))
            except OutputError:
                self.close_streams()
                raise

    def close_streams(self) -> None:
        for writer in self.streams:
            writer.close()
        self.streams = []

    def keep(self, record: PartRecord) -> bool:
        """Keep a part's record, and stream it to the JSON reports; ``False`` when one of them
        could not be written (said on stderr): the session must stop, as ``ppconf run`` does."""
        key = (record.case, record.part)
        first = key not in self.records
        self.records[key] = record
        if not first:  # the same part run again (as a plugin that reruns failed tests does)
            return True
        try:
            for writer in self.streams:
                writer.add(record)
        except OutputError as error:
            self.lost(error)
            return False
        return True

    def lost(self, error: OutputError) -> None:
        """A report could not be written: the kit's fault, never the runtime's. Said once; the
        session ends with a usage error and no JSON report gets a summary."""
        print(f"ppconf: error: {error}", file=sys.stderr)
        self.unwritten += 1
        self.close_streams()
        self.broken = True

    def finish(self, *, complete: bool = True) -> None:
        """Judge the session from the records gathered, and write the reports.

        Arguments:
            complete: whether the session ran to its end (an interrupted one gets no summary).
        """
        header = self.header()
        order = {part: index for index, part in enumerate(header.parts)}
        records = sorted(
            self.records.values(), key=lambda r: order.get((r.case, r.part), len(order))
        )
        complete = complete and not self.broken
        self.report = Report(header, tuple(records), complete=complete)
        self.judgement = judge_report(self.report)
        try:
            for writer in self.streams:
                if complete:
                    writer.finish(self.report)
        except OutputError as error:
            self.lost(error)
        self.close_streams()
        if self.broken:
            return  # nothing is judged on a session the kit could not record
        for fmt, path in self.reports:
            if fmt == "json":
                continue
            try:
                write_output(path, render_view(fmt, self.report), f"the {fmt} report")
            except OutputError as error:
                print(f"ppconf: error: {error}", file=sys.stderr)
                self.unwritten += 1


def pytest_configure(config: pytest.Config) -> None:
    """Register the markers, and activate the plugin when --ppconf-adapter (or the
    ``ppconf_adapter`` setting) is given."""
    apply_settings(config)
    for area in AREAS:
        marker = area.replace("-", "_")
        config.addinivalue_line("markers", f"ppconf_{marker}: a ppconf case of the {area} area")
    for level in range(4):
        config.addinivalue_line("markers", f"ppconf_level_{level}: a ppconf case of level {level}")
    for requirement in ("must", "should", "may"):
        config.addinivalue_line(
            "markers", f"ppconf_{requirement}: a ppconf case of requirement {requirement.upper()}"
        )
    option = config.option
    if not option.ppconf_adapter:
        given = [
            name
            for name, value in (
                ("--ppconf-area", option.ppconf_area),
                ("--ppconf-require-level", option.ppconf_require_level),
                ("--ppconf-expected-failures", option.ppconf_expected_failures),
                ("--ppconf-catalog", option.ppconf_catalog),
                ("--ppconf-report", option.ppconf_report),
                ("--ppconf-fuzz", option.ppconf_fuzz),
                ("--ppconf-fuzz-database", option.ppconf_fuzz_database),
                ("--ppconf-items", option.ppconf_items != "part"),
            )
            if value
        ]
        if given:
            raise pytest.UsageError(f"ppconf: {given[0]} needs --ppconf-adapter")
        return
    if option.ppconf_adapter != REFERENCE and ":" not in option.ppconf_adapter:
        raise pytest.UsageError(
            f"ppconf: --ppconf-adapter {option.ppconf_adapter!r}: "
            "use module:Class, cmd:COMMAND or 'reference'"
        )
    state = _PluginState(config)
    # The catalog lives as long as the session: out of the collector's generations, no full
    # collection walks its objects again (pytest collects twice at its end, the interpreter
    # whenever enough objects were made during the run). Unfrozen when the session's config is
    # cleaned up, so a process that goes on after pytest.main() collects them again.
    gc.freeze()
    config.add_cleanup(gc.unfreeze)
    _exit_collecting_once()
    config.stash[_STATE] = state
    hooks = _SessionHooks(state, worker=_is_xdist_worker(config))
    config.pluginmanager.register(hooks, "ppconf-session")


_AT_EXIT: list[bool] = []  # whether _collect_once_at_exit is registered in this process


def _exit_collecting_once() -> None:
    """Have this process collect its garbage once at exit, not at each step of shutting down.

    A session leaves its items, reports and records alive to the end of the process, and the
    interpreter's shutdown walks every object it tracks in each of its collections: a third of
    a second more for a pytest process with the catalog than for one without. At exit (see
    :func:`_collect_once_at_exit`) the garbage is collected once, so its finalizers run as
    they did, and what is still alive is frozen out of the collections that follow (objects
    alive at exit are not promised a finalizer). Registered once per process, however many
    sessions it runs."""
    if not _AT_EXIT:
        atexit.register(_collect_once_at_exit)
        _AT_EXIT.append(True)


def _collect_once_at_exit() -> None:
    gc.collect()
    gc.freeze()


_HANDED = "ppconf_catalog"
"""The key of the xdist worker input that names the controller's pickled catalog."""


def _handed_catalog(config: pytest.Config) -> Catalog | None:
    """In an xdist worker, the catalog its controller loaded (see
    :meth:`_PluginState.hand_catalog`); else ``None``."""
    path = getattr(config, "workerinput", {}).get(_HANDED)
    if path is None:
        return None
    # The controller wrote this file for this session, readable by its own user only.
    with open(path, "rb") as handed:
        catalog: Catalog = pickle.load(handed)
    return catalog


def _load_catalog(config: pytest.Config) -> Catalog:
    """The catalog the options name: read back from pytest's cache folder (``.pytest_cache``)
    when it holds the same catalog loaded by an earlier run (see
    :mod:`conformance._catalog.stored`), else loaded (and kept there, where pytest keeps one).
    """
    option = config.option
    cache = getattr(config, "cache", None)  # none with -p no:cacheprovider
    store: Path | None = None
    if cache is not None:
        with contextlib.suppress(OSError):
            store = Path(cache.mkdir("ppconf-catalog"))
    if store is None:
        return load_catalog(option.ppconf_catalog, extra=option.ppconf_extra_catalog)
    return stored_catalog(store, option.ppconf_catalog, extra=option.ppconf_extra_catalog)


def _fuzz_database(where: str, root: Path) -> ExampleDatabase:
    """The example database ``--ppconf-fuzz-database`` names (a folder under ``root`` when
    relative); a bad one is a usage error."""
    from conformance._fuzz.databases import DatabaseError, is_url, open_database  # noqa: PLC0415

    def warn(message: str) -> None:
        warnings.warn(f"ppconf: {message}", stacklevel=1)

    path = where if is_url(where) else str(root / where)
    try:
        local = root / ".ppconf" / "fuzz"
        return open_database(path, local=local, warn=warn, option="--ppconf-fuzz-database")
    except DatabaseError as error:
        raise pytest.UsageError(f"ppconf: {error}") from None


class CatalogCollector(pytest.Collector):
    """The catalog, as a collector of case-part items (or, with ``--ppconf-fuzz``, of fuzzing
    items: one per area and xdist worker, each with its own seed)."""

    def collect(self) -> Iterator[pytest.Item]:
        state = self.config.stash[_STATE]
        if state.fuzz is not None:
            # Imported only when fuzzing: the plugin stays inert (and light) otherwise.
            from conformance._fuzz.engine import AREAS as FUZZABLE  # noqa: PLC0415
            from conformance._fuzz.engine import default_areas  # noqa: PLC0415

            workers = getattr(self.config, "workerinput", {}).get("workercount", 1)
            # As `ppconf fuzz`: the areas asked for, else those the runtime claims.
            wanted = state.selection.areas or default_areas(state.capabilities().claims)
            areas = [a for a in FUZZABLE if a in wanted]
            for area in areas:
                for shard in range(workers):
                    yield FuzzItem.from_parent(self, name=f"fuzz-{area}-{shard}", area=area)
            return
        cases = state.catalog.select(state.selection)
        if state.items == "area":
            for area in AREAS:
                parts = [(case, part) for case in cases if case.area == area for part in case.parts]
                if parts:
                    yield GroupItem.from_parent(self, name=area, parts=parts, whole="area")
            return
        for case in cases:
            if state.items == "case":
                parts = [(case, part) for part in case.parts]
                yield GroupItem.from_parent(self, name=case.id, parts=parts, whole="case")
                continue
            for part in case.parts:
                yield CaseItem.from_parent(self, name=f"{case.id}::{part}", case=case, part=part)


class _Ran:
    """What one part did, as an item reports it."""

    def __init__(self, state: _PluginState, case: Case, part: str) -> None:
        try:
            result = state.runner.run_part(case, part)
        except AdapterGaveUp as error:
            pytest.exit(f"ppconf: the adapter gave up: {error}", returncode=2)
        self.case = case
        self.part = part
        self.record = PartRecord.of(case, result, lambda: state.catalog.registry)
        self.outcome, self.message = result.outcome, result.message
        if state.strict and self.record.findings:
            # Every check counts in a strict run, the weaker ones of a passing part included.
            self.outcome = "failed"
            self.message = "; ".join(
                f"strict: {c.requirement} check {c.id!r} failed: {c.message}"
                for c in self.record.findings
            )
        entry = state.expected.get(case.id)
        self.expected = entry.reason if entry is not None and entry.covers(self.outcome) else None

    def failure(self, state: _PluginState) -> CaseFailure:
        """The failure of a part that did not pass: the why and rerun lines `ppconf run`
        prints under it."""
        spec_version = state.selection.spec_version
        more = failure_lines(self.record, adapter=state.adapter_spec, spec_version=spec_version)
        return CaseFailure(self.outcome, self.message, [terminal(line) for line in more])


class _PartsItem(pytest.Item):
    """An item running case parts, whose records its call report takes to the session."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.records: list[PartRecord] = []  # made by runtest, until its report takes them

    def _mark(self, case: Case, *, area_only: bool = False) -> None:
        self.add_marker(f"ppconf_{case.area.replace('-', '_')}")
        if not area_only:
            self.add_marker(f"ppconf_level_{case.level}")
            self.add_marker(f"ppconf_{case.requirement.lower()}")

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, CaseFailure):
            return excinfo.value.shown()
        if isinstance(excinfo.value, pytest.xfail.Exception):
            # pytest shows the reason only; a formatted traceback of the plugin's own frames
            # costs a third of a second per expected failure (it parses their source).
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)


class CaseItem(_PartsItem):
    """One part of one case."""

    def __init__(self, *, case: Case, part: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case
        self.part = part
        self.line: int | None = None  # where the part is in its file, once a reader is sent there
        self._mark(case)

    def runtest(self) -> None:
        state = self.config.stash[_STATE]
        ran = _Ran(state, self.case, self.part)
        self.line = ran.record.line
        self.records = [ran.record]
        if ran.expected is not None:
            pytest.xfail(f"expected failure: {ran.expected}")
        if ran.outcome == "skipped":
            # Reported at the case, not at this line of the plugin; the session still fails.
            raise pytest.skip.Exception(ran.message, _use_item_location=True)
        if ran.outcome != "passed":
            raise ran.failure(state)

    def reportinfo(self) -> tuple[Path, int, str]:
        # The part's own line for a part that did not pass (a skip is reported there), as its
        # record has it; else its case file's first line. Locating a part re-reads the file's
        # events, and pytest asks every item before running it: a fifth of a second a catalog.
        return self.case.file, (self.line or 1) - 1, f"{self.case.id} [{self.part}]"


class GroupItem(_PartsItem):
    """The parts of one case (``--ppconf-items case``) or of one area (``area``), run in turn as
    one item. It fails when a part does not pass (each such part shown as a part's item shows
    it), else is skipped when a part is, else is an expected failure when a part is one; the
    session judges each part by its own record, as it judges the parts' own items."""

    def __init__(self, *, parts: Sequence[tuple[Case, str]], whole: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.parts = tuple(parts)
        self.whole = whole
        # An area's cases differ in level and requirement: its item has the area's marker only.
        self._mark(self.parts[0][0], area_only=whole == "area")

    def runtest(self) -> None:
        state = self.config.stash[_STATE]
        self.records = []
        failed: list[_Ran] = []
        skipped: list[_Ran] = []
        expected: list[_Ran] = []
        for case, part in self.parts:
            if STOP.requested:
                break  # a stop ends the session after the part running, as between items
            ran = _Ran(state, case, part)
            self.records.append(ran.record)
            if ran.expected is not None:
                expected.append(ran)
            elif ran.outcome == "skipped":
                skipped.append(ran)
            elif ran.outcome != "passed":
                failed.append(ran)
        count = f"of {len(self.parts)} parts"
        if failed:
            lines: list[str] = []
            for ran in failed:
                shown = ran.failure(state).shown().splitlines()
                lines.append(f"{ran.case.id} [{ran.part}] {shown[0]}")
                lines.extend(shown[1:])
            outcomes = {ran.outcome for ran in failed}
            outcome = outcomes.pop() if len(outcomes) == 1 else "failed"
            raise CaseFailure(outcome, f"{len(failed)} {count} did not pass", lines)
        if skipped:
            first = skipped[0]
            pytest.skip(
                f"{len(skipped)} {count} skipped, the first {first.case.id} [{first.part}]: "
                f"{first.message}"
            )
        if expected:
            reasons = sorted({ran.expected or "" for ran in expected})
            pytest.xfail(f"expected failure: {len(expected)} {count}: {'; '.join(reasons)}")

    def reportinfo(self) -> tuple[Path, int, str]:
        if self.whole == "case":
            case = self.parts[0][0]
            return case.file, 0, case.id
        return Path("ppconf"), 0, f"ppconf {self.name}"


class FuzzItem(pytest.Item):
    """``--ppconf-fuzz`` examples of one area against the adapter, from a fresh random seed
    (printed on a divergence, for ``ppconf fuzz --seed``)."""

    def __init__(self, *, area: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.area = area

    def runtest(self) -> None:
        from hypothesis import settings  # noqa: PLC0415

        from conformance._fuzz.engine import database_at, fuzz  # noqa: PLC0415
        from conformance._fuzz.report import render_finding  # noqa: PLC0415

        state = self.config.stash[_STATE]
        # --ppconf-fuzz-database wins, then a loaded Hypothesis profile's database.
        shared = settings.get_current_profile_name() != "default"
        database = state.fuzz_database or (
            settings().database
            if shared
            else database_at(self.config.rootpath / ".ppconf" / "fuzz")
        )
        seed = random.randrange(2**32)
        result = fuzz(
            state.runner.adapter,
            areas=(self.area,),
            examples_wanted=state.fuzz,
            seed=seed,
            database=database,
            timeout=state.timeout,
        )
        if result.finding is not None:
            text = render_finding(
                result.finding, found_after=result.found_after, shrink_runs=result.shrink_runs
            )
            raise CaseFailure(result.finding.kind, f"seed {seed}\n{text}")

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, CaseFailure):
            return excinfo.value.shown()
        return super().repr_failure(excinfo, style)

    def reportinfo(self) -> tuple[Path, int, str]:
        return Path("ppconf"), 0, f"ppconf fuzz {self.area}"


class CaseFailure(Exception):
    """A case part did not pass (failed, errored, timed out or flaky)."""

    def __init__(self, outcome: str, message: str, lines: Sequence[str] = ()) -> None:
        self.outcome = outcome
        self.message = message
        self.lines = tuple(lines)
        super().__init__(f"{outcome}: {message}")

    def shown(self) -> str:
        """What pytest prints for the item: the outcome and message, then the lines below it."""
        return "\n".join([f"{self.outcome}: {self.message}", *(f"  {x}" for x in self.lines)])


class _SessionHooks:
    """The hooks of an active plugin; registered only when --ppconf-adapter is given."""

    def __init__(self, state: _PluginState, *, worker: bool) -> None:
        self.state = state
        self.worker = worker  # an xdist worker: its controller keeps the records
        self._signals = contextlib.ExitStack()
        self.session: pytest.Session | None = None

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        """Take the stop signals (not in an xdist worker: its controller stops it)."""
        if _is_xdist_worker(session.config):
            return
        self.session = session
        if self.state.fuzz is None:
            try:
                self.state.open_streams()
            except OutputError as error:
                raise pytest.UsageError(f"ppconf: {error}") from None

        def stop_after_this_item(signum: int) -> None:
            session.shouldstop = f"ppconf: stopped by {signal_name(signum)}"

        # The xdist controller runs no part: it has nothing to let finish.
        controller = session.config.pluginmanager.has_plugin("dsession")
        self._signals.enter_context(stop_signals(at_once=controller, on_stop=stop_after_this_item))

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        """xdist: hand each worker the catalog loaded here, instead of parsing it again."""
        if self.state.fuzz is None:
            node.workerinput[_HANDED] = self.state.hand_catalog()

    @pytest.hookimpl(wrapper=True)
    def pytest_runtestloop(self, session: pytest.Session) -> Generator[None, object, object]:
        """Run the items with ``os._exit`` refused (see :func:`refusing_exit`)."""
        with refusing_exit():
            return (yield)

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(
        self, session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        """Add the catalog's items (before -k and -m deselect)."""
        collector = CatalogCollector.from_parent(session, name="ppconf", nodeid="ppconf")
        collected: list[pytest.Item | pytest.Collector] = list(collector.collect())
        items.extend(item for item in collected if isinstance(item, pytest.Item))
        # Tell the terminal and other plugins about the items, as for any collected node.
        report = pytest.CollectReport(collector.nodeid, "passed", None, collected)
        session.ihook.pytest_collectreport(report=report)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        """Hand an item's records to its call report: kept at once in a serial session, carried
        as text to the controller from an xdist worker."""
        report = yield
        if isinstance(item, _PartsItem) and item.records and call.when == "call":
            records, item.records = item.records, []
            if self.worker:
                setattr(report, _RECORD, json.dumps([record.to_dict() for record in records]))
            else:
                for record in records:
                    self._keep(record)
        return report

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Keep each part's record coming from an xdist worker (on its controller); count the
        session's failed tests that are not catalog parts."""
        text = getattr(report, _RECORD, None)
        if isinstance(text, str) and not self.worker:
            for data in json.loads(text):
                self._keep(PartRecord.from_dict(data))
        if report.failed and not report.nodeid.startswith("ppconf"):
            self.state.other_failures += 1

    def _keep(self, record: PartRecord) -> None:
        if not self.state.keep(record) and self.session is not None:
            self.session.shouldstop = "ppconf: a report could not be written"

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        """Judge the session as ``ppconf run`` judges a run."""
        state = self.state
        state.drop_handed()
        if STOP.requested:
            state.stop_signal = STOP.signum
            state.runner.guard.terminate()  # a stop: no goodbye, the process group goes now
        if _is_xdist_worker(session.config) or state.fuzz is not None:
            self._stopped_status(session)
            return
        interrupted = state.stop_signal is not None or exitstatus == pytest.ExitCode.INTERRUPTED
        state.finish(complete=not interrupted)
        assert state.judgement is not None
        if self._stopped_status(session):
            return
        if state.unwritten:
            session.exitstatus = pytest.ExitCode.USAGE_ERROR  # asked for and not written
            return
        if not state.judgement.passed and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
        elif (
            state.judgement.passed
            and session.exitstatus == pytest.ExitCode.TESTS_FAILED
            and state.other_failures == 0
        ):
            # Only catalog parts failed, and the run passes as `ppconf run` judges it (the level
            # asked for is met, or they belong to areas the runtime does not claim).
            session.exitstatus = pytest.ExitCode.OK

    def _stopped_status(self, session: pytest.Session) -> bool:
        """After a stop signal, make the session's exit status 128 + the signal."""
        signum = self.state.stop_signal
        if signum is None:
            return False
        session.exitstatus = 128 + signum
        return True

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        """Let an adapter holding a process (cmd:) shut it down; give the signals back."""
        self.state.drop_handed()  # the catalog handed to xdist workers, however it ended
        self.state.runner.guard.close()
        self.state.close_streams()
        self._signals.close()

    def pytest_terminal_summary(self, terminalreporter: Any, config: pytest.Config) -> None:
        """Print the findings, the support level table and the verdict."""
        state = self.state
        if _is_xdist_worker(config) or state.report is None or state.judgement is None:
            return
        if state.broken:
            terminalreporter.section("ppconf support levels")
            terminalreporter.write_line("not judged: a report could not be written (see above)")
            return
        write = terminalreporter.write_line
        findings = render_findings(state.report)
        if findings:
            terminalreporter.section("ppconf findings (SHOULD and MAY)")
            for line in findings:
                write(line)
        terminalreporter.section("ppconf support levels")
        levels = state.report.levels()
        for line in render_levels(levels).splitlines():
            write(line)
        if state.judgement.required_level is not None:
            level, met = state.judgement.required_level
            write(
                f"required level {level}: {'met' if met else 'NOT met'} "
                f"(headline {describe_level(levels.headline)})"
            )
        for problem in state.judgement.problems:
            write(problem)


def _is_xdist_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")
