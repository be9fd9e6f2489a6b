"""A revised published schema, read against the registry's statements of a held one.

A schema statement stands at a JSON pointer (its section) and quotes a constraint there
(``"additionalProperties": false``) or a sentence of its description. Each is looked for at its
own pointer, never anywhere in the file (the same constraint is written at hundreds of places):
a constraint whose value changed, a pointer gone, a description no longer saying the sentence;
and, in the parts the registry covers, a constraint or a property no statement holds yet.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from conformance._basics.quotes import normalize
from conformance._catalog.revision import Change, Revision
from conformance._catalog.statements import Registry, Statement
from conformance._catalog.text import Sentence

CONSTRAINTS = frozenset(
    (
        "type",
        "required",
        "enum",
        "const",
        "additionalProperties",
        "unevaluatedProperties",
        "propertyNames",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minLength",
        "maxLength",
        "pattern",
        "format",
        "minItems",
        "maxItems",
        "uniqueItems",
        "minProperties",
        "maxProperties",
        "$ref",
        "oneOf",
        "anyOf",
        "allOf",
        "not",
        "if",
        "dependentRequired",
    )
)
"""The keywords that constrain an instance (``description``, ``title``, ``examples`` do not)."""

_MISSING = object()


def resolve(document: Any, pointer: str) -> Any:
    """The value at a JSON pointer (``#/$defs/Step``), or a sentinel when there is none."""
    node = document
    for raw in pointer.removeprefix("#").split("/")[1:]:
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return _MISSING
    return node


def quoted(statement: Statement) -> dict[str, Any] | None:
    """A constraint quote as data: ``"type": "object"`` or ``"engine": { "type": "object"``
    (the quote opens the property's object), or ``None`` for a sentence."""
    for closing in ("}", "}}"):
        try:
            data = json.loads("{" + statement.quote + closing)
        except ValueError:
            continue
        if isinstance(data, dict):
            return data
    return None


def _within(expected: Any, actual: Any) -> bool:
    """``expected`` says nothing ``actual`` does not: its keys have the same values."""
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(
            key in actual and _within(value, actual[key]) for key, value in expected.items()
        )
    return bool(expected == actual and type(expected) is type(actual))


def _last(pointer: str) -> str:
    return pointer.rsplit("/", 1)[-1].replace("~1", "/").replace("~0", "~")


def _holds(statement: Statement, node: Any) -> bool:
    data = quoted(statement)
    if data is not None:
        return _within(data, node) or _within(data, {_last(statement.section): node})
    description = node.get("description") if isinstance(node, dict) else None
    if isinstance(description, str) and normalize(statement.quote) in normalize(description):
        return True
    return normalize(statement.quote) in normalize(json.dumps({_last(statement.section): node}))


def _own_keys(statement: Statement) -> set[str]:
    """The constraint keywords a statement quotes at its own pointer."""
    data = quoted(statement)
    if data is None:
        return set()
    inner = data.get(_last(statement.section))
    keys = set(data)
    if len(data) == 1 and isinstance(inner, dict):
        keys |= set(inner)
    return keys


def _now(statement: Statement, node: Any) -> str:
    """What the revised schema says where the statement stood."""
    data = quoted(statement)
    if data is not None and isinstance(node, dict):
        keys = set(data) if set(data) & set(node) else set(_own_keys(statement))
        shown = {key: node[key] for key in sorted(keys) if key in node}
        if shown:
            return json.dumps(shown, ensure_ascii=False)
    if isinstance(node, dict) and isinstance(node.get("description"), str):
        return str(node["description"])
    return json.dumps(node, ensure_ascii=False)[:400]


def check_schema_revision(
    registry: Registry,
    source: str,
    document: Any,
    cited: Mapping[str, Iterable[str]] | None = None,
) -> Revision:
    """Read a revised schema (parsed JSON) against the statements of ``source``
    (``schema 1.9.0``): changed, removed and new constraints by JSON pointer."""
    cited = cited or {}
    statements = [s for s in registry.statements if s.source == source]
    changes: list[Change] = []
    held = 0
    for statement in statements:
        node = resolve(document, statement.section)
        cases = tuple(dict.fromkeys(cited.get(statement.id, ())))
        if node is _MISSING:
            changes.append(Change("removed", statement.section, statement, cases=cases))
        elif _holds(statement, node):
            held += 1
        else:
            now = Sentence(_now(statement, node), statement.section, 0)
            kind = "constraint changed" if quoted(statement) is not None else "wording changed"
            changes.append(Change(kind, statement.section, statement, now, cases=cases))
    changes += _new_constraints(statements, document, cited)
    known = registry.source(source)
    return Revision(source, tuple(changes), held, {}, (), known.revision if known else "")


def _new_constraints(
    statements: list[Statement], document: Any, cited: Mapping[str, Iterable[str]]
) -> list[Change]:
    """Constraints at the registry's pointers that no statement quotes, and the properties no
    statement stands under of an object the registry covers (most of whose properties have
    statements: the registry covers the pack root and Prompt in part only, on purpose)."""
    at: dict[str, list[Statement]] = {}
    for statement in statements:
        at.setdefault(statement.section, []).append(statement)
    new: list[Change] = []
    for pointer in sorted(at):
        node = resolve(document, pointer)
        if not isinstance(node, dict):
            continue
        quoted_keys = set().union(*(_own_keys(s) for s in at[pointer]))
        quoted_keys |= {key for key in node if any(p.startswith(f"{pointer}/{key}/") for p in at)}
        nearby = tuple(dict.fromkeys(case for s in at[pointer] for case in cited.get(s.id, ())))
        for key in sorted(CONSTRAINTS & set(node) - quoted_keys):
            text = json.dumps({key: node[key]}, ensure_ascii=False)
            new.append(
                Change("new", f"{pointer}/{key}", sentence=Sentence(text, pointer, 0), cases=nearby)
            )
        properties = node.get("properties")
        if not isinstance(properties, dict) or not properties:
            continue
        children = {
            name: f"{pointer}/properties/{name.replace('~', '~0').replace('/', '~1')}"
            for name in properties
        }
        uncovered = sorted(
            name
            for name, child in children.items()
            if not any(p == child or p.startswith(child + "/") for p in at)
        )
        if len(uncovered) > len(properties) / 2:
            continue  # an object the registry covers in part only (the pack root, Prompt)
        for name in uncovered:
            text = json.dumps({name: properties[name]}, ensure_ascii=False)[:400]
            new.append(
                Change(
                    "new", children[name], sentence=Sentence(text, children[name], 0), cases=nearby
                )
            )
    return new


__all__ = ["CONSTRAINTS", "check_schema_revision", "quoted", "resolve"]
