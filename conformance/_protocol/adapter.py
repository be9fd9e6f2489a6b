"""A runtime in any language, as a subprocess speaking the adapter protocol: ``cmd:...``.

:class:`SubprocessAdapter` is the kit's adapter interface on top of the protocol client: each
operation is one request, and each answer's results are checked for the shape the kit reads.
Expected results are never sent.

When the adapter declares ``run_script`` in its ``hello``, a scenario known up front goes in
one request (:meth:`SubprocessAdapter.scripted`): its answers are then handed out one call at a
time, through the same checks, as the requests alone would have been answered.
"""

from __future__ import annotations

import contextlib
import shlex
from collections.abc import Mapping, Sequence
from typing import IO, Any

from conformance._basics.errors import (
    AdapterError,
    AdapterFault,
    AdapterGaveUp,
    KitError,
    PackRejected,
    Rejected,
    ScriptIncomplete,
    Unsupported,
)
from conformance._protocol.client import (
    DEFAULT_REQUEST_TIMEOUT,
    MAX_FAILED_STARTS,
    Pending,
    ProtocolClient,
)
from conformance._protocol.messages import RUN_SCRIPT, pack_message
from conformance._runtime.adapter import Call, Capabilities, PackInput
from conformance._runtime.operations import BY_METHOD, BY_NAME, SCRIPT_OPS, Operation

