"""Values in compositions: ``${...}`` references (C5), JSON equality and predicates (C6).

A reference is ``${input.a.b}`` (the composition input) or ``${step.output.a.b}`` (a prior
step's output); the names after the root walk objects, one key each. Bindings (a step's
``input`` or ``args``) are resolved recursively; branch predicates compare resolved values with
a constrained vocabulary, never an expression language.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from reference._compositions.extensions import StepFailure
from reference._compositions.vocabulary import REFERENCE
from reference._json import describe_json_type, is_number

_ORDERED_OPS = {
    "less_than": lambda a, b: a < b,
    "less_than_or_equals": lambda a, b: a <= b,
    "greater_than": lambda a, b: a > b,
    "greater_than_or_equals": lambda a, b: a >= b,
}


@dataclass(frozen=True, slots=True)
class Scope:
    """What references can see while a step runs.

    Attributes:
        input: the composition input.
        outputs: step id -> output, for the steps that completed and produced output.
        statuses: step id -> ``completed``/``skipped``/``failed`` for every step that has one
            (used to say why a reference is unresolved).
    """

    input: Any
    outputs: Mapping[str, Any]
    statuses: Mapping[str, str]


@dataclass(frozen=True, slots=True)
class Lookup:
    """The result of reading a reference: the value if ``found``, else why not."""

    found: bool
    value: Any = None
    reason: str = ""


def full_reference(text: str) -> str | None:
    """The inside of ``text`` when the whole string is one reference (``${...}``), else None."""
    match = REFERENCE.fullmatch(text)
    return match.group(1) if match else None


def lookup(inner: str, scope: Scope) -> Lookup:
    """Read the reference ``${inner}`` in ``scope``.

    Arguments:
        inner: the text between ``${`` and ``}``, e.g. ``classify.output.type``.
        scope: the input and the outputs visible to the step.
    """
    names = inner.split(".")
    if any(not name for name in names):
        return Lookup(False, reason=f"${{{inner}}} is not a dot-separated path")
    root = names[0]
    if root == "input":
        value, walked = scope.input, names[1:]
        where = "input"
    else:
        if len(names) < 2 or names[1] != "output":
            return Lookup(False, reason=f"${{{inner}}} names neither input nor a step's output")
        if root not in scope.outputs:
            return Lookup(False, reason=_why_no_output(root, scope))
        value, walked = scope.outputs[root], names[2:]
        where = f"{root}.output"
    for name in walked:
        if not isinstance(value, Mapping):
            return Lookup(
                False, reason=f"${{{where}}} is {describe_json_type(value)}, not an object"
            )
        if name not in value:
            return Lookup(False, reason=f"${{{where}}} has no key {name!r}")
        value = value[name]
        where += "." + name
    return Lookup(True, value)


def _why_no_output(step: str, scope: Scope) -> str:
    status = scope.statuses.get(step)
    if status == "skipped":
        return f"step {step!r} was skipped"
    if status == "completed":
        return f"step {step!r} produces no output (a branch)"
    return f"step {step!r} has not run before this step"


def resolve(binding: Any, scope: Scope) -> Any:
    """Resolve every reference in a binding (C5), walking lists and object values.

    A string that is exactly one reference becomes the value, keeping its JSON type; references
    inside a longer string are replaced by the value's text (strings as they are, other values
    as compact JSON). Object keys are never resolved.

    Raises:
        StepFailure: ``reference-unresolved`` for the first reference that cannot be read.
    """
    if isinstance(binding, str):
        inner = full_reference(binding)
        if inner is not None:
            return _read(inner, scope)
        return REFERENCE.sub(lambda match: _text(_read(match.group(1), scope)), binding)
    if isinstance(binding, list):
        return [resolve(item, scope) for item in binding]
    if isinstance(binding, Mapping):
        return {key: resolve(value, scope) for key, value in binding.items()}
    return binding


def _read(inner: str, scope: Scope) -> Any:
    found = lookup(inner, scope)
    if not found.found:
        raise StepFailure(
            "reference-unresolved", f"cannot resolve ${{{inner}}}: {found.reason}", final=True
        )
    return found.value


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    # ensure_ascii off: text stays text; default=str only guards against non-JSON host values.
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str)


# -- JSON values -------------------------------------------------------------------------------


def json_equal(a: Any, b: Any) -> bool:
    """JSON equality: ``1 == 1.0``, ``true != 1``, no string/number coercion, deep for lists
    and objects (key order does not matter, list order does)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if is_number(a) and is_number(b):
        return a == b
    if isinstance(a, str) and isinstance(b, str):
        return a == b
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(json_equal(a[key], b[key]) for key in a)
    return False


# -- predicates --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Compare:
    """``{path, op, value}``: compare the value at ``path`` with a literal."""

    path: str
    op: str
    value: Any


@dataclass(frozen=True, slots=True)
class Exists:
    """``{path, exists}``: true when the path's presence equals ``exists``."""

    path: str
    exists: bool


@dataclass(frozen=True, slots=True)
class AllOf:
    """``{all_of: [...]}``: every item holds (true when empty)."""

    items: tuple[Predicate, ...]


@dataclass(frozen=True, slots=True)
class AnyOf:
    """``{any_of: [...]}``: some item holds (false when empty)."""

    items: tuple[Predicate, ...]


@dataclass(frozen=True, slots=True)
class Not:
    """``{not: predicate}``."""

    item: Predicate


Predicate = Compare | Exists | AllOf | AnyOf | Not


def compile_predicate(raw: Mapping[str, Any]) -> Predicate:
    """Build a :data:`Predicate` from its JSON form, which the rulebook has found valid."""
    if "all_of" in raw:
        return AllOf(tuple(compile_predicate(item) for item in raw["all_of"]))
    if "any_of" in raw:
        return AnyOf(tuple(compile_predicate(item) for item in raw["any_of"]))
    if "not" in raw:
        return Not(compile_predicate(raw["not"]))
    if "exists" in raw:
        return Exists(raw["path"], raw["exists"])
    return Compare(raw["path"], raw["op"], raw["value"])


def evaluate(predicate: Predicate, scope: Scope) -> bool:
    """Evaluate a predicate (C6). A path that cannot be read is missing: ``null`` for equality
    and membership, absent for ``exists``.

    Raises:
        StepFailure: ``predicate-type-error`` when an ordered op does not have two numbers.
    """
    if isinstance(predicate, AllOf):
        return all(evaluate(item, scope) for item in predicate.items)
    if isinstance(predicate, AnyOf):
        return any(evaluate(item, scope) for item in predicate.items)
    if isinstance(predicate, Not):
        return not evaluate(predicate.item, scope)
    found = lookup(full_reference(predicate.path) or "", scope)
    if isinstance(predicate, Exists):
        return found.found == predicate.exists
    actual = found.value if found.found else None
    op, expected = predicate.op, predicate.value
    if op == "equals":
        return json_equal(actual, expected)
    if op == "not_equals":
        return not json_equal(actual, expected)
    if op in ("in", "not_in"):
        member = any(json_equal(actual, item) for item in expected)
        return member if op == "in" else not member
    if not (is_number(actual) and is_number(expected)):
        raise StepFailure(
            "predicate-type-error",
            f"{op} compares two numbers; {predicate.path} is {_shown(found)} and the value is "
            f"{describe_json_type(expected)}",
            final=True,
        )
    return bool(_ORDERED_OPS[op](actual, expected))


def _shown(found: Lookup) -> str:
    return describe_json_type(found.value) if found.found else f"missing ({found.reason})"
