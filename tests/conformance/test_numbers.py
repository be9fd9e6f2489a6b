"""A loop or budget failure's message carries the numbers that decide it: the limit the pack
sets and the count the runtime reported."""

from __future__ import annotations

from typing import Any

import pytest

from conformance._cli import main
from conformance._judging.numbers import loop_numbers

PACK: dict[str, Any] = {
    "workflow": {
        "engine": {"budget": {"max_total_visits": 10}},
        "states": {"hub": {}, "review": {"max_visits": 1}},
    }
}

BUDGETS: dict[str, Any] = {
    "workflow": {"engine": {"budget": {"max_tool_calls": 5, "max_wall_time_sec": 60}}}
}


@pytest.mark.parametrize(
    ("pack", "state", "states", "expected"),
    [
        (
            PACK,
            {"visit_counts": {"hub": 3, "review": 2}},
            ("hub", "review"),
            " [review: max_visits 1, visit count 2; max_total_visits 10, total visits 5]",
        ),
        (
            PACK,
            {"visit_counts": {}},
            ("review", "review"),
            " [review: max_visits 1, visit count none; max_total_visits 10, total visits 0]",
        ),
        # Whatever the runtime reports, only numbers are shown, and nothing breaks.
        (
            PACK,
            {"visit_counts": {"review": "2\n::error::x", "hub": True}},
            ("review",),
            " [review: max_visits 1, visit count none; max_total_visits 10, total visits 0]",
        ),
        (PACK, {"visit_counts": "many"}, ("review",), ""),
        (PACK, None, ("review",), ""),
        ({"workflow": {"states": {"a": {"max_visits": True}}}}, {"visit_counts": {}}, ("a",), ""),
        (None, {"visit_counts": {}}, ("a",), ""),
        # Tool calls and wall time come with what the runtime reported for them.
        (
            BUDGETS,
            {"visit_counts": {"work": 2}, "tool_calls": 5, "elapsed_sec": 60.0},
            ("work", "done"),
            " [max_tool_calls 5, tool calls 5; max_wall_time_sec 60, elapsed seconds 60]",
        ),
        (
            BUDGETS,
            {"tool_calls": 4, "elapsed_sec": 59.5},
            ("work",),
            " [max_tool_calls 5, tool calls 4; max_wall_time_sec 60, elapsed seconds 59.5]",
        ),
        (
            BUDGETS,
            {"tool_calls": "5</b>\n::error::x", "elapsed_sec": float("nan")},
            ("work",),
            " [max_tool_calls 5, tool calls none; max_wall_time_sec 60, elapsed seconds none]",
        ),
        (
            BUDGETS,
            {"tool_calls": 5.0, "elapsed_sec": True},
            ("work",),
            " [max_tool_calls 5, tool calls none; max_wall_time_sec 60, elapsed seconds none]",
        ),
        (
            BUDGETS,
            {},
            (),
            " [max_tool_calls 5, tool calls none; max_wall_time_sec 60, elapsed seconds none]",
        ),
        (
            {"workflow": {"engine": {"budget": {"max_wall_time_sec": 60}}}},
            {"elapsed_sec": 1e300},
            (),
            " [max_wall_time_sec 60, elapsed seconds 1e+300]",
        ),
    ],
)
def test_the_numbers_are_the_packs_limits_and_the_runtimes_counts(
    pack: Any, state: Any, states: tuple[str, ...], expected: str
) -> None:
    assert loop_numbers(pack, state, states) == expected


@pytest.mark.usefixtures("fakes_importable")
def test_a_max_visits_failure_names_the_limit_and_the_visit_count(
    capsys: pytest.CaptureFixture[str],
) -> None:
    case = "loops.max-visits.chain-end-without-on-max-visits"
    assert main(["run", "--adapter=breaking:OneLevelRedirects", f"--id={case}"]) == 1
    out = capsys.readouterr().out
    assert (
        "accepted (hub -> review), expected a rejection (max-visits-exceeded or "
        "budget-exhausted) [review: max_visits 1, visit count 2; max_total_visits 20, "
        "total visits 6]"
    ) in out


@pytest.mark.usefixtures("fakes_importable")
@pytest.mark.parametrize(
    ("case", "numbers"),
    [
        ("loops.budget.max-tool-calls-boundary", "[max_tool_calls 5, tool calls 5]"),
        (
            "loops.budget.max-wall-time-boundary",
            "[check: max_visits 5, visit count 2; max_wall_time_sec 60, elapsed seconds 60]",
        ),
    ],
)
def test_a_tool_call_or_wall_time_failure_names_the_limit_and_the_count(
    case: str, numbers: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "--adapter=breaking:BudgetOffByOne", f"--id={case}"]) == 1
    out = capsys.readouterr().out
    assert f"expected a rejection (budget-exhausted) {numbers}" in out
