"""One adapter process: started in a session of its own, talked to line by line, killed whole.

The process is the leader of a new process group, so killing the group also kills what a
wrapper started (``sh -c``, ``npm run``, a forked worker). When the leader exits, whatever it
left in its group is killed at once: that closes the pipes a child may still hold, so the
kit learns of the exit now rather than at the request's timeout.

Three daemon threads per process: one splits stdout into lines (each at most
:data:`MAX_LINE_BYTES`), one keeps the tail of stderr, one waits for the leader's exit.
Writing never blocks for longer than the request's time limit, even if the process stops
reading its stdin. On Linux the process is also killed when the kit dies, however it dies
(``PR_SET_PDEATHSIG``). While the kit waits for an answer, a stop signal (see
:mod:`conformance._basics.stopping`) ends the wait after a short grace. POSIX only (process groups).
"""

from __future__ import annotations

import contextlib
import ctypes
import io
import os
import queue
import select
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import IO

from conformance._basics.stopping import POLL, STOP

__all__ = [
    "EXIT_WAIT",
    "MAX_LINE_BYTES",
    "STDERR_KEPT",
    "Connection",
    "ConnectionFault",
    "LineTooLong",
    "NoAnswer",
    "NotReading",
    "ProcessEnded",
    "describe_exit",
]

MAX_LINE_BYTES = 16 * 1024 * 1024
"""The longest line the kit reads, newline included."""
STDERR_KEPT = 8192
"""How many bytes of the end of stderr are kept for reports."""
EXIT_WAIT = 1.0
"""Seconds to wait for a process to exit after its stdin closed, or for a pipe to drain."""
_EOF = b""


def _find_prctl() -> Callable[..., int] | None:
    """libc's ``prctl`` on Linux (``None`` elsewhere, or when it cannot be found)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        prctl: Callable[..., int] = ctypes.CDLL(None, use_errno=True).prctl
        return prctl
    except (OSError, AttributeError):
        return None


_PRCTL = _find_prctl()
_PR_SET_PDEATHSIG = 1
_exit = os._exit  # the real one, whatever a run does to ``os._exit`` later


def _dying_with(parent: int) -> Callable[[], None]:
    """What the adapter process runs between fork and exec: on Linux, ask to be killed when the
    kit dies (even by SIGKILL, which leaves the kit no time to kill it), so no adapter outlives
    its kit. The request is tied to the thread that starts the process: the kit starts adapters
    from the thread that runs the parts, which lives as long as the run."""
    prctl = _PRCTL

    def die_with_parent() -> None:
        assert prctl is not None
        prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent:  # the kit died before the request was made
            _exit(1)

    return die_with_parent


class ConnectionFault(Exception):
    """The process can no longer be talked to."""


class ProcessEnded(ConnectionFault):
    """The process exited, or closed its stdin or stdout.

    Arguments:
        status: its exit status (negative: the signal that killed it); ``None`` while it runs.
    """

    def __init__(self, status: int | None) -> None:
        self.status = status
        super().__init__(describe_exit(status))


class NotReading(ConnectionFault, TimeoutError):
    """The process did not take a request from its stdin within the time limit."""


class NoAnswer(ConnectionFault, TimeoutError):
    """No line arrived within the time limit."""


class LineTooLong(ConnectionFault):
    """A line is longer than the cap.

    Arguments:
        limit: the cap, in bytes (:data:`MAX_LINE_BYTES` when the line was read).
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        super().__init__(f"a line is longer than {limit:,} bytes")


def describe_exit(status: int | None) -> str:
    """How a process ended, for messages: ``exited (status 3)``, ``was killed by SIGKILL``."""
    if status is None:
        return "closed its stdin or stdout"
    if status < 0:
        with contextlib.suppress(ValueError):
            return f"was killed by {signal.Signals(-status).name}"
        return f"was killed by signal {-status}"
    return f"exited (status {status})"


