"""Fixtures for the kit's tests: the built-in catalog, throwaway catalogs, reports of whole-catalog
runs, level-table parsing.

Deliberately broken adapters live in ``fakes.py`` beside this file; this folder is on
``sys.path`` (pytest puts it there for the test modules), so ``fakes:Name`` is a valid
``module:Class`` spec for the CLI and the plugin.
"""

from __future__ import annotations

import dataclasses
import re
import textwrap
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

import pytest
from report_files import ReportFiles

import conformance._cli.cases
import conformance._cli.run
import conformance._plugin
from conformance import Catalog, load_catalog
from conformance._basics.areas import AREAS
from conformance._basics.spec_versions import NEWEST

FAKES_DIR = Path(__file__).resolve().parent

BINDING = "RFC0005.def.WorkflowState.on_event.2"
"""A definition (MUST): "When an event is emitted, the workflow transitions to the corresponding
state." The statement the kit's test cases cite unless they say otherwise."""

PACK = """\
pack:
  id: {pack_id}
  name: Test pack
  version: 1.0.0
  template_engine: {{version: v1, syntax: "{{{{variable}}}}"}}
  prompts:
    main: {{id: main, name: Main, version: 1.0.0, system_template: Work.}}
  workflow:
    version: 1
    entry: draft
    states:
      draft:
        prompt_task: main
        on_event: {{Submit: review}}
        artifacts: {{notes: {{type: text/plain, mode: replace}}}}
      review: {{prompt_task: main, terminal: true}}
"""

SCENARIO = """\
scenarios:
  - name: submit
    steps:
      - event: Submit
        expect:
          transition: {from: draft, to: review, event: Submit}
    final: {state: review, status: completed}
"""


def make_case_text(
    case_id: str = "workflow.test.submit",
    *,
    area: str | None = None,
    level: int = 2,
    requirement: str = "MUST",
    description: str | None = None,
    pack_id: str = "test-pack",
    body: str = SCENARIO,
    statement: str = BINDING,
) -> str:
    """A well-formed case file: the two-state pack ``draft -Submit-> review`` and ``body``.

    ``draft`` declares the artifact ``notes``; ``review`` is terminal.
    """
    head = textwrap.dedent(
        f"""\
        id: {case_id}
        description: {description or "The case " + case_id + " of the kit's own tests"}
        area: {area or case_id.split(".", maxsplit=1)[0]}
        level: {level}
        requirement: {requirement}
        statements: [{statement}]
        spec_versions: [">=1.5"]
        rules: [X4]
        """
    )
    return head + PACK.format(pack_id=pack_id) + textwrap.dedent(body)


def count_values(data: object) -> int:
    """Values as ``reference.Limits.max_nodes`` counts them: mappings, sequences and scalars;
    keys are no values."""
    if isinstance(data, dict):
        return 1 + sum(count_values(v) for v in data.values())
    if isinstance(data, list):
        return 1 + sum(count_values(v) for v in data)
    return 1


@pytest.fixture
def case_text() -> Callable[..., str]:
    """:func:`make_case_text`: the text of a well-formed case file, with overrides."""
    return make_case_text


@pytest.fixture
def write_catalog(tmp_path: Path) -> Callable[[Mapping[str, str]], Path]:
    """Write ``{relative path: text}`` into a fresh catalog folder; return the folder."""
    counter = iter(range(1_000_000))

    def write(files: Mapping[str, str]) -> Path:
        root = tmp_path / f"catalog{next(counter)}"
        for name, text in files.items():
            path = root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        root.mkdir(parents=True, exist_ok=True)
        return root

    return write


_BUILTIN: list[Catalog] = []


def builtin() -> Catalog:
    """The built-in catalog, loaded once per test session (other people keep adding cases)."""
    if not _BUILTIN:
        _BUILTIN.append(load_catalog())
    return _BUILTIN[0]


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    """The built-in catalog's cases of the newest spec version (what a run and the plugin
    assess by default), as loaded once for this session."""
    whole = builtin()
    return dataclasses.replace(whole, cases=tuple(c for c in whole.cases if c.applies_to(NEWEST)))


@pytest.fixture
def cached_catalog(monkeypatch: pytest.MonkeyPatch, catalog: Catalog) -> Catalog:
    """Make ``ppconf run|cases`` and the plugin (in-process) reuse the session's built-in catalog.

    Loading 200 case files takes most of a second; many runs here only vary the adapter.
    Any other ``--catalog`` still goes through the real loader.
    """
    for module in (conformance._cli.run, conformance._cli.cases, conformance._plugin):
        real = module.load_catalog

        def cached(
            root: object = None, extra: Sequence[object] = (), _real: Callable[..., Catalog] = real
        ) -> Catalog:
            return catalog if root is None and not extra else _real(root, extra=extra)

        monkeypatch.setattr(module, "load_catalog", cached)
    return catalog


@pytest.fixture
def fakes_importable(monkeypatch: pytest.MonkeyPatch) -> Path:
    """Put ``fakes.py`` on ``sys.path`` (here and for subprocesses); return its folder."""
    monkeypatch.syspath_prepend(str(FAKES_DIR))
    monkeypatch.setenv("PYTHONPATH", str(FAKES_DIR))
    return FAKES_DIR


@pytest.fixture
def report_file(
    tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]
) -> ReportFiles:
    """The report of the built-in catalog against an adapter (see ``report_files.py``)."""
    return ReportFiles(tmp_path_factory, capsys)


UNRELATED_PLUGINS = ("-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-p", "no:syrupy")
"""Plugins the pytester runs do without. Hypothesis's plugin makes an in-process run re-import
(and assertion-rewrite) its modules every time: about a second per run of the catalog."""


@pytest.fixture
def run_pytest(
    pytester: pytest.Pytester, fakes_importable: Path, cached_catalog: Catalog
) -> Callable[..., pytest.RunResult]:
    """``pytester.runpytest`` (in-process) with ``fakes`` importable and unrelated plugins off."""

    def run(*args: str | Path) -> pytest.RunResult:
        return pytester.runpytest(*UNRELATED_PLUGINS, *args)

    return run


@pytest.fixture
def run_pytest_subprocess(
    pytester: pytest.Pytester, fakes_importable: Path
) -> Callable[..., pytest.RunResult]:
    """``pytester.runpytest_subprocess`` with ``fakes`` importable and unrelated plugins off."""

    def run(*args: str | Path) -> pytest.RunResult:
        return pytester.runpytest_subprocess(*UNRELATED_PLUGINS, *args)

    return run


_ROW = re.compile(r"^(" + "|".join(AREAS) + r")\s*\|\s*([^|]*?)\s*\|")
_HEADLINE = re.compile(r"^headline level: (.*?) \(over the (?:claimed )?areas: (.*)\)$")


def parse_level_table(lines: Iterable[str]) -> dict[str, str]:
    """``{area: level text, "headline": level text, "headline areas": "a, b"}`` from printed
    output holding the level table (``headline areas``: the areas the headline covers)."""
    found: dict[str, str] = {}
    for line in lines:
        row = _ROW.match(line)
        if row:
            found[row.group(1)] = row.group(2)
        headline = _HEADLINE.match(line)
        if headline:
            found["headline"] = headline.group(1)
            found["headline areas"] = headline.group(2)
    return found


@pytest.fixture
def level_table() -> Callable[[Iterable[str]], dict[str, str]]:
    """:func:`parse_level_table`."""
    return parse_level_table
