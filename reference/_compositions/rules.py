"""Validating compositions (RFC 0010): every rule of SEMANTICS.md section 4 after the schema.

The pack schema checks the composition shapes but leaves every rule that has its own code to
this module, so that each violation is reported once, under that code, never also as `schema`.
The rules skip what is malformed (the schema has reported it) and run in time linear in the
size of the compositions: steps are read to two levels (a parallel's branches; a parallel nested
in one is rejected and not looked into), predicates and input values are walked with explicit
stacks, never by recursion, and the step graph's cycles come from one Tarjan pass.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from reference import _graph
from reference._compositions.values import COMPARE_OPS, REFERENCE
from reference._diagnostics import Diagnostic, Severity
from reference._json import is_integer, json_pointer

V1_KINDS = ("prompt", "agent", "tool", "branch", "parallel")
LEAF_KINDS = ("prompt", "agent", "tool")  # and vendor kinds (SEMANTICS C4)
REDUCE_STRATEGIES = ("append", "replace", "barrier")
RESERVED_NAMES = ("workflow__transition", "workflow__set_artifact")
SUPPORTED_COMPOSITION_VERSIONS = (1,)
LIST_OPS = ("in", "not_in")
# The predicate variants by their exact keys: a predicate object has no other keys (closed,
# as the reference's engine reads them), so a stray key cannot pass for an expression.
PREDICATE_VARIANTS = (
    frozenset(("path", "op", "value")),
    frozenset(("path", "exists")),
    frozenset(("all_of",)),
    frozenset(("any_of",)),
    frozenset(("not",)),
)
# Where each kind reads references; vendor kinds (absent here) are scanned in both.
BINDINGS: dict[str | None, tuple[str, ...]] = {
    "prompt": ("input",),
    "agent": ("input",),
    "tool": ("args",),
    "branch": (),
    "parallel": (),
}
REQUIRED_FIELDS = {
    "prompt": ("prompt_task",),
    "agent": ("prompt_task",),
    "tool": ("tool",),
    "branch": ("predicate", "then"),
}

CYCLE_NAMES_SHOWN = 10  # a step-graph-cycle message names this many steps, then counts

STEP_ID = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")
VENDOR_NAME = re.compile(r"[a-z][a-z0-9_-]*\.[a-z][a-z0-9_.-]*")

# A JSON-pointer location kept as a linked list (parent, token), so that walking a deep
# structure costs constant work per level; it is spelt out only when a diagnostic needs it.
Where = tuple["Where | None", str | int]


def spell(where: Where | None) -> str:
    """Return the JSON pointer of a linked location."""
    tokens: list[str | int] = []
    while where is not None:
        where, token = where
        tokens.append(token)
    return json_pointer(*reversed(tokens))


def diagnostics(pack: dict[str, Any]) -> list[Diagnostic]:
    """Return the diagnostics of every composition of a pack (unsorted).

    Arguments:
        pack: the loaded pack (an object; the schema has already been applied to it).
    """
    compositions = pack.get("compositions")
    if not isinstance(compositions, dict):
        return []
    context = _PackContext.of(pack)
    found: list[Diagnostic] = []
    for name, composition in compositions.items():
        found.extend(_CompositionRules(context, name, composition).diagnostics())
    return found


@dataclass(frozen=True)
class _PackContext:
    """What the composition rules read from the rest of the pack."""

    prompts: dict[str, Any]
    tools: frozenset[str]
    pack_evals: frozenset[str]
    referenced: frozenset[str]  # compositions named by a composition-mode workflow state

    @classmethod
    def of(cls, pack: dict[str, Any]) -> _PackContext:
        prompts = pack.get("prompts")
        tools = pack.get("tools")
        referenced: set[str] = set()
        workflow = pack.get("workflow")
        states = workflow.get("states") if isinstance(workflow, dict) else None
        if isinstance(states, dict):
            for state in states.values():
                if isinstance(state, dict) and state.get("orchestration") == "composition":
                    name = state.get("composition")
                    if isinstance(name, str):
                        referenced.add(name)
        return cls(
            prompts=prompts if isinstance(prompts, dict) else {},
            tools=frozenset(tools) if isinstance(tools, dict) else frozenset(),
            pack_evals=_eval_ids(pack.get("evals")),
            referenced=frozenset(referenced),
        )

    def evals_for(self, task: Any) -> frozenset[str]:
        """The eval ids a step may name: the pack's, plus its own prompt's (RFC 0006 scopes)."""
        prompt = self.prompts.get(task) if isinstance(task, str) else None
        if not isinstance(prompt, dict):
            return self.pack_evals
        return self.pack_evals | _eval_ids(prompt.get("evals"))


def _eval_ids(evals: Any) -> frozenset[str]:
    if not isinstance(evals, list):
        return frozenset()
    return frozenset(e["id"] for e in evals if isinstance(e, dict) and isinstance(e.get("id"), str))


@dataclass(eq=False)
class _Step:
    """One step object of a composition: a top-level step or a parallel's branch.

    Attributes:
        number: position in document order (pre-order: a parallel, then its branches).
        where: the step's location.
        data: the step object.
        id: its id when it is a string, else ``None``.
        kind: its kind when it is a string, else ``None``.
        top: index in ``steps`` of the top-level step it is, or is nested in.
        parent: number of the parallel whose branch it is (``None`` at the top level).
    """

    number: int
    where: Where
    data: dict[str, Any]
    id: str | None
    kind: str | None
    top: int
    parent: int | None
    members: list[int] = field(default_factory=list)


class _CompositionRules:
    """The checks of SEMANTICS section 4 on one entry of ``compositions``."""

    def __init__(self, context: _PackContext, name: str, composition: Any) -> None:
        self.context = context
        self.name = name
        self.composition = composition
        self.where: Where = ((None, "compositions"), name)
        self.found: list[Diagnostic] = []
        self.steps: list[_Step] = []
        self.tops: list[int] = []  # number of each top-level step object, by index in steps
        self.by_id: dict[str, list[_Step]] = {}
        self.nested_ids: set[str] = set()  # ids inside a parallel nested in a parallel

    def report(
        self, code: str, where: Where | None, message: str, *, warning: bool = False
    ) -> None:
        severity: Severity = "warning" if warning else "error"
        self.found.append(Diagnostic(code, severity, spell(where), message))

    def diagnostics(self) -> list[Diagnostic]:
        self.check_name()
        composition = self.composition
        if not isinstance(composition, dict):
            return self.found  # the schema reports it
        self.check_version()
        steps = composition.get("steps")
        if isinstance(steps, list):
            self.collect(steps)
        self.check_ids()
        for step in self.steps:
            self.check_step(step)
        self.check_output()
        self.check_graph()
        self.check_joins()
        return self.found

    # the composition

    def check_name(self) -> None:
        if self.name in RESERVED_NAMES:
            self.report(
                "composition-name-reserved",
                self.where,
                f"{self.name!r} is a name reserved by runtimes (their workflow tools); "
                "rename the composition",
            )
        if self.name not in self.context.referenced:
            self.report(
                "composition-unreferenced",
                self.where,
                f"no workflow state in composition mode runs composition {self.name!r}",
                warning=True,
            )

    def check_version(self) -> None:
        version = self.composition.get("version")
        if is_integer(version) and version not in SUPPORTED_COMPOSITION_VERSIONS:
            self.report(
                "composition-version-unsupported",
                (self.where, "version"),
                f"composition version {version} is not supported (supported: 1)",
            )

    def check_output(self) -> None:
        output = self.composition.get("output")
        if not isinstance(output, str):
            return
        named = self.by_id.get(output)
        if named is None and output in self.nested_ids:
            return  # inside a nested parallel, which is reported already
        if named is None:
            self.report(
                "composition-output-unknown",
                (self.where, "output"),
                f"output names {output!r}, which is not a step of the composition",
            )
        elif all(step.kind == "branch" for step in named):
            self.report(
                "composition-output-unknown",
                (self.where, "output"),
                f"output names {output!r}, a branch step, which has no output",
            )

    # the steps, flattened in document order

    def collect(self, steps: list[Any]) -> None:
        """Number the steps in document order: each step, then the branches of a parallel.

        A parallel inside a parallel is rejected (``parallel-member-kind``) and not looked
        into: the ids of the steps in it are only noted, so that naming them is not reported
        as well. Every rule thus reads at most two levels of steps, however deep the nesting.
        """
        base: Where = (self.where, "steps")
        for index, value in enumerate(steps):
            step = self.add(value, (base, index), index, None)
            self.tops.append(-1 if step is None else step.number)
            branches = _branches(step)
            if step is None or branches is None:
                continue
            inner: Where = (step.where, "branches")
            for position, raw in enumerate(branches):
                member = self.add(raw, (inner, position), index, step.number)
                if member is not None:
                    step.members.append(member.number)
                    self.note_nested(_branches(member))

    def add(self, value: Any, where: Where, top: int, parent: int | None) -> _Step | None:
        if not isinstance(value, dict):
            return None  # the schema reports it
        raw_id, raw_kind = value.get("id"), value.get("kind")
        step = _Step(
            number=len(self.steps),
            where=where,
            data=value,
            id=raw_id if isinstance(raw_id, str) else None,
            kind=raw_kind if isinstance(raw_kind, str) else None,
            top=top,
            parent=parent,
        )
        self.steps.append(step)
        if step.id is not None:
            self.by_id.setdefault(step.id, []).append(step)
        return step

    def note_nested(self, branches: list[Any] | None) -> None:
        """Note the ids of the steps inside a nested parallel, at any depth, without a stack."""
        pending = [branches] if branches is not None else []
        while pending:
            for value in pending.pop():
                if isinstance(value, dict):
                    if isinstance(value.get("id"), str):
                        self.nested_ids.add(value["id"])
                    inner = value.get("branches")
                    if value.get("kind") == "parallel" and isinstance(inner, list):
                        pending.append(inner)

    def check_ids(self) -> None:
        for step in self.steps:
            if step.id is None:
                continue
            if not STEP_ID.fullmatch(step.id):
                self.report(
                    "step-id-invalid",
                    (step.where, "id"),
                    f"step id {step.id!r} does not match ^[a-zA-Z_][a-zA-Z0-9_]*$",
                )
            first = self.by_id[step.id][0]
            if first is not step:
                self.report(
                    "step-id-duplicate",
                    (step.where, "id"),
                    f"step id {step.id!r} is already used at {spell(first.where)}; step ids "
                    "are unique across the whole composition, parallel branches included",
                )

    # one step

    def check_step(self, step: _Step) -> None:
        data, where, kind = step.data, step.where, step.kind
        for required in ("id", "kind"):
            if required not in data:
                self.report("step-field-missing", where, f"a step needs {required!r}")
        if kind is not None:
            self.check_kind(step, kind)
        for index, target in _strings(data.get("depends_on")):
            self.check_target(target, (where, "depends_on"), index)
        modifiers = data.get("modifiers")
        if isinstance(modifiers, dict):
            prompted = kind in ("prompt", "agent")
            evals = self.context.evals_for(data.get("prompt_task") if prompted else None)
            scope = "a pack eval or of the step's prompt's evals" if prompted else "a pack eval"
            for index, name in _strings(modifiers.get("eval")):
                if name not in evals:
                    self.report(
                        "step-eval-unknown",
                        (((where, "modifiers"), "eval"), index),
                        f"eval {name!r} is not the id of {scope}",
                    )

    def check_kind(self, step: _Step, kind: str) -> None:
        data, where = step.data, step.where
        if kind not in V1_KINDS and not VENDOR_NAME.fullmatch(kind):
            self.report(
                "step-kind-unknown",
                (where, "kind"),
                f"step kind {kind!r} is none of prompt, agent, tool, branch, parallel, and not "
                "a vendor kind written namespace.name",
            )
            return
        if step.parent is not None and kind not in LEAF_KINDS and kind in V1_KINDS:
            self.report(
                "parallel-member-kind",
                (where, "kind"),
                f"a {kind} step cannot be a branch of a parallel; only prompt, agent, tool and "
                "vendor steps can",
            )
        for required in REQUIRED_FIELDS.get(kind, ()):
            if required not in data:
                self.report("step-field-missing", where, f"a {kind} step needs {required!r}")
        task = data.get("prompt_task")
        if (
            kind in ("prompt", "agent")
            and isinstance(task, str)
            and task not in self.context.prompts
        ):
            self.report(
                "step-prompt-task-unknown",
                (where, "prompt_task"),
                f"prompt_task {task!r} is not a key of prompts",
            )
        if kind == "tool":
            self.check_tool(data.get("tool"), (where, "tool"))
        elif kind == "agent":
            for index, tool in _strings(data.get("tools")):
                self.check_tool(tool, ((where, "tools"), index))
            self.check_termination(data, where)
        elif kind == "branch":
            if "predicate" in data:
                self.check_predicate(step, data["predicate"], (where, "predicate"))
            for arm in ("then", "else"):
                target = data.get(arm)
                if isinstance(target, str):
                    self.check_target(target, where, arm)
        elif kind == "parallel":
            self.check_parallel(data, where)
        for key in BINDINGS.get(kind, ("input", "args")):
            if key in data:
                self.check_references(step, data[key], (where, key))

    def check_tool(self, tool: Any, where: Where) -> None:
        if isinstance(tool, str) and tool not in self.context.tools:
            self.report("step-tool-unknown", where, f"tool {tool!r} is not a key of tools")

    def check_termination(self, data: dict[str, Any], where: Where) -> None:
        if "termination" not in data:
            self.report(
                "agent-termination-missing",
                where,
                "an agent step needs a termination (max_steps or tool_called)",
            )
            return
        termination = data["termination"]
        if isinstance(termination, dict) and not (
            "max_steps" in termination or "tool_called" in termination
        ):
            self.report(
                "agent-termination-missing",
                (where, "termination"),
                "an agent step's termination needs max_steps or tool_called",
            )

    def check_parallel(self, data: dict[str, Any], where: Where) -> None:
        branches = data.get("branches", [])
        if isinstance(branches, list) and len(branches) < 2:
            self.report(
                "parallel-branches-too-few",
                (where, "branches") if "branches" in data else where,
                f"a parallel step needs at least 2 branches, not {len(branches)}",
            )
        if "reduce" not in data:
            self.report(
                "parallel-reduce-missing",
                where,
                "a parallel step needs reduce: {strategy, into}",
            )
            return
        reduce = data["reduce"]
        strategy = reduce.get("strategy") if isinstance(reduce, dict) else None
        if (
            isinstance(strategy, str)
            and strategy not in REDUCE_STRATEGIES
            and not VENDOR_NAME.fullmatch(strategy)
        ):
            self.report(
                "reduce-strategy-unknown",
                ((where, "reduce"), "strategy"),
                f"reduce strategy {strategy!r} is none of append, replace, barrier, and not "
                "a vendor strategy written namespace.name",
            )

    def check_target(self, target: str, where: Where, token: str | int) -> None:
        if target not in self.by_id and target not in self.nested_ids:
            self.report(
                "step-target-unknown",
                (where, token),
                f"{target!r} is not a step of the composition",
            )

    # predicates and references

    def check_predicate(self, step: _Step, predicate: Any, where: Where) -> None:
        """Walk a predicate tree with an explicit stack; report each bad node where it is."""
        pending: list[tuple[Any, Where]] = [(predicate, where)]
        while pending:
            node, at = pending.pop()
            if not isinstance(node, dict):
                self.predicate_invalid(at, "a predicate is an object")
                continue
            keys = frozenset(node)
            if keys not in PREDICATE_VARIANTS:
                self.predicate_invalid(
                    at,
                    "a predicate is exactly one of {path, op, value}, {path, exists}, "
                    f"{{all_of}}, {{any_of}}, {{not}}; this one has the keys {sorted(keys)}",
                )
                continue
            if "all_of" in keys or "any_of" in keys:
                variant = "all_of" if "all_of" in keys else "any_of"
                items = node[variant]
                if not isinstance(items, list):
                    self.predicate_invalid((at, variant), f"{variant} takes a list of predicates")
                    continue
                pending.extend((items[i], ((at, variant), i)) for i in reversed(range(len(items))))
                continue
            if "not" in keys:
                pending.append((node["not"], (at, "not")))
                continue
            self.check_predicate_path(step, node["path"], (at, "path"))
            if "exists" in keys:
                if not isinstance(node["exists"], bool):
                    self.predicate_invalid((at, "exists"), "exists is true or false")
                continue
            op = node["op"]
            if not isinstance(op, str) or op not in COMPARE_OPS:
                self.predicate_invalid(
                    (at, "op"), f"op {op!r} is none of " + ", ".join(COMPARE_OPS)
                )
            elif op in LIST_OPS and not isinstance(node["value"], list):
                self.predicate_invalid((at, "value"), f"op {op} compares with a list value")

    def predicate_invalid(self, where: Where, message: str) -> None:
        self.report("predicate-invalid", where, message)

    def check_predicate_path(self, step: _Step, path: Any, where: Where) -> None:
        match = REFERENCE.fullmatch(path) if isinstance(path, str) else None
        if match is None:
            self.predicate_invalid(
                where,
                f"a predicate path is one reference written '${{...}}', not {path!r}",
            )
            return
        self.resolve(step, match.group(1), where)

    def check_references(self, step: _Step, value: Any, where: Where) -> None:
        """Resolve every ``${...}`` in the strings of an input or args value, at any depth."""
        pending: list[tuple[Any, Where]] = [(value, where)]
        while pending:
            node, at = pending.pop()
            if isinstance(node, str):
                for reference in REFERENCE.findall(node):
                    self.resolve(step, reference, at)
            elif isinstance(node, dict):
                pending.extend((item, (at, key)) for key, item in node.items())
            elif isinstance(node, list):
                pending.extend((item, (at, i)) for i, item in enumerate(node))

    def resolve(self, step: _Step, reference: str, where: Where) -> None:
        """``reference-unresolved`` unless ``reference`` names the input or an earlier output."""
        segments = reference.split(".")
        root = segments[0]
        if root == "input" and all(segments):
            return
        problem = None
        if not all(segments):
            problem = "it is not a dotted path"
        elif root in self.nested_ids and root not in self.by_id:
            return  # inside a nested parallel, which is reported already
        elif root not in self.by_id:
            problem = f"{root!r} is neither 'input' nor a step"
        else:
            problem = self.step_reference_problem(step, root, segments)
        if problem is not None:
            self.report(
                "reference-unresolved",
                where,
                f"${{{reference}}} cannot be resolved: {problem}",
            )

    def step_reference_problem(self, step: _Step, root: str, segments: list[str]) -> str | None:
        """Why ``${root.<segments>}`` read by ``step`` names no earlier output (None: it does)."""
        if len(segments) < 2 or segments[1] != "output":
            return f"a step is read as ${{{root}.output...}}"
        problem = None
        for target in self.by_id[root]:
            if target.top >= step.top:
                if target is step:
                    problem = "a step cannot read its own output"
                elif step.parent is not None and target.top == step.top:
                    problem = (
                        f"{root!r} is part of the same parallel step; a parallel's branches see "
                        "only the steps before the parallel"
                    )
                else:
                    problem = f"step {root!r} does not run before this step"
            elif target.kind == "branch":
                problem = f"{root!r} is a branch step, which has no output"
            elif target.kind == "parallel" and len(segments) > 2:
                reduce = target.data.get("reduce")
                into = reduce.get("into") if isinstance(reduce, dict) else None
                if isinstance(into, str) and segments[2] != into:
                    problem = f"parallel {root!r} exposes its result as output.{into}"
                else:
                    return None
            else:
                return None
        return problem

    # the step graph

    def check_graph(self) -> None:
        """``step-graph-cycle``: one per cyclic component of the step graph."""
        count = len(self.steps)
        if not count:
            return
        edges: list[list[int]] = [[] for _ in range(count)]
        following: dict[int, int] = {}  # top-level step number -> the next top-level step
        for before, after in zip(self.tops, self.tops[1:], strict=False):
            if before >= 0 and after >= 0:
                edges[before].append(after)
                following[before] = after
        for step in self.steps:
            for member in step.members:
                edges[step.number].append(member)
            if step.parent is not None:
                top = self.tops[step.top]
                join = following.get(top)
                if join is not None:
                    edges[step.number].append(join)
            for _, dependency in _strings(step.data.get("depends_on")):
                named = self.by_id.get(dependency)
                if named:
                    edges[named[0].number].append(step.number)
            if step.kind == "branch":
                for arm in ("then", "else"):
                    target = step.data.get(arm)
                    named = self.by_id.get(target) if isinstance(target, str) else None
                    if named:
                        edges[step.number].append(named[0].number)
        for component in _graph.strongly_connected_components(edges):
            if not _graph.is_cyclic(component, edges):
                continue
            members = sorted(component)
            first = self.steps[members[0]]
            names = ", ".join(self.label(self.steps[m]) for m in members[:CYCLE_NAMES_SHOWN])
            if len(members) > CYCLE_NAMES_SHOWN:
                names += f" and {len(members) - CYCLE_NAMES_SHOWN:,} more"
            self.report(
                "step-graph-cycle",
                first.where,
                f"steps {names} form a cycle (through then/else/depends_on and the step "
                "order); compositions are acyclic, loops belong in the workflow",
            )

    def label(self, step: _Step) -> str:
        return repr(step.id) if step.id is not None else spell(step.where)

    def check_joins(self) -> None:
        """``join-without-depends-on``: a step right after a branch or parallel, no depends_on."""
        for before, after in zip(self.tops, self.tops[1:], strict=False):
            if before < 0 or after < 0:
                continue
            previous, step = self.steps[before], self.steps[after]
            if previous.kind not in ("branch", "parallel") or "depends_on" in step.data:
                continue
            arms = (previous.data.get("then"), previous.data.get("else"))
            if previous.kind == "branch" and step.id is not None and step.id in arms:
                continue  # an arm of the branch, not a join
            self.report(
                "join-without-depends-on",
                step.where,
                f"step {self.label(step)} follows {previous.kind} {self.label(previous)} "
                "without depends_on; declare the steps it joins",
                warning=True,
            )


def _branches(step: _Step | None) -> list[Any] | None:
    """A parallel step's branches, when it is a parallel and they are a list."""
    if step is None or step.kind != "parallel":
        return None
    branches = step.data.get("branches")
    return branches if isinstance(branches, list) else None


def _strings(value: Any) -> Iterator[tuple[int, str]]:
    """``(index, item)`` for the string items of a list (others are the schema's to report)."""
    if isinstance(value, list):
        for index, item in enumerate(value):
            if isinstance(item, str):
                yield index, item
