"""``ppconf serve``: the reference behind the adapter protocol, line by line and end to end.

Every response read here is checked against ``Response`` in ``schema/protocol.schema.json``, and
every request written (except the deliberately bad ones) against ``Request``.
"""

from __future__ import annotations

import json
import os
import queue
import shlex
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from conformance import Catalog, ReferenceAdapter, Runner, Selection, compute_levels, verdicts
from conformance._cli import main
from conformance._protocol import ProtocolError, check_message
from conformance._report.jsonl import levels_data

FAKES = Path(__file__).resolve().parent / "protocol_fakes"
SERVE = [sys.executable, "-m", "conformance", "serve"]
WAIT = 20.0  # seconds for any one answer (generous: the server answers in milliseconds)

PACK: dict[str, Any] = {
    "id": "serve-test",
    "name": "Serve test",
    "version": "1.0.0",
    "template_engine": {"version": "v1", "syntax": "{{variable}}"},
    "prompts": {"main": {"id": "main", "name": "Main", "version": "1.0.0", "system_template": "W"}},
    "workflow": {
        "version": 2,
        "entry": "draft",
        "engine": {"budget": {"max_tool_calls": 3}},
        "states": {
            "draft": {
                "prompt_task": "main",
                "on_event": {"Submit": "review"},
                "artifacts": {"notes": {"type": "text/plain", "mode": "replace"}},
            },
            "review": {"prompt_task": "main", "on_event": {"Approve": "done"}},
            "done": {"prompt_task": "main", "terminal": True},
        },
    },
}
YAML_PACK = """\
id: serve-yaml
name: Serve YAML
version: 1.0.0
template_engine: {version: v1, syntax: "{{variable}}"}
prompts:
  main: {id: main, name: Main, version: 1.0.0, system_template: W}
workflow:
  version: 1
  entry: a
  states:
    a: {prompt_task: main, on_event: {Go: b}}
    b: {prompt_task: main, terminal: true}
"""
BROKEN = {**PACK, "workflow": {**PACK["workflow"], "entry": "nowhere"}}


def pack(document: dict[str, Any] = PACK) -> dict[str, Any]:
    return {"text": json.dumps(document), "format": "json", "document": document}


