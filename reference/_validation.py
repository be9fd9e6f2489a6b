"""Validating packs: the schema, then the pack-wide rules (agents' states and prompt keys,
prompts' providers), the workflow rules and the composition rulebook.

Every rule reports under a stable code with a JSON pointer. The checks after the schema are
written to survive malformed input (they skip what the schema already reported), so one run
reports everything it can, once, in a deterministic order.
"""

from __future__ import annotations

from typing import Any

from reference import _providers, _schema
from reference._compositions import rules as composition_rules
from reference._diagnostics import Diagnostic, sort_key
from reference._json import describe_json_type
from reference._suggest import with_suggestions
from reference._workflow import rules as workflow_rules


def validate(pack: Any) -> list[Diagnostic]:
    """Validate a loaded pack and return its diagnostics, errors first, in a stable order.

    Arguments:
        pack: the document as loaded from JSON or YAML (normally a ``dict``).
    """
    if not isinstance(pack, dict):
        kind = describe_json_type(pack)
        return [Diagnostic("schema", "error", "", f"a pack must be an object, not {kind}")]
    found = _schema.pack_diagnostics(pack)
    found.extend(workflow_rules.agent_states(pack))
    found.extend(workflow_rules.agent_prompts(pack))
    found.extend(_providers.prompt_diagnostics(pack))
    workflow = pack.get("workflow")
    if isinstance(workflow, dict):
        found.extend(workflow_rules.diagnostics(pack, workflow))
    found.extend(composition_rules.diagnostics(pack))
    return sorted(with_suggestions(pack, found), key=sort_key)
