"""The numbers that decide a loop or budget failure, for its message: the limit the pack sets
and the count the runtime reports (``review: max_visits 2, visit count 3``, ``max_tool_calls 5,
tool calls 5``, ``max_wall_time_sec 60, elapsed seconds 60``).

A message that says only "accepted, expected max-visits-exceeded" leaves the reader to find
the state's limit in the pack and the count in the runtime's session; the kit has both.
"""

from __future__ import annotations

import math
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

    Each limit the pack sets comes with what the runtime reported for it: a state's
    ``max_visits`` with its visit count, ``max_total_visits`` with the sum of the visit counts,
    ``max_tool_calls`` with ``tool_calls`` and ``max_wall_time_sec`` with ``elapsed_sec``. Only
    numbers are shown; anything else the runtime reports is ``none``.

    Arguments:
        pack: the case's pack (its ``workflow`` gives the limits).
        state: the session data the runtime reported after the step (``visit_counts``,
            ``tool_calls``, ``elapsed_sec``).
        states: the states the step concerns (the one it left, the one it entered).
    """
    workflow = (pack or {}).get("workflow")
    if not isinstance(workflow, Mapping) or not isinstance(state, Mapping):
        return ""
    counts = state.get("visit_counts")
    budget = (workflow.get("engine") or {}).get("budget") or {}
    parts = []
    if isinstance(counts, Mapping):
        declared = workflow.get("states")
        declared = declared if isinstance(declared, Mapping) else {}
        for name in dict.fromkeys(s for s in states if s is not None):
            limit = (declared.get(name) or {}).get("max_visits")
            if _is_int(limit):
                parts.append(f"{name}: max_visits {limit}, visit count {_count(counts.get(name))}")
        total_limit = budget.get("max_total_visits")
        if _is_int(total_limit):
            total = sum(c for c in counts.values() if _is_int(c))
            parts.append(f"max_total_visits {total_limit}, total visits {total}")
    tool_limit = budget.get("max_tool_calls")
    if _is_int(tool_limit):
        parts.append(f"max_tool_calls {tool_limit}, tool calls {_count(state.get('tool_calls'))}")
    wall_limit = budget.get("max_wall_time_sec")
    if _is_int(wall_limit):
        elapsed = _seconds(state.get("elapsed_sec"))
        parts.append(f"max_wall_time_sec {wall_limit}, elapsed seconds {elapsed}")
    return f" [{'; '.join(parts)}]" if parts else ""


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _count(value: Any) -> str:
    return str(value) if _is_int(value) else "none"


def _seconds(value: Any) -> str:
    """An elapsed time as a number (``60``, ``59.5``), or ``none`` for anything else."""
    if _is_int(value):
        return str(value)
    if not isinstance(value, float) or not math.isfinite(value):
        return "none"
    # 60.0 reads as 60; a fraction keeps its shortest exact form (59.5, 0.1).
    return str(int(value)) if value.is_integer() and abs(value) < 2**53 else repr(value)
