"""The composition rulebook: every rule of SEMANTICS.md section 4, written once.

Each rule is a small function that yields diagnostics, as python-jsonschema's keyword functions
yield errors. Each reads a :class:`Composition`, whose steps are flattened once; the rules about
single steps go through its :class:`Step` objects in document order. ``reference.validate``
reports what every rule yields for every composition; the engine runs the same rules on the
composition it is asked to run and refuses it on the first error (or on a construct it does not
run, see :data:`ENGINE_REFUSES`), then compiles it without checking anything again. So the two
can never disagree.

The schema's part comes first (``reference._schema``); the rules after it skip what is
malformed, as the schema has reported it, so each problem is reported once. They run in time
linear in the size of the compositions: the steps are flattened once, at any depth, with an
explicit stack; predicates and input values are walked with explicit stacks, never by
recursion; the step graph's cycles come from one Tarjan pass.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from reference import _graph, _providers, _schema
from reference._compositions.vocabulary import (
    BINDINGS,
    CALL_KINDS,
    COMPARE_OPS,
    LIST_OPS,
    PREDICATE_VARIANTS,
    REFERENCE,
    REQUIRED_FIELDS,
    RESERVED_NAMES,
    STEP_ID,
    SUPPORTED_VERSIONS,
    V1_KINDS,
    V1_REDUCERS,
    VENDOR_BINDINGS,
    is_known_kind,
    is_known_reducer,
)
from reference._diagnostics import Diagnostic, sort_key
from reference._json import is_integer, json_pointer

ENGINE_REFUSES = frozenset(("parallel-member-kind",))
"""Warnings the engine refuses to run on: valid packs, but constructs this reference does not
run (a branch or parallel step among a parallel's branches, SEMANTICS C4)."""

CYCLE_NAMES_SHOWN = 10  # a step-graph-cycle message names this many steps, then counts

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


def error(code: str, where: Where | None, message: str) -> Diagnostic:
    """An error at a linked location."""
    return Diagnostic(code, "error", spell(where), message)


def warning(code: str, where: Where | None, message: str) -> Diagnostic:
    """A warning at a linked location."""
    return Diagnostic(code, "warning", spell(where), message)


# -- entry points -----------------------------------------------------------------------------


def diagnostics(pack: Mapping[str, Any]) -> list[Diagnostic]:
    """Every diagnostic of every composition of a pack (unsorted), the schema's included.

    Arguments:
        pack: the loaded pack (an object).
    """
    compositions = pack.get("compositions")
    if not isinstance(compositions, dict):
        return []  # absent, or the schema reports it
    context = PackContext.of(pack)
    found: list[Diagnostic] = []
    for name, data in compositions.items():
        found.extend(composition_diagnostics(context, name, data))
    return found


def composition_diagnostics(context: PackContext, name: str, data: Any) -> Iterator[Diagnostic]:
    """The diagnostics of one composition: the schema's, then every rule's.

    Arguments:
        context: what the rules read from the rest of the pack.
        name: the composition's key in ``compositions``.
        data: the composition as written.
    """
    yield from _schema.composition_diagnostics(name, data)
    composition = Composition.read(context, name, data)
    for rule in RULES:
        yield from rule(composition)


def refusal(context: PackContext, name: str, data: Any) -> Diagnostic | None:
    """Why the engine does not run composition ``name``: the first of its errors, or of the
    warnings in :data:`ENGINE_REFUSES`, in the validator's order; ``None`` when it runs."""
    refusals = [
        d
        for d in composition_diagnostics(context, name, data)
        if d.severity == "error" or d.code in ENGINE_REFUSES
    ]
    return min(refusals, key=sort_key, default=None)


# -- what the rules read ----------------------------------------------------------------------


@dataclass(frozen=True)
class PackContext:
    """What the composition rules read from the rest of the pack.

    Attributes:
        prompts: the pack's ``prompts`` (empty when malformed).
        tools: the keys of the pack's ``tools``.
        pack_evals: the ids of the pack-level ``evals``.
        referenced: the compositions a composition-mode workflow state names.
        requirements: the provider requirements (``None`` when ``requires`` is malformed:
            provider references are then left unchecked).
    """

    prompts: Mapping[str, Any]
    tools: frozenset[str]
    pack_evals: frozenset[str]
    referenced: frozenset[str]
    requirements: _providers.Requirements | None = None

    @classmethod
    def of(cls, pack: Mapping[str, Any]) -> PackContext:
        """Read the context of a loaded pack, skipping what is malformed."""
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
            requirements=_providers.Requirements.of(pack),
        )


