"""tinyflow: a tiny runtime for PromptPack workflows (RFC 0005) and agent loops (RFC 0009).

::

    import tinyflow

    engine = tinyflow.Engine(tinyflow.loads(open("pack.json").read()))
    run = engine.start()
    run.fire("PlanReady", by="agent")
    run.put("commit_sha", "abc123")
    print(run.here, run.render())

It runs the prompts of a pack and its workflow: events, ``max_visits`` guards, artifacts and
budgets. It does not run compositions (RFC 0010).
"""

from __future__ import annotations

from tinyflow.check import Problem, check
from tinyflow.engine import Engine, Move, Run, loads
from tinyflow.errors import (
    BadSave,
    BudgetSpent,
    Halted,
    LoopLimit,
    NoSuchEvent,
    NotSupported,
    PackError,
    TinyflowError,
    UnknownSlot,
    VersionError,
    WrongCaller,
)

__version__ = "0.3.0"

__all__ = [
    "BadSave",
    "BudgetSpent",
    "Engine",
    "Halted",
    "LoopLimit",
    "Move",
    "NoSuchEvent",
    "NotSupported",
    "PackError",
    "Problem",
    "Run",
    "TinyflowError",
    "UnknownSlot",
    "VersionError",
    "WrongCaller",
    "check",
    "loads",
]
