"""The small pack the fuzzer's tests build their examples on: one prompt ``main`` and the
states given (the first is the entry), with a budget if asked."""

from __future__ import annotations

from typing import Any

__all__ = ["pack", "state"]


def pack(states: dict[str, Any], budget: dict[str, int] | None = None) -> dict[str, Any]:
    """A valid pack of ``states`` (each as :func:`state` builds it), ``budget`` its
    ``engine.budget``."""
    workflow: dict[str, Any] = {"version": 2, "entry": next(iter(states)), "states": states}
    if budget:
        workflow["engine"] = {"budget": budget}
    return {
        "id": "t",
        "name": "T",
        "version": "1.0.0",
        "template_engine": {"version": "v1", "syntax": "{{variable}}"},
        "prompts": {
            "main": {"id": "main", "name": "M", "version": "1.0.0", "system_template": "W"}
        },
        "workflow": workflow,
    }


def state(**fields: Any) -> dict[str, Any]:
    """A state running the prompt ``main``, with ``fields``."""
    return {"prompt_task": "main", **fields}
