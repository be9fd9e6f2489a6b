"""The ppconf pytest plugin: the catalog as test items, and support levels in the summary.

Registered through the ``pytest11`` entry point and inert unless ``--ppconf-adapter`` is given.
Each case part (``load``, ``validation``, each scenario) is one test item with markers for its
area (``ppconf_workflow``), level (``ppconf_level_2``) and requirement (``ppconf_must``).
Works under pytest-xdist: results are gathered from the reports the controller receives.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conformance._adapter import Adapter, Capabilities
from conformance._adapter_spec import REFERENCE, load_adapter
from conformance._cases import Case, Catalog, load_catalog
from conformance._contract import AREAS
from conformance._errors import AdapterError, CaseError
from conformance._expected_failures import load_expected_failures
from conformance._levels import CaseVerdict, LevelReport, compute_levels, describe_level
from conformance._reports import render_levels
from conformance._runner import DEFAULT_TIMEOUT, Runner

_STATE = pytest.StashKey["_PluginState"]()


def pytest_addoption(parser: pytest.Parser) -> None:
    """Add the ``--ppconf-*`` options, in their own group."""
    group = parser.getgroup("ppconf", "PromptPack workflow conformance (ppconf)")
    group.addoption(
        "--ppconf-adapter",
        metavar="SPEC",
        help="run the ppconf catalog against this runtime: module:Class, cmd:COMMAND (a "
        "program speaking the adapter protocol) or 'reference'",
    )
    group.addoption(
        "--ppconf-area",
        action="append",
        default=[],
        choices=AREAS,
        help="only cases of this area (repeatable)",
    )
    group.addoption(
        "--ppconf-require-level",
        type=int,
        choices=range(4),
        metavar="N",
        help="fail the session unless the headline support level is at least N",
    )
    group.addoption(
        "--ppconf-expected-failures",
        metavar="FILE",
        help="YAML mapping of case id to reason; those cases are xfail, and a case that "
        "passes anyway fails the session",
    )
    group.addoption("--ppconf-catalog", metavar="DIR", help="a catalog folder (default: built-in)")
    group.addoption(
        "--ppconf-validate-protocol",
        action="store_true",
        help="for cmd: adapters, check all traffic against the protocol schema",
    )
    group.addoption(
        "--ppconf-timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=f"time limit for each case part (default {DEFAULT_TIMEOUT:g})",
    )


class _PluginState:
    """What the plugin keeps for one session."""

    def __init__(self, config: pytest.Config) -> None:
        option = config.option
        self.adapter_spec: str = option.ppconf_adapter
        try:
            self.catalog: Catalog = load_catalog(option.ppconf_catalog)
            self.expected = (
                load_expected_failures(
                    option.ppconf_expected_failures, [c.id for c in self.catalog.cases]
                )
                if option.ppconf_expected_failures
                else {}
            )
        except CaseError as error:
            raise pytest.UsageError(f"ppconf: {error}") from None
        self.areas: list[str] = option.ppconf_area
        self.require_level: int | None = option.ppconf_require_level
        self.timeout: float = option.ppconf_timeout
        # Loaded now, so a bad spec is a usage error before anything runs (each xdist worker
        # loads its own).
        try:
            adapter: Adapter = load_adapter(
                self.adapter_spec,
                timeout=self.timeout,
                validate_protocol=option.ppconf_validate_protocol,
            )
        except AdapterError as error:
            raise pytest.UsageError(f"ppconf: {error}") from None
        self.runner = Runner(adapter, timeout=self.timeout)
        self.outcomes: dict[str, dict[str, bool]] = {}  # case id -> part -> passed
        self.cases: dict[str, tuple[str, int, str]] = {}  # case id -> area, level, requirement
        self.levels: LevelReport | None = None

    def unexpected_passes(self) -> list[str]:
        """Expected failures whose every part passed."""
        return sorted(
            case_id
            for case_id in self.expected
            if case_id in self.outcomes and all(self.outcomes[case_id].values())
        )


def pytest_configure(config: pytest.Config) -> None:
    """Register the markers, and activate the plugin when --ppconf-adapter is given."""
    for area in AREAS:
        config.addinivalue_line("markers", f"ppconf_{area}: a ppconf case of the {area} area")
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
    config.stash[_STATE] = state
    config.pluginmanager.register(_SessionHooks(state), "ppconf-session")


class CatalogCollector(pytest.Collector):
    """The catalog, as a collector of case-part items."""

    def collect(self) -> Iterator[pytest.Item]:
        state = self.config.stash[_STATE]
        cases = state.catalog.select(areas=state.areas)
        for case in cases:
            for part in case.parts:
                yield CaseItem.from_parent(self, name=f"{case.id}::{part}", case=case, part=part)


class CaseItem(pytest.Item):
    """One part of one case."""

    def __init__(self, *, case: Case, part: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case
        self.part = part
        self.add_marker(f"ppconf_{case.area}")
        self.add_marker(f"ppconf_level_{case.level}")
        self.add_marker(f"ppconf_{case.requirement.lower()}")
        reason = self.config.stash[_STATE].expected.get(case.id)
        if reason is not None:
            # Not strict per part: other parts of the case may pass. A case whose parts all
            # pass is reported as an unexpected pass at the end of the session.
            self.add_marker(pytest.mark.xfail(reason=f"expected failure: {reason}", strict=False))
        self.user_properties.extend(
            [
                ("ppconf_case", case.id),
                ("ppconf_part", part),
                ("ppconf_area", case.area),
                ("ppconf_level", case.level),
                ("ppconf_requirement", case.requirement),
            ]
        )

    def runtest(self) -> None:
        result = self.config.stash[_STATE].runner.run_part(self.case, self.part)
        if result.outcome == "skipped":
            # Reported at the case, not at this line of the plugin.
            raise pytest.skip.Exception(result.message, _use_item_location=True)
        if result.outcome != "passed":
            raise CaseFailure(result.outcome, result.message)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, CaseFailure):
            return f"{excinfo.value.outcome}: {excinfo.value.message}"
        return super().repr_failure(excinfo, style)

    def reportinfo(self) -> tuple[Path, int, str]:
        case = self.case
        pointer = next((s.pointer for s in case.scenarios if s.name == self.part), f"/{self.part}")
        line = case.document.locate(pointer).line if case.document is not None else None
        return case.file, (line or 1) - 1, f"{case.id} [{self.part}]"


class CaseFailure(Exception):
    """A case part did not pass (failed, errored or timed out)."""

    def __init__(self, outcome: str, message: str) -> None:
        self.outcome = outcome
        self.message = message
        super().__init__(f"{outcome}: {message}")


class _SessionHooks:
    """The hooks of an active plugin; registered only when --ppconf-adapter is given."""

    def __init__(self, state: _PluginState) -> None:
        self.state = state

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

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Note each case part's outcome (on the xdist controller, from the workers' reports)."""
        properties = {str(k): v for k, v in report.user_properties}
        case_id = properties.get("ppconf_case")
        if not isinstance(case_id, str) or report.when not in ("setup", "call"):
            return
        if report.when == "setup" and report.passed:
            return  # the call report decides
        state = self.state
        state.cases[case_id] = (
            str(properties["ppconf_area"]),
            int(str(properties["ppconf_level"])),
            str(properties["ppconf_requirement"]),
        )
        # An xfail that fails is reported skipped, one that passes anyway is reported passed.
        state.outcomes.setdefault(case_id, {})[str(properties["ppconf_part"])] = report.passed

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        """Compute levels; fail the session below the required level or on an unexpected pass."""
        if _is_xdist_worker(session.config):
            return
        state = self.state
        verdicts = [
            CaseVerdict(case_id, area, level, requirement, all(state.outcomes[case_id].values()))
            for case_id, (area, level, requirement) in sorted(state.cases.items())
        ]
        state.levels = compute_levels(verdicts)
        headline = state.levels.headline
        below = state.require_level is not None and (
            headline is None or headline < state.require_level
        )
        if (below or state.unexpected_passes()) and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        """Let an adapter holding a process (cmd:) shut it down."""
        close = getattr(self.state.runner.adapter, "close", None)
        if close is not None:
            with contextlib.suppress(Exception):
                close()

    def pytest_terminal_summary(self, terminalreporter: Any, config: pytest.Config) -> None:
        """Print the support level table after the test summary."""
        state = self.state
        if _is_xdist_worker(config) or state.levels is None:
            return
        write = terminalreporter.write_line
        terminalreporter.section("ppconf support levels")
        try:
            capabilities = state.runner.adapter.capabilities()
        except Exception as error:  # the adapter's own code; the table matters more
            write(f"(the adapter failed to describe itself: {error!r})")
            capabilities = Capabilities(name=state.adapter_spec)
        for line in render_levels(state.levels, capabilities).splitlines():
            write(line)
        if state.require_level is not None:
            headline = state.levels.headline
            met = headline is not None and headline >= state.require_level
            write(
                f"required level {state.require_level}: {'met' if met else 'NOT met'} "
                f"(headline {describe_level(headline)})"
            )
        surprises = state.unexpected_passes()
        if surprises:
            write(
                "expected failures that pass (remove them from the file): " + ", ".join(surprises)
            )


def _is_xdist_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")