class Connection:
    """A running adapter process and its pipes.

    Arguments:
        command: the program and its arguments.

    Raises:
        OSError: the program cannot be started.
    """

    def __init__(self, command: Sequence[str]) -> None:
        self.process = subprocess.Popen(
            list(command),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            bufsize=0,
            start_new_session=True,  # the leader of a new process group, whose id is its pid
            # The function takes no lock and imports nothing (prctl is looked up before the
            # fork), which is what makes running Python between fork and exec safe in a
            # process with threads.
            preexec_fn=_dying_with(os.getpid()) if _PRCTL is not None else None,  # noqa: PLW1509
        )
        stdin, stdout, stderr = self.process.stdin, self.process.stdout, self.process.stderr
        assert stdin is not None
        assert stdout is not None
        assert stderr is not None
        self._stdin = stdin
        os.set_blocking(stdin.fileno(), False)  # writes wait in poll(), with the request's limit
        self._lines: queue.SimpleQueue[bytes] = queue.SimpleQueue()
        self._eof = False
        self._stderr: deque[bytes] = deque()
        self._stderr_size = 0
        self._ended = threading.Event()
        self._stderr_reader = threading.Thread(
            target=self._read_stderr, args=(stderr,), daemon=True
        )
        self._stderr_reader.start()
        threading.Thread(target=self._read_stdout, args=(stdout,), daemon=True).start()
        threading.Thread(target=self._watch, daemon=True).start()

    # -- the threads ---------------------------------------------------------------------------

    def _read_stdout(self, stream: IO[bytes]) -> None:
        with io.BufferedReader(stream, 65536) as buffered:  # type: ignore[type-var]
            try:
                while True:
                    line = buffered.readline(MAX_LINE_BYTES + 1)
                    self._lines.put(line)
                    if not line or len(line) > MAX_LINE_BYTES:
                        return  # the end; or a line over the cap, after which nothing is read
            except (OSError, ValueError):
                self._lines.put(_EOF)

    def _read_stderr(self, stream: IO[bytes]) -> None:
        with stream, contextlib.suppress(OSError, ValueError):
            while chunk := stream.read(4096):  # unbuffered: returns what is there
                self._stderr.append(chunk)
                self._stderr_size += len(chunk)
                while self._stderr_size > STDERR_KEPT and len(self._stderr) > 1:
                    self._stderr_size -= len(self._stderr.popleft())

    def _watch(self) -> None:
        self.process.wait()
        # Its children may hold the pipes open (sh -c 'x & y'): they go with the leader. The
        # leader's pid cannot be reused for another group while its group has members.
        self._kill_group()
        self._ended.set()

    # -- talking -------------------------------------------------------------------------------

    def send(self, data: bytes, deadline: float) -> None:
        """Write ``data`` to the process's stdin by ``deadline`` (a ``time.monotonic()`` value).

        Raises:
            ProcessEnded: the process is gone or closed its stdin.
            NotReading: the process took too little of it by the deadline.
        """
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(self._stdin.fileno(), view) :]
            except BlockingIOError:  # the pipe is full
                remaining = deadline - time.monotonic()
                poller = select.poll()
                poller.register(self._stdin, select.POLLOUT)
                if remaining <= 0:
                    raise NotReading from None
                if not poller.poll(min(remaining, POLL) * 1000):
                    STOP.raise_if_overdue()
            except (OSError, ValueError):  # a broken pipe: it is gone (or closed by the kit)
                raise ProcessEnded(self.exit_status()) from None

    def receive(self, deadline: float) -> bytes:
        """The next line from the process's stdout, newline included, waiting until ``deadline``.

        Raises:
            ProcessEnded: its stdout ended.
            NoAnswer: no line by the deadline.
            LineTooLong: the line is longer than :data:`MAX_LINE_BYTES`.
        """
        if self._eof:
            raise ProcessEnded(self.exit_status())
        while True:
            remaining = deadline - time.monotonic()
            try:
                line = self._lines.get(timeout=max(min(remaining, POLL), 0))
                break
            except queue.Empty:
                if time.monotonic() >= deadline:
                    raise NoAnswer from None
                STOP.raise_if_overdue()  # a stop signal: give up on the answer after a grace
        if line == _EOF:
            self._eof = True
            raise ProcessEnded(self.exit_status())
        if len(line) > MAX_LINE_BYTES:
            raise LineTooLong(MAX_LINE_BYTES)
        return line

    def unasked_line(self) -> bytes | None:
        """A line that has already arrived, if any, without waiting (the end of output is not)."""
        if self._eof or self._lines.empty():
            return None
        line = self._lines.get_nowait()
        if line == _EOF:
            self._eof = True
            return None
        return line

    @property
    def running(self) -> bool:
        """Whether the process has not exited yet."""
        return not self._ended.is_set()

    def exit_status(self, wait: float = EXIT_WAIT) -> int | None:
        """The exit status, waiting up to ``wait`` seconds for it; ``None`` if it still runs."""
        self._ended.wait(wait)
        return self.process.returncode

    def stderr_tail(self) -> str:
        """The last few kilobytes the process wrote to stderr."""
        return b"".join(self._stderr).decode("utf-8", errors="replace")[-STDERR_KEPT:]

    # -- ending --------------------------------------------------------------------------------

    def _kill_group(self) -> None:
        with contextlib.suppress(OSError):  # already gone
            os.killpg(self.process.pid, signal.SIGKILL)

    def terminate(self) -> None:
        """Kill the process and its group now, without waiting: safe in a signal handler."""
        if self.running:  # once the leader is reaped its pid may, in time, name another group
            self._kill_group()

    def kill(self) -> None:
        """Kill the process and its group; wait for it to exit and for stderr to drain."""
        self.terminate()
        self._ended.wait(EXIT_WAIT)
        self._stderr_reader.join(EXIT_WAIT)  # its last words, unless a stranger holds the pipe
        with contextlib.suppress(OSError):
            self._stdin.close()

    def close(self, grace: float = EXIT_WAIT) -> None:
        """Close the process's stdin (the polite goodbye), let it exit, then kill its group.

        Arguments:
            grace: seconds the process may take to exit by itself.
        """
        with contextlib.suppress(OSError):
            self._stdin.close()
        self._ended.wait(grace)
        self.kill()
