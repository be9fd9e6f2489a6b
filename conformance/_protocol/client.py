"""The protocol client: requests to an adapter command, answers as the kit's signals.

The client starts the command on the first request and says ``hello``; then it sends one
request at a time and classifies each answer: ok (returned), a refusal (``Rejected``,
``PackRejected``), ``skipped`` (``Unsupported``), or an *adapter fault*: a dead or hung
process, a line that is not JSON, a wrong id, a stray line, an error code that says the adapter
broke. A fault kills the process (and its group), and raises ``AdapterFault`` with the reason and
the tail of stderr; the next request starts a fresh process. A start that fails (the process
dies or does not answer ``hello`` in time) counts; after ``max_failed_starts`` in a row the client
gives up for good (``AdapterGaveUp``).
"""

from __future__ import annotations

import contextlib
import math
import shlex
import threading
import time
from collections.abc import Mapping, Sequence
from typing import IO, Any, NoReturn

from conformance._basics.errors import (
    AdapterError,
    AdapterFault,
    AdapterGaveUp,
    KitError,
    PackRejected,
    Rejected,
    Unsupported,
)
from conformance._protocol.connection import (
    Connection,
    LineTooLong,
    NoAnswer,
    NotReading,
    ProcessEnded,
    describe_exit,
)
from conformance._protocol.messages import (
    FAULT_CODES,
    PACK_REJECTED,
    PROTOCOL_VERSION,
    ProtocolError,
    capabilities_of,
    check_message,
    decode,
    encode,
    excerpt,
    operations_of,
)
from conformance._runtime.adapter import Capabilities
from conformance._runtime.operations import BY_NAME

__all__ = [
    "DEFAULT_REQUEST_TIMEOUT",
    "MAX_FAILED_STARTS",
    "Pending",
    "ProtocolClient",
    "checked_timeout",
]

DEFAULT_REQUEST_TIMEOUT = 10.0
MAX_FAILED_STARTS = 3
"""Starts in a row that may fail (no process, or no hello) before the client gives up."""


def checked_timeout(seconds: float, what: str) -> float:
    """``seconds`` if it is a usable time limit.

    Raises:
        AdapterError: it is not a positive, finite number of seconds the platform can wait.
    """
    if not (
        isinstance(seconds, int | float)
        and math.isfinite(seconds)
        and 0 < seconds <= threading.TIMEOUT_MAX
    ):
        raise AdapterError(
            f"{what} must be a positive, finite number of seconds "
            f"(at most {threading.TIMEOUT_MAX:g}), not {seconds!r}"
        )
    return float(seconds)


