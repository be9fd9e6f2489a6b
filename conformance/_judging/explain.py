"""What a failing part carries to explain itself in every view, now or when its report is read
again: the statements its failing checks cite (with their quotes), and the lines of its case
file (the pack and the scenario) with their line numbers.

The record carries the quotes rather than ids alone, so a report rendered later, elsewhere, or
by a newer kit still says why each check is required.
"""

from __future__ import annotations

import contextlib
import re
import shlex
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from conformance._basics.contract import COMPOSITION_RULES, RULES
from conformance._basics.spec_versions import NEWEST
from conformance._catalog.statements import Registry, builtin, code_statement, vocabulary

EXCERPT_LINES = 120
"""Lines of a case file an excerpt keeps; a longer one keeps its head and says how much is cut."""
EXCERPT_CHARACTERS = 16_000

_TOP_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*:")


def cited_statements(
    statement_ids: Iterable[str], registry: Registry | Callable[[], Registry] = builtin
) -> dict[str, dict[str, Any]]:
    """The statements of ``statement_ids`` as a record keeps them: id -> source, section,
    keyword, requirement, quote (an id the registry lacks is kept with ``unknown: true``)."""
    ids = list(dict.fromkeys(statement_ids))
    if not ids:
        return {}
    found = registry if isinstance(registry, Registry) else registry()
    out: dict[str, dict[str, Any]] = {}
    for statement_id in ids:
        statement = found.get(statement_id)
        if statement is None:
            out[statement_id] = {"unknown": True}
            continue
        out[statement_id] = {
            "source": statement.source,
            "section": statement.section,
            "keyword": statement.keyword,
            "requirement": statement.requirement(),
            "quote": statement.quote,
        }
    return out


def excerpt(text: str, first: int, last: int | None = None) -> dict[str, Any]:
    """Lines ``first``..``last`` (1-based, inclusive; to the end without ``last``) of a text,
    capped, as ``{"line": first, "text": ...}`` and, when cut, ``"cut": lines left out``."""
    lines = text.splitlines()
    last = len(lines) if last is None else min(last, len(lines))
    chosen = lines[first - 1 : last]
    kept: list[str] = []
    size = 0
    for line in chosen[:EXCERPT_LINES]:
        size += len(line) + 1
        if size > EXCERPT_CHARACTERS:
            break
        kept.append(line)
    data: dict[str, Any] = {"line": first, "text": "\n".join(kept)}
    if len(kept) < len(chosen):
        data["cut"] = len(chosen) - len(kept)
    return data


def case_excerpts(
    file: Path, pack_line: int | None, part_line: int | None, pack_file: Path | None = None
) -> dict[str, Any]:
    """The pack and the part of a case file, with their line numbers: the pack block (or the
    pack file a case names) and the part's block, each up to the next block."""
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return {}
    lines = text.splitlines()
    out: dict[str, Any] = {}
    if pack_file is not None:
        with contextlib.suppress(OSError, UnicodeDecodeError):
            out["pack"] = {"file": pack_file.name, **excerpt(pack_file.read_text("utf-8"), 1)}
    elif pack_line is not None:
        out["pack"] = excerpt(text, pack_line, _block_end(lines, pack_line))
    if part_line is not None:
        out["part"] = excerpt(text, part_line, _block_end(lines, part_line, item=True))
    return out


def _block_end(lines: list[str], start: int, *, item: bool = False) -> int:
    """The last line of the block starting at line ``start``: before the next top-level key,
    or (for a list item) before the next item at the same indentation."""
    first = lines[start - 1] if start - 1 < len(lines) else ""
    indent = len(first) - len(first.lstrip())
    for number in range(start + 1, len(lines) + 1):
        line = lines[number - 1]
        if _TOP_KEY.match(line):
            return number - 1
        if item and line.strip().startswith("- ") and len(line) - len(line.lstrip()) == indent:
            return number - 1
    return len(lines)


def reproduction(
    *, adapter: str, case: str, part: str, spec_version: str, scenario: bool
) -> list[str]:
    """The commands that rerun one part: on the runtime (``ppconf run --id``), and for a
    scenario, its script traced on the reference (``ppconf trace --case``)."""
    options = [] if spec_version == NEWEST else ["--spec-version", spec_version]
    run = ["ppconf", "run", "--adapter", adapter, *options, "--id", case]
    commands = [shlex.join(run)]
    if scenario:
        commands.append(shlex.join(["ppconf", "trace", "--case", case, "--scenario", part]))
    return commands


