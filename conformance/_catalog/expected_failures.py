"""Expected-failure files: case ids a runtime is known to fail, each with the reason.

A YAML mapping of case id to reason (``loops.budget.wall-time: our clock cannot be injected``),
or to ``{flaky: reason}`` for a case known to be flaky (R5): it is then expected to end
``flaky``, which still counts as not passed.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

import reference
from conformance._basics.errors import CaseError
from conformance._catalog.documents import read_yaml

__all__ = ["ExpectedFailure", "load_expected_failures", "write_expected_failures"]


@dataclass(frozen=True)
class ExpectedFailure:
    """A case a runtime is known to fail (``kind`` ``fail``) or to be flaky on (``flaky``)."""

    reason: str
    kind: str = "fail"

    def covers(self, outcome: str) -> bool:
        """Whether a case ending with ``outcome`` is what this entry expects."""
        if self.kind == "flaky":
            return outcome == "flaky"
        return outcome != "passed"


def load_expected_failures(
    path: str | Path, known_ids: Collection[str]
) -> dict[str, ExpectedFailure]:
    """Read an expected-failures file.

    Raises:
        CaseError: the file is malformed, a reason is empty, or an id is not in the catalog
            (a stale entry would hide nothing and mislead).
    """
    document = read_yaml(path)
    data = document.data if document.data is not None else {}
    if not isinstance(data, dict):
        raise CaseError(
            "an expected-failures file is a mapping of case id to reason",
            document.locate(""),
            "write lines like `loops.budget.wall-time: our clock cannot be injected`",
        )
    entries = {}
    for case_id, value in data.items():
        pointer = reference.json_pointer(case_id)
        kind, reason = "fail", value
        if isinstance(value, dict) and list(value) == ["flaky"]:
            kind, reason = "flaky", value["flaky"]
        if not isinstance(reason, str) or not reason.strip():
            raise CaseError(
                f"expected failure {case_id!r} has no reason",
                document.locate(pointer),
                "give every entry a reason (or {flaky: reason}), so the list can be reviewed",
            )
        if case_id not in known_ids:
            raise CaseError(
                f"expected failure {case_id!r} is not a case of the catalog",
                document.locate(pointer),
                "remove the entry or fix the id (ppconf cases list shows them)",
            )
        entries[case_id] = ExpectedFailure(reason, kind)
    return entries


def write_expected_failures(path: str | Path, entries: dict[str, ExpectedFailure]) -> None:
    """Write an expected-failures file (sorted by id), e.g. from a run's failures."""
    lines = [
        "# Cases this runtime is known to fail: case id: reason (ppconf run --expected-failures)"
    ]
    for case_id, entry in sorted(entries.items()):
        reason = entry.reason.replace("\n", " ").strip()
        quoted = '"' + reason.replace("\\", "\\\\").replace('"', '\\"') + '"'
        value = f"{{flaky: {quoted}}}" if entry.kind == "flaky" else quoted
        lines.append(f"{case_id}: {value}")
    Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")