class ProtocolClient:
    """Talks the protocol with an adapter command, one request and one process at a time.

    Arguments:
        command: the adapter program and its arguments.
        timeout: seconds each request may take, ``hello`` included, before the process is
            deemed hung (positive and finite).
        startup_timeout: seconds a fresh process may take to answer ``hello`` (a JVM, a cold
            cache); by default ``timeout``.
        max_failed_starts: starts in a row that may fail before the client gives up.
        validate_protocol: check every request and response against the protocol schema.
        transcript: a text stream that gets every request (``> ``) and response (``< ``) line.

    Raises:
        AdapterError: the command is empty, or a time limit is not usable.
    """

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
        if not command:
            raise AdapterError("the adapter command is empty")
        if max_failed_starts < 1:
            raise AdapterError(f"max_failed_starts must be at least 1, not {max_failed_starts}")
        self.command = list(command)
        self.timeout = timeout
        self.startup_timeout = startup_timeout
        self.max_failed_starts = max_failed_starts
        self.validate_protocol = validate_protocol
        self.transcript = transcript
        self.generation = 0
        """Which process is running: it grows on every start and every fault."""
        self._connection: Connection | None = None
        self._capabilities: Capabilities | None = None
        self._operations: frozenset[str] = frozenset()
        self._next_id = 0
        self._last: tuple[int, str] | None = None  # the last request answered: id, op
        self._pending: Pending | None = None  # a request sent whose answer is not read yet
        self._failed_starts = 0
        self._gave_up: str | None = None
        self._terminated = False

    @property
    def timeout(self) -> float:
        """Seconds each request may take."""
        return self._timeout

    @timeout.setter
    def timeout(self, seconds: float) -> None:
        self._timeout = checked_timeout(seconds, "the adapter's timeout")

    @property
    def startup_timeout(self) -> float:
        """Seconds a fresh process may take to answer ``hello`` (``timeout`` unless set)."""
        return self._timeout if self._startup_timeout is None else self._startup_timeout

    @startup_timeout.setter
    def startup_timeout(self, seconds: float | None) -> None:
        self._startup_timeout = (
            None if seconds is None else checked_timeout(seconds, "the adapter's startup timeout")
        )

    # -- starting and stopping -----------------------------------------------------------------

    def capabilities(self) -> Capabilities:
        """What the adapter said in its last ``hello`` (starting it if it never ran)."""
        if self._capabilities is None:
            self._start()
        assert self._capabilities is not None
        return self._capabilities

    def operations(self) -> frozenset[str]:
        """The optional operations the adapter declared in its last ``hello`` (starting it if
        it never ran)."""
        self.capabilities()
        return self._operations

    def _start(self) -> Connection:
        """A fresh process that has answered ``hello``.

        Raises:
            AdapterGaveUp: this start failed and so did the ones before it, or the client
                had already given up.
            AdapterFault: the process died or did not answer ``hello`` properly.
            AdapterError: the command cannot be started.
        """
        self._check_may_start()
        self._discard()
        try:
            connection = Connection(self.command)
        except OSError as error:
            self._failed(
                AdapterError(
                    f"cannot start the adapter {shlex.join(self.command)!r}: "
                    f"{error.strerror or error}"
                )
            )
        self._connection = connection
        self.generation += 1
        self._last = None
        if self._terminated:  # a signal came while it was starting
            connection.terminate()
        try:
            hello = {"protocol": PROTOCOL_VERSION}
            reply = self._answer("hello", self._exchange("hello", hello, self.startup_timeout))
            if reply.get("protocol", PROTOCOL_VERSION) != PROTOCOL_VERSION:
                self.fault(
                    f"the adapter speaks protocol {reply.get('protocol')!r}, not {PROTOCOL_VERSION}"
                )
            try:
                self._operations = operations_of(reply)
                self._capabilities = capabilities_of(reply, shlex.join(self.command))
            except ValueError as error:
                self.fault(f"the answer to 'hello' is malformed: {error}")
        except (Rejected, PackRejected, Unsupported) as refusal:
            self._failed(self._fault_error(f"the adapter refused 'hello': {refusal}"))
        except AdapterFault as fault:
            self._failed(fault)
        self._failed_starts = 0
        return connection

    def _check_may_start(self) -> None:
        if self._terminated:
            raise AdapterFault("the adapter was terminated: the run is stopping")
        if self._gave_up is not None:
            raise AdapterGaveUp(self._gave_up)

    def _failed(self, error: Exception) -> NoReturn:
        """Count a failed start; raise ``error``, or give up if it was one too many."""
        self._failed_starts += 1
        if self._failed_starts < self.max_failed_starts:
            raise error
        self._gave_up = (
            f"gave up on the adapter after {self._failed_starts} failed starts in a row; "
            f"the last: {error}"
        )
        raise AdapterGaveUp(self._gave_up) from None

    def _discard(self) -> None:
        """Forget the process, killing what is left of it."""
        connection, self._connection = self._connection, None
        if connection is not None:
            connection.kill()
            self.generation += 1

    def close(self) -> None:
        """Say ``shutdown``, close the process's stdin, let it exit, and kill its group.

        A later request starts a fresh process (unless :meth:`terminate` was called).
        """
        connection = self._connection
        if connection is not None and connection.running and not self._terminated:
            with contextlib.suppress(AdapterFault, Rejected, PackRejected, Unsupported):
                self._exchange("shutdown", {}, self.timeout)  # it is stopped below all the same
        connection, self._connection = self._connection, None
        if connection is not None:
            connection.close()
            self.generation += 1
        if self.transcript is not None:
            self.transcript.flush()

    def terminate(self) -> None:
        """Kill the adapter process and its group now, and never start another.

        Safe to call from a signal handler: it sends a signal and returns, taking no lock and
        waiting for nothing. A request waiting for an answer ends at once with an
        ``AdapterFault``, as does every later one; call :meth:`close` afterwards to reap.
        """
        self._terminated = True
        connection = self._connection
        if connection is not None:
            connection.terminate()

    # -- requests ------------------------------------------------------------------------------

    def request(
        self, op: str, arguments: Mapping[str, Any], *, generation: int | None = None
    ) -> dict[str, Any]:
        """Send one request and return the ok answer.

        Arguments:
            op: the operation.
            arguments: the request's other fields.
            generation: for requests about a session, the :attr:`generation` of the process
                holding it: if that process is gone, the request is a fault (and starts none).

        Raises:
            Rejected, PackRejected, Unsupported: what the runtime answered.
            AdapterFault: the adapter broke the protocol (``AdapterGaveUp``: for good).
            AdapterError: the command cannot be started.
            KitError: the request is not JSON or, with ``validate_protocol``, breaks the schema.
        """
        return self.send(op, arguments, generation=generation).answer()

    def send(
        self, op: str, arguments: Mapping[str, Any], *, generation: int | None = None
    ) -> Pending:
        """Send one request now, and read its answer when :meth:`Pending.answer` is called:
        the caller may do other work meanwhile. Still one request at a time: the next request
        reads this one's answer first (kept for :meth:`Pending.answer`). The time limit runs
        from now.

        Raises:
            AdapterFault, AdapterError, KitError: as :meth:`request`, for what happens before
                the request is on its way.
        """
        self._settle()
        connection = self._connection
        if generation is not None:
            if generation != self.generation or connection is None:
                raise AdapterFault(f"the adapter process holding this session is gone ({op!r})")
            if not connection.running:  # it exited after its last answer, by itself
                status = describe_exit(connection.exit_status())
                last = f" after answering {self._last[1]!r}" if self._last else ""
                self.fault(f"the adapter process {status}{last}, with the session of {op!r}")
        elif connection is None or not connection.running:
            connection = self._start()
        number, deadline = self._send(op, arguments, self.timeout)
        self._pending = Pending(self, op, number, deadline, self.timeout)
        return self._pending

    def _settle(self) -> None:
        """Read the answer of a request sent earlier, if nobody has yet."""
        pending, self._pending = self._pending, None
        if pending is not None:
            pending.settle()

    def _exchange(self, op: str, arguments: Mapping[str, Any], timeout: float) -> dict[str, Any]:
        """Send a request and read its answer (a message with its id), by ``timeout`` seconds."""
        self._settle()
        number, deadline = self._send(op, arguments, timeout)
        return self._receive(op, number, deadline, timeout)

    def _send(self, op: str, arguments: Mapping[str, Any], timeout: float) -> tuple[int, float]:
        """Write a request; its id, and the deadline of its answer."""
        connection = self._connection
        assert connection is not None
        if self._last is not None:  # a line that came after the last answer is not an answer
            unasked = connection.unasked_line()
            if unasked is not None:
                self._transcribe(unasked)
                self.fault(self._stray(unasked, after_previous=True))
        self._next_id += 1
        message = {"id": self._next_id, "op": op, **arguments}
        line_out = self._encode(message)
        if self.transcript is not None:
            self.transcript.write("> " + line_out.decode())
        deadline = time.monotonic() + timeout
        try:
            connection.send(line_out, deadline)
        except ProcessEnded as ended:
            self.fault(f"the adapter process {ended} before answering {op!r}")
        except NotReading:
            self.fault(f"the adapter did not read the {op!r} request within {timeout:g} s (hung?)")
        except BaseException:  # interrupted half way (a signal): the stream is in no known state
            self._discard()
            raise
        return self._next_id, deadline

    def _receive(self, op: str, number: int, deadline: float, timeout: float) -> dict[str, Any]:
        """Read the answer to request ``number`` by ``deadline``."""
        connection = self._connection
        if connection is None:
            raise AdapterFault(f"the adapter process was stopped before answering {op!r}")
        try:
            line = connection.receive(deadline)
        except ProcessEnded as ended:
            self.fault(f"the adapter process {ended} before answering {op!r}")
        except NoAnswer:
            self.fault(f"no answer to {op!r} within {timeout:g} s (hung?)")
        except LineTooLong as too_long:
            self.fault(f"a response line is longer than {too_long.limit:,} bytes")
        except BaseException:  # interrupted half way (a signal): the stream is in no known state
            self._discard()
            raise
        self._transcribe(line)
        try:
            reply = decode(line)
            if self.validate_protocol:
                check_message(reply, f"responses/{op}" if op in BY_NAME else "Response")
        except ProtocolError as error:
            self.fault(f"stray or malformed output on stdout: {error}")
        reply_id = reply.get("id")
        if type(reply_id) is not int or reply_id != number:
            if self._last is not None and reply_id == self._last[0]:
                self.fault(self._stray(line, after_previous=True))
            self.fault(f"the answer to request {number} ({op!r}) carries id {reply_id!r}")
        self._last = (number, op)
        extra = connection.unasked_line()  # a second answer, written with the first
        if extra is not None:
            self._transcribe(extra)
            self.fault(self._stray(extra, after_previous=False))
        return reply

    def _encode(self, message: Mapping[str, Any]) -> bytes:
        """The request's line; its faults are the kit's (a case value, the kit's own code)."""
        try:
            if self.validate_protocol:
                check_message(message, "Request")
            return encode(message)
        except (ProtocolError, ValueError, TypeError) as error:
            raise KitError(
                f"the kit cannot send request {message['id']} ({message['op']!r}): {error}"
            ) from None

    def note(self, text: str) -> None:
        """Write ``text`` to the transcript as a comment line (``# ``), for a reader of it."""
        if self.transcript is not None:
            self.transcript.write("# " + text.replace("\n", " ") + "\n")

    def _transcribe(self, line: bytes) -> None:
        if self.transcript is not None:
            self.transcript.write("< " + line.decode("utf-8", errors="replace").rstrip("\n") + "\n")

    def _stray(self, line: bytes, *, after_previous: bool) -> str:
        """The fault of a line that came after the last answer, naming that answer's request.

        Arguments:
            after_previous: the line is noticed at a later request than the one it follows.
        """
        assert self._last is not None
        number, op = self._last
        previous = "previous " if after_previous else ""
        return (
            f"a stray line after the {previous}answer to {op!r} (request {number}): {excerpt(line)}"
        )

    def answer(self, op: str, reply: dict[str, Any]) -> dict[str, Any]:
        """What a request answered with ``reply`` gives (one of a ``run_script``'s answers):
        the ok answer; or the runtime's refusal, or a fault, raised."""
        if self.validate_protocol:
            try:
                check_message(reply, f"answers/{op}")
            except ProtocolError as error:
                self.fault(f"a malformed answer in run_script: {error}")
        return self._answer(op, reply)

    def _answer(self, op: str, reply: dict[str, Any]) -> dict[str, Any]:
        """An ok answer; or the runtime's refusal, or a fault, raised."""
        if "skipped" in reply:
            skipped = reply["skipped"]
            raise Unsupported(str(skipped.get("reason", "") if isinstance(skipped, dict) else ""))
        if reply.get("ok") is False:
            failure = reply["error"] if isinstance(reply.get("error"), dict) else {}
            code = str(failure.get("code", "internal-error"))
            text = str(failure.get("message", ""))
            if code in FAULT_CODES:
                self.fault(f"the adapter answered {code}: {text}")
            if code == PACK_REJECTED:
                raise PackRejected(text)
            limit = failure.get("limit")
            raise Rejected(code, limit=None if limit is None else str(limit), message=text)
        if reply.get("ok") is not True:
            self.fault(f"the answer to {op!r} has neither ok, error nor skipped")
        return reply

    def fault(self, reason: str) -> NoReturn:
        """Kill the process for breaking the protocol, and raise ``AdapterFault`` for ``reason``."""
        raise self._fault_error(reason)

    def _fault_error(self, reason: str) -> AdapterFault:
        """Kill the process; the fault to raise, with the tail of what it said on stderr."""
        connection, self._connection = self._connection, None
        if connection is None:
            return AdapterFault(reason)
        connection.kill()
        self.generation += 1  # the sessions of the dead process are gone for good
        if self._terminated:
            return AdapterFault(f"the adapter was terminated: the run is stopping ({reason})")
        tail = connection.stderr_tail().strip()
        return AdapterFault(reason + (f"; adapter stderr: {tail[-1500:]}" if tail else ""))


class Pending:
    """A request on its way, whose answer is read by :meth:`answer` (or, kept for it, by the
    client before its next request)."""

    def __init__(
        self, client: ProtocolClient, op: str, number: int, deadline: float, timeout: float
    ) -> None:
        self.op = op
        self._client = client
        self._number = number
        self._deadline = deadline
        self._timeout = timeout
        self._generation = client.generation
        self._outcome: tuple[bool, Any] | None = None

    def settle(self) -> None:
        """Read the answer now, keeping what it gives (an answer, a refusal or a fault)."""
        if self._outcome is not None:
            return
        client = self._client
        if client._pending is self:
            client._pending = None
        try:
            if client.generation != self._generation:
                raise AdapterFault(f"the adapter process was stopped before answering {self.op!r}")
            reply = client._receive(self.op, self._number, self._deadline, self._timeout)
            self._outcome = (True, client._answer(self.op, reply))
        except Exception as error:
            self._outcome = (False, error)

    def answer(self) -> dict[str, Any]:
        """The ok answer; or the runtime's refusal, or a fault, raised (see
        :meth:`ProtocolClient.request`)."""
        self.settle()
        assert self._outcome is not None
        ok, value = self._outcome
        if ok:
            return value  # type: ignore[no-any-return]
        raise value