def _eval_ids(evals: Any) -> frozenset[str]:
    if not isinstance(evals, list):
        return frozenset()
    return frozenset(e["id"] for e in evals if isinstance(e, dict) and isinstance(e.get("id"), str))


@dataclass(eq=False)
class Step:
    """One step object of a composition: a top-level step or a parallel's branch, at any depth.

    Attributes:
        number: position in document order (pre-order: a parallel, then its branches).
        where: the step's location.
        data: the step object.
        id: its id when it is a string, else ``None``.
        kind: its kind when it is a string, else ``None``.
        top: index in ``steps`` of the top-level step it is, or is nested in.
        parent: number of the parallel whose branch it is (``None`` at the top level).
        known: whether its kind is a v1 or a vendor kind (the kind-specific rules apply).
        members: numbers of its branches, for a parallel.
    """

    number: int
    where: Where
    data: dict[str, Any]
    id: str | None
    kind: str | None
    top: int
    parent: int | None
    known: bool
    members: list[int] = field(default_factory=list)

    def label(self) -> str:
        """The step for messages: its id, else its pointer."""
        return repr(self.id) if self.id is not None else spell(self.where)


@dataclass(eq=False)
class Composition:
    """One entry of ``compositions`` as the rules read it: its steps flattened in document order.

    Attributes:
        context: what the rules read from the rest of the pack.
        name: the key in ``compositions``.
        fields: the composition object (empty when it is not an object).
        where: its location.
        steps: every step object, at any depth, in document order.
        tops: for each item of ``steps``, the number of its step (-1: not an object).
        by_id: the steps of each string id, in document order.
    """

    context: PackContext
    name: str
    fields: dict[str, Any]
    where: Where
    steps: list[Step] = field(default_factory=list)
    tops: list[int] = field(default_factory=list)
    by_id: dict[str, list[Step]] = field(default_factory=dict)

    @classmethod
    def read(cls, context: PackContext, name: str, data: Any) -> Composition:
        """Flatten a composition's steps: each step, then the branches of a parallel, depth
        first, with an explicit stack, however deep the parallels nest."""
        where: Where = ((None, "compositions"), name)
        composition = cls(context, name, data if isinstance(data, dict) else {}, where)
        steps = composition.fields.get("steps")
        if not isinstance(steps, list):
            return composition
        base: Where = (composition.where, "steps")
        for index, value in enumerate(steps):
            step = composition.add(value, (base, index), index, None)
            composition.tops.append(-1 if step is None else step.number)
            pending = [_branches_of(step)]
            while pending:
                item = next(pending[-1], None)
                if item is None:
                    pending.pop()
                    continue
                parent, position, raw = item
                member = composition.add(raw, ((parent.where, "branches"), position), index, parent)
                if member is not None:
                    pending.append(_branches_of(member))
        return composition

    def add(self, value: Any, where: Where, top: int, parent: Step | None) -> Step | None:
        """Number one step object (``None`` for one that is not an object)."""
        if not isinstance(value, dict):
            return None  # the schema reports it
        raw_id, raw_kind = value.get("id"), value.get("kind")
        kind = raw_kind if isinstance(raw_kind, str) else None
        step = Step(
            number=len(self.steps),
            where=where,
            data=value,
            id=raw_id if isinstance(raw_id, str) else None,
            kind=kind,
            top=top,
            parent=None if parent is None else parent.number,
            known=kind is not None and is_known_kind(kind),
        )
        self.steps.append(step)
        if parent is not None:
            parent.members.append(step.number)
        if step.id is not None:
            self.by_id.setdefault(step.id, []).append(step)
        return step


