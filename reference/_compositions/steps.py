"""A composition compiled into the plain form the engine runs on (RFC 0010 shapes).

Compiling asks the rulebook (``rules``) first, the very rules ``reference.validate`` reports,
and refuses the composition on the first error they find in it, with
:class:`CompositionRunError` under that error's code and pointer. What it then builds is
trusted: no field is checked twice.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from reference._compositions import rules
from reference._compositions.values import Predicate, compile_predicate
from reference._errors import InterpreterError
from reference._json import describe_json_type


class CompositionRunError(InterpreterError):
    """``run_composition`` was given something it cannot run at all.

    An unknown composition, one with an error ``reference.validate`` reports (the first it
    lists for the composition), one holding a construct this reference does not run
    (``parallel-member-kind``), or malformed mocks. Nothing was run.

    Attributes:
        code: ``composition-unknown``; the validator's code (``step-field-missing``,
            ``schema``, ...); ``parallel-member-kind``; ``mock-invalid`` for the mocks;
            ``nesting-too-deep``.
        message: a sentence for people.
        where: a JSON pointer into the pack, or ``mocks/<key>/<index>...`` for the mocks.
    """

    def __init__(self, code: str, message: str, where: str) -> None:
        self.code = code
        self.message = message
        self.where = where
        super().__init__(f"{code} at {where or '/'}: {message}")


@dataclass(frozen=True, kw_only=True, slots=True)
class Step:
    """What every step has.

    Attributes:
        id: the step id.
        kind: the kind as written (a v1 kind or ``namespace.name``).
        depends_on: the ids it joins (C1); empty when it declares none.
        max_attempts: ``modifiers.retry.max_attempts``, 1 by default (C7).
        evals: ``modifiers.eval``, recorded in the trace (C8).
    """

    id: str
    kind: str
    depends_on: tuple[str, ...]
    max_attempts: int
    evals: tuple[str, ...]


@dataclass(frozen=True, kw_only=True, slots=True)
class CallStep(Step):
    """A prompt, tool or vendor step: one call per attempt.

    Attributes:
        binding: ``input`` (prompt and vendor steps) or ``args`` (tool steps), unresolved.
        has_binding: whether the step has that field at all.
        mock_key: the mock key after the step id: ``prompt_task`` or ``tool``; ``None`` for a
            vendor kind, which takes no mocks.
        raw: the step as written, handed to vendor kinds.
    """

    binding: Any
    has_binding: bool
    mock_key: str | None  # prompt_task or tool; None for a vendor kind
    raw: Mapping[str, Any]


@dataclass(frozen=True, kw_only=True, slots=True)
class AgentStep(Step):
    """An agent step (C9): rounds until ``tool_called`` succeeds or ``max_steps`` rounds ran."""

    binding: Any
    has_binding: bool
    prompt_task: str
    offered: frozenset[str]  # `tools` plus termination.tool_called
    max_steps: int | None
    tool_called: str | None


@dataclass(frozen=True, kw_only=True, slots=True)
class BranchStep(Step):
    """A branch step (C2); ``otherwise`` is its ``else``."""

    predicate: Predicate
    then: str
    otherwise: str | None


@dataclass(frozen=True, kw_only=True, slots=True)
class ParallelStep(Step):
    """A parallel step (C3): its branches (``members``), merged by ``strategy`` under ``into``;
    ``reduce`` is the reduce object as written, handed to vendor reducers."""

    members: tuple[Step, ...]
    strategy: str
    into: str
    reduce: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Composition:
    """The top-level steps in array order and the ``output`` step id, if any."""

    steps: tuple[Step, ...]
    output: str | None


def compile_composition(pack: Any, name: str) -> Composition:
    """Compile composition ``name`` of ``pack``, once the rulebook finds nothing to refuse.

    Raises:
        CompositionRunError: the composition is unknown; or the rulebook's first error in it
            (the first ``reference.validate`` lists for it), or a construct this reference does
            not run (``parallel-member-kind``), with its code and pointer.
    """
    if not isinstance(pack, Mapping):
        raise CompositionRunError(
            "schema", f"a pack is a mapping, not {describe_json_type(pack)}", ""
        )
    compositions = pack.get("compositions")
    if not isinstance(compositions, Mapping) or name not in compositions:
        raise CompositionRunError(
            "composition-unknown", f"the pack has no composition {name!r}", "/compositions"
        )
    # A private copy: the caller may change the pack while branches run in other threads.
    raw = copy.deepcopy(compositions[name])
    refused = rules.refusal(rules.PackContext.of(pack), name, raw)
    if refused is not None:
        raise CompositionRunError(refused.code, refused.message, refused.path)
    return Composition(tuple(_step(step) for step in raw["steps"]), raw.get("output"))


def _step(raw: Mapping[str, Any]) -> Step:
    """The run-time form of one step the rulebook accepted (so no field is checked here)."""
    kind: str = raw["kind"]
    modifiers = raw.get("modifiers", {})
    common: dict[str, Any] = {
        "id": raw["id"],
        "kind": kind,
        "depends_on": tuple(raw.get("depends_on", ())),
        "max_attempts": int(modifiers.get("retry", {}).get("max_attempts", 1)),
        "evals": tuple(modifiers.get("eval", ())),
    }
    if kind == "agent":
        termination = raw["termination"]
        tool_called = termination.get("tool_called")
        max_steps = termination.get("max_steps")
        return AgentStep(
            **common,
            binding=raw.get("input"),
            has_binding="input" in raw,
            prompt_task=raw["prompt_task"],
            offered=frozenset(raw.get("tools", ())) | ({tool_called} - {None}),
            max_steps=int(max_steps) if max_steps is not None else None,
            tool_called=tool_called,
        )
    if kind == "branch":
        return BranchStep(
            **common,
            predicate=compile_predicate(raw["predicate"]),
            then=raw["then"],
            otherwise=raw.get("else"),
        )
    if kind == "parallel":
        reduce = raw["reduce"]
        return ParallelStep(
            **common,
            members=tuple(_step(member) for member in raw["branches"]),
            strategy=reduce["strategy"],
            into=reduce["into"],
            reduce=reduce,
        )
    binding_field = "args" if kind == "tool" else "input"
    mock_keys = {"prompt": raw.get("prompt_task"), "tool": raw.get("tool")}  # vendor: none
    return CallStep(
        **common,
        binding=raw.get(binding_field),
        has_binding=binding_field in raw,
        mock_key=mock_keys.get(kind),
        raw=raw,
    )
