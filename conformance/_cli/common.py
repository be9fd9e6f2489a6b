"""What every ``ppconf`` command shares: exit statuses and the one-line error."""

from __future__ import annotations

import argparse
import math
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


def positive_int(text: str) -> int:
    """An argparse type: a whole number >= 1 (``--repeat``, ``--examples``)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is not >= 1")
    return value


def positive_seconds(text: str) -> float:
    """An argparse type: a positive, finite number of seconds (``--timeout``, ``--max-time``);
    0, negatives, ``nan`` and ``inf`` are refused, since none of them is a usable limit."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"{text} is not a positive, finite number of seconds")
    return value