__all__ = ["SubprocessAdapter", "SubprocessSession"]


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
        scripts: send a scenario known up front in one ``run_script`` request when the
            adapter declares it (``False``: always one request per step).

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
        scripts: bool = True,
    ) -> None:
        self.scripts = scripts
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
        self._call("load", pack)

    def validate(self, pack: PackInput) -> Sequence[Mapping[str, Any]]:
        return self._call("validate", pack)  # type: ignore[no-any-return]

    def start(self, pack: PackInput) -> SubprocessSession:
        return self._open(self._call("start", pack))

    def start_at(
        self, pack: PackInput, *, state: str | None = None, agent: str | None = None
    ) -> SubprocessSession:
        """RFC 0011: ``start`` with ``at_state`` or ``agent``."""
        given = {"at_state": state, "agent": agent}
        arguments = {key: value for key, value in given.items() if value is not None}
        return self._open(self._call("start", pack, arguments))

    def restore(self, pack: PackInput, snapshot: Any) -> SubprocessSession:
        return self._open(self._call("restore", pack, {"snapshot": snapshot}))

    def run_composition(
        self, pack: PackInput, name: str, input: Any, mocks: Mapping[str, Any]
    ) -> Mapping[str, Any]:
        arguments = {"name": name, "input": input, "mocks": mocks}
        return self._call("run_composition", pack, arguments)  # type: ignore[no-any-return]

    def scripted(self, pack: PackInput, calls: Sequence[Call]) -> SubprocessAdapter | None:
        """The calls in one ``run_script`` request, sent now, their answers read on the first
        call and handed out one by one (:class:`~conformance._runtime.adapter.ScriptingAdapter`);
        ``None`` when the adapter does not declare ``run_script`` (or ``scripts`` is off).

        Raises:
            AdapterFault, AdapterError, KitError: the request could not be sent.
        """
        if not self.scripts or RUN_SCRIPT not in self.client.operations():
            return None
        requests = [{"op": BY_METHOD[name].name, **arguments} for name, arguments in calls]
        unknown = [r["op"] for r in requests if r["op"] not in SCRIPT_OPS]
        if unknown:
            raise KitError(f"a script cannot hold {unknown[0]!r}")
        message = {"pack": pack_message(pack), "requests": requests}
        return _Scripted(_Replay(self.client, self.client.send(RUN_SCRIPT, message), requests))

    def _call(self, op: str, pack: PackInput, arguments: Mapping[str, Any] | None = None) -> Any:
        """Ask the adapter's operation ``op`` on ``pack``: the result its answer carries."""
        arguments = {"pack": pack_message(pack), **(arguments or {})}
        return _result_of(self.client, BY_NAME[op], self._request(op, arguments))

    def _request(self, op: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
        return self.client.request(op, arguments)

    def _open(self, session: str) -> SubprocessSession:
        return SubprocessSession(self.client, session)


class SubprocessSession:
    """A session inside the adapter process, addressed by the id it gave.

    It lives and dies with that process: once the process is gone, every request is a fault.
    """

    def __init__(self, client: ProtocolClient, session: str) -> None:
        self._client = client
        self._session = session
        self._generation = client.generation

    def _call(self, op: str, **arguments: Any) -> Any:
        """Ask the session's operation ``op``: the result its answer carries."""
        return _result_of(self._client, BY_NAME[op], self._request(op, arguments))

    def _request(self, op: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
        return self._client.request(
            op, {"session": self._session, **arguments}, generation=self._generation
        )

    def send(self, event: str, source: str) -> Mapping[str, Any]:
        return self._call("send", event=event, source=source)  # type: ignore[no-any-return]

    def set_artifact(self, name: str, value: str) -> None:
        self._call("set_artifact", name=name, value=value)

    def record_tool_calls(self, count: int) -> None:
        self._call("tool_calls", count=count)

    def advance_clock(self, seconds: float) -> None:
        self._call("advance_clock", seconds=seconds)

    def state(self) -> Mapping[str, Any]:
        return self._call("state")  # type: ignore[no-any-return]

    def snapshot(self) -> Any:
        return self._call("snapshot")

    def run_state(self, input: Any, mocks: Mapping[str, Any]) -> Mapping[str, Any]:
        return self._call("run_state", input=input, mocks=mocks)  # type: ignore[no-any-return]

    def agent_text(self, text: str) -> None:
        """RFC 0014: the agent emits ``text`` in the current round."""
        self._call("agent_text", text=text)

    def user_turn(self) -> None:
        """RFC 0014: the user speaks."""
        self._call("user_turn")

    def close(self) -> None:
        """Let the adapter forget the session (ignored if it does not support close)."""
        with contextlib.suppress(Unsupported):
            self._call("close")


class _Replay:
    """The answers of one ``run_script``, handed out in the order of its requests.

    Each call must be the next request of the script, except that a ``state`` the kit did not
    read is passed over; its answer goes through :meth:`ProtocolClient.answer`, as a request's
    own answer does (refusals raised, faults killing the process). When the ``run_script``
    failed as a whole, or holds no answer for the call (the adapter stopped early: after a
    skipped or faulty ``state`` the kit did not read, say), the call raises
    :class:`ScriptIncomplete`, and the kit makes its calls one at a time instead.
    """

    def __init__(self, client: ProtocolClient, pending: Pending, requests: list[Any]) -> None:
        self.client = client
        self.pending = pending
        self.requests = requests
        self.answers: list[dict[str, Any]] | None = None
        self.failed: ScriptIncomplete | None = None
        self.next = 0

    def _answers(self) -> list[dict[str, Any]]:
        if self.failed is not None:
            raise self.failed
        if self.answers is None:
            try:
                answers = self.pending.answer().get("answers")
                if not isinstance(answers, list) or not all(isinstance(a, dict) for a in answers):
                    self.client.fault("run_script answered without a list of answers")
                if len(answers) > len(self.requests):
                    self.client.fault(
                        f"run_script answered {len(answers)} requests, but the script holds "
                        f"{len(self.requests)}"
                    )
            except AdapterGaveUp:
                raise
            except (AdapterFault, Rejected, PackRejected, Unsupported) as error:
                self.failed = self._incomplete(f"run_script failed as a whole: {error}")
                raise self.failed from None
            self.answers = answers
        return self.answers

    def take(self, op: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """The answer to the next call, ``op`` with ``arguments`` (its pack left out)."""
        if op == "close":  # the adapter closed the session at the end of the script
            return {}
        answers = self._answers()
        asked = {"op": op, **{key: value for key, value in arguments.items() if key != "pack"}}
        requests = self.requests
        while op != "state" and self.next < len(requests) and requests[self.next]["op"] == "state":
            self.next += 1  # a state the kit did not read
        index = self.next
        if index >= len(requests) or requests[index] != asked:
            raise self._incomplete(f"the calls left the script at request {index + 1} ({op!r})")
        if index >= len(answers):
            raise self._incomplete(f"run_script did not answer request {index + 1} ({op!r})")
        self.next += 1
        return self.client.answer(op, answers[index])

    def _incomplete(self, reason: str) -> ScriptIncomplete:
        """Why the calls go one at a time after all, told to the transcript too (nothing else
        shows it: the judgement is the same)."""
        self.client.note(f"{reason}; the calls go one request at a time")
        return ScriptIncomplete(reason)


class _Scripted(SubprocessAdapter):
    """The adapter as one ``run_script`` answered it: every request gets its recorded answer."""

    def __init__(self, replay: _Replay) -> None:  # no process of its own: the client's
        self.client = replay.client
        self.scripts = False
        self.replay = replay

    def _call(self, op: str, pack: PackInput, arguments: Mapping[str, Any] | None = None) -> Any:
        # The pack went with the script, so no message is made of it (a copy of the pack's
        # document, for every call the fuzzer makes).
        return _result_of(self.client, BY_NAME[op], self.replay.take(op, arguments or {}))

    def _request(self, op: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
        return self.replay.take(op, arguments)

    def _open(self, session: str) -> SubprocessSession:
        return _ScriptedSession(self.replay, session)


class _ScriptedSession(SubprocessSession):
    """A session of a ``run_script``, answered from its recorded answers."""

    def __init__(self, replay: _Replay, session: str) -> None:
        super().__init__(replay.client, session)
        self.replay = replay

    def _request(self, op: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
        return self.replay.take(op, arguments)


def _result_of(client: ProtocolClient, operation: Operation, reply: Mapping[str, Any]) -> Any:
    """The result an ok answer to ``operation`` carries; a fault if it is missing or malformed."""
    try:
        return operation.result(reply)
    except ValueError as error:
        client.fault(str(error))