def _branches_of(step: Step | None) -> Iterator[tuple[Step, int, Any]]:
    """``(parallel, position, branch)`` for each branch of a parallel step, in order."""
    if step is not None and step.kind == "parallel":
        branches = step.data.get("branches")
        if isinstance(branches, list):
            for position, raw in enumerate(branches):
                yield step, position, raw


def _strings(value: Any) -> Iterator[tuple[int, str]]:
    """``(index, item)`` for the string items of a list (others are the schema's to report)."""
    if isinstance(value, list):
        for index, item in enumerate(value):
            if isinstance(item, str):
                yield index, item


# -- the composition rules --------------------------------------------------------------------


def reserved_name(composition: Composition) -> Iterator[Diagnostic]:
    """``composition-name-reserved``: the name of a runtime's workflow tool."""
    if composition.name in RESERVED_NAMES:
        yield error(
            "composition-name-reserved",
            composition.where,
            f"{composition.name!r} is a name reserved by runtimes (their workflow tools); "
            "rename the composition",
        )


def unreferenced(composition: Composition) -> Iterator[Diagnostic]:
    """``composition-unreferenced`` (warning): no composition-mode state runs it."""
    if composition.name not in composition.context.referenced:
        yield warning(
            "composition-unreferenced",
            composition.where,
            f"no workflow state in composition mode runs composition {composition.name!r}",
        )


def version(composition: Composition) -> Iterator[Diagnostic]:
    """``composition-version-unsupported``: an integer other than 1 (others are the schema's)."""
    value = composition.fields.get("version")
    if is_integer(value) and value not in SUPPORTED_VERSIONS:
        yield error(
            "composition-version-unsupported",
            (composition.where, "version"),
            f"composition version {value} is not supported (supported: 1)",
        )


def output(composition: Composition) -> Iterator[Diagnostic]:
    """``composition-output-unknown``: ``output`` names no step, or a branch (no output)."""
    name = composition.fields.get("output")
    if not isinstance(name, str):
        return
    named = composition.by_id.get(name)
    if named is None:
        problem = "which is not a step of the composition"
    elif all(step.kind == "branch" for step in named):
        problem = "a branch step, which has no output"
    else:
        return
    yield error(
        "composition-output-unknown",
        (composition.where, "output"),
        f"output names {name!r}, {problem}",
    )


def step_graph(composition: Composition) -> Iterator[Diagnostic]:
    """``step-graph-cycle``: one per strongly connected component of the step graph that
    holds a cycle (docs/semantics.md 4.4 gives the edges)."""
    steps, tops = composition.steps, composition.tops
    if not steps:
        return
    edges: list[list[int]] = [[] for _ in steps]
    following: dict[int, int] = {}  # top-level step number -> the next top-level step
    for before, after in itertools.pairwise(tops):
        if before >= 0 and after >= 0:
            edges[before].append(after)
            following[before] = after
    for step in steps:
        edges[step.number].extend(step.members)
        if step.parent is not None:
            join = following.get(tops[step.top])
            if join is not None:
                edges[step.number].append(join)
        for _, dependency in _strings(step.data.get("depends_on")):
            named = composition.by_id.get(dependency)
            if named:
                edges[named[0].number].append(step.number)
        if step.kind == "branch":
            for arm in ("then", "else"):
                target = step.data.get(arm)
                named = composition.by_id.get(target) if isinstance(target, str) else None
                if named:
                    edges[step.number].append(named[0].number)
    for component in _graph.strongly_connected_components(edges):
        if not _graph.is_cyclic(component, edges):
            continue
        members = sorted(component)
        names = ", ".join(steps[m].label() for m in members[:CYCLE_NAMES_SHOWN])
        if len(members) > CYCLE_NAMES_SHOWN:
            names += f" and {len(members) - CYCLE_NAMES_SHOWN:,} more"
        yield error(
            "step-graph-cycle",
            steps[members[0]].where,
            f"steps {names} form a cycle (through then/else/depends_on and the step order); "
            "compositions are acyclic, loops belong in the workflow",
        )


