"""A runtime in any language, as a subprocess speaking the adapter protocol.

The client starts the command, says ``hello``, and sends one request at a time. Anything that
breaks the protocol -- a dead or hung process, a line that is not JSON, a wrong id, output on
stdout outside a response, a line over the size cap -- is an *adapter fault*: the process is
killed, the case part is reported errored with the reason and the captured stderr, and the
next request starts a fresh process. Expected results are never sent.
"""

from __future__ import annotations

import contextlib
import io
import os
import queue
import shlex
import signal
import subprocess
import threading
from collections import deque
from collections.abc import Mapping, Sequence
from typing import IO, Any, NoReturn

from conformance._adapter import Capabilities, PackInput
from conformance._errors import AdapterError, AdapterFault, PackRejected, Rejected, Unsupported
from conformance._protocol import (
    FAULT_CODES,
    PACK_REJECTED,
    PROTOCOL_VERSION,
    ProtocolError,
    check_message,
    decode,
    encode,
    pack_message,
)

DEFAULT_REQUEST_TIMEOUT = 10.0
STARTUP_TIMEOUT = 30.0
MAX_LINE_BYTES = 16 * 1024 * 1024
STDERR_KEPT = 8192
_EOF = b""


class SubprocessAdapter:
    """An :class:`~conformance.Adapter` that drives a command over the protocol.

    Arguments:
        command: the adapter program and its arguments.
        timeout: seconds each request may take before the process is deemed hung.
        validate_protocol: check every request and response against the protocol schema.
        transcript: a text stream that gets every request (``> ``) and response (``< ``) line.
    """

    handles_timeouts = True
    """The client times requests out itself (and kills the process), so the runner need not."""

    def __init__(
        self,
        command: Sequence[str],
        *,
        timeout: float = DEFAULT_REQUEST_TIMEOUT,
        validate_protocol: bool = False,
        transcript: IO[str] | None = None,
    ) -> None:
        if not command:
            raise AdapterError("the adapter command is empty")
        self.command = list(command)
        self.timeout = timeout
        self.validate_protocol = validate_protocol
        self.transcript = transcript
        self._process: subprocess.Popen[bytes] | None = None
        self._lines: queue.SimpleQueue[bytes] = queue.SimpleQueue()
        self._stderr: deque[bytes] = deque()
        self._stderr_size = 0
        self._next_id = 0
        self._hello: dict[str, Any] = {}
        self._generation = 0  # bumps on every restart; sessions of older processes are gone
        self._stderr_reader: threading.Thread | None = None

    @classmethod
    def from_spec(cls, spec: str, **options: Any) -> SubprocessAdapter:
        """Build from ``cmd:COMMAND LINE`` (split like a POSIX shell does)."""
        return cls(shlex.split(spec.removeprefix("cmd:")), **options)

    # -- the process ---------------------------------------------------------------------------

    def _start(self) -> None:
        try:
            self._process = subprocess.Popen(
                self.command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                bufsize=0,
                # Its own process group, so a fault kills what a wrapper (sh -c, npm) started too.
                start_new_session=os.name == "posix",
            )
        except OSError as error:
            raise AdapterError(
                f"cannot start the adapter {shlex.join(self.command)!r}: {error.strerror or error}"
            ) from None
        self._lines = queue.SimpleQueue()
        self._stderr = deque()
        self._stderr_size = 0
        self._generation += 1
        process = self._process
        assert process.stdout is not None
        assert process.stderr is not None
        threading.Thread(
            target=self._read_stdout, args=(process.stdout, self._lines), daemon=True
        ).start()
        self._stderr_reader = threading.Thread(
            target=self._read_stderr, args=(process.stderr,), daemon=True
        )
        self._stderr_reader.start()
        # Starting may take longer than answering (a JVM, a cold cache): a longer limit for hello.
        reply = self._exchange(
            {"op": "hello", "protocol": PROTOCOL_VERSION},
            timeout=max(self.timeout, STARTUP_TIMEOUT),
        )
        if reply.get("protocol", PROTOCOL_VERSION) != PROTOCOL_VERSION:
            self._fault(
                f"the adapter speaks protocol {reply.get('protocol')!r}, not {PROTOCOL_VERSION}"
            )
        self._hello = reply

    @staticmethod
    def _read_stdout(stream: IO[bytes], lines: queue.SimpleQueue[bytes]) -> None:
        buffered = io.BufferedReader(stream, 65536)  # type: ignore[type-var]
        try:
            while True:
                line = buffered.readline(MAX_LINE_BYTES + 1)
                lines.put(line)
                if not line:
                    return
        except (OSError, ValueError):
            lines.put(_EOF)

    def _read_stderr(self, stream: IO[bytes]) -> None:
        try:
            while chunk := stream.read(4096):  # unbuffered: returns what is there
                self._stderr.append(chunk)
                self._stderr_size += len(chunk)
                while self._stderr_size > STDERR_KEPT and len(self._stderr) > 1:
                    self._stderr_size -= len(self._stderr.popleft())
        except (OSError, ValueError):
            return

    def stderr_tail(self) -> str:
        """The last few kilobytes the adapter wrote to stderr."""
        return b"".join(self._stderr).decode("utf-8", errors="replace")[-STDERR_KEPT:]

    def _stop(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        try:  # closing stdin is the polite goodbye; the readers stop at the pipes' end
            if process.stdin is not None:
                process.stdin.close()
        except OSError:
            pass
        try:
            process.wait(timeout=1)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def _fault(self, reason: str) -> NoReturn:
        process = self._process
        if process is not None and process.poll() is None:
            if os.name == "posix":
                with contextlib.suppress(OSError):
                    os.killpg(process.pid, signal.SIGKILL)
            process.kill()
        self._stop()
        self._generation += 1  # the sessions of the dead process are gone for good
        if self._stderr_reader is not None:  # let it drain what the process wrote before dying
            self._stderr_reader.join(timeout=1)
        tail = self.stderr_tail().strip()
        raise AdapterFault(reason + (f"; adapter stderr: {tail[-1500:]}" if tail else ""))

    def close(self) -> None:
        """Ask the adapter to shut down, and stop it."""
        if self._process is not None and self._process.poll() is None:
            with contextlib.suppress(AdapterFault, OSError):
                self._exchange({"op": "shutdown"})
        self._stop()
        if self.transcript is not None:
            self.transcript.flush()

    # -- requests ------------------------------------------------------------------------------

    def _exchange(self, request: dict[str, Any], timeout: float | None = None) -> dict[str, Any]:
        process = self._process
        assert process is not None
        assert process.stdin is not None
        self._next_id += 1
        message = {"id": self._next_id, **request}
        if self.validate_protocol:
            try:
                check_message(message, "Request")
            except ProtocolError as error:  # a kit bug, not the adapter's
                raise AssertionError(str(error)) from None
        line_out = encode(message)
        if self.transcript is not None:
            self.transcript.write("> " + line_out.decode())
        try:
            process.stdin.write(line_out)
            process.stdin.flush()
        except OSError:
            self._fault(f"the adapter process is gone (exit status {process.poll()})")
        try:
            line = self._lines.get(timeout=timeout or self.timeout)
        except queue.Empty:
            self._fault(
                f"no answer to {request['op']!r} within {timeout or self.timeout:g} s (hung?)"
            )
        if line == _EOF:
            process.wait(timeout=1)
            self._fault(
                f"the adapter process exited (status {process.returncode}) "
                f"before answering {request['op']!r}"
            )
        if self.transcript is not None:
            self.transcript.write("< " + line.decode("utf-8", errors="replace").rstrip("\n") + "\n")
        if len(line) > MAX_LINE_BYTES:
            self._fault(f"a response line is longer than {MAX_LINE_BYTES:,} bytes")
        try:
            reply = decode(line)
            if self.validate_protocol:
                check_message(reply, "Response")
        except ProtocolError as error:
            self._fault(f"stray or malformed output on stdout: {error}")
        if reply.get("id") != message["id"]:
            self._fault(
                f"the answer to request {message['id']} ({request['op']!r}) "
                f"carries id {reply.get('id')!r}"
            )
        if "skipped" in reply:
            reason = (
                reply["skipped"].get("reason", "") if isinstance(reply["skipped"], dict) else ""
            )
            raise Unsupported(str(reason))
        if reply.get("ok") is False:
            failure = reply["error"] if isinstance(reply.get("error"), dict) else {}
            code = str(failure.get("code", "internal-error"))
            text = str(failure.get("message", ""))
            if code in FAULT_CODES:
                self._fault(f"the adapter answered {code}: {text}")
            if code == PACK_REJECTED:
                raise PackRejected(text)
            raise Rejected(code, failure.get("limit"), text)
        if reply.get("ok") is not True:
            self._fault(f"the answer to {request['op']!r} has neither ok, error nor skipped")
        return reply

    def request(self, op: str, **arguments: Any) -> dict[str, Any]:
        """Send one request (starting the process if needed) and return the ok response."""
        if self._process is None or self._process.poll() is not None:
            self._stop()
            self._start()
        return self._exchange({"op": op, **arguments})

    # -- the adapter interface ------------------------------------------------------------------

    def capabilities(self) -> Capabilities:
        if not self._hello:
            self._start()
        runtime = self._hello.get("runtime") or {}
        return Capabilities(
            name=str(runtime.get("name", shlex.join(self.command))),
            version=str(runtime.get("version", "")),
            language=str(runtime.get("language", "")),
            claims=dict(self._hello.get("claims") or {}),
            extensions=tuple(self._hello.get("extensions") or ()),
        )

    def load(self, pack: PackInput) -> None:
        self.request("load", pack=pack_message(pack))

    def validate(self, pack: PackInput) -> Sequence[Mapping[str, Any]]:
        diagnostics = self.request("validate", pack=pack_message(pack)).get("diagnostics")
        if not isinstance(diagnostics, list) or not all(isinstance(d, dict) for d in diagnostics):
            self._fault("validate answered without a diagnostics list")
        return diagnostics

    def start(self, pack: PackInput) -> SubprocessSession:
        return self._session(self.request("start", pack=pack_message(pack)))

    def restore(self, pack: PackInput, snapshot: Any) -> SubprocessSession:
        return self._session(self.request("restore", pack=pack_message(pack), snapshot=snapshot))

    def run_composition(
        self, pack: PackInput, name: str, input: Any, mocks: Mapping[str, Any]
    ) -> Mapping[str, Any]:
        reply = self.request(
            "run_composition", pack=pack_message(pack), name=name, input=input, mocks=mocks
        )
        return _result(self, reply)

    def _session(self, reply: Mapping[str, Any]) -> SubprocessSession:
        session = reply.get("session")
        if not isinstance(session, str):
            self._fault("start answered without a session id")
        return SubprocessSession(self, str(session), self._generation)


class SubprocessSession:
    """A session inside the adapter process, addressed by the id it gave."""

    def __init__(self, adapter: SubprocessAdapter, session: str, generation: int) -> None:
        self._adapter = adapter
        self._session = session
        self._generation = generation

    def _request(self, op: str, **arguments: Any) -> dict[str, Any]:
        if self._generation != self._adapter._generation:
            raise AdapterFault("the adapter process holding this session was restarted")
        return self._adapter.request(op, session=self._session, **arguments)

    def send(self, event: str, source: str) -> Mapping[str, Any]:
        transition = self._request("send", event=event, source=source).get("transition")
        if not isinstance(transition, dict):
            self._adapter._fault("send answered without a transition")
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
            self._adapter._fault("state answered without a state object")
        return state

    def snapshot(self) -> Any:
        return self._request("snapshot").get("snapshot")

    def run_state(self, input: Any, mocks: Mapping[str, Any]) -> Mapping[str, Any]:
        return _result(self._adapter, self._request("run_state", input=input, mocks=mocks))

    def close(self) -> None:
        """Let the adapter forget the session (ignored if it does not support close)."""
        with contextlib.suppress(Unsupported):
            self._request("close")


def is_command_spec(spec: str) -> bool:
    """Whether an adapter spec names a command (``cmd:...``)."""
    return spec.startswith("cmd:")


def _result(adapter: SubprocessAdapter, reply: Mapping[str, Any]) -> Mapping[str, Any]:
    result = reply.get("result")
    if not isinstance(result, dict):
        adapter._fault("a composition run answered without a result object")
    return result
