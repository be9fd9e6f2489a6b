"""The operations a runtime answers, each declared once.

One :class:`Operation` per request of the adapter protocol: its name on the wire, the adapter
or session method that does it, its arguments, what an ok answer carries, and the optional
interface a runtime needs for it. The protocol client and server, the
:class:`~conformance._runtime.boundary.Guard`, the runner's scripts and the published protocol
schema (tied by a test) all read :data:`OPERATIONS`; ``docs/protocol.md`` says what adding one
takes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from conformance._runtime.adapter import (
    Closable,
    CompositionAdapter,
    CompositionSession,
    TurnSession,
)

Target = Literal["protocol", "adapter", "session"]
Shape = Literal["object", "objects", "string", "any"]

_SHAPE_NAMES: dict[Shape, str] = {
    "object": "an object",
    "objects": "a list of objects",
    "string": "a string",
    "any": "a value",
}


@dataclass(frozen=True)
class Operation:
    """One operation of the adapter interface and of the protocol.

    Attributes:
        name: the request's ``op``.
        target: who answers it: the protocol itself (``hello``, ``run_script``, ``shutdown``),
            the adapter (given the pack) or a session (given its id).
        method: the adapter's or session's method that does it (by default ``name``).
        arguments: the request's fields, in the order the method takes them.
        optional: fields a request may leave out (``start``'s ``at_state`` and ``agent``).
        answer: the field of an ok answer that carries the result (``None``: nothing).
        shape: what that field holds.
        needs: the optional interface the adapter (or session) must have, if any; without it
            the operation is unsupported (skipped).
        feature: what that interface is, for the message saying it is missing.
        scripted: a ``run_script`` request may hold it.
    """

    name: str
    target: Target = "session"
    method: str = ""
    arguments: tuple[str, ...] = ()
    optional: tuple[str, ...] = ()
    answer: str | None = None
    shape: Shape = "any"
    needs: Any = None
    feature: str = ""
    scripted: bool = False

    def __post_init__(self) -> None:
        if not self.method:
            object.__setattr__(self, "method", self.name)

    @property
    def carries_pack(self) -> bool:
        """Whether its request carries the pack (the adapter's operations, and a script)."""
        return self.target == "adapter" or self.name == "run_script"

    @property
    def expected(self) -> str:
        """What an ok answer must hold, in words (``a session (a string)``)."""
        return f"{self.answer} ({_SHAPE_NAMES[self.shape]})"

    def result(self, answer: Mapping[str, Any]) -> Any:
        """The result an ok answer carries (``None`` for an operation that has none).

        Raises:
            ValueError: saying what is missing or of the wrong shape.
        """
        if self.answer is None:
            return None
        value = answer.get(self.answer)
        if not _has_shape(value, self.shape):
            raise ValueError(f"{self.name} answered without {self.expected}")
        return value


def _has_shape(value: Any, shape: Shape) -> bool:
    if shape == "object":
        return isinstance(value, dict)
    if shape == "objects":
        return isinstance(value, list) and all(isinstance(item, dict) for item in value)
    if shape == "string":
        return isinstance(value, str)
    return True


_TURNS = "RFC 0014 control"
_COMPOSITIONS = "compositions"

OPERATIONS: tuple[Operation, ...] = (
    Operation("hello", "protocol", arguments=("protocol",)),
    Operation("load", "adapter"),
    Operation("validate", "adapter", answer="diagnostics", shape="objects", scripted=True),
    Operation(
        "start",
        "adapter",
        optional=("at_state", "agent"),
        answer="session",
        shape="string",
        scripted=True,  # with at_state or agent, it needs a StateStartingAdapter (RFC 0011)
    ),
    Operation("restore", "adapter", arguments=("snapshot",), answer="session", shape="string"),
    Operation(
        "send", arguments=("event", "source"), answer="transition", shape="object", scripted=True
    ),
    Operation("set_artifact", arguments=("name", "value"), scripted=True),
    Operation("tool_calls", method="record_tool_calls", arguments=("count",), scripted=True),
    Operation("advance_clock", arguments=("seconds",), scripted=True),
    Operation("state", answer="state", shape="object", scripted=True),
    Operation("snapshot", answer="snapshot"),
    Operation("close", needs=Closable, feature="closing sessions"),
    Operation("shutdown", "protocol"),
    Operation(
        "run_composition",
        "adapter",
        arguments=("name", "input", "mocks"),
        answer="result",
        shape="object",
        needs=CompositionAdapter,
        feature=_COMPOSITIONS,
        scripted=True,
    ),
    Operation(
        "run_state",
        arguments=("input", "mocks"),
        answer="result",
        shape="object",
        needs=CompositionSession,
        feature=_COMPOSITIONS,
        scripted=True,
    ),
    Operation("agent_text", arguments=("text",), needs=TurnSession, feature=_TURNS, scripted=True),
    Operation("user_turn", needs=TurnSession, feature=_TURNS, scripted=True),
    Operation("run_script", "protocol", arguments=("requests",), answer="answers", shape="objects"),
)
"""Every operation, in the order ``docs/protocol.md`` and the protocol schema list them."""

BY_NAME: dict[str, Operation] = {operation.name: operation for operation in OPERATIONS}
"""The operations by their name on the wire."""
BY_METHOD: dict[str, Operation] = {
    operation.method: operation for operation in OPERATIONS if operation.target != "protocol"
}
"""The adapter's and sessions' operations by the method that does them."""
SCRIPT_OPS: tuple[str, ...] = tuple(o.name for o in OPERATIONS if o.scripted)
"""The requests a script may hold, each without ``id``, ``pack`` (the script's) and ``session``
(the one its ``start`` opened)."""

__all__ = ["BY_METHOD", "BY_NAME", "OPERATIONS", "SCRIPT_OPS", "Operation"]
