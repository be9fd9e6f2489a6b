"""Opening the files the kit reads (reports, pack files), refusing what is not a file.

A FIFO without a writer blocks a reader for ever, ``/dev/zero`` and ``/dev/urandom`` never end,
a folder is no file, and a symlink loop cannot be followed: each is refused with one
:class:`NotAFile` saying which, at once.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import IO

_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


class NotAFile(OSError):
    """The path cannot be read as a file: what it is instead, or why it cannot be opened."""


def open_regular(path: str | Path) -> IO[bytes]:
    """``path`` opened for reading in binary, if it is a regular file.

    Opening does not block (``O_NONBLOCK``: a FIFO without a writer would wait for ever), and
    the type is checked on the open descriptor, so the file cannot be swapped in between.

    Raises:
        NotAFile: it does not exist, cannot be opened, is a symlink loop, or is not a regular
            file; the message says which.
    """
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise NotAFile("it is a symlink loop (a link that leads back to itself)") from None
        raise NotAFile(error.strerror or str(error)) from None
    mode = os.fstat(descriptor).st_mode
    if not stat.S_ISREG(mode):  # checked before fdopen, which refuses a folder on its own
        os.close(descriptor)
        kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
        raise NotAFile(f"it is {kind}, not a file")
    return os.fdopen(descriptor, "rb")


def read_regular(path: str | Path, limit: int) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes.

    Raises:
        NotAFile: see :func:`open_regular`, or the file is larger than ``limit``.
    """
    with open_regular(path) as stream:
        data = stream.read(limit + 1)
    if len(data) > limit:
        raise NotAFile(f"it is larger than {limit:,} bytes")
    return data


def resolved(path: Path) -> Path:
    """``path`` with its symlinks followed.

    Raises:
        NotAFile: a symlink loop.
    """
    try:
        return path.resolve()
    except (RuntimeError, OSError):  # Python 3.11 raises RuntimeError for a loop
        raise NotAFile("it is a symlink loop (a link that leads back to itself)") from None


_INSTALLED = Path(__file__).resolve().parents[2]
"""The folder holding the kit's packages (``conformance``, ``reference``): a checkout, or
``site-packages``."""


def shown_source(filename: str) -> str:
    """A source file as an error shows it: one of the kit's own relative to the folder holding
    the kit's packages (``conformance/_judging/runner.py``), so that no message prints where the
    kit is installed; any other (a runtime's, which its author wants to find) as it is."""
    try:
        path = Path(filename).resolve()
    except (OSError, RuntimeError):
        return filename
    for package in ("conformance", "reference"):
        if path.is_relative_to(_INSTALLED / package):
            return path.relative_to(_INSTALLED).as_posix()
    return filename


__all__ = ["NotAFile", "open_regular", "read_regular", "resolved", "shown_source"]
