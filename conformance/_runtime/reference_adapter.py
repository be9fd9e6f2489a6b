"""The reference interpreter as an adapter: the kit's default runtime."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import reference
from conformance._basics.areas import TOP_LEVEL
from conformance._basics.errors import PackRejected, Rejected
from conformance._runtime.adapter import Capabilities, PackInput

__all__ = ["ReferenceAdapter"]


class ReferenceSession:
    """A reference :class:`reference.Session` with a kit-controlled clock."""

    def __init__(
        self,
        session: reference.Session,
        clock: reference.ManualClock,
        pack: PackInput,
        extensions: reference.Extensions,
    ) -> None:
        self._session = session
        self._clock = clock
        self._pack = pack
        self._extensions = extensions

    def send(self, event: str, source: str) -> Mapping[str, Any]:
        try:
            return self._session.send(event, source).to_dict()  # type: ignore[arg-type]
        except reference.Rejection as rejection:
            raise Rejected(
                rejection.code, limit=rejection.limit, message=rejection.message
            ) from None

    def set_artifact(self, name: str, value: str) -> None:
        try:
            self._session.set_artifact(name, value)
        except reference.Rejection as rejection:
            raise Rejected(
                rejection.code, limit=rejection.limit, message=rejection.message
            ) from None

    def record_tool_calls(self, count: int) -> None:
        self._session.record_tool_calls(count)

    def agent_text(self, text: str) -> None:
        """RFC 0014: the agent emits ``text`` in the current round."""
        self._session.agent_text(text)

    def user_turn(self) -> None:
        """RFC 0014: the user speaks; the reply so far is delivered."""
        self._session.user_turn()

    def advance_clock(self, seconds: float) -> None:
        self._clock.advance(seconds)

    def state(self) -> Mapping[str, Any]:
        return self._session.state()

    def snapshot(self) -> Any:
        return self._session.snapshot()

    def run_state(self, input: Any, mocks: Mapping[str, Any]) -> Mapping[str, Any]:
        """Run the current state's composition (C11)."""
        try:
            result = reference.run_state_composition(
                _document(self._pack), self._session, input, mocks, extensions=self._extensions
            )
        except reference.CompositionRunError as error:
            raise Rejected(error.code, message=error.message) from None
        return result.to_dict()


class ReferenceAdapter:
    """Runs cases on :mod:`reference`. Diagnostics and compiled workflows are cached per pack
    text (a case loads, validates and starts the same pack several times)."""

    def __init__(self) -> None:
        self._workflows: dict[str, reference.Workflow] = {}
        self._diagnostics: dict[tuple[str, str], tuple[reference.Diagnostic, ...]] = {}
        # The kit's test vendor namespace (ppconf.upper, ppconf.join): Level 3 of RFC 0010.
        self._extensions = reference.test_extensions()

    def capabilities(self) -> Capabilities:
        return Capabilities(
            name="ppconf-reference",
            version=_version(),
            language="python",
            claims=dict(TOP_LEVEL),
            extensions=(*self._extensions.kinds, *self._extensions.reducers),
        )

    def _diagnose(self, pack: PackInput) -> tuple[reference.Diagnostic, ...]:
        key = (pack.format, pack.text)
        diagnostics = self._diagnostics.get(key)
        if diagnostics is None:
            diagnostics = tuple(reference.validate(_document(pack)))
            self._diagnostics[key] = diagnostics
        return diagnostics

    def load(self, pack: PackInput) -> None:
        errors = [d for d in self._diagnose(pack) if d.severity == "error"]
        if errors:
            raise PackRejected("; ".join(str(d) for d in errors[:3]))

    def validate(self, pack: PackInput) -> Sequence[Mapping[str, Any]]:
        return [d.to_dict() for d in self._diagnose(pack)]

    def _workflow(self, pack: PackInput) -> reference.Workflow:
        workflow = self._workflows.get(pack.text)
        if workflow is None:
            try:
                workflow = reference.compile_workflow(_document(pack))
            except reference.Rejection as rejection:
                raise Rejected(
                    rejection.code, limit=rejection.limit, message=rejection.message
                ) from None
            self._workflows[pack.text] = workflow
        return workflow

    def start(self, pack: PackInput) -> ReferenceSession:
        clock = reference.ManualClock()
        session = reference.start_session(self._workflow(pack), clock=clock)
        return ReferenceSession(session, clock, pack, self._extensions)

    def start_at(
        self, pack: PackInput, *, state: str | None = None, agent: str | None = None
    ) -> ReferenceSession:
        """RFC 0011: start at ``state``, or at the state backing the agents member ``agent``."""
        clock = reference.ManualClock()
        try:
            session = reference.start_session(
                self._workflow(pack), clock=clock, at_state=state, agent=agent
            )
        except reference.Rejection as rejection:
            raise Rejected(
                rejection.code, limit=rejection.limit, message=rejection.message
            ) from None
        return ReferenceSession(session, clock, pack, self._extensions)

    def restore(self, pack: PackInput, snapshot: Any) -> ReferenceSession:
        clock = reference.ManualClock()
        session = reference.restore_session(self._workflow(pack), snapshot, clock=clock)
        return ReferenceSession(session, clock, pack, self._extensions)

    def run_composition(
        self, pack: PackInput, name: str, input: Any, mocks: Mapping[str, Any]
    ) -> Mapping[str, Any]:
        """Run a composition with scripted mocks; refusals carry the reference's codes."""
        try:
            result = reference.run_composition(
                _document(pack), name, input, mocks, extensions=self._extensions
            )
        except reference.CompositionRunError as error:
            raise Rejected(error.code, message=error.message) from None
        return result.to_dict()


def _document(pack: PackInput) -> dict[str, Any]:
    """The pack as a mapping: the kit's parse, or the text parsed here if the kit had none."""
    if pack.document is not None:
        return pack.document
    try:
        data = reference.parse_document(pack.text, format=pack.format, source=pack.source).data
    except reference.PackLoadError as error:
        raise PackRejected(str(error)) from None
    if not isinstance(data, dict):
        raise PackRejected("the pack is not a mapping")
    return data


def _version() -> str:
    try:
        return version("ppconf")
    except PackageNotFoundError:
        return "unknown"
