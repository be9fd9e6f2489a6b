"""``ppconf graph``: draw a pack's workflow, or one of its compositions, as Mermaid, DOT or SVG."""

from __future__ import annotations

import argparse
import dataclasses
import io
from typing import TYPE_CHECKING, Any, TextIO

import reference
from conformance._cli.common import (
    EXIT_OK,
    EXIT_UNUSABLE,
    add_format_option,
    print_json,
    report_error,
)
from conformance._options import add_max_values_option, read_limits

if TYPE_CHECKING:
    from conformance._drawing import DrawingError

__all__ = ["FORMATS", "LISTED_NAMES", "add_graph_parser"]

FORMATS = ("mermaid", "dot", "svg")  # conformance._drawing.FORMATS, which loads only when used
_FORMAT_HELP = ("Mermaid, which renders in Markdown", "DOT, for Graphviz", "SVG")
LISTED_NAMES = 20  # an error lists this many known names, then says how many there are


def add_graph_parser(commands: Any) -> None:
    graph = commands.add_parser(
        "graph",
        help="draw a pack's workflow or a composition (Mermaid, DOT or SVG)",
        description="Draw the workflow of PACK: states (entry marked, terminal states "
        "double-bordered, max_visits, orchestration, control and composition shown), event "
        "edges labelled with their events, on_max_visits redirects dashed. With --composition, "
        "draw that composition's steps instead. The pack need not be valid. SVG is laid out by "
        "ppconf itself; Mermaid renders in Markdown; DOT is for Graphviz.",
    )
    graph.add_argument("pack", metavar="PACK", help="a pack file (JSON or YAML)")
    add_format_option(
        graph,
        schema="graph.schema.json",
        views=dict(zip(FORMATS, _FORMAT_HELP, strict=True)),
        default="mermaid",
        text=False,
    )
    graph.add_argument(
        "--state", metavar="S", help="draw only the states reachable from state S (S marked)"
    )
    graph.add_argument(
        "--composition", metavar="C", help="draw the step graph of composition C instead"
    )
    graph.add_argument("-o", "--output", metavar="OUT", help="write to OUT (default: stdout)")
    add_max_values_option(graph)
    graph.set_defaults(handler=_graph)


def _graph(args: argparse.Namespace, out: TextIO) -> int:
    if args.state is not None and args.composition is not None:
        report_error("--state picks a workflow state; draw a composition without it")
        return EXIT_UNUSABLE
    try:
        document = _read_pack(args.pack, read_limits(args))
    except reference.PackLoadError as error:
        report_error(f"cannot load {error}")
        return EXIT_UNUSABLE
    pack = document.data
    # Imported here so that other commands do not pay for loading the drawing code.
    from conformance._drawing import (  # noqa: PLC0415
        DrawingError,
        composition_graph,
        render,
        workflow_graph,
    )

    try:
        if args.composition is not None:
            drawn = composition_graph(pack, args.composition)
        else:
            drawn = workflow_graph(pack, start=args.state)
    except DrawingError as error:
        report_error(_explain(args, document, error))
        return EXIT_UNUSABLE
    if args.format == "json":
        buffer = io.StringIO()
        print_json(dataclasses.asdict(drawn), buffer)
        text = buffer.getvalue()
    else:
        text = render(drawn, args.format)
    if args.output is None:
        out.write(text)
        return EXIT_OK
    try:
        with open(args.output, "w", encoding="utf-8", newline="\n") as stream:
            stream.write(text)
    except OSError as error:
        report_error(f"cannot write {args.output}: {error.strerror or error}")
        return EXIT_UNUSABLE
    return EXIT_OK


def _read_pack(path: str, limits: reference.Limits) -> reference.Document:
    """Read a pack; a root that is not a mapping is an error that says on which line it starts.

    Raises:
        PackLoadError: the file cannot be read or parsed, or its root is not a mapping.
    """
    document = reference.read_document(path, limits=limits)
    if not isinstance(document.data, dict):
        where = document.locate("")
        raise reference.PackLoadError(
            f"a pack is a mapping of fields, but the document holds {_kind(document.data)}",
            reference.Location(document.source, where.line, where.column),
            "start the pack with 'id:', 'name:', 'version:' ...",
        )
    return document


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, list):
        return "a list"
    return "a string" if isinstance(value, str) else "nothing (null)"


def _explain(args: argparse.Namespace, document: reference.Document, error: DrawingError) -> str:
    """The one-line error for a drawing the pack cannot give, with the names it can."""
    names = _names(error.known)
    if args.composition is not None:
        where = _where(document, "/compositions")
        if not error.known:
            return f"{where}: the pack has no compositions to draw"
        return f"{where}: {error.message}; its compositions: {names}"
    if args.state is not None:
        return f"{_where(document, '/workflow/states')}: {error.message}; its states: {names}"
    if error.known:
        return (
            f"{args.pack}: the pack has no workflow to draw; draw a composition with "
            f"--composition NAME (its compositions: {names})"
        )
    return f"{args.pack}: the pack has no workflow and no compositions to draw"


def _where(document: reference.Document, pointer: str) -> str:
    """``file:line`` of the value at ``pointer``, or just the file where the line is unknown."""
    location = document.locate(pointer)
    return f"{document.source}:{location.line}" if location.line else str(document.source)


def _names(names: tuple[str, ...]) -> str:
    shown = ", ".join(names[:LISTED_NAMES])
    return shown + (f" ... ({len(names)} in all)" if len(names) > LISTED_NAMES else "")
