"""A runtime in any language, as a subprocess speaking the adapter protocol: ``cmd:...``.

:class:`SubprocessAdapter` is the kit's adapter interface on top of the protocol client: each
operation is one request, and each answer's results are checked for the shape the kit reads.
Expected results are never sent.
"""

from __future__ import annotations

import contextlib
import shlex
from collections.abc import Mapping, Sequence
from typing import IO, Any

from conformance._adapter import Capabilities, PackInput
from conformance._errors import AdapterError, Unsupported
from conformance._protocol.client import (
    DEFAULT_REQUEST_TIMEOUT,
    MAX_FAILED_STARTS,
    ProtocolClient,
)
from conformance._protocol.messages import pack_message


class SubprocessAdapter:
    """An :class:`~conformance.Adapter` that drives a command over the protocol.

    Arguments:
        command: the adapter program and its arguments.
        timeout: seconds each request may take, ``hello`` included (positive and finite).
        startup_timeout: seconds a fresh process may take to answer ``hello``; by default
            ``timeout``.
        max_failed_starts: starts in a row that may fail (the process dies or does not answer
            ``hello``) before every request raises ``AdapterGaveUp``.
        validate_protocol: check every request and response against the protocol schema.
        transcript: a text stream that gets every request (``> ``) and response (``< ``) line.

    Raises:
        AdapterError: the command is empty, or a time limit is not usable.
    """

    handles_timeouts = True
    """The client times requests out itself (and kills the process), so the runner need not."""

    def __init__(
        self,
        command: Sequence[str],
        *,
        timeout: float = DEFAULT_REQUEST_TIMEOUT,
        startup_timeout: float | None = None,
        max_failed_starts: int = MAX_FAILED_STARTS,
        validate_protocol: bool = False,
        transcript: IO[str] | None = None,
    ) -> None:
        self.client = ProtocolClient(
            command,
            timeout=timeout,
            startup_timeout=startup_timeout,
            max_failed_starts=max_failed_starts,
            validate_protocol=validate_protocol,
            transcript=transcript,
        )

    @classmethod
    def from_spec(cls, spec: str, **options: Any) -> SubprocessAdapter:
        """Build from ``cmd:COMMAND LINE`` (split like a POSIX shell does).

        Raises:
            AdapterError: the command line cannot be split (an unclosed quote) or is empty.
        """
        try:
            command = shlex.split(spec.removeprefix("cmd:"))
        except ValueError as error:
            raise AdapterError(f"cannot read the adapter command {spec!r}: {error}") from None
        return cls(command, **options)

    def close(self) -> None:
        """Ask the adapter to shut down, and stop its process group."""
        self.client.close()

    def terminate(self) -> None:
        """Kill the adapter's process group now and start no other (safe in a signal handler)."""
        self.client.terminate()

    # -- the adapter interface ------------------------------------------------------------------

    def capabilities(self) -> Capabilities:
        return self.client.capabilities()

    def load(self, pack: PackInput) -> None:
        self.client.request("load", {"pack": pack_message(pack)})

    def validate(self, pack: PackInput) -> Sequence[Mapping[str, Any]]:
        reply = self.client.request("validate", {"pack": pack_message(pack)})
        diagnostics = reply.get("diagnostics")
        if not isinstance(diagnostics, list) or not all(isinstance(d, dict) for d in diagnostics):
            self.client.fault("validate answered without a diagnostics list")
        return diagnostics

    def start(self, pack: PackInput) -> SubprocessSession:
        return self._session(self.client.request("start", {"pack": pack_message(pack)}))

    def start_at(
        self, pack: PackInput, *, state: str | None = None, agent: str | None = None
    ) -> SubprocessSession:
        """RFC 0011: ``start`` with ``at_state`` or ``agent``."""
        arguments: dict[str, Any] = {"pack": pack_message(pack)}
        if state is not None:
            arguments["at_state"] = state
        if agent is not None:
            arguments["agent"] = agent
        return self._session(self.client.request("start", arguments))

    def restore(self, pack: PackInput, snapshot: Any) -> SubprocessSession:
        reply = self.client.request("restore", {"pack": pack_message(pack), "snapshot": snapshot})
        return self._session(reply)

    def run_composition(
        self, pack: PackInput, name: str, input: Any, mocks: Mapping[str, Any]
    ) -> Mapping[str, Any]:
        arguments = {"pack": pack_message(pack), "name": name, "input": input, "mocks": mocks}
        return _result(self.client, self.client.request("run_composition", arguments))

    def _session(self, reply: Mapping[str, Any]) -> SubprocessSession:
        session = reply.get("session")
        if not isinstance(session, str):
            self.client.fault("start answered without a session id")
        return SubprocessSession(self.client, session)


class SubprocessSession:
    """A session inside the adapter process, addressed by the id it gave.

    It lives and dies with that process: once the process is gone, every request is a fault.
    """

    def __init__(self, client: ProtocolClient, session: str) -> None:
        self._client = client
        self._session = session
        self._generation = client.generation

    def _request(self, op: str, **arguments: Any) -> dict[str, Any]:
        return self._client.request(
            op, {"session": self._session, **arguments}, generation=self._generation
        )

    def send(self, event: str, source: str) -> Mapping[str, Any]:
        transition = self._request("send", event=event, source=source).get("transition")
        if not isinstance(transition, dict):
            self._client.fault("send answered without a transition")
        return transition

    def set_artifact(self, name: str, value: str) -> None:
        self._request("set_artifact", name=name, value=value)

    def record_tool_calls(self, count: int) -> None:
        self._request("tool_calls", count=count)

    def advance_clock(self, seconds: float) -> None:
        self._request("advance_clock", seconds=seconds)

    def state(self) -> Mapping[str, Any]:
        state = self._request("state").get("state")
        if not isinstance(state, dict):
            self._client.fault("state answered without a state object")
        return state

    def snapshot(self) -> Any:
        return self._request("snapshot").get("snapshot")

    def run_state(self, input: Any, mocks: Mapping[str, Any]) -> Mapping[str, Any]:
        return _result(self._client, self._request("run_state", input=input, mocks=mocks))

    def agent_text(self, text: str) -> None:
        """RFC 0014: the agent emits ``text`` in the current round."""
        self._request("agent_text", text=text)

    def user_turn(self) -> None:
        """RFC 0014: the user speaks."""
        self._request("user_turn")

    def close(self) -> None:
        """Let the adapter forget the session (ignored if it does not support close)."""
        with contextlib.suppress(Unsupported):
            self._request("close")


def _result(client: ProtocolClient, reply: Mapping[str, Any]) -> Mapping[str, Any]:
    result = reply.get("result")
    if not isinstance(result, dict):
        client.fault("a composition run answered without a result object")
    return result
