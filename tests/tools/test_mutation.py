"""The mutation tool: which changes it makes, and the checked-in survivors file."""

from __future__ import annotations

import ast
import json
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from conformance._catalog.cases import load_catalog
from tools.mutation._campaign import MODULES, choose, every_mutant
from tools.mutation._coverage import Coverage
from tools.mutation._mutants import Mutant, apply, mutants
from tools.mutation._survivors import KINDS, Explanation, account, read_survivors, stale
from tools.mutation._worker import ROOT, source_of

SOURCE = '''\
"""A module docstring."""
from typing import Literal

Mode = Literal["fast", "slow"]
__all__ = ["limit"]


def limit(count: int, mode: str = "fast") -> bool:
    """A function docstring."""
    assert count >= 0
    total = 0
    total += count
    if count < 3 and mode == "fast":
        return True
    if not mode:
        raise ValueError("no mode")
    return False
'''


def test_each_operator_makes_its_change() -> None:
    found = {(m.operator, m.description) for m in mutants("example", SOURCE)}
    assert found == {
        ("number", "0 -> 1"),
        ("arithmetic", "+= -> -="),
        ("delete", "augassign -> pass"),
        ("boolop", "and -> or"),
        ("compare", "< -> <="),
        ("number", "3 -> 4"),
        ("compare", "== -> !="),
        ("string", "'fast' -> 'fastX'"),
        ("bool", "True -> False"),
        ("return", "return x -> return None"),
        ("not", "not x -> x"),
        ("delete", "raise -> pass"),
        ("bool", "False -> True"),
    }


def test_docstrings_annotations_asserts_and_types_are_left_alone() -> None:
    lines = {m.line for m in mutants("example", SOURCE)}
    # docstrings (1, 9), the Literal type (4), __all__ (5), the signature's annotations and
    # default (8: the default "fast" is a value, but a signature's line holds only it), assert (10)
    assert lines.isdisjoint({1, 4, 5, 9, 10})


def test_every_mutant_compiles_and_differs() -> None:
    original = ast.dump(ast.parse(SOURCE))
    for mutant in mutants("example", SOURCE):
        tree = apply(SOURCE, mutant)
        compile(tree, "example.py", "exec")
        assert ast.dump(tree) != original, mutant


def test_ids_are_unique_and_stable() -> None:
    first = mutants("example", SOURCE)
    assert len({m.id for m in first}) == len(first)
    assert [m.id for m in mutants("example", SOURCE)] == [m.id for m in first]


def test_the_sample_is_seeded_and_stratified() -> None:
    found = every_mutant(MODULES[2:3])
    sample = choose(found, 0.25, seed=7)
    assert sample == choose(found, 0.25, seed=7)
    assert {m.operator for m in sample} == {m.operator for m in found}
    assert choose(found, 1.0, seed=7) == found


def test_the_survivors_file_reads_and_names_known_kinds() -> None:
    entries = read_survivors()
    assert entries
    assert {e.kind for e in entries.values()} <= set(KINDS)
    for entry in entries.values():
        assert entry.id.split(":")[0] in MODULES, entry.id


def test_every_survivor_names_a_mutant_made_today_on_the_line_it_quotes() -> None:
    # An edit of one of the five modules moves or rewrites lines; the entries written for
    # them must then be moved too (python -m tools.mutation list), or they explain nothing.
    lines = {module: source_of(module).splitlines() for module in MODULES}
    assert stale(read_survivors(), every_mutant(MODULES), lines) == []


def test_an_entry_for_a_moved_or_rewritten_line_is_stale(tmp_path: Path) -> None:
    module = "reference._workflow.session"
    source = source_of(module)
    found = mutants(module, source)
    first = found[0]
    line = source.splitlines()[first.line - 1].strip()
    path = tmp_path / "survivors.yaml"
    path.write_text(
        f"- {{id: '{first.id}', source: {json.dumps(line)}, change: x, kind: equivalent, why: y}}\n"
        f"- {{id: '{module}:1:0:delete', source: s, change: moved, kind: equivalent, why: y}}\n",
        encoding="utf-8",
    )
    entries = read_survivors(path)
    lines = {module: source.splitlines()}
    assert stale(entries, found, lines) == [f"{module}:1:0:delete: no such mutant today (moved)"]
    rewritten = {
        module: [*lines[module][: first.line - 1], "x = 'other'", *lines[module][first.line :]]
    }
    assert stale(entries, found, rewritten) == [
        f"{module}:1:0:delete: no such mutant today (moved)",
        f"{first.id}: the line reads \"x = 'other'\", not {line!r}",
    ]


