"""``ppconf serve``: an in-process adapter (the reference by default) behind the protocol.

It reads requests from stdin and answers on stdout, one JSON line each, until ``shutdown`` or
the end of stdin. It proves the protocol end to end, and bridges any Python adapter to tools
that speak only the protocol.
"""

from __future__ import annotations

import itertools
import traceback
from collections.abc import Callable, Mapping
from typing import IO, Any

from conformance._basics.errors import PackRejected, Rejected, Unsupported
from conformance._basics.files import shown_source
from conformance._protocol.messages import (
    FAULT_CODES,
    PACK_REJECTED,
    PROTOCOL_VERSION,
    RUN_SCRIPT,
    ProtocolError,
    decode,
    encode,
    hello_answer,
)
from conformance._runtime.adapter import Adapter, AdapterSession, PackInput, StateStartingAdapter
from conformance._runtime.operations import BY_NAME, OPERATIONS, SCRIPT_OPS, Operation

__all__ = ["Server"]


class _BadRequest(Exception):
    pass


class Server:
    """Answers protocol requests with an adapter.

    Arguments:
        adapter: the runtime to serve.
        scripts: offer ``run_script`` (declared in the ``hello`` answer's ``operations``).
    """

    def __init__(self, adapter: Adapter, *, scripts: bool = True) -> None:
        self.adapter = adapter
        self.scripts = scripts
        self.sessions: dict[str, AdapterSession] = {}
        self._ids = itertools.count(1)
        special: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
            "hello": self.hello,
            "start": self.start,
            "restore": self.restore,
            "close": self.close,
            "run_script": self.run_script,
            "shutdown": lambda request: {},
        }
        self._ops = {
            operation.name: special.get(operation.name) or self._handler(operation)
            for operation in OPERATIONS
            if scripts or operation.name != RUN_SCRIPT
        }

    def serve(self, stdin: IO[bytes], stdout: IO[bytes]) -> int:
        """Answer requests until ``shutdown`` or end of input; return the exit status."""
        for line in iter(stdin.readline, b""):
            if not line.strip():
                continue
            reply, stop = self.answer(line)
            try:
                data = encode(reply)
            except (TypeError, ValueError) as error:  # NaN, or not JSON data at all
                message = f"the adapter's answer is not JSON: {error}"
                data = encode(_error(reply.get("id"), "internal-error", message))
            stdout.write(data)
            stdout.flush()
            if stop:
                break
        return 0

    def answer(self, line: bytes) -> tuple[dict[str, Any], bool]:
        """The response to one request line, and whether to stop afterwards."""
        try:
            request = decode(line)
        except ProtocolError as error:
            return _error(None, "bad-request", str(error)), False
        request_id = request.get("id")
        op = request.get("op")
        handler = self._ops.get(op) if isinstance(op, str) else None
        valid_id = type(request_id) is int and request_id >= 0
        if not valid_id or handler is None:
            message = "a request needs an integer id >= 0 and a known op"
            return _error(request_id if valid_id else None, "bad-request", message), False
        outcome = _outcome(handler, request)
        return {"id": request_id, **outcome}, op == "shutdown" and outcome.get("ok") is True

    # -- operations ----------------------------------------------------------------------------

    def hello(self, request: dict[str, Any]) -> dict[str, Any]:
        if request.get("protocol") != PROTOCOL_VERSION:
            raise Rejected("protocol-unsupported", message=f"this server speaks {PROTOCOL_VERSION}")
        answer = hello_answer(self.adapter.capabilities())
        if self.scripts:
            answer["operations"] = [RUN_SCRIPT]
        return answer

    def _handler(self, operation: Operation) -> Callable[[dict[str, Any]], dict[str, Any]]:
        """The handler of an operation that calls its method with the request's arguments
        (on the adapter, given the pack, or on the session) and answers its result."""

        def handle(request: dict[str, Any]) -> dict[str, Any]:
            if operation.target == "adapter":
                target: Any = self.adapter
                values = [_pack(request)]
            else:
                target, values = self._session(request), []
            values += (request[argument] for argument in operation.arguments)
            if operation.needs is not None and not isinstance(target, operation.needs):
                raise Unsupported(f"this runtime does not support {operation.feature}")
            result = getattr(target, operation.method)(*values)
            return {} if operation.answer is None else {operation.answer: _plain(result)}

        return handle

    def start(self, request: dict[str, Any]) -> dict[str, Any]:
        state, agent = request.get("at_state"), request.get("agent")
        if state is None and agent is None:
            return self._keep(self.adapter.start(_pack(request)))
        adapter = self.adapter
        if not isinstance(adapter, StateStartingAdapter):
            raise Unsupported("this runtime does not start at a state (RFC 0011)")
        return self._keep(adapter.start_at(_pack(request), state=state, agent=agent))

    def restore(self, request: dict[str, Any]) -> dict[str, Any]:
        return self._keep(self.adapter.restore(_pack(request), request["snapshot"]))

    def _keep(self, session: AdapterSession) -> dict[str, Any]:
        name = f"s{next(self._ids)}"
        self.sessions[name] = session
        return {"session": name}

    def _session(self, request: Mapping[str, Any]) -> AdapterSession:
        session = self.sessions.get(request.get("session"))  # type: ignore[arg-type]
        if session is None:
            raise _BadRequest(f"no session {request.get('session')!r}")
        return session

    def close(self, request: dict[str, Any]) -> dict[str, Any]:
        self._session(request)
        del self.sessions[request["session"]]
        return {}

    def run_script(self, request: dict[str, Any]) -> dict[str, Any]:
        """Answer each of ``requests`` in order as if it came alone, on the pack of the script
        and the session its ``start`` opened (closed at the end); stop after an answer that
        is skipped, a fault, or a start that is not ok."""
        pack, requests = request["pack"], request["requests"]
        if not isinstance(requests, list) or not all(isinstance(r, dict) for r in requests):
            raise _BadRequest("requests must be a list of request objects")
        session: str | None = None
        answers: list[dict[str, Any]] = []
        try:
            for step in requests:
                answer = self._scripted(step, pack, session)
                answers.append(answer)
                ok = answer.get("ok") is True
                if step.get("op") == "start" and ok:
                    session = answer["session"]
                elif not ok and (
                    "skipped" in answer
                    or step.get("op") == "start"
                    or answer["error"].get("code") in FAULT_CODES
                ):
                    break
        finally:
            if session is not None:
                self.sessions.pop(session, None)
        return {"answers": answers}

    def _scripted(self, step: dict[str, Any], pack: Any, session: str | None) -> dict[str, Any]:
        """The answer to one request of a script."""
        op = step.get("op")
        if op not in SCRIPT_OPS:
            return _failure(
                "bad-request", f"a script holds only {', '.join(SCRIPT_OPS)}; not {op!r}"
            )
        if BY_NAME[op].target == "adapter":  # given the script's pack
            if op == "start" and session is not None:
                return _failure("bad-request", "a script starts one session")
            return _outcome(self._ops[op], {**step, "pack": pack})
        if session is None:
            return _failure("bad-request", f"{op!r} in a script before its start")
        return _outcome(self._ops[op], {**step, "session": session})


