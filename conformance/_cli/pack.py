"""``ppconf validate`` and ``ppconf trace``: the reference interpreter on a pack."""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from pathlib import PurePath
from typing import Any, TextIO

import reference
from conformance._basics.tables import render_table
from conformance._catalog.cases import load_catalog
from conformance._cli.common import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_UNUSABLE,
    add_format_option,
    print_json,
    report_error,
)
from conformance._options import add_max_values_option, read_limits
from conformance._views.validate import DEFAULT_PATTERNS, STDIN, find_inputs, validate_input
from conformance._views.validate_views import VIEWS, render_text

__all__ = ["TRACEABLE", "Action", "add_composition_parser", "add_pack_parsers"]


def _glob(text: str) -> str:
    """An argparse type: a file-name pattern (``*.pack.yaml``, ``packs/*.json``) that a path
    can match; an empty one is refused, as every pattern the path matcher refuses."""
    try:
        PurePath("x").match(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(
            f"{text!r} is no file-name pattern ({error}); give one such as *.pack.yaml"
        ) from None
    return text


def add_pack_parsers(commands: Any) -> None:
    validate = commands.add_parser(
        "validate",
        help="validate packs with the reference interpreter",
        description="Validate packs: files, directories (searched recursively for --pattern "
        "files, hidden directories skipped) and - (standard input). Every diagnostic has its "
        "file, line, column, code and JSON pointer. Exit 0 if all are valid, 1 if any has "
        "errors, 2 if any cannot be read.",
    )
    validate.add_argument(
        "packs",
        nargs="+",
        metavar="PACK",
        help="a pack file (JSON or YAML), a directory of packs, or - for standard input",
    )
    add_format_option(
        validate,
        schema="validate.schema.json",
        views={
            "github": "GitHub Actions workflow commands (::error file=...,line=...::), which "
            "annotate the files of a run",
            "sarif": "SARIF 2.1.0, for code scanning (github/codeql-action/upload-sarif) and "
            "SARIF viewers",
        },
    )
    validate.add_argument(
        "--pattern",
        action="append",
        type=_glob,
        metavar="GLOB",
        help="in a directory, validate the files whose name (or path below it) matches GLOB "
        f"(repeatable; default {', '.join(DEFAULT_PATTERNS)})",
    )
    validate.add_argument(
        "--stdin-filename",
        metavar="NAME",
        default=STDIN,
        help="the name shown for - (standard input); a .json or .yaml name says its format, "
        "which is otherwise guessed",
    )
    add_max_values_option(validate)
    validate.set_defaults(handler=_validate)

    trace = commands.add_parser(
        "trace",
        help="run events through the reference and print the transition and artifact trace",
        description="Run an event script through the reference interpreter. Steps given with "
        "AFTER:... happen after the AFTER-th event (0 = before the first event).",
    )
    trace.add_argument("pack", metavar="PACK", nargs="?", help="a pack file (or --case)")
    trace.add_argument(
        "--events",
        help="comma-separated events; prefix one with 'agent:' to send it as the agent",
    )
    trace.add_argument(
        "--case",
        metavar="ID",
        help="trace a catalog case's scenario instead: its pack, start and script (events, "
        "artifacts, tool calls, clock) on the reference",
    )
    trace.add_argument("--scenario", metavar="NAME", help="with --case: which scenario")
    trace.add_argument("--catalog", metavar="DIR", help="with --case: a catalog folder")
    trace.add_argument(
        "--artifact",
        action="append",
        default=[],
        metavar="AFTER:NAME=VALUE",
        help="set an artifact (repeatable)",
    )
    trace.add_argument(
        "--tool-calls",
        action="append",
        default=[],
        metavar="AFTER:COUNT",
        help="report tool calls (repeatable)",
    )
    trace.add_argument(
        "--advance",
        action="append",
        default=[],
        metavar="AFTER:SECONDS",
        help="advance the session clock (repeatable)",
    )
    start = trace.add_mutually_exclusive_group()
    start.add_argument(
        "--at-state",
        metavar="STATE",
        help="start at STATE instead of the entry (RFC 0011; only STATE counts as visited)",
    )
    start.add_argument(
        "--agent",
        metavar="MEMBER",
        help="start as the agents member MEMBER, at the state it names (RFC 0011)",
    )
    add_max_values_option(trace)
    add_format_option(trace, schema="trace.schema.json")
    trace.set_defaults(handler=_trace)


# -- validate ---------------------------------------------------------------------------------


def _validate(args: argparse.Namespace, out: TextIO) -> int:
    inputs = find_inputs(args.packs, args.pattern or DEFAULT_PATTERNS, args.stdin_filename)
    results = [validate_input(source, limits=read_limits(args)) for source in inputs]
    if args.format == "text":
        shown, errors = render_text(results)
        out.write(shown)
        sys.stderr.write(errors)
    else:
        out.write(VIEWS[args.format](results))
    if any(r.load_error is not None for r in results):
        return EXIT_UNUSABLE
    return EXIT_OK if all(r.valid for r in results) else EXIT_FAILED


# -- trace ------------------------------------------------------------------------------------


class _UsageError(Exception):
    pass


def _trace(args: argparse.Namespace, out: TextIO) -> int:
    try:
        if args.case is not None:
            pack, events, actions = _case_script(args)
        else:
            if args.pack is None or args.events is None:
                raise _UsageError("give a PACK and --events, or --case ID")
            pack = reference.load_pack(args.pack, limits=read_limits(args))
            events = [_parse_event(token) for token in args.events.split(",") if token.strip()]
            actions = _parse_actions(args, len(events))
    except reference.PackLoadError as error:
        report_error(f"cannot load {error}")
        return EXIT_UNUSABLE
    except _UsageError as error:
        report_error(str(error))
        return EXIT_UNUSABLE
    clock = reference.ManualClock()
    try:
        session = reference.start_session(
            pack, clock=clock, at_state=args.at_state, agent=args.agent
        )
    except reference.Rejection as rejection:
        report_error(f"{args.pack}: the session cannot start: {rejection}")
        return EXIT_FAILED
    except reference.PackInvalidError as error:
        report_error(f"{args.pack}: {error}")
        return EXIT_FAILED

    start = _start_label(args, session.current_state)
    steps: list[dict[str, Any]] = []
    try:
        _run_actions(session, clock, actions.get(0, []))
        for number, (source, event) in enumerate(events, start=1):
            step: dict[str, Any] = {"step": number, "event": event, "source": source}
            try:
                step["transition"] = session.send(event, source).to_dict()
            except reference.Rejection as rejection:
                step["rejection"] = {"code": rejection.code, "limit": rejection.limit}
            step["artifacts"] = session.state()["artifacts"]
            if session.workflow.tracks_turns:  # as the table's turn column
                step["turn"] = session.turn
            steps.append(step)
            _run_actions(session, clock, actions.get(number, []))
    except _UsageError as error:
        report_error(str(error))
        return EXIT_UNUSABLE
    final = session.state()
    if args.format == "json":
        print_json({"pack": args.pack, "steps": steps, "final": final}, out)
    else:
        print(_trace_table(session, start, steps), file=out)
        visits = ", ".join(f"{k}={v}" for k, v in final["visit_counts"].items())
        turn = f", turn {final['turn']}" if session.workflow.tracks_turns else ""
        print(
            f"final: state {final['current_state']}, status {final['status']}, "
            f"visits {visits}, tool calls {final['tool_calls']}{turn}",
            file=out,
        )
    return EXIT_OK


TRACEABLE = {"event", "set_artifact", "tool_calls", "advance_clock", "agent_text", "user_turn"}
"""The step kinds ``trace --case`` replays; the others need ``ppconf run --id``."""


def _case_script(
    args: argparse.Namespace,
) -> tuple[dict[str, Any], list[tuple[reference.Source, str]], dict[int, list[Action]]]:
    """A catalog case's pack, and its scenario's events and in-between steps, as ``trace``
    takes them (the start of the scenario goes to ``args``)."""
    catalog = load_catalog(args.catalog)  # a CaseError is reported by main()
    case = catalog.get(args.case)
    if case is None:
        raise _UsageError(f"no case {args.case!r} (see `ppconf cases list`)")
    names = [s.name for s in case.scenarios]
    if not names:
        raise _UsageError(f"case {case.id} has no scenario to trace")
    name = args.scenario or names[0]
    scenario = next((s for s in case.scenarios if s.name == name), None)
    if scenario is None:
        raise _UsageError(
            f"case {case.id} has no scenario {name!r}; its scenarios: {', '.join(names)}"
        )
    if case.pack.document is None:
        raise _UsageError(f"case {case.id}'s pack is not one the reference can load")
    other = sorted({s.kind for s in scenario.steps} - TRACEABLE)
    if other:
        raise _UsageError(
            f"scenario {name!r} of {case.id} has {', '.join(other)} steps, which trace does not "
            f"replay: run it with `ppconf run --id {case.id}`"
        )
    args.pack = f"{case.id} [{name}]"
    args.at_state, args.agent = scenario.start_state, scenario.start_agent
    events: list[tuple[reference.Source, str]] = []
    actions: dict[int, list[Action]] = {}
    for step in scenario.steps:
        data = step.arguments
        if step.kind == "event":
            events.append(("agent" if data["source"] == "agent" else "host", data["event"]))
            continue
        if step.kind == "set_artifact":
            action: Action = ("artifact", data["name"], data["value"])
        elif step.kind == "tool_calls":
            action = ("tool_calls", "", str(data["count"]))
        elif step.kind == "agent_text":
            action = ("agent_text", "", data["text"])
        elif step.kind == "user_turn":
            action = ("user_turn", "", "")
        else:
            action = ("advance", "", str(data["seconds"]))
        actions.setdefault(len(events), []).append(action)
    return dict(case.pack.document), events, actions


def _start_label(args: argparse.Namespace, state: str) -> tuple[str, str]:
    """The state the session started in, and how it got there, for the table's first row."""
    if args.agent is not None:
        return state, f"(agent {args.agent})"
    if args.at_state is not None:
        return state, "(at state)"
    return state, "(entry)"


def _parse_event(token: str) -> tuple[reference.Source, str]:
    token = token.strip()
    if token.startswith("agent:"):
        return "agent", token.removeprefix("agent:")
    return "host", token.removeprefix("host:")


Action = tuple[str, str, str]  # kind, name, value


def _parse_actions(args: argparse.Namespace, event_count: int) -> dict[int, list[Action]]:
    actions: dict[int, list[Action]] = {}
    for option, kind, values in (
        ("--artifact", "artifact", args.artifact),
        ("--tool-calls", "tool_calls", args.tool_calls),
        ("--advance", "advance", args.advance),
    ):
        for value in values:
            after, sep, rest = value.partition(":")
            if not sep or not re.fullmatch("[0-9]+", after) or int(after) > event_count:
                raise _UsageError(
                    f"{option} {value!r}: start with the event number it follows "
                    f"(0..{event_count}) and a colon, e.g. 1:..."
                )
            if kind == "artifact":
                name, eq, text = rest.partition("=")
                if not eq or not name:
                    raise _UsageError(f"{option} {value!r}: write AFTER:NAME=VALUE")
                action: Action = (kind, name, text)
            else:
                action = (kind, "", rest)
            actions.setdefault(int(after), []).append(action)
    return actions


def _run_actions(
    session: reference.Session, clock: reference.ManualClock, actions: list[Action]
) -> None:
    for kind, name, value in actions:
        try:
            if kind == "artifact":
                session.set_artifact(name, value)
            elif kind == "tool_calls":
                session.record_tool_calls(int(value))
            elif kind == "agent_text":
                session.agent_text(value)
            elif kind == "user_turn":
                session.user_turn()
            else:
                seconds = float(value)
                if not math.isfinite(seconds):
                    raise ValueError("not a finite number of seconds")
                clock.advance(seconds)
        except reference.Rejection as rejection:
            raise _UsageError(f"cannot set artifact {name!r}: {rejection.message}") from None
        except ValueError as error:
            raise _UsageError(f"bad --{kind.replace('_', '-')} value {value!r}: {error}") from None


def _trace_table(
    session: reference.Session, start: tuple[str, str], steps: list[dict[str, Any]]
) -> str:
    """The trace as a table. A ``turn`` column (RFC 0014) is shown for workflows with a
    ``control: agent`` state: in any other the user holds every turn, and the tables of packs
    that predate ``control`` stay as they were."""
    names = list(session.workflow.artifact_modes)
    turns = session.workflow.tracks_turns
    first, how = start
    rows = [
        ["0", f"-> {first} (1)", how, "start", *(["user"] if turns else []), *("-" for _ in names)]
    ]
    visits = {first: 1}
    for step in steps:
        event = step["event"] + (" [agent]" if step["source"] == "agent" else "")
        if "transition" in step:
            target = step["transition"]["to"]
            visits[target] = visits.get(target, 0) + 1
            moved = f"-> {target} ({visits[target]})"
            result = "ok"
            if step["transition"].get("redirected"):
                result = f"redirected from {step['transition']['original_target']}"
        else:
            moved = "x"
            rejection = step["rejection"]
            limit = f" ({rejection['limit']})" if rejection["limit"] else ""
            result = f"rejected: {rejection['code']}{limit}"
        values = [step["artifacts"].get(n, "-") for n in names]
        turn = [step["turn"]] if turns else []
        rows.append([str(step["step"]), moved, event, result, *turn, *values])
    header = ["#", "transition", "event", "result", *(["turn"] if turns else []), *names]
    return render_table(header, rows)


# -- run-composition ----------------------------------------------------------------------------


def add_composition_parser(commands: Any) -> None:
    run = commands.add_parser(
        "run-composition",
        help="run a composition on the reference with scripted mocks; print output and trace",
        description="Run composition NAME of PACK on the reference interpreter. Model and tool "
        "behaviour comes from --mocks (docs/semantics.md section 5); the kit's test extensions "
        "(ppconf.upper, ppconf.join) are registered.",
    )
    run.add_argument("pack", metavar="PACK")
    run.add_argument("name", metavar="NAME")
    run.add_argument("--input", default="null", metavar="JSON", help="the input, as JSON")
    run.add_argument("--mocks", metavar="FILE", help="YAML or JSON mapping of scripted responses")
    add_max_values_option(run, "a pack or a mocks file")
    add_format_option(run, schema="run-composition.schema.json")
    run.set_defaults(handler=_run_composition)


def _run_composition(args: argparse.Namespace, out: TextIO) -> int:
    try:
        limits = read_limits(args)
        pack = reference.load_pack(args.pack, limits=limits)
        mocks = reference.read_document(args.mocks, limits=limits).data if args.mocks else {}
    except reference.PackLoadError as error:
        report_error(f"cannot load {error}")
        return EXIT_UNUSABLE
    try:
        value = reference.parse_document(args.input, format="json", source="--input").data
    except reference.PackLoadError as error:
        report_error(f'{error} (--input takes one JSON value, e.g. \'{{"text": "hi"}}\')')
        return EXIT_UNUSABLE
    if not isinstance(mocks, dict):
        report_error(f"{args.mocks}: the mocks are a mapping of step id, prompt or tool to a list")
        return EXIT_UNUSABLE
    errors = [d for d in reference.validate(pack) if d.severity == "error"]
    if errors:
        report_error(f"{args.pack}: the pack has errors, first: {errors[0]}")
        return EXIT_FAILED
    try:
        result = reference.run_composition(
            pack, args.name, value, mocks, extensions=reference.test_extensions()
        )
    except reference.CompositionRunError as error:
        if error.code == "mock-invalid":  # the mocks file is unusable, not the pack invalid
            report_error(f"{args.mocks}: {error.where}: {error.message} (docs/semantics.md 5.1)")
            return EXIT_UNUSABLE
        report_error(f"{error.code} at {error.where or '/'}: {error.message}")
        return EXIT_FAILED
    data = result.to_dict()
    if args.format == "json":
        print_json(data, out)
    else:
        print(_composition_table(data["trace"]), file=out)
        if data["status"] == "completed":
            print(f"output: {json.dumps(data['output'], ensure_ascii=False)}", file=out)
        else:
            failure = data["error"]
            print(
                f"failed: {failure['code']} at step {failure.get('step')}: {failure['message']}",
                file=out,
            )
    return EXIT_OK if data["status"] == "completed" else EXIT_FAILED


def _composition_table(trace: list[dict[str, Any]]) -> str:
    rows: list[list[str]] = []

    def add(entry: dict[str, Any], indent: str) -> None:
        detail = ""
        if "decision" in entry:
            detail = json.dumps(entry["decision"], ensure_ascii=False)
        elif "error" in entry:
            detail = f"{entry['error']['code']}: {entry['error']['message']}"
        elif "output" in entry:
            detail = json.dumps(entry["output"], ensure_ascii=False)
        elif "reason" in entry:
            detail = entry["reason"]
        if len(detail) > 70:
            detail = detail[:67] + "..."
        rows.append(
            [indent + entry["step"], entry["kind"], entry["status"], str(entry["attempts"]), detail]
        )
        for member in entry.get("members", ()):
            add(member, indent + "  ")

    for entry in trace:
        add(entry, "")
    return render_table(["step", "kind", "status", "attempts", "output / decision / error"], rows)
