"""Our pack schema against the published PromptPack schemas 1.5.1 and 1.9.0, verdict by verdict.

``schema/promptpack.schema.json`` is written by us (SEMANTICS.md section 1 and R7). This module
runs our schema and each published one (``jsonschema.Draft202012Validator``, no format
assertions) over a catalogue of packs -- valid ones and one per structural violation, the
1.7-1.9 fields (``control``, ``extensions``, ``provider``, ``AgentDef.state``,
``requires.providers``) checked against 1.9.0 only -- and over every pack in ``examples/rfc/``:

* where the verdicts agree, it asserts they agree, and asserts the verdict itself, with the
  JSON pointer every error is reported under (so a pack cannot pass for the wrong reason);
* where they differ on purpose, the difference is listed in ``INTENDED_DIFFERENCES`` below with
  its reason and the published versions it differs from, and the test asserts the difference
  is exactly as listed (and that the verdicts agree for the other version).

Intended differences (verdict of ours / of the published schema; full reasons in
``INTENDED_DIFFERENCES``; docs/semantics.md 2.1 lists them too):

| cases                                      | ours    | them    | versions | reason           |
|--------------------------------------------|---------|---------|----------|------------------|
| composition-on-internal-state,             | invalid | valid   | both     | composition-not- |
| composition-on-state-without-orchestration |         |         |          | allowed          |
| composition-*-step-kind (2 cases)          | valid   | invalid | both     | step-kind-unknown|
|                                            |         |         |          | (validator's)    |
| composition-vendor-step-kind               | valid   | invalid | 1.5.1    | vendor kinds are |
|                                            |         |         |          | valid (1.9.0 too)|
| prompt-* (9 cases)                         | valid   | invalid | both     | typed loosely    |
| root-* (4 cases)                           | valid   | invalid | both     | typed loosely    |

A pack valid for a published schema but rejected by ours, other than the first row, is a bug
in our schema (R7). The note that the published ``Step`` rejects vendor kinds holds for 1.5.1
only: 1.9.0 has an ``ExtensionStep`` whose ``kind`` matches
``^[a-z][a-z0-9_-]*\\.[a-z][a-z0-9_.-]*$``, the pattern our validator applies.

The tests skip only when ``../shared`` (where the published schemas are) is absent.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import pytest

import reference

ROOT = Path(__file__).resolve().parents[2]
SHARED = Path(__file__).parents[2].parent / "shared"
OUR_SCHEMA = ROOT / "schema" / "promptpack.schema.json"
VERSIONS = ("1.5.1", "1.9.0")
EXAMPLES = ROOT / "examples" / "rfc"

if not SHARED.is_dir():
    pytest.skip(
        f"the published PromptPack schemas are not available: {SHARED} is absent",
        allow_module_level=True,
    )


def _validator(path: Path) -> jsonschema.Draft202012Validator:
    schema = json.loads(path.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


OURS = _validator(OUR_SCHEMA)
PUBLISHED = {v: _validator(SHARED / "spec" / f"promptpack-{v}.schema.json") for v in VERSIONS}

Pack = dict[str, Any]


def base_pack() -> Pack:
    """A valid pack using every workflow field of RFC 0005 and RFC 0009."""
    return {
        "$schema": "https://promptpack.org/schema/v1/promptpack.schema.json",
        "id": "schema-probe",
        "name": "Schema probe",
        "version": "1.0.0",
        "template_engine": {"version": "v1", "syntax": "{{variable}}"},
        "prompts": {
            "work": {
                "id": "work",
                "name": "Worker",
                "version": "1.0.0",
                "system_template": "Work on {{topic}}. Notes so far: {{artifacts.notes}}",
                "variables": [{"name": "topic", "type": "string", "required": True}],
                "tools": ["lookup"],
            },
            "finish": {
                "id": "finish",
                "name": "Finisher",
                "version": "1.0.0",
                "system_template": "Summarise {{artifacts.notes}}",
            },
        },
        "tools": {
            "lookup": {
                "name": "lookup",
                "description": "Look something up",
                "parameters": {
                    "type": "object",
                    "properties": {"query": {"type": "string"}},
                    "required": ["query"],
                },
            }
        },
        "workflow": {
            "version": 2,
            "entry": "work",
            "engine": {
                "budget": {"max_total_visits": 10, "max_tool_calls": 20, "max_wall_time_sec": 60},
                "vendor_setting": {"anything": True},
            },
            "states": {
                "work": {
                    "prompt_task": "work",
                    "description": "Do the work, again if needed",
                    "on_event": {"Again": "work", "Done": "finish"},
                    "persistence": "transient",
                    "orchestration": "internal",
                    "skills": "research",
                    "max_visits": 3,
                    "on_max_visits": "finish",
                    "artifacts": {
                        "notes": {"type": "text/markdown", "description": "Notes", "mode": "append"}
                    },
                },
                "finish": {
                    "prompt_task": "finish",
                    "terminal": True,
                    "persistence": "persistent",
                    "orchestration": "external",
                },
            },
        },
    }


def _composition(**fields: Any) -> dict[str, Any]:
    """A composition valid for the 1.5.1 schema, with ``fields`` merged in."""
    return {
        "version": 1,
        "steps": [{"id": "draft", "kind": "prompt", "prompt_task": "work"}],
        **fields,
    }


def _with_composition_state(pack: Pack) -> None:
    pack["compositions"] = {"pipeline": _composition()}
    pack["workflow"]["states"]["compose"] = {
        "orchestration": "composition",
        "composition": "pipeline",
        "on_event": {"Composed": "finish"},
    }


def _set(*path: str | int, value: Any) -> Callable[[Pack], None]:
    """A mutation that sets ``value`` at ``path`` (creating nothing on the way)."""

    def mutate(pack: Pack) -> None:
        target: Any = pack
        for step in path[:-1]:
            target = target[step]
        target[path[-1]] = value

    return mutate


def _delete(*path: str | int) -> Callable[[Pack], None]:
    def mutate(pack: Pack) -> None:
        target: Any = pack
        for step in path[:-1]:
            target = target[step]
        del target[path[-1]]

    return mutate


def _state(name: str, *rest: str) -> tuple[str, ...]:
    return ("workflow", "states", name, *rest)


@dataclass(frozen=True)
class Case:
    """A pack built from :func:`base_pack` by ``mutate``.

    Attributes:
        id: the case name.
        mutate: changes the base pack in place.
        valid: the verdict both schemas give (for agreeing cases).
        where: for invalid packs, the JSON pointer every reported error must be at or under.
    """

    id: str
    mutate: Callable[[Pack], None]
    valid: bool
    where: str = ""

    def build(self) -> Pack:
        pack = copy.deepcopy(base_pack())
        self.mutate(pack)
        return pack


def _nothing(pack: Pack) -> None:
    del pack  # the base pack as it is


def _float_max_visits(pack: Pack) -> None:
    pack["workflow"]["states"]["work"]["max_visits"] = 2.0  # an integer for JSON Schema


AGREEING = [
    # -- valid for both
    Case("valid-full-rfc0009-pack", _nothing, valid=True),
    Case(
        "valid-minimal-workflow",
        _set(
            "workflow",
            value={"version": 1, "entry": "work", "states": {"work": {"prompt_task": "work"}}},
        ),
        valid=True,
    ),
    Case("valid-without-workflow", _delete("workflow"), valid=True),
    Case("valid-composition-state", _with_composition_state, valid=True),
    Case("valid-open-persistence", _set(*_state("work", "persistence"), value="durable"), True),
    Case("valid-max-visits-1", _set(*_state("work", "max_visits"), value=1), valid=True),
    Case("valid-max-visits-2.0", _float_max_visits, valid=True),
    Case("valid-empty-on-event", _set(*_state("work", "on_event"), value={}), valid=True),
    Case("valid-empty-engine", _set("workflow", "engine", value={}), valid=True),
    Case("valid-empty-budget", _set("workflow", "engine", "budget", value={}), valid=True),
    Case("valid-empty-artifacts", _set(*_state("work", "artifacts"), value={}), valid=True),
    # workflow-version-unsupported is the validator's rule, not a schema one
    Case("valid-workflow-version-3", _set("workflow", "version", value=3), valid=True),
    # -- invalid for both
    Case(
        "max-visits-0",
        _set(*_state("work", "max_visits"), value=0),
        valid=False,
        where="/workflow/states/work/max_visits",
    ),
    Case(
        "max-visits-non-integer",
        _set(*_state("work", "max_visits"), value=2.5),
        valid=False,
        where="/workflow/states/work/max_visits",
    ),
    Case(
        "max-visits-boolean",
        _set(*_state("work", "max_visits"), value=True),
        valid=False,
        where="/workflow/states/work/max_visits",
    ),
    Case(
        "budget-max-total-visits-0",
        _set("workflow", "engine", "budget", "max_total_visits", value=0),
        valid=False,
        where="/workflow/engine/budget/max_total_visits",
    ),
    Case(
        "budget-max-tool-calls-non-integer",
        _set("workflow", "engine", "budget", "max_tool_calls", value=1.5),
        valid=False,
        where="/workflow/engine/budget/max_tool_calls",
    ),
    Case(
        "budget-max-wall-time-string",
        _set("workflow", "engine", "budget", "max_wall_time_sec", value="60"),
        valid=False,
        where="/workflow/engine/budget/max_wall_time_sec",
    ),
    Case(
        "budget-not-an-object",
        _set("workflow", "engine", "budget", value=100),
        valid=False,
        where="/workflow/engine/budget",
    ),
    Case(
        "artifact-without-type",
        _delete(*_state("work", "artifacts", "notes", "type")),
        valid=False,
        where="/workflow/states/work/artifacts/notes",
    ),
    Case(
        "artifact-bad-mode",
        _set(*_state("work", "artifacts", "notes", "mode"), value="merge"),
        valid=False,
        where="/workflow/states/work/artifacts/notes/mode",
    ),
    Case(
        "unknown-property-on-workflow",
        _set("workflow", "metadata", value={"owner": "me"}),
        valid=False,
        where="/workflow",
    ),
    Case(
        "unknown-property-on-state",
        _set(*_state("work", "parameters"), value={"detail_level": "high"}),
        valid=False,
        where="/workflow/states/work",
    ),
    Case(
        "unknown-property-on-artifact",
        _set(*_state("work", "artifacts", "notes", "schema"), value="notes.json"),
        valid=False,
        where="/workflow/states/work/artifacts/notes",
    ),
    Case(
        "unknown-property-on-budget",
        _set("workflow", "engine", "budget", "max_iterations", value=5),
        valid=False,
        where="/workflow/engine/budget",
    ),
    Case(
        "empty-states",
        _set("workflow", "states", value={}),
        valid=False,
        where="/workflow/states",
    ),
    Case(
        "states-not-an-object",
        _set("workflow", "states", value=[{"prompt_task": "work"}]),
        valid=False,
        where="/workflow/states",
    ),
    Case(
        "null-state",
        _set(*_state("finish"), value=None),
        valid=False,
        where="/workflow/states/finish",
    ),
    Case(
        "orchestration-not-in-enum",
        _set(*_state("work", "orchestration"), value="manual"),
        valid=False,
        where="/workflow/states/work/orchestration",
    ),
    Case(
        "composition-mode-without-composition",
        _set(*_state("finish", "orchestration"), value="composition"),
        valid=False,
        where="/workflow/states/finish",
    ),
    Case(
        "prompt-task-missing",
        _delete(*_state("finish", "prompt_task")),
        valid=False,
        where="/workflow/states/finish",
    ),
    Case(
        "prompt-task-not-a-string",
        _set(*_state("work", "prompt_task"), value=["work"]),
        valid=False,
        where="/workflow/states/work/prompt_task",
    ),
    Case(
        "on-event-target-not-a-string",
        _set(*_state("work", "on_event", "Done"), value={"state": "finish"}),
        valid=False,
        where="/workflow/states/work/on_event/Done",
    ),
    Case(
        "terminal-not-a-boolean",
        _set(*_state("finish", "terminal"), value="yes"),
        valid=False,
        where="/workflow/states/finish/terminal",
    ),
    Case(
        "on-max-visits-not-a-string",
        _set(*_state("work", "on_max_visits"), value=None),
        valid=False,
        where="/workflow/states/work/on_max_visits",
    ),
    Case(
        "workflow-version-0",
        _set("workflow", "version", value=0),
        valid=False,
        where="/workflow/version",
    ),
    Case(
        "workflow-version-string",
        _set("workflow", "version", value="1"),
        valid=False,
        where="/workflow/version",
    ),
    Case(
        "workflow-entry-missing",
        _delete("workflow", "entry"),
        valid=False,
        where="/workflow",
    ),
    Case(
        "engine-not-an-object",
        _set("workflow", "engine", value="fast"),
        valid=False,
        where="/workflow/engine",
    ),
    Case(
        "tool-name-with-spaces",
        _set("tools", "lookup", "name", value="Look Up"),
        valid=False,
        where="/tools/lookup/name",
    ),
    Case(
        "composition-not-an-object",
        _set("compositions", value={"pipeline": "steps"}),
        valid=False,
        where="/compositions/pipeline",
    ),
    Case(
        "agents-without-members",
        _set("agents", value={"entry": "work"}),
        valid=False,
        where="/agents",
    ),
    Case(
        "requires-unknown-property",
        _set("requires", value={"tools": ["lookup"]}),
        valid=False,
        where="/requires",
    ),
    Case(
        "prompt-without-system-template",
        _delete("prompts", "finish", "system_template"),
        valid=False,
        where="/prompts/finish",
    ),
]


@dataclass(frozen=True)
class Difference:
    """A pack on which our schema and published ones intentionally disagree.

    Attributes:
        versions: the published versions that give the other verdict (the rest agree with
            ours).
    """

    case: Case
    ours: bool
    published: bool
    reason: str
    versions: tuple[str, ...] = VERSIONS


def _difference(
    id: str,
    mutate: Callable[[Pack], None],
    *,
    ours: bool,
    where: str,
    reason: str,
    versions: tuple[str, ...] = VERSIONS,
) -> Difference:
    """A difference; ``where`` locates the errors of the schema that rejects the pack."""
    return Difference(Case(id, mutate, valid=ours, where=where), ours, not ours, reason, versions)


def _composition_on_state(orchestration: str | None) -> Callable[[Pack], None]:
    def mutate(pack: Pack) -> None:
        pack["compositions"] = {"pipeline": _composition()}
        state = pack["workflow"]["states"]["work"]
        state["composition"] = "pipeline"
        if orchestration is None:
            del state["orchestration"]
        else:
            state["orchestration"] = orchestration

    return mutate


def _compositions(**composition: Any) -> Callable[[Pack], None]:
    def mutate(pack: Pack) -> None:
        _with_composition_state(pack)
        pack["compositions"]["pipeline"] = composition

    return mutate


_STEP = {"id": "draft", "kind": "prompt", "prompt_task": "work"}
_STEP_KIND_LEFT_TO_THE_VALIDATOR = (
    "Our schema leaves `kind` an open string: an unnamespaced kind outside the five v1 kinds has "
    "its own code, step-kind-unknown, which the validator reports instead of `schema` "
    "(SEMANTICS: own code, once), so the schema must not reject it too. The pack is still "
    "invalid for `reference.validate`."
)
_PROMPT_LOOSE = (
    "Prompt sub-objects are typed loosely (object/array) in our schema, where the published "
    "schemas type them in depth: they are outside the workflow RFCs this kit checks, and "
    "accepting a superset never makes a pack valid for them fail our schema (Level 0 loading, "
    "SEMANTICS L3 and R7)."
)
_ROOT_LOOSE = (
    "Root sections outside the workflow RFCs (metadata, compilation, evals, skills (RFC 0008)) "
    "are typed loosely, as the prompt sub-objects are: ours accepts a superset of the published "
    "schemas there, so no pack valid for them is rejected. agents and requires are typed as in "
    "1.9.0, since the RFC 0011 and RFC 0017 rules read them."
)

INTENDED_DIFFERENCES = [
    _difference(
        "composition-on-internal-state",
        _composition_on_state("internal"),
        ours=False,
        where="/workflow/states/work",
        reason=(
            "SEMANTICS composition-not-allowed: `composition` on a state not in composition mode "
            "is an error. 1.5.1 only says 'absent otherwise' in the property's description; its "
            "`else` branch requires prompt_task but does not forbid `composition`."
        ),
    ),
    _difference(
        "composition-on-state-without-orchestration",
        _composition_on_state(None),
        ours=False,
        where="/workflow/states/work",
        reason="As above: orchestration defaults to internal, so `composition` is not allowed.",
    ),
    _difference(
        "composition-unnamespaced-unknown-step-kind",
        _compositions(version=1, steps=[{"id": "draft", "kind": "summarize"}]),
        ours=True,
        where="/compositions/pipeline/steps/0",
        reason=_STEP_KIND_LEFT_TO_THE_VALIDATOR,
    ),
    _difference(
        "composition-vendor-step-kind",
        _compositions(version=1, steps=[{"id": "draft", "kind": "acme.summarize"}]),
        ours=True,
        where="/compositions/pipeline/steps/0",
        reason=(
            "1.5.1's Step is a oneOf of the five v1 kinds, so it rejects namespaced vendor "
            "kinds, which RFC 0010 allows (SEMANTICS section 1 and C12); our schema must accept "
            "them. Since 1.8.1 the published Step has an ExtensionStep that accepts them too."
        ),
        versions=("1.5.1",),
    ),
    _difference(
        "composition-miscased-vendor-step-kind",
        _compositions(version=1, steps=[{"id": "draft", "kind": "Acme.judge"}]),
        ours=True,
        where="/compositions/pipeline/steps/0",
        reason=_STEP_KIND_LEFT_TO_THE_VALIDATOR + " 1.9.0's ExtensionStep pattern rejects it.",
    ),
    _difference(
        "prompt-tool-policy-bad-choice",
        _set("prompts", "work", "tool_policy", value={"tool_choice": "sometimes"}),
        ours=True,
        where="/prompts/work/tool_policy/tool_choice",
        reason=_PROMPT_LOOSE,
    ),
    _difference(
        "prompt-parameters-temperature-5",
        _set("prompts", "work", "parameters", value={"temperature": 5}),
        ours=True,
        where="/prompts/work/parameters/temperature",
        reason=_PROMPT_LOOSE,
    ),
    _difference(
        "prompt-pipeline-without-stages",
        _set("prompts", "work", "pipeline", value={}),
        ours=True,
        where="/prompts/work/pipeline",
        reason=_PROMPT_LOOSE,
    ),
    _difference(
        "prompt-media-without-enabled",
        _set("prompts", "work", "media", value={"supported_types": ["image"]}),
        ours=True,
        where="/prompts/work/media",
        reason=_PROMPT_LOOSE,
    ),
    _difference(
        "prompt-validator-without-type",
        _set("prompts", "work", "validators", value=[{"enabled": True}]),
        ours=True,
        where="/prompts/work/validators/0",
        reason=_PROMPT_LOOSE,
    ),
    _difference(
        "prompt-eval-without-trigger",
        _set("prompts", "work", "evals", value=[{"id": "tone", "type": "llm_judge"}]),
        ours=True,
        where="/prompts/work/evals/0",
        reason=_PROMPT_LOOSE,
    ),
    _difference(
        "prompt-tested-model-without-date",
        _set("prompts", "work", "tested_models", value=[{"provider": "p", "model": "m"}]),
        ours=True,
        where="/prompts/work/tested_models/0",
        reason=_PROMPT_LOOSE,
    ),
    _difference(
        "prompt-model-override-unknown-property",
        _set("prompts", "work", "model_overrides", value={"m": {"temperature": 0.1}}),
        ours=True,
        where="/prompts/work/model_overrides/m",
        reason=_PROMPT_LOOSE,
    ),
    _difference(
        "prompt-variable-validation-unknown-property",
        _set("prompts", "work", "variables", 0, "validation", value={"regex": "^a"}),
        ours=True,
        where="/prompts/work/variables/0/validation",
        reason=_PROMPT_LOOSE,
    ),
    _difference(
        "root-metadata-bad-language",
        _set("metadata", value={"language": "english"}),
        ours=True,
        where="/metadata/language",
        reason=_ROOT_LOOSE,
    ),
    _difference(
        "root-compilation-without-fields",
        _set("compilation", value={"source": "arena.yaml"}),
        ours=True,
        where="/compilation",
        reason=_ROOT_LOOSE,
    ),
    _difference(
        "root-eval-without-id",
        _set("evals", value=[{"type": "llm_judge", "trigger": "every_turn"}]),
        ours=True,
        where="/evals/0",
        reason=_ROOT_LOOSE,
    ),
    _difference(
        "root-skill-not-a-source",
        _set("skills", value=[42]),
        ours=True,
        where="/skills/0",
        reason=_ROOT_LOOSE,
    ),
]

# RFC 0010 shapes without a diagnostic code of their own are in our schema, as in 1.5.1.
AGREEING.extend(
    [
        Case(
            "composition-without-version",
            _compositions(steps=[_STEP]),
            valid=False,
            where="/compositions/pipeline",
        ),
        Case(
            "composition-with-empty-steps",
            _compositions(version=1, steps=[]),
            valid=False,
            where="/compositions/pipeline/steps",
        ),
        Case(
            "composition-unknown-property",
            _compositions(version=1, steps=[_STEP], timeout_ms=100),
            valid=False,
            where="/compositions/pipeline",
        ),
    ]
)

# A variable's `binding` (1.5.1) once was missing from our closed Variable definition.
AGREEING.append(
    Case(
        "variable-with-binding",
        _set(
            "prompts",
            "work",
            "variables",
            0,
            "binding",
            value={"kind": "session", "field": "topic", "auto_populate": True},
        ),
        valid=True,
    )
)


# -- the fields of 1.7-1.9 (RFC 0014, 0016, 0017, and 0011's AgentDef.state in agents) ----------
# Checked against 1.9.0 only: 1.5.1 closes the objects these fields are on.

_EXTENSIONS = {"acme.example/owner": "team-a", "plain": {"nested": [1, {"deeper": None}]}}


def _agents(**member: Any) -> Callable[[Pack], None]:
    return _set("agents", value={"entry": "work", "members": {"work": member}})


def _providers(*items: Any) -> Callable[[Pack], None]:
    return _set("requires", value={"providers": list(items)})


def _step(**fields: Any) -> Callable[[Pack], None]:
    """A composition state running one step made of ``fields``."""

    def mutate(pack: Pack) -> None:
        _with_composition_state(pack)
        pack["compositions"]["pipeline"]["steps"] = [{"id": "draft", **fields}]

    return mutate


def _on_composition(name: str, value: Any) -> Callable[[Pack], None]:
    def mutate(pack: Pack) -> None:
        _with_composition_state(pack)
        pack["compositions"]["pipeline"][name] = value

    return mutate


def _everything(pack: Pack) -> None:
    """Every 1.7-1.9 field at once, on the base pack."""
    _with_composition_state(pack)
    pack["requires"] = {
        "providers": [
            "default",
            {"key": "triage", "role": "inference", "required": False},
            {"key": "drafter", "role": "llm", "capabilities": {"tool_use": True, "x-ctx": 1}},
        ]
    }
    pack["agents"] = {"entry": "work", "members": {"work": {"state": "work", "tags": ["w"]}}}
    pack["agents"]["members"]["work"]["extensions"] = _EXTENSIONS
    pack["prompts"]["work"]["provider"] = "drafter"
    pack["prompts"]["work"]["extensions"] = _EXTENSIONS
    pack["tools"]["lookup"]["extensions"] = _EXTENSIONS
    states = pack["workflow"]["states"]
    states["work"]["control"] = "agent"
    states["work"]["extensions"] = _EXTENSIONS
    states["finish"]["control"] = "user"
    composition = pack["compositions"]["pipeline"]
    composition["extensions"] = _EXTENSIONS
    composition["steps"] = [
        {
            "id": "draft",
            "kind": "prompt",
            "prompt_task": "work",
            "provider": "triage",
            "output_schema": "intent.json",
        },
        {
            "id": "loop",
            "kind": "agent",
            "prompt_task": "work",
            "provider": "default",
            "termination": {"max_steps": 2},
        },
        {"id": "judge", "kind": "acme-co.judge.v2"},
    ]


AGREEING_SINCE_1_7 = [
    # -- valid for both
    Case("valid-every-field-since-1-7", _everything, valid=True),
    Case("valid-control-user", _set(*_state("work", "control"), value="user"), valid=True),
    Case("valid-control-agent", _set(*_state("finish", "control"), value="agent"), valid=True),
    Case("valid-state-extensions", _set(*_state("work", "extensions"), value=_EXTENSIONS), True),
    Case("valid-empty-extensions", _set(*_state("work", "extensions"), value={}), valid=True),
    Case("valid-prompt-extensions", _set("prompts", "work", "extensions", value=_EXTENSIONS), True),
    Case("valid-tool-extensions", _set("tools", "lookup", "extensions", value=_EXTENSIONS), True),
    Case("valid-composition-extensions", _on_composition("extensions", _EXTENSIONS), True),
    Case("valid-agent-extensions", _agents(extensions=_EXTENSIONS), valid=True),
    Case("valid-agent-state", _agents(state="work"), valid=True),
    # provider-unknown is the validator's rule: any string is schema-valid
    Case("valid-prompt-provider-any-string", _set("prompts", "work", "provider", value="x"), True),
    Case(
        "valid-prompt-step-provider", _step(kind="prompt", prompt_task="work", provider="x"), True
    ),
    Case(
        "valid-agent-step-provider",
        _step(kind="agent", prompt_task="work", provider="x", termination={"max_steps": 1}),
        valid=True,
    ),
    Case("valid-provider-on-tool-step", _step(kind="tool", tool="lookup", provider="x"), True),
    Case("valid-requires-shorthand", _providers("default", "drafter"), valid=True),
    Case("valid-requires-open-role", _providers({"key": "k", "role": "oracle"}), valid=True),
    Case("valid-requires-empty", _providers(), valid=True),
    Case("valid-vendor-kind-with-dots", _step(kind="acme-co.judge.v2"), valid=True),
    # -- invalid for both
    Case(
        "control-not-in-enum",
        _set(*_state("work", "control"), value="system"),
        valid=False,
        where="/workflow/states/work/control",
    ),
    Case(
        "control-not-a-string",
        _set(*_state("work", "control"), value=1),
        valid=False,
        where="/workflow/states/work/control",
    ),
    Case(
        "state-extensions-not-an-object",
        _set(*_state("work", "extensions"), value=["acme"]),
        valid=False,
        where="/workflow/states/work/extensions",
    ),
    Case(
        "prompt-extensions-not-an-object",
        _set("prompts", "work", "extensions", value="acme"),
        valid=False,
        where="/prompts/work/extensions",
    ),
    Case(
        "composition-extensions-not-an-object",
        _on_composition("extensions", None),
        valid=False,
        where="/compositions/pipeline/extensions",
    ),
    Case(
        "agent-extensions-not-an-object",
        _agents(extensions=1),
        valid=False,
        where="/agents/members/work/extensions",
    ),
    Case(
        "agent-state-not-a-string",
        _agents(state=["work"]),
        valid=False,
        where="/agents/members/work/state",
    ),
    Case(
        "agent-unknown-property",
        _agents(prompt="work"),
        valid=False,
        where="/agents/members/work",
    ),
    Case(
        "prompt-provider-not-a-string",
        _set("prompts", "work", "provider", value={"key": "x"}),
        valid=False,
        where="/prompts/work/provider",
    ),
    Case(
        "prompt-step-provider-not-a-string",
        _step(kind="prompt", prompt_task="work", provider=3),
        valid=False,
        where="/compositions/pipeline/steps/0",
    ),
    Case(
        "requires-providers-not-a-list",
        _set("requires", value={"providers": "default"}),
        valid=False,
        where="/requires/providers",
    ),
    Case(
        "requirement-without-role",
        _providers("default", {"key": "judge"}),
        valid=False,
        where="/requires/providers/1",
    ),
    Case(
        "requirement-key-with-spaces",
        _providers({"key": "my judge", "role": "llm"}),
        valid=False,
        where="/requires/providers/0",
    ),
    Case(
        "requirement-required-not-a-boolean",
        _providers({"key": "judge", "role": "llm", "required": "no"}),
        valid=False,
        where="/requires/providers/0",
    ),
]


def _error_pointers(validator: jsonschema.Draft202012Validator, pack: Pack) -> list[str]:
    return sorted(
        "".join(f"/{step}" for step in error.absolute_path) for error in validator.iter_errors(pack)
    )


def _assert_errors_under(validator: jsonschema.Draft202012Validator, case: Case) -> None:
    pointers = _error_pointers(validator, case.build())
    assert pointers, f"{case.id}: expected errors at {case.where}"
    for where in pointers:
        assert where == case.where or where.startswith(case.where + "/"), (case.id, pointers)


def _verdicts(case: Case, version: str) -> tuple[bool, bool]:
    pack = case.build()
    return OURS.is_valid(pack), PUBLISHED[version].is_valid(pack)


# -- tests ----------------------------------------------------------------------------------------


def test_the_catalogue_is_big_enough_and_ids_are_unique() -> None:
    ids = [c.id for c in AGREEING + AGREEING_SINCE_1_7] + [d.case.id for d in INTENDED_DIFFERENCES]
    assert len(AGREEING) >= 25
    assert len(ids) == len(set(ids))
    assert sum(not c.valid for c in AGREEING) >= 20
    assert sum(not c.valid for c in AGREEING_SINCE_1_7) >= 10


def test_the_docstring_table_counts_the_differences() -> None:
    groups = Counter(
        "composition-on" if d.case.id.startswith("composition-on") else d.case.id.split("-")[0]
        for d in INTENDED_DIFFERENCES
    )
    assert groups == {"composition-on": 2, "composition": 3, "prompt": 9, "root": 4}
    rejected_by_ours = sorted(d.case.id for d in INTENDED_DIFFERENCES if not d.ours)
    assert rejected_by_ours == [
        "composition-on-internal-state",
        "composition-on-state-without-orchestration",
    ]
    only_some = sorted(d.case.id for d in INTENDED_DIFFERENCES if d.versions != VERSIONS)
    assert only_some == ["composition-vendor-step-kind"]


@pytest.mark.parametrize("version", VERSIONS)
def test_the_base_pack_is_valid_for_both_schemas_and_the_reference(version: str) -> None:
    pack = base_pack()
    assert OURS.is_valid(pack)
    assert PUBLISHED[version].is_valid(pack)
    assert reference.validate(pack) == []


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("case", AGREEING, ids=lambda c: c.id)
def test_both_schemas_agree(case: Case, version: str) -> None:
    assert _verdicts(case, version) == (case.valid, case.valid)
    if not case.valid:
        _assert_errors_under(OURS, case)
        _assert_errors_under(PUBLISHED[version], case)


@pytest.mark.parametrize("case", AGREEING_SINCE_1_7, ids=lambda c: c.id)
def test_both_schemas_agree_on_the_fields_since_1_7(case: Case) -> None:
    assert _verdicts(case, "1.9.0") == (case.valid, case.valid)
    if not case.valid:
        _assert_errors_under(OURS, case)
        _assert_errors_under(PUBLISHED["1.9.0"], case)


@pytest.mark.parametrize("case", AGREEING_SINCE_1_7, ids=lambda c: c.id)
def test_the_reference_has_no_schema_error_on_valid_packs_since_1_7(case: Case) -> None:
    """R7: a pack the 1.9.0 schema accepts gets no `schema` error from the validator."""
    errors = [d for d in reference.validate(case.build()) if d.severity == "error"]
    if case.valid:
        assert [d for d in errors if d.code == "schema"] == []
    else:
        assert errors


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("difference", INTENDED_DIFFERENCES, ids=lambda d: d.case.id)
def test_intended_difference_is_exactly_as_listed(difference: Difference, version: str) -> None:
    assert difference.ours != difference.published
    assert difference.reason
    if version not in difference.versions:
        assert _verdicts(difference.case, version) == (difference.ours, difference.ours)
        return
    assert _verdicts(difference.case, version) == (difference.ours, difference.published)
    _assert_errors_under(PUBLISHED[version] if difference.ours else OURS, difference.case)


def _example_files() -> list[Path]:
    return sorted(p for p in EXAMPLES.iterdir() if p.suffix in (".json", ".yaml"))


def _example_verdicts() -> list[tuple[Path, str]]:
    """Each example with each published version that knows its fields."""
    # The RFC 0014 examples carry control (spec 1.7), which 1.5.1 does not know.
    return [
        (path, version)
        for path in _example_files()
        for version in VERSIONS
        if not (path.name.startswith("rfc0014-") and version == "1.5.1")
    ]


def test_there_are_rfc_examples_to_compare() -> None:
    # RFC 0005 (3), RFC 0009 (8 with the corrected copies), RFC 0010 (4), RFC 0011 (2),
    # RFC 0014 (2).
    assert len(_example_files()) == 19


@pytest.mark.parametrize(
    ("path", "version"), _example_verdicts(), ids=lambda v: v if isinstance(v, str) else v.name
)
def test_rfc_example_gets_the_same_verdict_from_both_schemas(path: Path, version: str) -> None:
    pack = reference.load_pack(str(path))
    ours, published = OURS.is_valid(pack), PUBLISHED[version].is_valid(pack)
    assert ours == published
    # Only the verbatim RFC 0009 examples with spaced tool names are invalid.
    spaced = any(" " in tool["name"] for tool in pack.get("tools", {}).values())
    assert ours == (not spaced)
