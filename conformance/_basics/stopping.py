"""Stopping a command that runs an adapter: SIGINT, SIGTERM and SIGHUP, one way for all three.

``ppconf run``, ``fuzz``, ``smoke``, ``serve`` and the pytest plugin stop the same way when a
stop signal arrives (a Ctrl-C, a CI job's timeout, a closed terminal):

- the part running is let finish, for at most :data:`GRACE` seconds; a part still running then
  (a hung runtime) is abandoned at once, and is not recorded at all: a stop is never a fault of
  the runtime's;
- no other part starts; the report is left unfinished (no summary record);
- the adapter's process group is killed, and the command exits ``128 + the signal`` (130, 143,
  129). A second signal stops at once, wherever the command is.

The signal handler only takes note (:data:`STOP`); the places where the kit waits for a
runtime (a part's worker thread, a protocol answer) and the loops between parts look at it, and
raise :class:`Stopped`, a ``KeyboardInterrupt``, so every path that lets a Ctrl-C through lets a
stop through. An adapter's own ``except Exception`` cannot swallow it.
"""

from __future__ import annotations

import contextlib
import signal
import threading
import time
from collections.abc import Callable, Iterator
from types import FrameType

STOP_SIGNALS: tuple[signal.Signals, ...] = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
GRACE = 0.5
"""Seconds the part running when a stop signal arrives may still take to finish."""
POLL = 0.05
"""Seconds between two looks at :data:`STOP` while the kit waits for a runtime."""


def signal_name(signum: int) -> str:
    """``SIGTERM`` for 15 (``signal 99`` for a number with no name)."""
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


class Stopped(KeyboardInterrupt):
    """A stop signal ended the command: stop now, record nothing more, exit ``128 + signum``.

    Arguments:
        signum: the signal.
    """

    def __init__(self, signum: int) -> None:
        self.signum = signum
        super().__init__(f"stopped by {signal_name(signum)}")

    @property
    def exit_status(self) -> int:
        """``128 + signum``, what a shell reports for a process ended by the signal."""
        return 128 + self.signum


class StopRequest:
    """Whether a stop signal has arrived, and when (one per process: signals are)."""

    def __init__(self) -> None:
        self.signum: int | None = None
        self.since = 0.0

    @property
    def requested(self) -> bool:
        return self.signum is not None

    def request(self, signum: int) -> None:
        """Take note of a stop signal (safe in a signal handler: no lock, no wait)."""
        if self.signum is None:
            self.since = time.monotonic()
            self.signum = signum

    def reset(self) -> None:
        self.signum = None

    def raise_if_requested(self) -> None:
        """Between parts: raise :class:`Stopped` if a stop signal has arrived."""
        if self.signum is not None:
            raise Stopped(self.signum)

    def raise_if_overdue(self) -> None:
        """While waiting for a runtime: raise :class:`Stopped` once the part running when the
        signal arrived has had :data:`GRACE` seconds to finish."""
        if self.signum is not None and time.monotonic() - self.since >= GRACE:
            raise Stopped(self.signum)


STOP = StopRequest()
"""The stop request of this process."""


def wait_for(event: threading.Event, timeout: float) -> bool:
    """``event.wait(timeout)`` that raises :class:`Stopped` once a stop is overdue.

    Returns:
        whether the event was set (``False``: the time ran out).
    """
    deadline = time.monotonic() + timeout
    while True:
        remaining = deadline - time.monotonic()
        if event.wait(max(min(remaining, POLL), 0)):
            return True
        if time.monotonic() >= deadline:
            return False
        STOP.raise_if_overdue()


@contextlib.contextmanager
def stop_signals(
    *, at_once: bool = False, on_stop: Callable[[int], None] | None = None
) -> Iterator[StopRequest]:
    """Route SIGINT, SIGTERM and SIGHUP to :data:`STOP` while the block runs.

    Arguments:
        at_once: raise :class:`Stopped` from the handler itself: for a command with nothing
            to let finish (``ppconf serve``, the pytest-xdist controller, which runs no part).
        on_stop: called (in the handler) with the first stop signal, e.g. to tell a loop the
            kit does not own (pytest's) to stop after its current item.

    In a thread other than the main one (an application embedding the kit) signals cannot be
    handled: the block runs with the handlers as they are.
    """

    def handler(signum: int, frame: FrameType | None) -> None:
        if at_once or STOP.requested:  # a second signal: the user means it
            STOP.request(signum)
            raise Stopped(STOP.signum or signum)
        STOP.request(signum)
        if on_stop is not None:
            on_stop(signum)

    previous: dict[signal.Signals, object] = {}
    try:
        for number in STOP_SIGNALS:
            previous[number] = signal.signal(number, handler)
    except ValueError:  # not the main thread
        for number, old in previous.items():
            signal.signal(number, old)  # type: ignore[arg-type]
        yield STOP
        return
    STOP.reset()
    try:
        yield STOP
    finally:
        for number, old in previous.items():
            signal.signal(number, old)  # type: ignore[arg-type]
        STOP.reset()


__all__ = ["GRACE", "STOP", "STOP_SIGNALS", "StopRequest", "Stopped", "stop_signals", "wait_for"]
