"""What every ``ppconf`` command shares: exit statuses and the one-line error."""

from __future__ import annotations

import sys

EXIT_OK = 0
EXIT_FAILED = 1
"""The input was read, and is invalid, or a run or check did not pass."""
EXIT_UNUSABLE = 2
"""The input could not be used: unreadable file, malformed case, bad arguments, broken adapter."""
EXIT_INTERRUPTED = 130


def report_error(message: str) -> None:
    """Print one ``ppconf: error: ...`` line on stderr."""
    print(f"ppconf: error: {message}", file=sys.stderr)