def joins(composition: Composition) -> Iterator[Diagnostic]:
    """``join-without-depends-on`` (warning): a top-level step right after a branch or parallel
    declares no ``depends_on`` (a branch's own ``then``/``else`` target is exempt)."""
    steps, tops = composition.steps, composition.tops
    for before, after in itertools.pairwise(tops):
        if before < 0 or after < 0:
            continue
        previous, step = steps[before], steps[after]
        if previous.kind not in ("branch", "parallel") or "depends_on" in step.data:
            continue
        arms = (previous.data.get("then"), previous.data.get("else"))
        if previous.kind == "branch" and step.id is not None and step.id in arms:
            continue  # an arm of the branch, not a join
        yield warning(
            "join-without-depends-on",
            step.where,
            f"step {step.label()} follows {previous.kind} {previous.label()} without "
            "depends_on; declare the steps it joins",
        )


# -- the rules about each step, at any depth, in document order ------------------------------


def required_fields(composition: Composition) -> Iterator[Diagnostic]:
    """``step-field-missing``: ``id`` and ``kind`` on any step, and each field its kind needs."""
    for step in composition.steps:
        for name in ("id", "kind"):
            if name not in step.data:
                yield error("step-field-missing", step.where, f"a step needs {name!r}")
        if step.known:
            for name in REQUIRED_FIELDS.get(step.kind or "", ()):
                if name not in step.data:
                    yield error(
                        "step-field-missing", step.where, f"a {step.kind} step needs {name!r}"
                    )


def step_id(composition: Composition) -> Iterator[Diagnostic]:
    """``step-id-invalid`` and ``step-id-duplicate`` (every occurrence after the first, across
    the whole composition, parallel branches included)."""
    for step in composition.steps:
        if step.id is None:
            continue
        if not STEP_ID.fullmatch(step.id):
            yield error(
                "step-id-invalid",
                (step.where, "id"),
                f"step id {step.id!r} does not match ^{STEP_ID.pattern}$",
            )
        first = composition.by_id[step.id][0]
        if first is not step:
            yield error(
                "step-id-duplicate",
                (step.where, "id"),
                f"step id {step.id!r} is already used at {spell(first.where)}; step ids are "
                "unique across the whole composition, parallel branches included",
            )


def kind(composition: Composition) -> Iterator[Diagnostic]:
    """``step-kind-unknown``: neither a v1 kind nor a vendor kind ``namespace.name``."""
    for step in composition.steps:
        if step.kind is not None and not step.known:
            yield error(
                "step-kind-unknown",
                (step.where, "kind"),
                f"step kind {step.kind!r} is none of {', '.join(V1_KINDS)}, and not a vendor kind "
                "written namespace.name",
            )


def member_kind(composition: Composition) -> Iterator[Diagnostic]:
    """``parallel-member-kind`` (warning, the kit's lint, C4): a branch or parallel step among
    a parallel's branches. Valid (RFC 0010's branches are any step); the engine refuses it.

    Only the outermost of such steps warns (its parallel is a top-level step): the ones nested
    in it are part of what it warns about, and one warning per level would make the report of
    a deep nesting grow with the square of its depth.
    """
    for step in composition.steps:
        if (
            step.parent is not None
            and step.kind in ("branch", "parallel")
            and composition.steps[step.parent].parent is None
        ):
            yield warning(
                "parallel-member-kind",
                (step.where, "kind"),
                f"a {step.kind} step among a parallel's branches is valid, but not every runtime "
                "runs one (this reference refuses to); prefer prompt, agent, tool or vendor steps",
            )


