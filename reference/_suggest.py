""" "Did you mean": a close known name added to the message of a diagnostic about an unknown one.

A name that names nothing (``prompt_task: mian``, an event target, ``on_max_visits``, ``entry``,
a composition, tool or step reference) is usually a typo of one that does. The rules report the
unknown name; this module, applied once to all their diagnostics, looks up the names the pack
does have there and, when one is close (:func:`difflib.get_close_matches`), says so in the
message. Codes and pointers are unchanged: only the sentence for people gets longer.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from reference._diagnostics import Diagnostic
from reference._json import unescape_pointer

COMPARISONS = 100_000
"""How many known names one validation may compare unknown ones with. Each comparison costs a
few microseconds: a pack of 10,000 states whose every event targets a typo must not take
minutes, so past this budget messages go without a suggestion."""

CUTOFF = 0.6
"""The least :class:`difflib.SequenceMatcher` ratio of a suggestion (``mian``/``main``: 0.75)."""


def _keys(*path: str) -> Callable[[dict[str, Any], list[str]], Iterable[str]]:
    """The keys of the object at ``path`` in the pack (none when it is not an object)."""

    def keys(pack: dict[str, Any], tokens: list[str]) -> Iterable[str]:
        value: Any = pack
        for token in path:
            value = value.get(token) if isinstance(value, dict) else None
        return value.keys() if isinstance(value, dict) else ()

    return keys


def _step_ids(pack: dict[str, Any], tokens: list[str]) -> Iterable[str]:
    """The step ids of the composition the pointer is in, parallel branches included."""
    compositions = pack.get("compositions")
    if len(tokens) < 2 or not isinstance(compositions, dict):
        return ()
    composition = compositions.get(tokens[1])
    steps = composition.get("steps") if isinstance(composition, dict) else None
    pending = [steps] if isinstance(steps, list) else []
    ids: list[str] = []
    while pending:
        for step in pending.pop():
            if isinstance(step, dict):
                if isinstance(step.get("id"), str):
                    ids.append(step["id"])
                if isinstance(step.get("branches"), list):
                    pending.append(step["branches"])
    return ids


_STATES = _keys("workflow", "states")

KNOWN_NAMES: dict[str, Callable[[dict[str, Any], list[str]], Iterable[str]]] = {
    "entry-unknown": _STATES,
    "event-target-unknown": _STATES,
    "on-max-visits-unknown": _STATES,
    "agent-state-unknown": _STATES,
    "prompt-task-unknown": _keys("prompts"),
    "step-prompt-task-unknown": _keys("prompts"),
    "composition-unknown": _keys("compositions"),
    "step-tool-unknown": _keys("tools"),
    "step-target-unknown": _step_ids,
    "composition-output-unknown": _step_ids,
}
"""Code -> the names the unknown one (the string at the diagnostic's pointer) should be one of,
given the pack and the pointer's tokens."""


def close_name(name: str, known: Iterable[str]) -> str | None:
    """The known name closest to ``name``, if one is close: the same name in another case
    first, then the best :func:`difflib.get_close_matches` match."""
    candidates = sorted(set(known))  # sorted: the same suggestion whatever the pack's order
    folded = name.casefold()
    same = [c for c in candidates if c.casefold() == folded and c != name]
    if same:
        return same[0]
    found = difflib.get_close_matches(name, candidates, n=1, cutoff=CUTOFF)
    return found[0] if found and found[0] != name else None


def with_suggestions(
    pack: dict[str, Any], diagnostics: Iterable[Diagnostic]
) -> Iterator[Diagnostic]:
    """``diagnostics``, each about an unknown name that is close to a known one with
    ``; did you mean 'name'?`` added to its message (within the :data:`COMPARISONS` budget)."""
    budget = COMPARISONS
    for diagnostic in diagnostics:
        known_names = KNOWN_NAMES.get(diagnostic.code)
        if known_names is None or budget <= 0:
            yield diagnostic
            continue
        tokens = unescape_pointer(diagnostic.path)
        name = _value_at(pack, tokens)
        known = list(known_names(pack, tokens)) if isinstance(name, str) else []
        budget -= len(known)
        match = close_name(name, known) if isinstance(name, str) and known else None
        if match is None:
            yield diagnostic
        else:
            message = f"{diagnostic.message}; did you mean {match!r}?"
            yield dataclasses.replace(diagnostic, message=message)


def _value_at(data: Any, tokens: list[str]) -> Any:
    for token in tokens:
        if isinstance(data, dict):
            data = data.get(token)
        elif isinstance(data, list) and token.isdecimal() and int(token) < len(data):
            data = data[int(token)]
        else:
            return None
    return data
