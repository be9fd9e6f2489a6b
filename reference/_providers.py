"""Provider references (RFC 0017): the requirements a pack declares and the call sites naming them.

A ``provider`` on a prompt, or on a composition ``prompt`` or ``agent`` step, names the ``key``
of an entry of ``requires.providers`` (RFC 0012), or ``default``, which needs no declaration.
This module reads the declared requirements once and holds the rules about prompts; the rules
about steps are in the composition rulebook, which reads the same :class:`Requirements`.
Binding keys to concrete providers is the host's business and is not checked here.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from reference._diagnostics import Diagnostic
from reference._json import json_pointer

DEFAULT = "default"
"""The key RFC 0012 reserves for the primary LLM; always valid, declared or not."""
LLM = "llm"


@dataclass(frozen=True, slots=True)
class Requirement:
    """One entry of ``requires.providers``.

    Attributes:
        key: its key (a string shorthand is the key itself).
        role: its role (``llm`` for the shorthand); ``None`` when not a string.
        required: ``False`` only for ``required: false``.
    """

    key: str
    role: str | None
    required: bool


IMPLICIT_DEFAULT = Requirement(DEFAULT, LLM, True)
"""``default`` when the pack does not declare it: the primary LLM, required."""


@dataclass(frozen=True)
class Requirements:
    """The provider requirements of a pack, by key.

    Attributes:
        by_key: the declared requirements (the first declaration of a key wins).
    """

    by_key: Mapping[str, Requirement]

    @classmethod
    def of(cls, pack: Mapping[str, Any]) -> Requirements | None:
        """Read ``requires.providers``; ``None`` when it is malformed (the schema reports it,
        and provider references are then left unchecked rather than all reported unknown).

        A string item is the shorthand for a required ``llm`` requirement; an object item
        declares its ``key`` even when another of its fields is malformed.
        """
        requires = pack.get("requires", {})
        if not isinstance(requires, dict):
            return None
        providers = requires.get("providers", [])
        if not isinstance(providers, list):
            return None
        by_key: dict[str, Requirement] = {}
        for item in providers:
            if isinstance(item, str):
                by_key.setdefault(item, Requirement(item, LLM, True))
            elif isinstance(item, dict) and isinstance(item.get("key"), str):
                role = item.get("role")
                by_key.setdefault(
                    item["key"],
                    Requirement(
                        item["key"],
                        role if isinstance(role, str) else None,
                        item.get("required") is not False,
                    ),
                )
        return cls(by_key)

    def get(self, key: str) -> Requirement | None:
        """The requirement ``key`` names (``default`` always resolves); ``None``: unknown."""
        found = self.by_key.get(key)
        if found is None and key == DEFAULT:
            return IMPLICIT_DEFAULT
        return found


def prompt_provider(prompt: Any) -> str | None:
    """The key a prompt runs on (RFC 0017 rule 2: absent means ``default``); ``None`` when its
    ``provider`` is not a string (the schema reports it)."""
    if not isinstance(prompt, dict):
        return None
    value = prompt.get("provider", DEFAULT)
    return value if isinstance(value, str) else None


def reference_problem(requirements: Requirements, key: str) -> Diagnostic | None:
    """What is wrong with a written ``provider`` value (no pointer yet): ``provider-unknown``
    or ``provider-optional-referenced``; ``None`` when nothing is."""
    requirement = requirements.get(key)
    if requirement is None:
        return Diagnostic(
            "provider-unknown",
            "error",
            "",
            f"provider {key!r} is neither 'default' nor the key of a requires.providers entry",
        )
    if not requirement.required:
        return Diagnostic(
            "provider-optional-referenced",
            "warning",
            "",
            f"provider {key!r} is an optional requirement (required: false); a call site naming "
            "it has no fallback when the host leaves it unbound",
        )
    return None


def not_llm(requirements: Requirements, key: str | None) -> Requirement | None:
    """The requirement ``key`` names when its role is a string other than ``llm``."""
    requirement = requirements.get(key) if key is not None else None
    if requirement is None or requirement.role in (None, LLM):
        return None
    return requirement


def prompt_diagnostics(pack: Mapping[str, Any]) -> Iterator[Diagnostic]:
    """The provider rules about prompts: ``provider-unknown`` and
    ``provider-optional-referenced`` at a prompt's ``provider``, and ``provider-role-not-llm``
    (warning) for a prompt that a non-composition workflow state runs, once per prompt.

    Arguments:
        pack: the loaded pack (an object).
    """
    requirements = Requirements.of(pack)
    prompts = pack.get("prompts")
    if requirements is None or not isinstance(prompts, dict):
        return
    for name, prompt in prompts.items():
        if not isinstance(prompt, dict):
            continue
        value = prompt.get("provider")
        if isinstance(value, str):
            problem = reference_problem(requirements, value)
            if problem is not None:
                where = json_pointer("prompts", name, "provider")
                yield Diagnostic(problem.code, problem.severity, where, problem.message)
        elif "provider" not in prompt:
            # An absent provider is `default` (RFC 0017 rule 2: a runtime MUST NOT tell the two
            # apart), so an optional `default` is referenced by every prompt without one.
            problem = reference_problem(requirements, DEFAULT)
            if problem is not None and problem.code == "provider-optional-referenced":
                yield Diagnostic(
                    problem.code,
                    problem.severity,
                    json_pointer("prompts", name),
                    f"prompt {name!r} has no provider, so it runs on 'default', an optional "
                    "requirement (required: false) with no fallback when the host leaves it "
                    "unbound",
                )
    for name in _conversational_prompts(pack, prompts):
        requirement = not_llm(requirements, prompt_provider(prompts[name]))
        if requirement is not None:
            written = "provider" in prompts[name]
            yield Diagnostic(
                "provider-role-not-llm",
                "warning",
                json_pointer("prompts", name, *(("provider",) if written else ())),
                f"prompt {name!r} runs in a conversational workflow state but its provider "
                f"{requirement.key!r} has role {requirement.role!r}, not 'llm'",
            )


def _conversational_prompts(pack: Mapping[str, Any], prompts: dict[str, Any]) -> list[str]:
    """The prompts that workflow states not in composition mode run, in document order."""
    workflow = pack.get("workflow")
    states = workflow.get("states") if isinstance(workflow, dict) else None
    if not isinstance(states, dict):
        return []
    used = {
        state["prompt_task"]
        for state in states.values()
        if isinstance(state, dict)
        and state.get("orchestration") != "composition"
        and isinstance(state.get("prompt_task"), str)
    }
    return [name for name in prompts if name in used]