def prompt_task(composition: Composition) -> Iterator[Diagnostic]:
    """``step-prompt-task-unknown``: a prompt or agent step's ``prompt_task`` is no prompt."""
    for step in composition.steps:
        task = step.data.get("prompt_task")
        if (
            step.kind in ("prompt", "agent")
            and isinstance(task, str)
            and task not in composition.context.prompts
        ):
            yield error(
                "step-prompt-task-unknown",
                (step.where, "prompt_task"),
                f"prompt_task {task!r} is not a key of prompts",
            )


def tools(composition: Composition) -> Iterator[Diagnostic]:
    """``step-tool-unknown``: a tool step's ``tool``, or an agent step's ``tools`` item."""
    for step in composition.steps:
        named: list[tuple[Any, Where]] = []
        if step.kind == "tool":
            named.append((step.data.get("tool"), (step.where, "tool")))
        elif step.kind == "agent":
            named.extend(
                (t, ((step.where, "tools"), i)) for i, t in _strings(step.data.get("tools"))
            )
        for tool, where in named:
            if isinstance(tool, str) and tool not in composition.context.tools:
                yield error("step-tool-unknown", where, f"tool {tool!r} is not a key of tools")


def providers(composition: Composition) -> Iterator[Diagnostic]:
    """RFC 0017 on prompt and agent steps: ``provider-unknown`` and
    ``provider-optional-referenced`` (warning) at a step's ``provider``, and
    ``provider-role-not-llm`` (warning) for a prompt step without ``output_schema`` whose
    provider (its own, else its prompt's, else ``default``) has a role other than ``llm``: at
    its ``provider``, or at its ``prompt_task`` when it inherits the provider."""
    requirements = composition.context.requirements
    if requirements is None:
        return
    for step in composition.steps:
        if step.kind not in CALL_KINDS:
            continue
        value = step.data.get("provider")
        if isinstance(value, str):
            problem = _providers.reference_problem(requirements, value)
            if problem is not None:
                yield Diagnostic(
                    problem.code, problem.severity, spell((step.where, "provider")), problem.message
                )
        if step.kind != "prompt" or "output_schema" in step.data:
            continue
        if "provider" in step.data:
            key = value if isinstance(value, str) else None
            where: Where = (step.where, "provider")
        else:
            task = step.data.get("prompt_task")
            if not isinstance(task, str) or task not in composition.context.prompts:
                continue
            key = _providers.prompt_provider(composition.context.prompts[task])
            where = (step.where, "prompt_task")
        requirement = _providers.not_llm(requirements, key)
        if requirement is not None:
            yield warning(
                "provider-role-not-llm",
                where,
                f"prompt step {step.label()} has no output_schema, so it asks for free text, "
                f"but its provider {requirement.key!r} has role {requirement.role!r}, not 'llm'",
            )


def termination(composition: Composition) -> Iterator[Diagnostic]:
    """``agent-termination-missing``: an agent step without ``termination``, or with neither
    ``max_steps`` nor ``tool_called`` in it."""
    for step in composition.steps:
        if step.kind != "agent":
            continue
        if "termination" not in step.data:
            yield error(
                "agent-termination-missing",
                step.where,
                "an agent step needs a termination (max_steps or tool_called)",
            )
            continue
        value = step.data["termination"]
        if isinstance(value, dict) and not ("max_steps" in value or "tool_called" in value):
            yield error(
                "agent-termination-missing",
                (step.where, "termination"),
                "an agent step's termination needs max_steps or tool_called",
            )