class Served:
    """A ``ppconf serve`` process, and the conversation with it."""

    def __init__(self, *args: str, env: dict[str, str] | None = None) -> None:
        self.process = subprocess.Popen(
            [*SERVE, *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        self._lines: queue.SimpleQueue[bytes] = queue.SimpleQueue()
        threading.Thread(target=self._read, daemon=True).start()
        self.last_id = 0

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._lines.put(line)
        self._lines.put(b"")

    def write(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def reply(self) -> dict[str, Any]:
        """The next line on stdout: one JSON object that the protocol schema allows."""
        line = self._lines.get(timeout=WAIT)
        assert line.endswith(b"\n"), line
        message = json.loads(line)
        check_message(message, "Response")
        return message  # type: ignore[no-any-return]

    def ask(self, op: str, **fields: Any) -> dict[str, Any]:
        """Send a (schema-valid) request with the next id; return its answer."""
        self.last_id += 1
        request = {"id": self.last_id, "op": op, **fields}
        check_message(request, "Request")
        self.write(json.dumps(request).encode() + b"\n")
        reply = self.reply()
        assert reply["id"] == self.last_id
        return reply

    def ok(self, op: str, **fields: Any) -> dict[str, Any]:
        """``ask``, expecting ``ok: true``; the answer without id and ok."""
        reply = self.ask(op, **fields)
        assert reply["ok"] is True, reply
        return {k: v for k, v in reply.items() if k not in ("id", "ok")}

    def error(self, op: str, **fields: Any) -> dict[str, Any]:
        """``ask``, expecting ``ok: false``; the error object."""
        reply = self.ask(op, **fields)
        assert reply["ok"] is False, reply
        return reply["error"]  # type: ignore[no-any-return]

    def finish(self) -> tuple[int, bytes]:
        """Close stdin, wait for the exit; the status and everything on stderr."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        status = self.process.wait(timeout=WAIT)
        assert self._lines.get(timeout=WAIT) == b"", "output after the last answer"
        assert self.process.stderr is not None
        return status, self.process.stderr.read()


@pytest.fixture
def serve() -> Iterator[Callable[..., Served]]:
    """Start ``ppconf serve ARGS`` processes; kill those still running at the end."""
    started: list[Served] = []

    def start(*args: str, env: dict[str, str] | None = None) -> Served:
        served = Served(*args, env=env)
        started.append(served)
        return served

    yield start
    for served in started:
        if served.process.poll() is None:
            served.process.kill()
            served.process.wait()
        for stream in (served.process.stdin, served.process.stdout, served.process.stderr):
            if stream is not None:
                stream.close()


# -- a whole conversation -----------------------------------------------------------------------


def test_a_scripted_transcript(serve: Callable[..., Served]) -> None:
    served = serve()
    hello = served.ok("hello", protocol=1)
    assert hello["protocol"] == 1
    assert hello["runtime"]["name"] == "ppconf-reference"
    assert hello["runtime"]["language"] == "python"
    reference = ReferenceAdapter().capabilities()
    assert hello["runtime"]["version"] == reference.version
    assert hello["claims"] == dict(reference.claims)
    assert hello["extensions"] == list(reference.extensions)

    assert served.ok("load", pack=pack()) == {}
    assert served.error("load", pack=pack(BROKEN))["code"] == "pack-rejected"
    assert served.ok("validate", pack=pack()) == {"diagnostics": []}
    diagnostics = served.ok("validate", pack=pack(BROKEN))["diagnostics"]
    assert any(d["severity"] == "error" and d["path"] == "/workflow/entry" for d in diagnostics)

    session = served.ok("start", pack=pack())["session"]
    assert served.ok("state", session=session)["state"]["current_state"] == "draft"
    assert served.ok("set_artifact", session=session, name="notes", value="v1") == {}
    assert served.error("set_artifact", session=session, name="nope", value="x")["code"] == (
        "artifact-undeclared"
    )
    assert served.error("send", session=session, event="Approve", source="host")["code"] == (
        "unknown-event"
    )
    transition = served.ok("send", session=session, event="Submit", source="host")["transition"]
    assert {k: transition[k] for k in ("from", "to", "event")} == {
        "from": "draft",
        "to": "review",
        "event": "Submit",
    }
    assert served.ok("tool_calls", session=session, count=1) == {}
    assert served.ok("advance_clock", session=session, seconds=2.5) == {}
    state = served.ok("state", session=session)["state"]
    assert state["current_state"] == "review"
    assert state["artifacts"] == {"notes": "v1"}
    assert state["tool_calls"] == 1
    assert state["history"] == [{"from": "draft", "to": "review", "event": "Submit"}]

    snapshot = served.ok("snapshot", session=session)["snapshot"]
    json.dumps(snapshot)  # any JSON value, opaque to the kit
    copy = served.ok("restore", pack=pack(), snapshot=snapshot)["session"]
    assert copy != session
    assert served.ok("state", session=copy)["state"] == state
    assert served.ok("tool_calls", session=copy, count=2) == {}
    budget = served.error("send", session=copy, event="Approve", source="host")
    assert (budget["code"], budget["limit"]) == ("budget-exhausted", "max_tool_calls")
    moved = served.ok("send", session=session, event="Approve", source="host")  # the original
    assert moved["transition"]["to"] == "done"

    assert served.ok("close", session=session) == {}
    assert served.error("state", session=session)["code"] == "bad-request"
    assert served.ok("state", session=copy)["state"]["status"] == "budget_exhausted"
    assert served.ok("shutdown") == {}
    status, _ = served.finish()
    assert status == 0


def test_a_yaml_pack_without_the_kits_parse(serve: Callable[..., Served]) -> None:
    served = serve()
    yaml_pack = {"text": YAML_PACK, "format": "yaml", "document": None}
    assert served.ok("load", pack=yaml_pack) == {}
    session = served.ok("start", pack=yaml_pack)["session"]
    assert served.ok("send", session=session, event="Go", source="agent")["transition"]["to"] == "b"
    assert served.ok("state", session=session)["state"]["terminal"] is True


def test_the_end_of_input_ends_the_server(serve: Callable[..., Served]) -> None:
    served = serve()
    served.ok("hello", protocol=1)
    assert served.finish()[0] == 0


def test_blank_lines_are_not_requests(serve: Callable[..., Served]) -> None:
    served = serve()
    served.write(b"\n   \n")
    assert served.ok("hello", protocol=1)["protocol"] == 1  # the first answer is to the hello


# -- bad requests -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "answer_id", "words"),
    [
        (b"this is not json", None, "not JSON"),
        (b"[1, 2]", None, "not a JSON object"),
        (b'{"op": "hello", "protocol": 1}', None, "integer id"),
        (b'{"id": "7", "op": "hello", "protocol": 1}', None, "integer id"),
        (b'{"id": 7, "op": "dance"}', 7, "known op"),
        (b'{"id": 7}', 7, "known op"),
        (b'{"id": 7, "op": "load"}', 7, "KeyError"),
        (b'{"id": 7, "op": "load", "pack": {"text": "{}", "format": "xml"}}', 7, "json or yaml"),
        (b'{"id": 7, "op": "send", "session": "s1", "event": "Go"}', 7, "no session 's1'"),
        (b'{"id": 7, "op": "state", "session": "nope"}', 7, "no session 'nope'"),
        (b'{"id": 7, "op": "close"}', 7, "no session None"),
    ],
)
def test_a_bad_request_gets_bad_request_and_the_server_goes_on(
    serve: Callable[..., Served], line: bytes, answer_id: int | None, words: str
) -> None:
    served = serve()
    served.ok("hello", protocol=1)
    served.last_id = 7
    served.write(line + b"\n")
    reply = served.reply()
    assert reply["id"] == answer_id
    assert reply["ok"] is False
    assert reply["error"]["code"] == "bad-request"
    assert words in reply["error"]["message"]
    session = served.ok("start", pack=pack())["session"]  # still serving, state intact
    assert served.ok("state", session=session)["state"]["current_state"] == "draft"


def test_a_missing_field_of_a_real_session(serve: Callable[..., Served]) -> None:
    served = serve()
    session = served.ok("start", pack=pack())["session"]
    served.write(json.dumps({"id": 99, "op": "send", "session": session}).encode() + b"\n")
    reply = served.reply()
    assert (reply["id"], reply["error"]["code"]) == (99, "bad-request")
    served.last_id = 99
    assert served.ok("send", session=session, event="Submit", source="host")  # session intact


def test_another_protocol_version_is_refused(serve: Callable[..., Served]) -> None:
    served = serve()
    error = served.error("hello", protocol=2)
    assert error["code"] == "protocol-unsupported"
    assert "1" in error["message"]
    assert served.ok("hello", protocol=1)["protocol"] == 1


@pytest.mark.parametrize("request_id", ["true", "-1"])
def test_an_id_outside_the_schema_is_a_bad_request(
    serve: Callable[..., Served], request_id: str
) -> None:
    served = serve()
    served.write(b'{"id": %s, "op": "hello", "protocol": 1}\n' % request_id.encode())
    line = served._lines.get(timeout=WAIT)
    reply = json.loads(line)
    try:
        check_message(reply, "Response")
    except ProtocolError as error:
        pytest.fail(f"{error}: {line!r}")
    assert (reply["id"], reply["error"]["code"]) == (None, "bad-request")


# -- other adapters behind serve ----------------------------------------------------------------


def with_pythonpath(*folders: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, folders))}


def test_what_the_served_adapter_prints_goes_to_stderr(serve: Callable[..., Served]) -> None:
    served = serve("--adapter", "noisy_adapter:Noisy", env=with_pythonpath(FAKES))
    assert served.ok("load", pack=pack()) == {}
    assert served.ok("load", pack=pack()) == {}
    assert served.ok("shutdown") == {}
    status, stderr = served.finish()  # finish: nothing but answers on stdout
    assert status == 0
    assert stderr.decode().splitlines() == ["noisy_adapter: loading a pack"] * 2


def test_an_exception_is_an_internal_error(serve: Callable[..., Served]) -> None:
    served = serve("--adapter", "fakes:RaisesSometimes", env=with_pythonpath(FAKES.parent))
    error = served.error("load", pack=pack({**PACK, "id": "x-marks"}))
    assert error["code"] == "internal-error"
    assert error["message"].startswith("RuntimeError: crashed on pack 'x-marks' at ")
    assert "fakes.py:" in error["message"]
    assert served.ok("load", pack=pack()) == {}


def test_unsupported_is_skipped(serve: Callable[..., Served]) -> None:
    env = with_pythonpath(FAKES.parent)
    served = serve("--adapter", "fakes:ValidatesOnlyNoSessions", env=env)
    reply = served.ask("start", pack=pack())
    assert reply == {
        "id": 1,
        "skipped": {"reason": "this runtime validates workflows but does not run them"},
    }
    assert served.ok("hello", protocol=1)["runtime"]["name"] == "validates-only-no-sessions"


def test_an_adapter_that_cannot_be_loaded(serve: Callable[..., Served]) -> None:
    served = serve("--adapter", "no_such_module:Adapter")
    status, stderr = served.finish()
    assert status == 2
    assert stderr.decode().startswith("ppconf: error: cannot import adapter module")


# -- the acceptance test ------------------------------------------------------------------------


def test_the_whole_catalog_through_serve_matches_the_reference(
    cached_catalog: Catalog, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every case part of the spec version: the same outcome and checks as the in-process
    reference, and the same levels in the summary."""
    cases = cached_catalog.select(Selection())
    results = Runner(ReferenceAdapter(), timeout=None).run_all(cases)
    reference = {
        (r.case.id, p.part): [p.outcome, [[c.id, c.requirement, c.passed] for c in p.checks]]
        for r in results
        for p in r.parts
    }
    report = tmp_path / "report.jsonl"
    adapter = "cmd:" + shlex.join(SERVE)
    status = main(
        ["run", "--adapter", adapter, "--validate-protocol", "--report", "json", str(report)]
    )
    out = capsys.readouterr().out
    records = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()]
    served = {
        (r["case"], r["part"]): [
            r["outcome"],
            [[c["id"], c["requirement"], c["passed"]] for c in r["checks"]],
        ]
        for r in records
        if r["type"] == "part"
    }
    assert len(served) == len(records) - 2 == len(reference)
    assert served == reference
    assert status == (0 if all(r.passed for r in results) else 1)
    passed = sum(r.passed for r in results)
    assert f"\n{len(results)} cases ({passed} passed) against ppconf-reference\n" in out
    summary = records[-1]
    assert summary["type"] == "summary"
    claims = ReferenceAdapter().capabilities().claims
    assert summary["levels"] == levels_data(compute_levels(verdicts(results), claims=claims))


# -- run_script ---------------------------------------------------------------------------------


def test_hello_declares_run_script_unless_told_not_to(serve: Callable[..., Served]) -> None:
    assert serve().ok("hello", protocol=1)["operations"] == ["run_script"]
    served = serve("--no-scripts")
    assert "operations" not in served.ok("hello", protocol=1)
    error = served.error("run_script", pack=pack(), requests=[])
    assert (error["code"], error["message"]) == (
        "bad-request",
        "a request needs an integer id >= 0 and a known op",
    )


SCRIPT: list[dict[str, Any]] = [
    {"op": "validate"},
    {"op": "start"},
    {"op": "state"},
    {"op": "set_artifact", "name": "notes", "value": "v1"},
    {"op": "set_artifact", "name": "nope", "value": "x"},
    {"op": "send", "event": "Approve", "source": "host"},
    {"op": "send", "event": "Submit", "source": "host"},
    {"op": "tool_calls", "count": 3},
    {"op": "advance_clock", "seconds": 2.5},
    {"op": "send", "event": "Approve", "source": "agent"},
    {"op": "state"},
]


def alone(
    served: Served, requests: list[dict[str, Any]], document: dict[str, Any] = PACK
) -> list[dict[str, Any]]:
    """Each request sent by itself, as a script would hold it; the answers without their ids."""
    session = None
    answers = []
    for request in requests:
        fields = {k: v for k, v in request.items() if k != "op"}
        if request["op"] in ("validate", "start", "run_composition"):
            fields["pack"] = pack(document)
        else:
            fields["session"] = session
        answer = {k: v for k, v in served.ask(request["op"], **fields).items() if k != "id"}
        if request["op"] == "start":
            session = answer["session"]
        answers.append(answer)
    return answers


def test_a_script_is_answered_as_its_requests_alone(serve: Callable[..., Served]) -> None:
    served = serve()
    answers = served.ok("run_script", pack=pack(), requests=SCRIPT)["answers"]
    session = answers[1]["session"]
    assert served.error("state", session=session)["code"] == "bad-request"  # closed at the end
    one_by_one = alone(served, SCRIPT)
    one_by_one[1]["session"] = session  # the only difference: the session's name
    assert answers == one_by_one
    assert [a.get("error", {}).get("code") for a in answers][4:6] == [
        "artifact-undeclared",
        "unknown-event",
    ]  # refusals do not stop a script
    assert answers[-1]["state"]["status"] == "budget_exhausted"


@pytest.mark.parametrize(
    ("requests", "answered", "last"),
    [
        ([{"op": "start", "at_state": "nowhere"}, {"op": "state"}], 1, "start-state-unknown"),
        ([{"op": "state"}, {"op": "start"}], 1, "bad-request"),
        ([{"op": "start"}, {"op": "start"}, {"op": "state"}], 2, "bad-request"),
        ([{"op": "start"}, {"op": "close"}, {"op": "state"}], 2, "bad-request"),
        ([{"op": "start"}, {"op": "run_script"}, {"op": "state"}], 2, "bad-request"),
        ([{"op": "start"}, {"op": "send", "event": "Go"}, {"op": "state"}], 2, "bad-request"),
        ([{"op": "validate"}, {"op": "state"}], 2, "bad-request"),
    ],
)
def test_a_script_stops_after_a_fault_or_a_refused_start(
    serve: Callable[..., Served], requests: list[dict[str, Any]], answered: int, last: str
) -> None:
    """Some of these requests break the schema on purpose: they are written as they are."""
    served = serve()
    request = {"id": 1, "op": "run_script", "pack": pack(), "requests": requests}
    served.write(json.dumps(request).encode() + b"\n")
    reply = served.reply()
    assert reply["ok"] is True
    answers = reply["answers"]
    assert len(answers) == answered
    assert answers[-1]["ok"] is False
    assert answers[-1]["error"]["code"] == last


def test_a_script_stops_after_a_skipped_answer(serve: Callable[..., Served]) -> None:
    served = serve("--adapter", "fakes:ValidatesOnlyNoSessions", env=with_pythonpath(FAKES.parent))
    requests = [{"op": "validate"}, {"op": "start"}, {"op": "state"}]
    answers = served.ok("run_script", pack=pack(), requests=requests)["answers"]
    assert [("ok" in a, "skipped" in a) for a in answers] == [(True, False), (False, True)]


def test_a_script_without_a_start_runs_compositions(serve: Callable[..., Served]) -> None:
    served = serve()
    composition = {
        **PACK,
        "compositions": {
            "c": {"version": 1, "steps": [{"id": "s", "kind": "prompt", "prompt_task": "main"}]}
        },
    }
    run = {"op": "run_composition", "name": "c", "input": {}, "mocks": {"main": [{"output": 1}]}}
    answers = served.ok("run_script", pack=pack(composition), requests=[run, run])["answers"]
    assert [a["result"]["output"] for a in answers] == [1, 1]  # each run has its own mocks
    assert answers == alone(served, [run, run], composition)


def test_a_script_that_is_not_a_list_of_requests(serve: Callable[..., Served]) -> None:
    served = serve()
    served.write(
        b'{"id": 5, "op": "run_script", "pack": %s, "requests": [1]}\n'
        % json.dumps(pack()).encode()
    )
    reply = served.reply()
    assert (reply["id"], reply["error"]["code"]) == (5, "bad-request")
    assert "requests must be a list of request objects" in reply["error"]["message"]