def test_the_account_holds_each_verdict_against_its_entry() -> None:
    found = mutants("example", SOURCE)
    lines = {"example": SOURCE.splitlines()}

    def entry(mutant: Mutant, kind: str, source: str | None = None) -> Explanation:
        line = lines["example"][mutant.line - 1].strip() if source is None else source
        return Explanation(mutant.id, mutant.description, kind, "why", line, case="c")

    first, second, third, fourth, fifth = found[:5]
    entries = {
        first.id: entry(first, "equivalent"),
        second.id: entry(second, "killed-by"),  # the case it names does not kill it
        third.id: entry(third, "equivalent", source="an edited line"),
        fourth.id: entry(fourth, "kit-pick"),  # killed now
        fifth.id: entry(fifth, "killed-by"),
    }
    verdicts = [
        (first, "survived"),
        (second, "survived"),
        (third, "survived"),
        (fourth, "check"),
        (fifth, "error"),
        (found[5], "survived"),
    ]
    result = account(verdicts, entries, lines)
    assert dict(result.kinds) == {"equivalent": 1}
    assert result.unexplained == [second, third, found[5]]
    assert result.not_killed == [entries[second.id]]
    assert result.killed_now == [entries[fourth.id]]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("- {id: a, source: s, change: x, kind: odd, why: y}", "kind 'odd' is not one of"),
        ("- {id: a, source: s, change: x, kind: rfc-allowed, why: y}", "give statement"),
        ("- {id: a, source: s, change: x, kind: killed-by, why: y}", "give case"),
        ("- {id: a, kind: equivalent}", "give source, change, why"),
        ("- {id: a, change: x, kind: equivalent, why: y}", r"\(a\): give source$"),
        (
            "- {id: a, source: s, change: x, kind: equivalent, why: y}\n"
            "- {id: a, source: s, change: x, kind: equivalent, why: y}",
            "a is explained twice",
        ),
    ],
)
def test_a_bad_survivors_entry_says_which_and_what_to_write(
    tmp_path: Path, text: str, message: str
) -> None:
    path = tmp_path / "survivors.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        read_survivors(path)


SAMPLE = [
    # (module, change, the line it changes): found by their text, so that edits elsewhere in a
    # module do not move them. Each is killed by a MUST check.
    (
        "reference._workflow.session",
        "is not -> is",
        "if tripwire is not None:  # a budget to watch, or the session has ended",
    ),
    ("reference._workflow.session", "0 -> 1", "self._tripwire = 0"),
    (
        "reference._workflow.rules",
        "and -> or",
        "if isinstance(states, dict) and isinstance(value, str) and value not in states:",
    ),
    (
        "reference._compositions.run",
        ">= -> >",
        "if step.max_steps is not None and attempt.rounds >= step.max_steps:",
    ),
    ("reference._compositions.rules", "expr -> pass", 'pending.append((node["not"], (at, "not")))'),
]


def _sample_mutant(module: str, change: str, line: str) -> Mutant:
    text = source_of(module).splitlines()
    found = [
        m
        for m in mutants(module, source_of(module))
        if m.description == change and text[m.line - 1].strip() == line
    ]
    # The one after a max-visits refusal: the last "self._tripwire = 0" in _redirect.
    if module == "reference._workflow.session" and line == "self._tripwire = 0":
        found = [m for m in found if "_redirect" in _function_at(text, m.line)]
    assert len(found) == 1, (module, change, line, found)
    return found[0]


def _function_at(lines: list[str], number: int) -> str:
    return next(t for t in reversed(lines[:number]) if t.lstrip().startswith("def "))


@pytest.fixture(scope="module")
def catalog_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("mutation") / "cases.pickle"
    path.write_bytes(pickle.dumps(tuple(load_catalog().cases)))
    return path


@pytest.mark.parametrize(("module", "change", "line"), SAMPLE, ids=[s[2][:40] for s in SAMPLE])
def test_a_fixed_sample_of_mutants_is_killed_by_a_check(
    catalog_file: Path, module: str, change: str, line: str
) -> None:
    mutant = _sample_mutant(module, change, line)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "tools.mutation._worker",
            str(catalog_file),
            module,
            str(mutant.index),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    verdict = json.loads(done.stdout.strip().splitlines()[-1])
    assert verdict["verdict"] == "check", verdict


def test_the_unchanged_reference_survives(catalog_file: Path) -> None:
    """The measure means something only if the catalog passes every check on the reference."""
    done = subprocess.run(
        [sys.executable, "-m", "tools.mutation._worker", str(catalog_file), "-", "0"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {"verdict": "survived"}


def test_a_reader_that_stops_early_ends_the_listing_quietly() -> None:
    """``list | head``: no traceback, as any Unix tool that is piped into ``head``."""
    with subprocess.Popen(
        [sys.executable, "-m", "tools.mutation", "list"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as process:
        assert process.stdout is not None
        assert process.stderr is not None
        assert process.stdout.readline().startswith(MODULES[0])
        process.stdout.close()
        errors = process.stderr.read()
        assert process.wait(timeout=120) == 0, errors
    assert errors == ""


GENERATORS = """\
def only(x):
    if x:
        yield x


def two(x):
    yield x
    yield x
"""


def test_deleting_a_generators_only_yield_reaches_back_to_its_def_line() -> None:
    # The function is then a plain one: every call changes, whether or not the yield runs.
    deletes = {m.line: m for m in mutants("example", GENERATORS) if m.operator == "delete"}
    assert deletes[3].start_line == 1
    assert (deletes[7].start_line, deletes[8].start_line) == (7, 8)  # still a generator
    coverage = Coverage("k", ("a", "b"), {"example": frozenset({1, 6})}, {"example": {3: ("a",)}})
    assert coverage.select(deletes[3]) is None  # the def line runs at import: every case
    assert coverage.select(deletes[7]) == ()
