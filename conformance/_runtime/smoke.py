"""``ppconf smoke``: a few trivial checks that tell broken wiring from non-conformance.

A check *passes*, *disagrees* (the adapter answered, well-formed, but not as the spec says: a
conformance question, for ``ppconf run``) or *breaks* (the adapter raised, crashed, hung or
answered out of protocol: the wiring is wrong). When every check breaks, the adapter is not
hooked up at all, and the message says so plainly.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from conformance._basics.errors import AdapterError, PackRejected, Rejected, Unsupported
from conformance._basics.stopping import STOP
from conformance._runtime.adapter import Adapter, PackInput
from conformance._runtime.boundary import Guard, PartTimeout

__all__ = ["CHECKS", "SmokeResult", "Verdict", "smoke"]

Verdict = Literal["passes", "disagrees", "breaks"]

_PROMPTS = {"main": {"id": "main", "name": "Main", "version": "1.0.0", "system_template": "Work."}}
_BASE = {
    "id": "smoke",
    "name": "Smoke",
    "version": "1.0.0",
    "template_engine": {"version": "v1", "syntax": "{{variable}}"},
    "prompts": _PROMPTS,
}
_TWO_STATES = {
    **_BASE,
    "workflow": {
        "version": 1,
        "entry": "a",
        "states": {
            "a": {"prompt_task": "main", "on_event": {"Go": "b"}},
            "b": {"prompt_task": "main", "terminal": True},
        },
    },
}


def _pack(document: dict[str, Any]) -> PackInput:
    return PackInput(json.dumps(document), "json", document, "<smoke>")


@dataclass(frozen=True)
class SmokeResult:
    """One check's verdict and what was seen."""

    name: str
    verdict: Verdict
    detail: str = ""


def _capabilities(adapter: Guard) -> str | None:
    name = adapter.capabilities().name
    return None if isinstance(name, str) and name else "capabilities() has no runtime name"


def _load(adapter: Guard) -> str | None:
    try:
        adapter.load(_pack(_BASE))
    except PackRejected as rejection:
        return f"refused a minimal valid pack: {rejection.reason}"
    return None


def _validate(adapter: Guard) -> str | None:
    errors = [
        (code, path)
        for severity, code, path in adapter.validate(_pack(_BASE))
        if severity == "error"
    ]
    return f"a minimal valid pack has errors: {errors[:2]}" if errors else None


def _start(adapter: Guard) -> str | None:
    session = adapter.start(_pack(_TWO_STATES))
    try:
        current = session.state().get("current_state")
    finally:
        session.close()
    return None if current == "a" else f"the session starts in {current!r}, not the entry 'a'"


def _event(adapter: Guard) -> str | None:
    session = adapter.start(_pack(_TWO_STATES))
    try:
        transition = session.send("Go", "host")
    except Rejected as rejection:
        return f"the declared event Go was rejected with {rejection.code}"
    target = transition.get("to")
    return None if target == "b" else f"Go moved to {target!r}, not 'b'"


CHECKS: tuple[tuple[str, Callable[[Guard], str | None]], ...] = (
    ("describes itself (capabilities / hello)", _capabilities),
    ("loads a minimal pack", _load),
    ("validates a minimal pack", _validate),
    ("starts a session at the entry", _start),
    ("makes one transition", _event),
)


def smoke(adapter: Adapter, timeout: float | None = None) -> list[SmokeResult]:
    """Run every check, each within ``timeout`` seconds; never raises for what the adapter
    does."""
    guard = Guard(adapter, timeout)
    results = []
    for name, check in CHECKS:
        STOP.raise_if_requested()  # a stop signal: after the check that was running
        try:
            problem = guard.within(lambda check=check: check(guard))  # type: ignore[misc]
        except Unsupported as unsupported:
            results.append(SmokeResult(name, "disagrees", f"unsupported: {unsupported.reason}"))
            continue
        except PartTimeout:
            results.append(SmokeResult(name, "breaks", f"no answer within {timeout:g} s"))
            continue
        except KeyboardInterrupt:
            raise
        except (Exception, AdapterError) as error:
            results.append(SmokeResult(name, "breaks", f"{type(error).__name__}: {error}"))
            continue
        results.append(
            SmokeResult(name, "passes" if problem is None else "disagrees", problem or "")
        )
    return results
