"""Near-valid packs from the schema breakers: a drawn valid pack with one standard breaker applied
at a place a schema constraint governs (SEMANTICS R16, R19).

The breakers are those the catalog's generated cases apply (:mod:`conformance._catalog.breakers`),
read from those cases: each names its constraint, its breaker and the statements it cites, and
the generator has checked the breaker against the published schemas. A constraint of the newest
published schema whose statements give MUST is applied to the fuzzer's packs wherever the
definition it belongs to stands (each state, each artifact, each step, each predicate at any
depth ...), and a predicate's also in the contexts of :data:`CONTEXTS`. The reference's
``validate`` is the oracle: where it agrees with the breaker (a schema error, or for an open
object's extra key or a value at its bound, still valid), the runtime must say the same, and
nothing more: no code and no pointer is pinned (R19: the generic ``schema`` code, and an error at
a parent pointer, are allowed). Where the reference does not agree (another branch of a
``oneOf`` takes the value in that place), the breaker is not used there.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import yaml

import reference
from conformance._basics.resources import catalog_root
from conformance._catalog.breakers import Breaker, apply, breakers_for
from conformance._catalog.constraints import area_of, constraint_name, constraint_value
from conformance._catalog.generation import FOLDER, Template
from conformance._catalog.statements import FOLDER as STATEMENTS
from conformance._catalog.statements import Statement
from conformance._runtime.adapter import copy_json

__all__ = [
    "CONTEXTS",
    "NEWEST",
    "Broken",
    "Target",
    "broken",
    "contexts",
    "in_context",
    "places",
    "targets",
]

NEWEST = "schema-1.9.0."
"""The prefix of the newest published schema's statements: the constraints the fuzzer's packs,
which carry every area's fields, are held to."""


@dataclass(frozen=True)
class Target:
    """One breaker of one constraint, as a generated catalog case applies it.

    Attributes:
        case: the generated case's id (the rule a finding cites).
        area: its area.
        constraint: the constraint's name (``WorkflowState.max_visits.type``).
        section: the schema pointer of the node holding the constraint.
        keyword, value: the constraint, as its statement quotes it.
        breaker: the breaker's name (built for each place from the value there: a list one
            item short of its minimum is the place's own list, shortened).
    """

    case: str
    area: str
    constraint: str
    section: str
    keyword: str
    value: Any
    breaker: str

    def at(self, current: Any) -> Breaker | None:
        """The breaker, built for a place holding ``current`` (``None``: it has none there)."""
        built = breakers_for(self.keyword, self.value, current)
        return next((b for b in built if b.name == self.breaker), None)


@cache
def targets() -> tuple[Target, ...]:
    """Every breaker the catalog's generated cases apply to a MUST constraint of the newest
    published schema, sorted by case id.

    Read from the newest schema's statements and the generated cases' file names
    (``<area>/generated/<constraint slug>.<breaker>.yaml``) alone: parsing the catalog would
    cost a fuzzing run seconds before its first example.
    """
    root = catalog_root()
    data = yaml.load((root / STATEMENTS / _NEWEST_FILE).read_text(encoding="utf-8"), _LOADER)
    constraints: dict[tuple[str, str], Statement] = {}
    for item in data["statements"]:
        statement = Statement(
            id=item["id"],
            source=data["source"],
            section=item["section"],
            keyword=item["keyword"],
            quote=item["quote"],
            untestable=item.get("untestable"),
            ruling=item.get("ruling", ""),
        )
        name = constraint_name(statement)
        area = area_of(name) if name is not None else None
        if name is None or area is None or not statement.testable:
            continue
        if statement.requirement(validity=True) == "MUST":
            constraints[area, _slug(name)] = statement
    found = []
    for path in sorted(root.glob(f"*/{FOLDER}/*.yaml")):
        area = path.parent.parent.name
        slug, _, breaker = path.stem.partition(".")
        held = constraints.get((area, slug.removesuffix(_NEWEST_RUN)))
        read = constraint_value(held) if held is not None else None
        if held is None or read is None:
            continue  # a constraint the newest schema does not hold, or holds otherwise
        found.append(
            Target(
                f"{area}.{FOLDER}.{path.stem}",
                area,
                held.id.removeprefix(NEWEST),
                held.section,
                read[0],
                read[1],
                breaker,
            )
        )
    return tuple(sorted(found, key=lambda t: t.case))