def _outcome(
    handler: Callable[[dict[str, Any]], dict[str, Any]], request: dict[str, Any]
) -> dict[str, Any]:
    """A request's answer, without its id: ``ok`` with the results, an error, or skipped."""
    try:
        result = handler(request)
    except Rejected as rejection:
        return _failure(rejection.code, rejection.message, rejection.limit)
    except PackRejected as rejection:
        return _failure(PACK_REJECTED, rejection.reason)
    except Unsupported as unsupported:
        return {"skipped": {"reason": unsupported.reason}}
    except (_BadRequest, KeyError, TypeError, ValueError) as error:
        return _failure("bad-request", f"{type(error).__name__}: {error}")
    except Exception as error:
        where = traceback.extract_tb(error.__traceback__)[-1]
        message = (
            f"{type(error).__name__}: {error} at {shown_source(where.filename)}:{where.lineno}"
        )
        return _failure("internal-error", message)
    return {"ok": True, **result}


def _plain(result: Any) -> Any:
    """A result as JSON data: a mapping as a dict, a sequence of mappings as a list of dicts."""
    if isinstance(result, Mapping):
        return dict(result)
    if isinstance(result, list | tuple) and all(isinstance(item, Mapping) for item in result):
        return [dict(item) for item in result]
    return result


def _pack(request: Mapping[str, Any]) -> PackInput:
    pack = request["pack"]
    if not isinstance(pack, dict) or pack.get("format") not in ("json", "yaml"):
        raise _BadRequest("pack must be an object with text and format (json or yaml)")
    document = pack.get("document")
    return PackInput(
        text=str(pack["text"]),
        format=pack["format"],
        document=document if isinstance(document, dict) else None,
        source="<protocol>",
    )


def _error(
    request_id: int | None, code: str, message: str, limit: str | None = None
) -> dict[str, Any]:
    return {"id": request_id, **_failure(code, message, limit)}


def _failure(code: str, message: str, limit: str | None = None) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": message}
    if limit is not None:
        error["limit"] = limit
    return {"ok": False, "error": error}