def branches(composition: Composition) -> Iterator[Diagnostic]:
    """``parallel-branches-too-few``: a parallel with fewer than two branches, or none."""
    for step in composition.steps:
        if step.kind != "parallel":
            continue
        value = step.data.get("branches", [])
        if isinstance(value, list) and len(value) < 2:
            yield error(
                "parallel-branches-too-few",
                (step.where, "branches") if "branches" in step.data else step.where,
                f"a parallel step needs at least 2 branches, not {len(value)}",
            )


def reduce(composition: Composition) -> Iterator[Diagnostic]:
    """``parallel-reduce-missing`` and ``reduce-strategy-unknown`` (neither a v1 reducer nor a
    vendor one ``namespace.name``)."""
    for step in composition.steps:
        if step.kind != "parallel":
            continue
        if "reduce" not in step.data:
            yield error(
                "parallel-reduce-missing",
                step.where,
                "a parallel step needs reduce: {strategy, into}",
            )
            continue
        value = step.data["reduce"]
        strategy = value.get("strategy") if isinstance(value, dict) else None
        if isinstance(strategy, str) and not is_known_reducer(strategy):
            yield error(
                "reduce-strategy-unknown",
                ((step.where, "reduce"), "strategy"),
                f"reduce strategy {strategy!r} is none of {', '.join(V1_REDUCERS)}, and not a "
                "vendor strategy written namespace.name",
            )


def targets(composition: Composition) -> Iterator[Diagnostic]:
    """``step-target-unknown``: a ``depends_on`` item, or a branch's ``then``/``else``, names
    no step of the composition."""
    for step in composition.steps:
        named: list[tuple[str, Where]] = [
            (target, ((step.where, "depends_on"), index))
            for index, target in _strings(step.data.get("depends_on"))
        ]
        if step.kind == "branch":
            for arm in ("then", "else"):
                target = step.data.get(arm)
                if isinstance(target, str):
                    named.append((target, (step.where, arm)))
        for target, where in named:
            if target not in composition.by_id:
                yield error(
                    "step-target-unknown", where, f"{target!r} is not a step of the composition"
                )


def evals(composition: Composition) -> Iterator[Diagnostic]:
    """``step-eval-unknown``: a ``modifiers.eval`` id is not a pack-level eval (RFC 0010 rule
    10: "Every eval modifier reference must resolve to a key in the pack's evals object"; an
    eval of the step's own prompt does not)."""
    known = composition.context.pack_evals
    for step in composition.steps:
        modifiers = step.data.get("modifiers")
        if not isinstance(modifiers, dict):
            continue
        for index, name in _strings(modifiers.get("eval")):
            if name not in known:
                yield error(
                    "step-eval-unknown",
                    (((step.where, "modifiers"), "eval"), index),
                    f"eval {name!r} is not the id of a pack-level eval",
                )


def predicate(composition: Composition) -> Iterator[Diagnostic]:
    """``predicate-invalid`` at each bad node of a branch's predicate (closed variants, known
    ops, list values for ``in``/``not_in``, boolean ``exists``, paths that are one
    ``${...}``), and ``reference-unresolved`` for a path naming no earlier output."""
    for step in composition.steps:
        if step.kind != "branch" or "predicate" not in step.data:
            continue
        pending: list[tuple[Any, Where]] = [(step.data["predicate"], (step.where, "predicate"))]
        while pending:
            node, at = pending.pop()
            if not isinstance(node, dict):
                yield error("predicate-invalid", at, "a predicate is an object")
                continue
            keys = frozenset(node)
            if keys not in PREDICATE_VARIANTS:
                yield error(
                    "predicate-invalid",
                    at,
                    "a predicate is exactly one of {path, op, value}, {path, exists}, {all_of}, "
                    f"{{any_of}}, {{not}}; this one has the keys {sorted(keys)}",
                )
                continue
            if "all_of" in keys or "any_of" in keys:
                variant = "all_of" if "all_of" in keys else "any_of"
                items = node[variant]
                if not isinstance(items, list):
                    yield error("predicate-invalid", (at, variant), f"{variant} takes a list")
                    continue
                pending.extend((items[i], ((at, variant), i)) for i in reversed(range(len(items))))
                continue
            if "not" in keys:
                pending.append((node["not"], (at, "not")))
                continue
            path = node["path"]
            match = REFERENCE.fullmatch(path) if isinstance(path, str) else None
            if match is None:
                yield error(
                    "predicate-invalid",
                    (at, "path"),
                    f"a predicate path is one reference written '${{...}}', not {path!r}",
                )
            else:
                yield from _resolve(composition, step, match.group(1), (at, "path"))
            if "exists" in keys:
                if not isinstance(node["exists"], bool):
                    yield error("predicate-invalid", (at, "exists"), "exists is true or false")
                continue
            op = node["op"]
            if not isinstance(op, str) or op not in COMPARE_OPS:
                yield error(
                    "predicate-invalid",
                    (at, "op"),
                    f"op {op!r} is none of " + ", ".join(COMPARE_OPS),
                )
            elif op in LIST_OPS and not isinstance(node["value"], list):
                yield error(
                    "predicate-invalid", (at, "value"), f"op {op} compares with a list value"
                )


