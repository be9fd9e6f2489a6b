"""tinyflow's exceptions: every refusal is a :class:`TinyflowError`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tinyflow.check import Problem


class TinyflowError(Exception):
    """Base class of everything tinyflow refuses."""


class PackError(TinyflowError):
    """The pack cannot be used: unreadable, no prompts, or a workflow with fatal problems.

    Attributes:
        problems: the fatal problems found (empty when the pack could not even be read).
    """

    def __init__(self, message: str, problems: Sequence[Problem] = ()) -> None:
        super().__init__(message)
        self.problems = tuple(problems)


class VersionError(TinyflowError):
    """The workflow declares a version tinyflow does not run (it runs 1 and 2)."""

    def __init__(self, version: object) -> None:
        super().__init__(f"tinyflow runs workflow versions 1 and 2, not {version!r}")
        self.version = version


class NotSupported(TinyflowError):
    """The pack asks for something tinyflow does not do (states that run compositions)."""


class NoSuchEvent(TinyflowError):
    """The current state has no transition for the event (a terminal state has none)."""

    def __init__(self, state: str, event: str) -> None:
        super().__init__(f"state {state!r} has no event {event!r}")
        self.state = state
        self.event = event


class WrongCaller(TinyflowError):
    """The agent fired an event in a state that only the user may move on (external)."""

    def __init__(self, state: str, by: str) -> None:
        super().__init__(f"state {state!r} takes events from the user only, not from the {by}")
        self.state = state
        self.by = by


class BudgetSpent(TinyflowError):
    """A budget of the workflow is used up; the run halts.

    Attributes:
        limit: ``max_total_visits``, ``max_tool_calls`` or ``max_wall_time_sec``.
    """

    def __init__(self, limit: str) -> None:
        super().__init__(f"the run's {limit} budget is spent")
        self.limit = limit


class LoopLimit(TinyflowError):
    """A state is at its ``max_visits`` and its fallbacks lead nowhere; the run halts."""

    def __init__(self, state: str) -> None:
        super().__init__(f"state {state!r} is at its max_visits and has no way out")
        self.state = state


class Halted(TinyflowError):
    """The run halted earlier (on a :class:`BudgetSpent` or :class:`LoopLimit`).

    Attributes:
        cause: the error that halted it.
    """

    def __init__(self, cause: BudgetSpent | LoopLimit) -> None:
        super().__init__(f"the run has halted: {cause}")
        self.cause = cause


class UnknownSlot(TinyflowError):
    """No state of the workflow declares this artifact slot."""

    def __init__(self, name: str) -> None:
        super().__init__(f"no state declares an artifact {name!r}")
        self.name = name


class BadSave(TinyflowError):
    """Saved run data that this engine cannot resume."""
