"""A composition compiled into the plain form the engine runs on (RFC 0010 shapes).

Compiling checks what the engine needs to run a step at all and refuses the rest with
:class:`CompositionRunError`, under the validation code where one exists. It is not the
validator: ``reference.validate`` reports every problem of a pack; this stops at the first.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeGuard

from reference._compositions.extensions import V1_KINDS, V1_REDUCERS, is_namespaced
from reference._compositions.values import (
    Predicate,
    PredicateInvalid,
    compile_predicate,
)
from reference._errors import InterpreterError
from reference._json import describe_json_type, is_number, json_pointer

_STEP_ID = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")


class CompositionRunError(InterpreterError):
    """``run_composition`` was given something it cannot run at all.

    An unknown or malformed composition (what ``reference.validate`` reports as an error) or
    malformed mocks. Nothing was run.

    Attributes:
        code: a stable code; the validation code where one exists (``composition-unknown``,
            ``step-field-missing``, ...), else ``schema``; ``mock-invalid`` for the mocks.
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
    """Compile composition ``name`` of ``pack``.

    Raises:
        CompositionRunError: the composition is unknown, or something in it cannot be run.
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
    return _Compiler(json_pointer("compositions", name)).composition(
        copy.deepcopy(compositions[name])
    )


class _Compiler:
    """Turns a composition into :class:`Composition`, refusing what cannot be run."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.position: dict[str, int] = {}  # step id -> top-level index (members: their parent's)

    def fail(self, code: str, message: str, where: str) -> CompositionRunError:
        return CompositionRunError(code, message, self.base + where)

    def composition(self, raw: Any) -> Composition:
        if not isinstance(raw, Mapping):
            raise self.fail(
                "schema", f"a composition is an object, not {describe_json_type(raw)}", ""
            )
        version = raw.get("version")
        if not (is_number(version) and version == 1):
            raise self.fail(
                "composition-version-unsupported",
                f"composition version {version!r} is not supported (supported: 1)",
                "/version",
            )
        steps = raw.get("steps")
        if not isinstance(steps, list) or not steps:
            raise self.fail("schema", "steps is a non-empty list of steps", "/steps")
        for index, step in enumerate(steps):
            where = f"/steps/{index}"
            self.register(step, where, index)
            if isinstance(step, Mapping) and step.get("kind") == "parallel":
                branches = step.get("branches")
                for member_index, member in enumerate(
                    branches if isinstance(branches, list) else []
                ):
                    self.register(member, f"{where}/branches/{member_index}", index)
        compiled = tuple(
            self.step(step, f"/steps/{index}", index, member=False)
            for index, step in enumerate(steps)
        )
        output = raw.get("output")
        if output is not None and (not isinstance(output, str) or output not in self.position):
            raise self.fail(
                "composition-output-unknown", f"output {output!r} names no step", "/output"
            )
        return Composition(compiled, output)

    def register(self, step: Any, where: str, index: int) -> None:
        if not isinstance(step, Mapping):
            raise self.fail("schema", f"a step is an object, not {describe_json_type(step)}", where)
        step_id = step.get("id")
        if not isinstance(step_id, str) or not _is_step_id(step_id):
            raise self.fail(
                "step-id-invalid",
                f"step id {step_id!r} does not match {_STEP_ID.pattern}",
                where + "/id",
            )
        if step_id in self.position:
            raise self.fail(
                "step-id-duplicate", f"step id {step_id!r} is used twice", where + "/id"
            )
        if not isinstance(step.get("kind"), str):
            raise self.fail("step-field-missing", f"step {step_id!r} has no kind", where + "/kind")
        self.position[step_id] = index

    def step(self, raw: Mapping[str, Any], where: str, index: int, *, member: bool) -> Step:
        step_id: str = raw["id"]
        kind: str = raw["kind"]
        common: dict[str, Any] = {
            "id": step_id,
            "kind": kind,
            "depends_on": self.depends_on(raw, where, index, member=member),
            **self.modifiers(raw, where),
        }
        if kind not in V1_KINDS and not is_namespaced(kind):
            raise self.fail(
                "step-kind-unknown",
                f"step kind {kind!r} is neither a v1 kind ({', '.join(V1_KINDS)}) nor "
                "namespaced ('vendor.kind')",
                where + "/kind",
            )
        if member and kind in ("branch", "parallel"):
            raise self.fail(
                "parallel-member-kind",
                f"a parallel branch is a prompt, agent, tool or vendor step, not a {kind}",
                where + "/kind",
            )
        binding_field = "args" if kind == "tool" else "input"
        binding = raw.get(binding_field)
        if kind == "tool" and binding is not None and not isinstance(binding, Mapping):
            raise self.fail("schema", "args is an object", where + "/args")
        if kind in ("prompt", "tool"):
            key_field = "prompt_task" if kind == "prompt" else "tool"
            return CallStep(
                **common,
                binding=binding,
                has_binding=binding_field in raw,
                mock_key=self.string(raw, key_field, where),
                raw=raw,
            )
        if kind == "agent":
            return self.agent(raw, where, common)
        if kind == "branch":
            return self.branch(raw, where, index, common)
        if kind == "parallel":
            return self.parallel(raw, where, index, common)
        return CallStep(
            **common, binding=binding, has_binding="input" in raw, mock_key=None, raw=raw
        )

    def agent(self, raw: Mapping[str, Any], where: str, common: dict[str, Any]) -> Step:
        termination = raw.get("termination")
        if not isinstance(termination, Mapping):
            termination = {}
        max_steps = termination.get("max_steps")
        tool_called = termination.get("tool_called")
        if max_steps is not None and not _is_positive_integer(max_steps):
            raise self.fail(
                "schema", "max_steps is an integer >= 1", where + "/termination/max_steps"
            )
        if tool_called is not None and not isinstance(tool_called, str):
            raise self.fail(
                "schema", "tool_called is a tool name", where + "/termination/tool_called"
            )
        if max_steps is None and tool_called is None:
            raise self.fail(
                "agent-termination-missing",
                "an agent step needs termination.max_steps or termination.tool_called",
                where + "/termination",
            )
        tools = raw.get("tools", [])
        if not isinstance(tools, list) or not all(isinstance(tool, str) for tool in tools):
            raise self.fail("schema", "tools is a list of tool names", where + "/tools")
        return AgentStep(
            **common,
            binding=raw.get("input"),
            has_binding="input" in raw,
            prompt_task=self.string(raw, "prompt_task", where),
            offered=frozenset(tools) | ({tool_called} if tool_called is not None else set()),
            max_steps=int(max_steps) if max_steps is not None else None,
            tool_called=tool_called,
        )

    def branch(
        self, raw: Mapping[str, Any], where: str, index: int, common: dict[str, Any]
    ) -> Step:
        if "predicate" not in raw:
            raise self.fail("step-field-missing", "a branch step needs a predicate", where)
        try:
            predicate = compile_predicate(raw["predicate"])
        except PredicateInvalid as error:
            raise self.fail(
                "predicate-invalid", str(error), f"{where}/predicate{error.where}"
            ) from None
        then = self.string(raw, "then", where)
        otherwise = raw.get("else")
        for name, target in (("then", then), ("else", otherwise)):
            if target is None and name == "else":
                continue
            if not isinstance(target, str) or target not in self.position:
                raise self.fail(
                    "step-target-unknown",
                    f"{name} {target!r} is not a step of the composition",
                    f"{where}/{name}",
                )
            if self.position[target] <= index:
                raise self.fail(
                    "step-graph-cycle",
                    f"{name} {target!r} does not come after the branch, so the graph has a cycle",
                    f"{where}/{name}",
                )
        return BranchStep(**common, predicate=predicate, then=then, otherwise=otherwise)

    def parallel(
        self, raw: Mapping[str, Any], where: str, index: int, common: dict[str, Any]
    ) -> Step:
        branches = raw.get("branches")
        if not isinstance(branches, list) or len(branches) < 2:
            raise self.fail(
                "parallel-branches-too-few", "a parallel step has at least two branches", where
            )
        reduce = raw.get("reduce")
        if not (
            isinstance(reduce, Mapping)
            and isinstance(reduce.get("strategy"), str)
            and isinstance(reduce.get("into"), str)
        ):
            raise self.fail(
                "parallel-reduce-missing",
                "a parallel step needs reduce: {strategy, into}",
                where + "/reduce",
            )
        strategy: str = reduce["strategy"]
        if strategy not in V1_REDUCERS and not is_namespaced(strategy):
            raise self.fail(
                "reduce-strategy-unknown",
                f"reduce strategy {strategy!r} is neither a v1 reducer "
                f"({', '.join(V1_REDUCERS)}) nor namespaced ('vendor.name')",
                where + "/reduce/strategy",
            )
        members = tuple(
            self.step(member, f"{where}/branches/{i}", index, member=True)
            for i, member in enumerate(branches)
        )
        return ParallelStep(
            **common, members=members, strategy=strategy, into=reduce["into"], reduce=reduce
        )

    def depends_on(
        self, raw: Mapping[str, Any], where: str, index: int, *, member: bool
    ) -> tuple[str, ...]:
        """The ``depends_on`` ids, each naming a step that comes earlier.

        A parallel's branches may name each other: ``depends_on`` only decides skipping (C1),
        and whether a sibling is skipped is known before any branch starts.
        """
        depends_on = raw.get("depends_on", [])
        if not isinstance(depends_on, list) or not all(isinstance(d, str) for d in depends_on):
            raise self.fail("schema", "depends_on is a list of step ids", where + "/depends_on")
        for i, dependency in enumerate(depends_on):
            if dependency not in self.position:
                raise self.fail(
                    "step-target-unknown",
                    f"depends_on names no step: {dependency!r}",
                    f"{where}/depends_on/{i}",
                )
            position = self.position[dependency]
            if dependency == raw["id"] or position > index or (position == index and not member):
                raise self.fail(
                    "step-graph-cycle",
                    f"depends_on {dependency!r} does not run before this step",
                    f"{where}/depends_on/{i}",
                )
        return tuple(depends_on)

    def modifiers(self, raw: Mapping[str, Any], where: str) -> dict[str, Any]:
        modifiers = raw.get("modifiers", {})
        if not isinstance(modifiers, Mapping):
            raise self.fail("schema", "modifiers is an object", where + "/modifiers")
        retry = modifiers.get("retry", {})
        max_attempts = retry.get("max_attempts", 1) if isinstance(retry, Mapping) else None
        if not _is_positive_integer(max_attempts):
            raise self.fail(
                "schema", "retry is {max_attempts: integer >= 1}", where + "/modifiers/retry"
            )
        evals = modifiers.get("eval", [])
        if not isinstance(evals, list) or not all(isinstance(e, str) for e in evals):
            raise self.fail("schema", "eval is a list of eval ids", where + "/modifiers/eval")
        return {"max_attempts": int(max_attempts), "evals": tuple(evals)}

    def string(self, raw: Mapping[str, Any], name: str, where: str) -> str:
        value = raw.get(name)
        if not isinstance(value, str):
            raise self.fail(
                "step-field-missing",
                f"a {raw['kind']} step needs {name} (a string)",
                f"{where}/{name}",
            )
        return value


def _is_step_id(value: str) -> bool:
    return _STEP_ID.fullmatch(value) is not None


def _is_positive_integer(value: Any) -> TypeGuard[int | float]:
    return is_number(value) and value >= 1 and value == int(value)
