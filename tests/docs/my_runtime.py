"""``my_runtime``: the runtime the adapter of docs/cases.md section 7 adapts, for its test.

The section's adapter is written against a runtime with an API of its own (``load``, ``lint``,
``start``, ``resume``, a ``Run`` with ``fire``, ``put``, ``count_tools``, ``observe``,
``save``, its own exceptions), as a runtime author's is. This is that API, on the reference
interpreter, so that the snippet runs as written: pasted into ``mypackage/ppconf.py`` beside
this module, ``ppconf smoke`` and ``ppconf run`` take it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import reference


class LoadError(Exception):
    """The pack cannot be read."""


class UnsupportedVersion(Exception):
    """The workflow's version is one this runtime does not run."""


class Refused(Exception):
    """The run refused an event or an artifact."""

    def __init__(self, code: str, message: str, limit: str | None) -> None:
        super().__init__(message)
        self.code = code
        self.limit = limit


@dataclass(frozen=True)
class Problem:
    kind: str
    fatal: bool
    pointer: str | None


def _parse(text: str, format: str | None = None) -> dict[str, Any]:
    try:
        data = reference.parse_document(text, format=format).data  # type: ignore[arg-type]
    except reference.PackLoadError as error:
        raise LoadError(str(error)) from None
    if not isinstance(data, dict):
        raise LoadError("a pack is a mapping")
    return data


def load(text: str, format: str) -> dict[str, Any]:
    return _parse(text, format)


def lint(text: str, format: str) -> list[Problem]:
    kinds = {"entry-unknown": "no-entry", "event-target-unknown": "bad-target"}
    return [
        Problem(kinds.get(d.code, d.code), d.severity == "error", d.path)
        for d in reference.validate(_parse(text, format))
    ]


class Run:
    """A workflow run."""

    def __init__(self, session: reference.Session) -> None:
        self._session = session

    def fire(self, event: str, by: str) -> reference.Transition:
        try:
            return self._session.send(event, by)  # type: ignore[arg-type]
        except reference.Rejection as rejection:
            raise Refused(rejection.code, rejection.message, rejection.limit) from None

    def put(self, name: str, value: str) -> None:
        try:
            self._session.set_artifact(name, value)
        except reference.Rejection as rejection:
            raise Refused(rejection.code, rejection.message, rejection.limit) from None

    def count_tools(self, count: int) -> None:
        self._session.record_tool_calls(count)

    def observe(self) -> dict[str, Any]:
        return dict(self._session.state())

    def save(self) -> Any:
        return self._session.snapshot()


def start(text: str, clock: reference.ManualClock) -> Run:
    try:
        return Run(reference.start_session(_parse(text), clock=clock))
    except reference.Rejection as rejection:
        if rejection.code == "workflow-version-unsupported":
            raise UnsupportedVersion(rejection.message) from None
        raise


def resume(text: str, snapshot: Any, clock: reference.ManualClock) -> Run:
    return Run(reference.restore_session(_parse(text), snapshot, clock=clock))
