"""Where reports go: files that overwrite no input and no other output, locked while written.

A command checks its outputs before it starts (:func:`check_outputs`): two outputs at one path,
an output at an input's path, an output that is a folder or whose folder does not exist, and
more than one output on stdout (``-``) are refused, so nothing is lost at the end of a long
run. A report is written through :func:`open_locked`, which takes an exclusive lock on the file
before emptying it: a second command writing the same report is refused instead of
interleaving its lines with the first's.
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import os
import stat
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import IO, TextIO

from conformance._basics.errors import KitError

STDOUT = "-"
"""The path that means standard output."""


class OutputError(KitError):
    """An output cannot be written where it was asked for: what, where, how to fix it."""


def _key(path: str) -> tuple[str, object]:
    """What tells files apart: the device and inode of an existing one, else the absolute
    path (``x`` and ``./x`` are one file; so are two hard links)."""
    try:
        status = os.stat(path)
    except OSError:
        return ("path", os.path.abspath(path))
    return ("inode", (status.st_dev, status.st_ino))


def check_outputs(
    outputs: Sequence[tuple[str, str]], inputs: Sequence[tuple[str, str]] = ()
) -> None:
    """Refuse outputs that would overwrite an input or each other, or cannot be written.

    Arguments:
        outputs: ``(what, path)``, e.g. ``("--report html", "report.html")``; ``-`` is stdout.
        inputs: ``(what, path)`` of the files the command reads.

    Raises:
        OutputError: naming both uses of a path, or what is wrong with it.
    """
    seen: dict[tuple[str, object], str] = {}
    for what, path in inputs:
        if path and path != STDOUT:
            seen.setdefault(_key(path), f"{what} (an input)")
    on_stdout: str | None = None
    for what, path in outputs:
        if path == STDOUT:
            if on_stdout is not None:
                raise OutputError(
                    f"{what} and {on_stdout} both go to stdout ('-'): give one of them a file"
                )
            on_stdout = what
            continue
        key = _key(path)
        if key in seen:
            raise OutputError(
                f"{what} {path} is the file of {seen[key]}: it would be overwritten; "
                "give each output a path of its own"
            )
        seen[key] = what
        _check_writable(what, path)


def _check_writable(what: str, path: str) -> None:
    target = Path(path)
    if target.is_dir():
        raise OutputError(f"{what} {path} is a folder: give the path of a file")
    folder = target.parent
    if not folder.is_dir():
        raise OutputError(f"{what} {path}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK) and not (target.exists() and os.access(target, os.W_OK)):
        raise OutputError(f"{what} {path}: the folder {folder} is not writable")


def open_locked(path: str | Path, what: str = "the report") -> IO[bytes]:
    """A file opened for writing, locked against other writers, then emptied; closing the
    stream frees the lock.

    Raises:
        OutputError: the file cannot be opened, or another process holds its lock.
    """
    try:
        # Not "w": emptying the file before it is locked would destroy another writer's work.
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT, 0o666)
    except OSError as error:
        raise OutputError(f"cannot write {what} {path}: {error.strerror or error}") from None
    stream = os.fdopen(descriptor, "wb")
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        stream.close()
        raise OutputError(
            f"{what} {path} is being written by another ppconf command; wait for it to end, "
            "or write to another path"
        ) from None
    except OSError:
        pass  # a file system without locks (some network mounts): write all the same
    try:
        if stat.S_ISREG(os.fstat(descriptor).st_mode):  # not /dev/null, nor a pipe
            os.ftruncate(descriptor, 0)
    except OSError as error:
        stream.close()
        raise OutputError(f"cannot write {what} {path}: {error.strerror or error}") from None
    return stream


def write_output(
    path: str | Path, data: bytes, what: str = "the report", *, stdout: TextIO | None = None
) -> None:
    """Write ``data`` to ``path`` under the lock, or to ``stdout`` (default ``sys.stdout``)
    for ``-``.

    Raises:
        OutputError: the file cannot be written.
    """
    if str(path) == STDOUT:
        (stdout or sys.stdout).write(data.decode("utf-8"))
        return
    stream = open_locked(path, what)
    try:
        with stream:
            stream.write(data)
    except OSError as error:
        raise OutputError(f"cannot write {what} {path}: {error.strerror or error}") from None


class KitLog(io.TextIOBase):
    """A log the kit writes while a runtime runs (the protocol log), whose write errors are
    the kit's: a full disk or a file-size limit never raises in the middle of a call to the
    runtime, where it would be taken for the runtime's fault. The first error is kept, nothing
    more is written, and :meth:`check` raises it where the command can stop the run.

    Arguments:
        path: the file.
        what: what it is, for the error (``the protocol log``).

    Raises:
        OutputError: the file cannot be opened.
    """

    def __init__(self, path: str, what: str) -> None:
        super().__init__()
        self.path = path
        self.what = what
        self.error: OutputError | None = None
        try:
            # backslashreplace: a lone surrogate a runtime sent is logged as its escape.
            self._stream: IO[str] | None = open(  # noqa: SIM115
                path, "w", encoding="utf-8", errors="backslashreplace"
            )
        except OSError as error:
            raise OutputError(f"cannot write {what} {path}: {error.strerror or error}") from None

    def _failed(self, error: OSError) -> None:
        if self.error is None:
            self.error = OutputError(
                f"cannot write {self.what} {self.path}: {error.strerror or error}"
            )
        stream, self._stream = self._stream, None
        if stream is not None:
            # The same error again, as the buffer is flushed: already kept.
            with contextlib.suppress(OSError):
                stream.close()

    def write(self, text: str) -> int:
        if self._stream is not None:
            try:
                self._stream.write(text)
            except OSError as error:
                self._failed(error)
        return len(text)

    def flush(self) -> None:
        if self._stream is not None:
            try:
                self._stream.flush()
            except OSError as error:
                self._failed(error)

    def close(self) -> None:
        if self._stream is not None:
            try:
                self._stream.close()
            except OSError as error:
                self._failed(error)
            self._stream = None
        super().close()

    def check(self) -> None:
        """Raise the first write error, if there was one.

        Raises:
            OutputError: saying what could not be written, and why.
        """
        self.flush()
        if self.error is not None:
            raise self.error


__all__ = ["STDOUT", "KitLog", "OutputError", "check_outputs", "open_locked", "write_output"]
