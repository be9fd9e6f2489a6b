"""The numbers that decide a loop or budget failure, for its message: the limit the pack sets
and the count the runtime reports (``review: max_visits 2, visit count 3``).

A message that says only "accepted, expected max-visits-exceeded" leaves the reader to find
the state's limit in the pack and the count in the runtime's session; the kit has both.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["LOOP_CODES", "loop_numbers"]

LOOP_CODES = frozenset({"max-visits-exceeded", "budget-exhausted"})
"""The codes whose failures turn on visit counts and budgets."""


def loop_numbers(
    pack: Mapping[str, Any] | None,
    state: Mapping[str, Any] | None,
    states: tuple[str | None, ...],
) -> str:
    """``" [review: max_visits 2, visit count 3; max_total_visits 10, total visits 7]"``, or
    ``""`` when there is nothing to say.

    Arguments:
        pack: the case's pack (its ``workflow`` gives the limits).
        state: the session data the runtime reported after the step (its ``visit_counts``).
        states: the states the step concerns (the one it left, the one it entered).
    """
    workflow = (pack or {}).get("workflow")
    counts = (state or {}).get("visit_counts")
    if not isinstance(workflow, Mapping) or not isinstance(counts, Mapping):
        return ""
    declared = workflow.get("states")
    declared = declared if isinstance(declared, Mapping) else {}
    parts = []
    for name in dict.fromkeys(s for s in states if s is not None):
        limit = (declared.get(name) or {}).get("max_visits")
        if isinstance(limit, int) and not isinstance(limit, bool):
            parts.append(f"{name}: max_visits {limit}, visit count {_count(counts.get(name))}")
    budget = ((workflow.get("engine") or {}).get("budget") or {}).get("max_total_visits")
    if isinstance(budget, int) and not isinstance(budget, bool):
        total = sum(c for c in counts.values() if isinstance(c, int) and not isinstance(c, bool))
        parts.append(f"max_total_visits {budget}, total visits {total}")
    return f" [{'; '.join(parts)}]" if parts else ""


def _count(value: Any) -> str:
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else "none"
