"""The reference interpreter as an adapter: the kit's default runtime."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import reference
from conformance._adapter import Capabilities
from conformance._cases import PackInput
from conformance._errors import PackRejected, Rejected

__all__ = ["ReferenceAdapter"]


class ReferenceSession:
    """A reference :class:`reference.Session` with a kit-controlled clock."""

    def __init__(self, session: reference.Session, clock: reference.ManualClock) -> None:
        self._session = session
        self._clock = clock

    def send(self, event: str, source: str) -> Mapping[str, Any]:
        try:
            return self._session.send(event, source).to_dict()  # type: ignore[arg-type]
        except reference.Rejection as rejection:
            raise Rejected(rejection.code, rejection.limit, rejection.message) from None

    def set_artifact(self, name: str, value: str) -> None:
        try:
            self._session.set_artifact(name, value)
        except reference.Rejection as rejection:
            raise Rejected(rejection.code, rejection.limit, rejection.message) from None

    def record_tool_calls(self, count: int) -> None:
        self._session.record_tool_calls(count)

    def advance_clock(self, seconds: float) -> None:
        self._clock.advance(seconds)

    def state(self) -> Mapping[str, Any]:
        return self._session.state()

    def snapshot(self) -> Any:
        return self._session.snapshot()


class ReferenceAdapter:
    """Runs cases on :mod:`reference`. Compiled workflows are cached per pack text."""

    def __init__(self) -> None:
        self._workflows: dict[str, reference.Workflow] = {}

    def capabilities(self) -> Capabilities:
        return Capabilities(
            name="ppconf-reference",
            version=_version(),
            language="python",
            claims={"workflow": 2, "loops": 2},
        )

    def _document(self, pack: PackInput) -> dict[str, Any]:
        if pack.document is not None:
            return pack.document
        try:
            data = reference.parse_document(pack.text, format=pack.format, source=pack.source).data
        except reference.PackLoadError as error:
            raise PackRejected(str(error)) from None
        if not isinstance(data, dict):
            raise PackRejected("the pack is not a mapping")
        return data

    def load(self, pack: PackInput) -> None:
        document = self._document(pack)
        errors = [d for d in reference.validate(document) if d.severity == "error"]
        if errors:
            raise PackRejected("; ".join(str(d) for d in errors[:3]))

    def validate(self, pack: PackInput) -> Sequence[Mapping[str, Any]]:
        return [d.to_dict() for d in reference.validate(self._document(pack))]

    def _workflow(self, pack: PackInput) -> reference.Workflow:
        workflow = self._workflows.get(pack.text)
        if workflow is None:
            try:
                workflow = reference.compile_workflow(self._document(pack))
            except reference.Rejection as rejection:
                raise Rejected(rejection.code, rejection.limit, rejection.message) from None
            self._workflows[pack.text] = workflow
        return workflow

    def start(self, pack: PackInput) -> ReferenceSession:
        clock = reference.ManualClock()
        return ReferenceSession(reference.start_session(self._workflow(pack), clock=clock), clock)

    def restore(self, pack: PackInput, snapshot: Any) -> ReferenceSession:
        clock = reference.ManualClock()
        session = reference.restore_session(self._workflow(pack), snapshot, clock=clock)
        return ReferenceSession(session, clock)


def _version() -> str:
    try:
        return version("ppconf")
    except PackageNotFoundError:
        return "unknown"
