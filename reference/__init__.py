"""The ppconf reference interpreter for PromptPack workflows (RFC 0005, 0009, 0010, 0011, 0014).

Load -> validate -> run::

    import reference

    pack = reference.load_pack("pack.yaml")
    for diagnostic in reference.validate(pack):
        print(diagnostic)
    session = reference.start_session(pack)
    session.send("PlanReady")
    print(session.state())

This package is pure domain code: it knows nothing of conformance cases or runtimes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reference._compositions.extensions import Extensions, StepFailure, test_extensions
from reference._compositions.rules import Composition, PackContext
from reference._compositions.run import run_composition, run_state_composition
from reference._compositions.steps import CompositionRunError
from reference._compositions.trace import CompositionResult, StepTrace
from reference._diagnostics import Diagnostic, is_valid
from reference._errors import (
    InterpreterError,
    LocatedError,
    Location,
    PackInvalidError,
    PackLoadError,
    Rejection,
    SnapshotError,
)
from reference._json import describe_json_type, json_pointer
from reference._loading import DEFAULT_LIMITS, Document, Limits, parse_document, read_document
from reference._validation import validate
from reference._workflow.model import Budget, StateSpec, Transition, Workflow, compile_workflow
from reference._workflow.rules import WorkflowView, agent_members
from reference._workflow.session import (
    Clock,
    ManualClock,
    Session,
    Source,
    Status,
    Turn,
    restore_session,
    start_session,
)

__all__ = [
    "DEFAULT_LIMITS",
    "Budget",
    "Clock",
    "Composition",
    "CompositionResult",
    "CompositionRunError",
    "Diagnostic",
    "Document",
    "Extensions",
    "InterpreterError",
    "Limits",
    "LocatedError",
    "Location",
    "ManualClock",
    "PackInvalidError",
    "PackLoadError",
    "Rejection",
    "Session",
    "SnapshotError",
    "Source",
    "StateSpec",
    "Status",
    "StepFailure",
    "StepTrace",
    "Transition",
    "Turn",
    "Workflow",
    "WorkflowView",
    "agent_members",
    "compile_workflow",
    "is_valid",
    "json_pointer",
    "load_pack",
    "load_pack_string",
    "parse_document",
    "read_composition",
    "read_document",
    "read_pack",
    "read_workflow",
    "restore_session",
    "run_composition",
    "run_state_composition",
    "start_session",
    "test_extensions",
    "validate",
]


def load_pack(path: str, *, limits: Limits = DEFAULT_LIMITS) -> dict[str, Any]:
    """Read a pack file (JSON for ``.json``, else YAML) and return it as a ``dict``.

    Raises:
        PackLoadError: the file cannot be read, parsed, or is not a mapping at its root.
    """
    return read_pack(path, limits=limits).data  # type: ignore[no-any-return]


def read_pack(path: str, *, limits: Limits = DEFAULT_LIMITS) -> Document:
    """Read a pack file into a :class:`Document`, which can also say where a pointer is.

    Raises:
        PackLoadError: the file cannot be read, parsed, or is not a mapping at its root.
    """
    document = read_document(path, limits=limits)
    _pack_root(document)
    return document


def load_pack_string(
    text: str | bytes, *, format: Any = None, limits: Limits = DEFAULT_LIMITS
) -> dict[str, Any]:
    """Parse a pack from JSON or YAML text (``format`` ``"json"``/``"yaml"``, or guessed).

    Raises:
        PackLoadError: the text cannot be parsed, or is not a mapping at its root.
    """
    return _pack_root(parse_document(text, format=format, limits=limits))


def _pack_root(document: Document) -> dict[str, Any]:
    if not isinstance(document.data, dict):
        raise PackLoadError(
            "a pack is a mapping of fields, but the document holds "
            + describe_json_type(document.data),
            Location(document.source, pointer=""),
            "start the pack with 'id:', 'name:', 'version:' ...",
        )
    return document.data


def read_workflow(pack: Mapping[str, Any]) -> WorkflowView | None:
    """A pack's workflow as the validation rules read it, whether the pack is valid or not: its
    well-formed states in document order, each with its ``on_event`` entries, its loop-guard
    redirect and whether it is terminal (X2), and the graph they make. ``None`` when the pack
    has no ``workflow`` object. For tools that show a workflow (drawings), so that they read it
    as the rules do."""
    workflow = pack.get("workflow")
    if not isinstance(workflow, dict):
        return None
    return WorkflowView.read(pack if isinstance(pack, dict) else dict(pack), workflow)


def read_composition(pack: Mapping[str, Any], name: str) -> Composition:
    """Composition ``name`` of a pack as the validation rules read it, whether the pack is valid
    or not: every step object at any depth in document order (a parallel, then its branches),
    with its id, kind and members. A name the pack lacks reads as a composition without steps."""
    compositions = pack.get("compositions")
    data = compositions.get(name) if isinstance(compositions, dict) else None
    return Composition.read(PackContext.of(pack), name, data)
