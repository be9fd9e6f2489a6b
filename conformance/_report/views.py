"""Every view a report renders to, by format name: what ``ppconf report --format``,
``ppconf run --report`` and ``pytest --ppconf-report`` offer.

A view is a function of the :class:`~conformance._judging.records.Report` alone, returning text or
bytes. Adding a format is one module holding its ``render_...`` function and one line in
:data:`VIEWS`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from conformance._judging.records import Report
from conformance._report.badge import render_badge
from conformance._report.html import render_html
from conformance._report.junit import render_junit
from conformance._report.markdown import render_markdown
from conformance._report.text import render_text

__all__ = ["VIEWS", "Renderer", "View", "render_view", "write_view"]

Renderer = Callable[[Report], str | bytes]


@dataclass(frozen=True)
class View:
    """One format.

    Attributes:
        render: the report -> the file's contents.
        description: what it is, for ``--help``.
    """

    render: Renderer
    description: str


VIEWS: dict[str, View] = {
    "text": View(render_text, "the terminal summary"),
    "md": View(render_markdown, "Markdown, for a CI step summary"),
    "junit": View(render_junit, "JUnit XML"),
    "html": View(render_html, "one self-contained page with the state diagrams of the failures"),
    "badge": View(render_badge, "shields.io endpoint JSON of the headline level"),
}


def render_view(name: str, report: Report, render: Renderer | None = None) -> bytes:
    """A view of a report as the bytes of a file, ending with a newline.

    Arguments:
        name: a key of :data:`VIEWS`.
        report: the run.
        render: a renderer to use instead of the view's own (the same view with options).
    """
    content = (render or VIEWS[name].render)(report)
    data = content.encode("utf-8") if isinstance(content, str) else content
    return data if data.endswith(b"\n") else data + b"\n"


def write_view(name: str, report: Report, path: str | Path) -> None:
    """Write a view of a report to a file (raises OSError)."""
    Path(path).write_bytes(render_view(name, report))
