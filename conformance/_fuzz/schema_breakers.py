"""Near-valid packs from the schema breakers: a drawn valid pack with one standard breaker applied
at a place a schema constraint governs (SEMANTICS R16, R19).

The breakers are those the catalog's generated cases apply (:mod:`conformance._catalog.breakers`),
read from those cases: each names its constraint, its breaker and the statements it cites, and
the generator has checked the breaker against the published schemas. A constraint of the newest
published schema whose statements give MUST is applied to the fuzzer's packs wherever the
definition it belongs to stands (each state, each artifact, each step ...). The reference's
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

__all__ = ["NEWEST", "Broken", "Target", "broken", "places", "targets"]

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


_KINDS = {
    "prompt": "#/$defs/PromptStep",
    "tool": "#/$defs/ToolStep",
    "branch": "#/$defs/BranchStep",
    "parallel": "#/$defs/ParallelStep",
}


def _step(add: Any, step: Mapping[str, Any], at: str) -> None:
    add("#/$defs/Step", at)
    kind = _KINDS.get(str(step.get("kind")))
    if kind is not None:
        add(kind, at)
    if isinstance(step.get("modifiers"), Mapping):
        add("#/$defs/StepModifiers", f"{at}/modifiers")
    if isinstance(step.get("reduce"), Mapping):
        add("#/$defs/Reducer", f"{at}/reduce")
    for index, member in enumerate(step.get("branches") or []):
        _step(add, member, f"{at}/branches/{index}")


def _escaped(key: str) -> str:
    return str(key).replace("~", "~0").replace("/", "~1")


@dataclass(frozen=True)
class Broken:
    """A valid pack with one breaker applied.

    Attributes:
        pack: the pack, broken.
        target: the breaker and its constraint.
        valid: whether the pack stays valid (an open object's extra key, a value at its bound).
        pointer: where the breaker put the offending value (a JSON pointer).
    """

    pack: dict[str, Any]
    target: Target
    valid: bool
    pointer: str


def broken(pack: Mapping[str, Any], chosen: Sequence[Target], pick: int) -> Broken | None:
    """``pack`` with one of ``chosen`` applied where its constraint's definition stands: the
    ``pick``-th of the (target, place) pairs the pack offers, or the next one on which the
    reference agrees with the breaker; ``None`` when none does.

    """
    where = places(pack)
    offered: list[tuple[Target, str]] = []
    for target in chosen:
        sections = [s for s in where if target.section == s or target.section.startswith(s + "/")]
        if not sections:
            continue
        section = max(sections, key=len)  # the definition nearest the constraint
        for pointer in where[section]:
            located = Template("fuzz", "", pack, {section: pointer}).locate(target.section)
            if located is not None:
                offered.append((target, located))
    for index in range(len(offered)):
        target, pointer = offered[(pick + index) % len(offered)]
        breaker = target.at(_value_at(pack, pointer))
        if breaker is None:
            continue
        try:
            result = apply(dict(pack), pointer, breaker)
        except (KeyError, IndexError, ValueError, TypeError):
            continue  # the place's parent is not in this pack
        refused = any(d.severity == "error" for d in reference.validate(result))
        if refused != breaker.valid:
            return Broken(result, target, breaker.valid, pointer + breaker.inside)
    return None


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