_NEWEST_FILE = NEWEST.rstrip(".") + ".yaml"
_NEWEST_RUN = "-v1-9"
"""The suffix of the slug of a constraint whose value differs between schemas, for the run of
versions the newest one begins."""
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _slug(name: str) -> str:
    """A constraint's name as the generator writes it in file names."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def places(pack: Mapping[str, Any]) -> dict[str, list[str]]:
    """Where each schema definition the fuzzer's packs hold stands in ``pack``: schema pointer
    (``#/$defs/WorkflowState``) -> the JSON pointers of its instances, in a stable order."""
    found: dict[str, list[str]] = {}

    def add(section: str, pointer: str) -> None:
        found.setdefault(section, []).append(pointer)

    add("#/$defs/Prompt", "/prompts/main")
    _requires(add, pack.get("requires"))
    workflow = pack.get("workflow")
    if isinstance(workflow, Mapping):
        add("#/properties/workflow", "/workflow")
        add("#/$defs/WorkflowConfig", "/workflow")
        if isinstance((workflow.get("engine") or {}).get("budget"), Mapping):
            add("#/$defs/WorkflowBudget", "/workflow/engine/budget")
        for name, state in sorted((workflow.get("states") or {}).items()):
            at = f"/workflow/states/{_escaped(name)}"
            add("#/$defs/WorkflowState", at)
            for artifact in sorted(
                (state.get("artifacts") or {}) if isinstance(state, Mapping) else {}
            ):
                add("#/$defs/ArtifactDef", f"{at}/artifacts/{_escaped(artifact)}")
    agents = pack.get("agents")
    if isinstance(agents, Mapping):
        add("#/properties/agents", "/agents")
        add("#/$defs/AgentsConfig", "/agents")
        for member in sorted(agents.get("members") or {}):
            add("#/$defs/AgentDef", f"/agents/members/{_escaped(member)}")
    compositions = pack.get("compositions")
    if isinstance(compositions, Mapping):
        add("#/properties/compositions", "/compositions")
        for name, composition in sorted(compositions.items()):
            at = f"/compositions/{_escaped(name)}"
            add("#/$defs/Composition", at)
            for index, step in enumerate(composition.get("steps") or []):
                _step(add, step, f"{at}/steps/{index}")
    return found


def _requires(add: Any, requires: Any) -> None:
    """RFC 0017: the pack's provider requirements, each by its shape."""
    if not isinstance(requires, Mapping):
        return
    add("#/properties/requires", "/requires")
    providers = requires.get("providers")
    for index, item in enumerate(providers if isinstance(providers, list) else []):
        at = f"/requires/providers/{index}"
        if isinstance(item, Mapping):
            add("#/$defs/ProviderRequirement/oneOf/1", at)
            if isinstance(item.get("capabilities"), Mapping):
                add("#/$defs/ProviderCapabilities", f"{at}/capabilities")
        else:
            add("#/$defs/ProviderRequirement/oneOf/0", at)


_KINDS = {
    "prompt": "#/$defs/PromptStep",
    "tool": "#/$defs/ToolStep",
    "agent": "#/$defs/AgentStep",
    "branch": "#/$defs/BranchStep",
    "parallel": "#/$defs/ParallelStep",
}
_VENDOR_KIND = re.compile(r"^[a-z][a-z0-9_-]*\.[a-z][a-z0-9_.-]*$")
"""A vendor step kind (RFC 0010 Level 3), as the published schema's ``ExtensionStep`` writes
it."""


def _step(add: Any, step: Mapping[str, Any], at: str) -> None:
    add("#/$defs/Step", at)
    kind = _KINDS.get(str(step.get("kind")))
    if kind is not None:
        add(kind, at)
    elif _VENDOR_KIND.match(str(step.get("kind"))):
        add("#/$defs/ExtensionStep", at)
    if isinstance(step.get("input"), str):
        add("#/$defs/StepInput/oneOf/0", f"{at}/input")
    elif isinstance(step.get("input"), Mapping):
        add("#/$defs/StepInput/oneOf/1", f"{at}/input")
    if isinstance(step.get("termination"), Mapping):
        add("#/$defs/TerminationPredicate", f"{at}/termination")
    if isinstance(step.get("modifiers"), Mapping):
        add("#/$defs/StepModifiers", f"{at}/modifiers")
    if isinstance(step.get("reduce"), Mapping):
        add("#/$defs/Reducer", f"{at}/reduce")
    if "predicate" in step:
        _predicate(add, step["predicate"], f"{at}/predicate")
    for index, member in enumerate(step.get("branches") or []):
        _step(add, member, f"{at}/branches/{index}")


_NESTING = {"not": "#/$defs/NotPredicate", "all_of": "#/$defs/AllOfPredicate"}
_NESTING["any_of"] = "#/$defs/AnyOfPredicate"


def _predicate(add: Any, predicate: Any, at: str) -> None:
    """A predicate and every predicate it holds, at any depth, each by its form (RFC 0010
    rule 14: the whole constrained shape, nested ones included)."""
    if not isinstance(predicate, Mapping):
        return
    for key, section in _NESTING.items():
        if key in predicate:
            add(section, at)
            inner = predicate[key]
            if key == "not":
                _predicate(add, inner, f"{at}/not")
            for index, item in enumerate(inner if isinstance(inner, list) else []):
                _predicate(add, item, f"{at}/{key}/{index}")
            return
    add("#/$defs/ExistsPredicate" if "exists" in predicate else "#/$defs/ComparePredicate", at)


def _escaped(key: str) -> str:
    return str(key).replace("~", "~0").replace("/", "~1")


CONTEXTS = ("not", "all_of", "any_of")
"""Where else a predicate's breakers are applied than where the pack has it: inside a ``not``,
an ``all_of`` and an ``any_of`` wrapped around each branch predicate (RFC 0010 rule 14 holds
for the whole predicate, so a validator may check the top and miss what a wrapper holds)."""

_PREDICATE_FORMS: dict[str, dict[str, Any]] = {
    "#/$defs/ComparePredicate": {"path": "${input.k}", "op": "equals", "value": 0},
    "#/$defs/ExistsPredicate": {"path": "${input.k}", "exists": True},
}
_PREDICATE_FORMS["#/$defs/NotPredicate"] = {"not": _PREDICATE_FORMS["#/$defs/ComparePredicate"]}
_PREDICATE_FORMS["#/$defs/AllOfPredicate"] = {
    "all_of": [_PREDICATE_FORMS["#/$defs/ExistsPredicate"]]
}
_PREDICATE_FORMS["#/$defs/AnyOfPredicate"] = {
    "any_of": [_PREDICATE_FORMS["#/$defs/ComparePredicate"]]
}
"""A valid predicate of each form, for a pack whose branches hold none of that form."""
_ADDED_BRANCH = "zz"
"""The id of a branch step added to hold such a predicate (the fuzzer's step ids are single
letters)."""


def contexts(target: Target) -> tuple[str | None, ...]:
    """The contexts ``target`` is applied in: as the pack has it (``None``), and for a
    predicate's constraint, each of :data:`CONTEXTS` too."""
    return (None, *CONTEXTS) if _form(target.section) is not None else (None,)


@cache
def _form(section: str) -> str | None:
    """The predicate definition holding the schema node ``section``, if it is one."""
    return next((f for f in _PREDICATE_FORMS if section == f or section.startswith(f + "/")), None)


@dataclass(frozen=True)
class Broken:
    """A valid pack with one breaker applied.

    Attributes:
        pack: the pack, broken.
        target: the breaker and its constraint.
        valid: whether the pack stays valid (an open object's extra key, a value at its bound).
        pointer: where the breaker put the offending value (a JSON pointer).
        context: the wrapper the breaker's predicate was put in (see :data:`CONTEXTS`;
            ``None``: the pack as drawn).
    """

    pack: dict[str, Any]
    target: Target
    valid: bool
    pointer: str
    context: str | None = None


def broken(pack: Mapping[str, Any], chosen: Sequence[Target], pick: int) -> Broken | None:
    """``pack`` with one of ``chosen`` applied where its constraint's definition stands: the
    ``pick``-th of the (target, context, place) triples the pack offers, or the next one on
    which the reference agrees with the breaker; ``None`` when none does.

    A target's contexts (see :func:`contexts`) are the pack as drawn and, for a predicate's
    constraint, the pack with every branch predicate wrapped in ``not``, ``all_of`` and
    ``any_of``; a pack without a predicate of the target's form gets a branch step holding
    one (see :func:`in_context`), so every predicate constraint has a place at every depth.
    """
    # Each context's pack is made once, and once more for each predicate form it lacks.
    wrapped: dict[str | None, tuple[dict[str, Any], dict[str, list[str]]]] = {}
    added: dict[tuple[str | None, str], tuple[dict[str, Any], dict[str, list[str]]]] = {}

    def variant(
        context: str | None, form: str | None
    ) -> tuple[dict[str, Any], dict[str, list[str]]]:
        if context not in wrapped:
            shaped = dict(pack) if context is None else copy_json(pack)
            if context is not None:
                _wrap_predicates(shaped, context)
            wrapped[context] = (shaped, places(shaped))
        shaped, where = wrapped[context]
        if form is None or form in where:
            return shaped, where
        if (context, form) not in added:
            extra = copy_json(shaped)
            _add_branch(extra, form, context)
            added[context, form] = (extra, places(extra))
        return added[context, form]

    offered: list[tuple[Target, str | None, dict[str, Any], str]] = []
    for target in chosen:
        for context in contexts(target):
            shaped, where = variant(context, _form(target.section))
            offered += [(target, context, shaped, p) for p in _located(target, where)]
    for index in range(len(offered)):
        target, context, shaped, pointer = offered[(pick + index) % len(offered)]
        breaker = target.at(_value_at(shaped, pointer))
        if breaker is None:
            continue
        try:
            result = apply(shaped, pointer, breaker)
        except (KeyError, IndexError, ValueError, TypeError):
            continue  # the place's parent is not in this pack
        refused = any(d.severity == "error" for d in reference.validate(result))
        if refused != breaker.valid:
            return Broken(result, target, breaker.valid, pointer + breaker.inside, context)
    return None


def in_context(pack: Mapping[str, Any], target: Target, context: str | None) -> dict[str, Any]:
    """``pack`` as ``target`` is applied to it in ``context`` (see :func:`contexts`): every
    branch predicate wrapped in ``context``, and, for a predicate's constraint, a branch step
    first in the first composition when the pack holds no predicate of its form. Still valid:
    a wrapped predicate is a predicate, and the added branch's ``then`` is the step after it."""
    form = _form(target.section)
    if context is None and form is None:
        return dict(pack)
    shaped: dict[str, Any] = copy_json(pack)
    if context is not None:
        _wrap_predicates(shaped, context)
    if form is not None and form not in places(shaped):
        _add_branch(shaped, form, context)
    return shaped


def _located(target: Target, where: Mapping[str, list[str]]) -> list[str]:
    """The pointers of ``target``'s places in a pack whose :func:`places` are ``where``."""
    definition = _definition(target.section, tuple(where))
    suffix = None if definition is None else _suffix(definition, target.section)
    return [] if suffix is None else [pointer + suffix for pointer in where[definition or ""]]


@cache
def _definition(section: str, definitions: tuple[str, ...]) -> str | None:
    """Of ``definitions``, the one nearest the schema node ``section`` (``None``: none holds
    it)."""
    holding = [d for d in definitions if section == d or section.startswith(d + "/")]
    return max(holding, key=len, default=None)


@cache
def _suffix(definition: str, section: str) -> str | None:
    """The JSON pointer of the schema node ``section`` below an instance of ``definition``
    (``None``: not a place a pack has, such as an ``items`` node)."""
    return Template("fuzz", "", {}, {definition: ""}).locate(section)


def _branch_steps(pack: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every branch step of the pack's compositions, parallel branches included."""
    found: list[dict[str, Any]] = []

    def visit(steps: Any) -> None:
        for step in steps if isinstance(steps, list) else []:
            if isinstance(step, dict):
                if step.get("kind") == "branch" and isinstance(step.get("predicate"), dict):
                    found.append(step)
                visit(step.get("branches"))

    compositions = pack.get("compositions")
    for composition in (compositions or {}).values() if isinstance(compositions, Mapping) else ():
        if isinstance(composition, Mapping):
            visit(composition.get("steps"))
    return found


def _wrap(predicate: Any, context: str) -> dict[str, Any]:
    return {context: predicate if context == "not" else [predicate]}


def _wrap_predicates(pack: dict[str, Any], context: str) -> None:
    """Wrap every branch step's predicate in ``context`` (a predicate wrapped stays valid)."""
    for step in _branch_steps(pack):
        step["predicate"] = _wrap(step["predicate"], context)


def _add_branch(pack: dict[str, Any], form: str, context: str | None) -> bool:
    """Put a branch step with a predicate of ``form`` (wrapped in ``context``) first in the
    first composition, its ``then`` the step that was first; ``False``: the pack has no
    composition with steps."""
    compositions = pack.get("compositions")
    if not isinstance(compositions, dict):
        return False
    for _, composition in sorted(compositions.items()):
        steps = composition.get("steps") if isinstance(composition, dict) else None
        if isinstance(steps, list) and steps and isinstance(steps[0], dict):
            predicate: Any = copy_json(_PREDICATE_FORMS[form])
            if context is not None:
                predicate = _wrap(predicate, context)
            then = steps[0].get("id")
            steps.insert(
                0, {"id": _ADDED_BRANCH, "kind": "branch", "predicate": predicate, "then": then}
            )
            return True
    return False


def _value_at(pack: Any, pointer: str) -> Any:
    node = pack
    for raw in pointer.split("/")[1:]:
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return node