def references(composition: Composition) -> Iterator[Diagnostic]:
    """``reference-unresolved``: a ``${...}`` in the strings of a step's binding (``input``,
    ``args``; at any depth, object keys never) that names neither the input nor the output of
    an earlier step."""
    for step in composition.steps:
        if not step.known:
            continue
        for key in BINDINGS.get(step.kind or "", VENDOR_BINDINGS):
            if key not in step.data:
                continue
            pending: list[tuple[Any, Where]] = [(step.data[key], (step.where, key))]
            while pending:
                node, at = pending.pop()
                if isinstance(node, str):
                    for inner in REFERENCE.findall(node):
                        yield from _resolve(composition, step, inner, at)
                elif isinstance(node, dict):
                    pending.extend((item, (at, name)) for name, item in node.items())
                elif isinstance(node, list):
                    pending.extend((item, (at, i)) for i, item in enumerate(node))


def _resolve(
    composition: Composition, step: Step, reference: str, where: Where
) -> Iterator[Diagnostic]:
    """``reference-unresolved`` unless ``${reference}`` names the input or an earlier output."""
    segments = reference.split(".")
    root = segments[0]
    if not all(segments):
        problem: str | None = "it is not a dotted path"
    elif root == "input":
        problem = None
    elif root not in composition.by_id:
        problem = f"{root!r} is neither 'input' nor a step"
    else:
        problem = _step_reference_problem(composition, step, root, segments)
    if problem is not None:
        yield error(
            "reference-unresolved", where, f"${{{reference}}} cannot be resolved: {problem}"
        )


def _step_reference_problem(
    composition: Composition, step: Step, root: str, segments: list[str]
) -> str | None:
    """Why ``${root.<segments>}`` read by ``step`` names no earlier output (None: it does)."""
    if len(segments) < 2 or segments[1] != "output":
        return f"a step is read as ${{{root}.output...}}"
    problem = None
    for target in composition.by_id[root]:
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
            value = target.data.get("reduce")
            into = value.get("into") if isinstance(value, dict) else None
            if isinstance(into, str) and segments[2] != into:
                problem = f"parallel {root!r} exposes its result as output.{into}"
            else:
                return None
        else:
            return None
    return problem


Rule = Callable[[Composition], Iterator[Diagnostic]]

RULES: tuple[Rule, ...] = (
    # the composition
    reserved_name,
    unreferenced,
    version,
    output,
    step_graph,
    joins,
    # each step
    required_fields,
    step_id,
    kind,
    member_kind,
    prompt_task,
    providers,
    tools,
    termination,
    branches,
    reduce,
    targets,
    evals,
    predicate,
    references,
)
"""Every rule, in the order of docs/semantics.md section 4 (the order does not matter: the
validator sorts what they report, and the engine takes the first of them in that order)."""
