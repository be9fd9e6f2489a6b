"""The GitHub Action's ``level`` and ``verdict`` outputs, read from a run's JSON Lines report.

Usage: ``python outputs.py REPORT [PPCONF]``. Prints two ``$GITHUB_OUTPUT`` lines,
``level=...`` and ``verdict=...``, and always exits 0: the step's status is the run's, never
this reader's. The values come from the report's summary record (its last line); a report
without one (a run cut short) is summarised by ``PPCONF report REPORT --format json`` when the
command is given. Whatever the report holds, each value is one of a known few (a level is an
integer, a verdict ``passed``, ``failed`` or ``incomplete``) or empty, so no report can write
a line of its own into the outputs. Standard library only: it runs with any Python 3.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

__all__ = ["main", "outputs"]

VERDICTS = ("passed", "failed", "incomplete")
TAIL = 1 << 20  # the summary record is one short line: the end of a large report holds it
TIMEOUT = 300


def _summary_line(report: Path) -> Any:
    """The report's last line read as JSON, or None."""
    try:
        with report.open("rb") as stream:
            stream.seek(0, 2)
            size = stream.tell()
            stream.seek(max(0, size - TAIL))
            tail = stream.read()
        lines = tail.decode("utf-8", "replace").splitlines()
        last = next((line for line in reversed(lines) if line.strip()), "")
        return json.loads(last)
    except (OSError, ValueError, RecursionError):
        return None


def _computed(report: Path, ppconf: str) -> Any:
    """What ``ppconf report REPORT --format json`` prints, read as JSON, or None."""
    try:
        result = subprocess.run(
            [ppconf, "report", "--format", "json", "--", str(report)],
            capture_output=True,
            timeout=TIMEOUT,
            check=False,
        )
        return json.loads(result.stdout.decode("utf-8", "replace"))
    except (OSError, ValueError, RecursionError, subprocess.SubprocessError):
        return None


def outputs(summary: Any) -> dict[str, str]:
    """``level`` and ``verdict`` of a summary record; empty for whatever is not one."""
    level = verdict = ""
    if isinstance(summary, dict):
        levels = summary.get("levels")
        headline = levels.get("headline") if isinstance(levels, dict) else None
        if isinstance(headline, int) and not isinstance(headline, bool) and -1 <= headline <= 3:
            level = str(headline)
        judged = summary.get("verdict")
        status = judged.get("status") if isinstance(judged, dict) else None
        if status in VERDICTS:
            verdict = str(status)
    return {"level": level, "verdict": verdict}


def main(argv: list[str]) -> int:
    """Print the outputs of the report ``argv[0]`` (see the module's docstring)."""
    summary: Any = None
    if argv:
        report = Path(argv[0])
        summary = _summary_line(report)
        if not (isinstance(summary, dict) and summary.get("type") == "summary"):
            summary = _computed(report, argv[1]) if len(argv) > 1 else None
    for name, value in outputs(summary).items():
        print(f"{name}={value}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