def failing_statements(record: Any) -> list[tuple[str, dict[str, Any]]]:
    """The statements that make a part fail: those its failed checks at the case's own
    requirement cite (else those of any failed check), with what the record keeps of each."""
    failed = [c for c in record.checks if not c.passed]
    decisive = [c for c in failed if c.requirement == record.requirement] or failed
    ids = dict.fromkeys(i for c in decisive for i in c.statements)
    return [(i, dict(record.statements[i])) for i in ids if i in record.statements]


def why_lines(record: Any, limit: int = 2, *, more: bool = False) -> list[str]:
    """``RFC 0005, Validation Rules (RFC0005.rule-1.1, MUST): "The entry field must ..."``
    for the statements that make a part fail, the binding ones first (none for a skipped part:
    nothing was judged); ``more`` says how many are left out."""
    return _statement_lines(_strongest_first([record]), limit, more)


def group_why_lines(records: Iterable[Any], limit: int = 1) -> list[str]:
    """:func:`why_lines` for parts shown as one group: the statements that make any of them
    fail, the highest requirement first (a group holding a blocking MUST part cites the MUST
    statement, not the first part's MAY pick)."""
    return _statement_lines(_strongest_first(records), limit, more=False)


def _strongest_first(records: Iterable[Any]) -> list[tuple[str, dict[str, Any]]]:
    """The failing statements of the (non-skipped) parts, each once, MUST first; in run
    order within a requirement."""
    found: dict[str, dict[str, Any]] = {}
    for record in records:
        if record.outcome != "skipped":
            for statement_id, data in failing_statements(record):
                found.setdefault(statement_id, data)
    return sorted(found.items(), key=lambda item: _RANK.index(item[1].get("requirement", "MAY")))


_RANK = ("MUST", "SHOULD", "MAY")


def _statement_lines(found: list[tuple[str, dict[str, Any]]], limit: int, more: bool) -> list[str]:
    lines = []
    for statement_id, data in found[:limit]:
        if data.get("unknown"):
            lines.append(f"{statement_id} (not in this kit's registry)")
            continue
        quote = " ".join(str(data["quote"]).split())
        if len(quote) > 240:
            quote = quote[:237] + "..."
        lines.append(
            f"{data['source']}, {data['section']} ({statement_id}, {data['requirement']}): "
            f'"{quote}"'
        )
    if more and len(found) > limit:
        lines.append(f"and {len(found) - limit} more statement(s)")
    return lines


def rerun_lines(header: Any, record: Any) -> list[str]:
    """The commands that rerun one part of a report's run (see :func:`reproduction`)."""
    return _reruns(record, header.adapter, header.selection.spec_version)


def _reruns(record: Any, adapter: str, spec_version: str) -> list[str]:
    return reproduction(
        adapter=adapter,
        case=record.case,
        part=record.part,
        spec_version=spec_version,
        scenario=record.part not in ("load", "validation"),
    )


def failure_lines(record: Any, *, adapter: str, spec_version: str) -> list[str]:
    """What ``ppconf run`` prints under a part that did not pass, after its message: ``why:``
    the statement that requires what failed, and ``rerun:`` the commands that rerun it on
    ``adapter`` (the pytest plugin prints the same under a failing item)."""
    lines = [f"why: {line}" for line in why_lines(record, limit=1)]
    if record.outcome != "skipped":
        lines += [f"rerun: {line}" for line in _reruns(record, adapter, spec_version)]
    return lines


def describe_rule(rule: str) -> str:
    """What a case's ``rules`` entry says in a line: a SEMANTICS row's summary (``X5``), or a
    code's sentence from the kit's vocabulary (``unknown-event``); ``""`` when unknown."""
    for row in (*RULES, *COMPOSITION_RULES):
        if row.id == rule:
            return row.summary
    statement = vocabulary().get(code_statement(rule))
    return statement.quote.removeprefix(f"{rule}: ").removesuffix(".") if statement else ""


__all__ = [
    "case_excerpts",
    "cited_statements",
    "describe_rule",
    "excerpt",
    "failing_statements",
    "failure_lines",
    "group_why_lines",
    "reproduction",
    "rerun_lines",
    "why_lines",
]
