"""The one place the kit calls a runtime: fresh inputs, checked answers, time limits, blame.

Every call from the runner, ``ppconf smoke`` and the pytest plugin into an adapter goes through
:class:`Guard`:

- each call gets its own copy of the pack document (:meth:`PackInput.fresh`), so a runtime that
  changes what it is given changes nothing for the kit or the next call;
- answers are checked against the adapter interface: a session-starting call that returns
  nothing, a diagnostic with an unknown severity or a transition without ``to`` is an
  :class:`AdapterFault` with a message saying what was expected, never read as a refusal or a
  pass;
- whatever the adapter raises, other than the signals (``Rejected``, ``PackRejected``,
  ``Unsupported``) and a user's Ctrl-C, is blamed on the adapter with the place it was raised,
  ``SystemExit`` and other ``BaseException`` subclasses included: that part errors, the run
  goes on. Anything else that escapes a part is the kit's own fault and is reported as such;
- a part runs under one time limit (:meth:`Guard.within`), in a worker thread that is abandoned
  if the limit passes.
"""

from __future__ import annotations

import contextlib
import os
import queue
import threading
import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, NoReturn, TypeVar, cast

from conformance._basics.areas import claims_problem
from conformance._basics.errors import (
    AdapterError,
    AdapterFault,
    AdapterGaveUp,
    KitError,
    PackRejected,
    Rejected,
    Unsupported,
)
from conformance._basics.files import shown_source
from conformance._basics.stopping import wait_for
from conformance._runtime.adapter import (
    Adapter,
    AdapterSession,
    Call,
    Capabilities,
    Closable,
    CompositionAdapter,
    PackInput,
    ScriptingAdapter,
    StateStartingAdapter,
    Terminable,
    TimesOutItself,
)
from conformance._runtime.operations import BY_NAME

__all__ = [
    "SEVERITIES",
    "AdapterRaised",
    "ExitRefused",
    "Guard",
    "GuardedSession",
    "PartTimeout",
    "Reported",
    "check_diagnostics",
    "check_transition",
    "conforms",
    "refusing_exit",
    "where_raised",
]

T = TypeVar("T")

SEVERITIES = ("error", "warning")
Reported = tuple[str, str, str | None]
"""A reported diagnostic: ``(severity, code, path)``."""

_KIT = Path(__file__).resolve().parents[1]
_SIGNALS = (Rejected, PackRejected, Unsupported, AdapterFault)


_CONFORMS: dict[tuple[type, type], bool] = {}


def conforms(value: object, protocol: Any) -> bool:
    """``isinstance(value, protocol)`` for a runtime-checkable protocol, remembered per type
    (the check inspects every attribute of the protocol, and the kit asks it on every call)."""
    key = (type(value), protocol)
    known = _CONFORMS.get(key)
    if known is None:
        known = _CONFORMS[key] = isinstance(value, protocol)
    return known


class AdapterRaised(AdapterFault):
    """The adapter's own code raised: the part errors with what and where."""


class PartTimeout(Exception):
    """A case part did not finish within its time limit."""


def where_raised(error: BaseException) -> str:
    """`` at file:line`` of the innermost frame outside the kit ('' if none)."""
    frames = traceback.extract_tb(error.__traceback__)
    outside = [f for f in frames if not Path(f.filename).resolve().is_relative_to(_KIT)]
    frame = (outside or frames)[-1:] if frames else []
    return f" at {shown_source(frame[0].filename)}:{frame[0].lineno}" if frame else ""


def _blame(operation: str, error: BaseException) -> NoReturn:
    """Re-raise what an adapter operation raised, as the kit must read it."""
    if isinstance(error, Rejected) and not (
        isinstance(error.code, str)
        and error.code
        and (error.limit is None or isinstance(error.limit, str))
    ):
        raise AdapterRaised(
            f"the adapter raised Rejected({error.code!r:.80}"
            + (f", limit={error.limit!r:.80}" if error.limit is not None else "")
            + f") in {operation}: a rejection needs its code, a string such as "
            "'unknown-event' (and a limit, if any, a string such as 'max_tool_calls')"
            + where_raised(error)
        ) from None
    if isinstance(error, (*_SIGNALS, KeyboardInterrupt)):
        raise error
    text = str(error)
    raise AdapterRaised(
        f"the adapter raised {type(error).__name__} in {operation}"
        + (f": {text}" if text else "")
        + where_raised(error)
    ) from None


class _Worker:
    """A daemon thread that runs one action at a time, so a hung adapter can be abandoned."""

    def __init__(self) -> None:
        self._tasks: queue.SimpleQueue[tuple[Callable[[], Any], list[Any], threading.Event]]
        self._tasks = queue.SimpleQueue()
        threading.Thread(target=self._loop, name="ppconf-part", daemon=True).start()

    def _loop(self) -> None:
        while True:
            action, box, done = self._tasks.get()
            try:
                box.append((True, action()))
            except BaseException as error:  # handed to the caller, who decides
                box.append((False, error))
            done.set()

    def call(self, action: Callable[[], T], timeout: float) -> T:
        box: list[Any] = []
        done = threading.Event()
        self._tasks.put((action, box, done))
        if not wait_for(done, timeout):  # a stop signal ends the wait (Stopped) after a grace
            raise PartTimeout
        ok, value = box[0]
        if ok:
            return value  # type: ignore[no-any-return]
        raise value


class Guard:
    """An adapter, as the kit calls it.

    Arguments:
        adapter: the runtime under test.
        timeout: seconds a case part (or a smoke check) may take; ``None``: no limit, and
            actions run in the calling thread. An adapter that times out its calls itself
            (:class:`~conformance._runtime.adapter.TimesOutItself`, the protocol client) also runs
            in the calling thread.
    """

    def __init__(self, adapter: Adapter, timeout: float | None = None) -> None:
        self.adapter = adapter
        self.timeout = timeout
        self._worker: _Worker | None = None

    # -- time limits ---------------------------------------------------------------------------

    def within(self, action: Callable[[], T]) -> T:
        """Run ``action`` under the time limit.

        Raises:
            PartTimeout: the limit passed; the worker thread is abandoned (a fresh one runs the
                next action), and the adapter call it was in is left to finish or hang alone.
        """
        if self.timeout is None or (
            conforms(self.adapter, TimesOutItself)
            and cast(TimesOutItself, self.adapter).handles_timeouts
        ):
            return action()
        if self._worker is None:
            self._worker = _Worker()
        try:
            return self._worker.call(action, self.timeout)
        except (PartTimeout, KeyboardInterrupt):  # a stop signal too: the action may hang on
            self._worker = None
            raise

    # -- the adapter ---------------------------------------------------------------------------

    def capabilities(self) -> Capabilities:
        """The adapter's description, checked.

        Raises:
            AdapterError: it raised, or returned something other than a ``Capabilities``.
        """
        try:
            capabilities = self.adapter.capabilities()
        except (KeyboardInterrupt, AdapterError):
            raise
        except BaseException as error:
            raise AdapterError(
                f"the adapter failed to describe itself: {type(error).__name__}: {error}"
                + where_raised(error)
            ) from None
        if not isinstance(capabilities, Capabilities):
            raise AdapterError(
                f"capabilities() returned {type(capabilities).__name__}, not "
                "conformance.Capabilities(name=..., claims={area: level})"
            )
        claims = capabilities.claims
        if not isinstance(claims, Mapping) or not all(
            isinstance(k, str) and type(v) is int for k, v in claims.items()
        ):
            raise AdapterError(
                f"capabilities().claims must map area names to integer levels, not {claims!r}"
            )
        problem = claims_problem(claims)
        if problem is not None:
            raise AdapterError(f"capabilities().claims: {problem}")
        return capabilities

    def load(self, pack: PackInput) -> None:
        """Load the pack; ``PackRejected`` if the runtime refuses it."""
        try:
            self.adapter.load(pack.fresh())
        except BaseException as error:
            _blame("load()", error)

    def validate(self, pack: PackInput) -> list[Reported]:
        """The runtime's diagnostics, checked and normalised to ``(severity, code, path)``."""
        try:
            diagnostics = self.adapter.validate(pack.fresh())
        except BaseException as error:
            _blame("validate()", error)
        return check_diagnostics(diagnostics)

    def start(
        self, pack: PackInput, *, state: str | None = None, agent: str | None = None
    ) -> GuardedSession:
        """Start a session at the entry, or (RFC 0011) at ``state`` or as ``agent``."""
        if state is None and agent is None:
            operation = "start()"
            try:
                session = self.adapter.start(pack.fresh())
            except BaseException as error:
                _blame(operation, error)
        else:
            operation = "start_at()"
            adapter = self.adapter
            if not conforms(adapter, StateStartingAdapter):
                raise Unsupported("the adapter has no start_at() (RFC 0011: starting at a state)")
            try:
                session = cast(StateStartingAdapter, adapter).start_at(
                    pack.fresh(), state=state, agent=agent
                )
            except BaseException as error:
                _blame(operation, error)
        return GuardedSession(_checked_session(session, operation))

    def restore(self, pack: PackInput, snapshot: Any) -> GuardedSession:
        """A fresh session continuing from ``snapshot``."""
        try:
            session = self.adapter.restore(pack.fresh(), snapshot)
        except BaseException as error:
            _blame("restore()", error)
        return GuardedSession(_checked_session(session, "restore()"))

    def run_composition(
        self, pack: PackInput, name: str, input: Any, mocks: Mapping[str, Any]
    ) -> Mapping[str, Any]:
        """Run a composition (RFC 0010); ``Unsupported`` if the adapter cannot."""
        adapter = self.adapter
        if not conforms(adapter, CompositionAdapter):
            raise Unsupported("the adapter has no run_composition() (compositions)")
        try:
            result = cast(CompositionAdapter, adapter).run_composition(
                pack.fresh(), name, input, mocks
            )
        except BaseException as error:
            _blame("run_composition()", error)
        return _checked_mapping(result, "run_composition()", _EXPECTED["run_composition"])

    @property
    def scripts(self) -> bool:
        """Whether the adapter may answer a whole scenario at once (:meth:`scripted`)."""
        return conforms(self.adapter, ScriptingAdapter)

    def scripted(self, pack: PackInput, calls: Sequence[Call]) -> Guard | None:
        """The adapter as it answers ``calls`` on ``pack`` all at once (see
        :class:`~conformance._runtime.adapter.ScriptingAdapter`), guarded as this one; ``None`` to
        make the calls one at a time: the adapter does not answer scripts, or this one could not be
        sent (a value that is not JSON, say: the call that carries it says so). Making the
        calls on the answer raises ``ScriptIncomplete`` where the calls must be made one at a
        time after all, so that answering scripts changes nothing that is judged.

        Raises:
            AdapterGaveUp: the adapter cannot be started any more.
        """
        if not self.scripts:
            return None
        try:
            replay = cast(ScriptingAdapter, self.adapter).scripted(pack.fresh(), calls)
        except AdapterGaveUp:
            raise
        except (AdapterFault, Rejected, PackRejected, Unsupported, KitError):
            return None
        except BaseException as error:
            _blame("scripted()", error)
        return None if replay is None else Guard(replay, self.timeout)

    def close(self) -> None:
        """Let an adapter that holds a process or other resources go; never raises."""
        if conforms(self.adapter, Closable):
            with contextlib.suppress(Exception):
                cast(Closable, self.adapter).close()

    def terminate(self) -> None:
        """Kill the adapter's process group now, for an adapter that has one (``cmd:``), and
        start no other: a stop signal leaves no time for a goodbye. Never raises."""
        if conforms(self.adapter, Terminable):
            with contextlib.suppress(Exception):
                cast(Terminable, self.adapter).terminate()


_REAL_EXIT = os._exit


class ExitRefused(SystemExit):
    """An adapter called ``os._exit()`` during a run: refused, and blamed on it."""


@contextlib.contextmanager
def refusing_exit() -> Iterator[None]:
    """Make ``os._exit()`` raise :class:`ExitRefused` in this process while the block runs.

    An in-process adapter calling ``os._exit(0)`` would end the run there and then, with exit
    status 0 and no report: CI would read a pass. Refused, the call raises in the adapter's
    code instead, and the part is an adapter fault. A process the adapter forks still ends
    as it asks (the refusal holds in the kit's own process only).
    """
    kit = os.getpid()
    previous = os._exit

    def refuse(status: int) -> NoReturn:
        if os.getpid() != kit:
            _REAL_EXIT(status)
        raise ExitRefused(
            f"os._exit({status}) was called, which would end the run at once with exit status "
            f"{status} and no report; the kit refuses it during a run"
        )

    os._exit = refuse
    try:
        yield
    finally:
        os._exit = previous


class GuardedSession:
    """A session, as the kit calls it (see :class:`Guard`)."""

    def __init__(self, session: AdapterSession) -> None:
        self.session = session

    def send(self, event: str, source: str) -> Mapping[str, Any]:
        try:
            transition = self.session.send(event, source)
        except BaseException as error:
            _blame("send()", error)
        return check_transition(transition)

    def set_artifact(self, name: str, value: str) -> None:
        self._call("set_artifact", name, value)

    def record_tool_calls(self, count: int) -> None:
        self._call("tool_calls", count)

    def advance_clock(self, seconds: float) -> None:
        self._call("advance_clock", seconds)

    def state(self) -> Mapping[str, Any]:
        return self._call("state")  # type: ignore[no-any-return]

    def snapshot(self) -> Any:
        return self._call("snapshot")

    def run_state(self, input: Any, mocks: Mapping[str, Any]) -> Mapping[str, Any]:
        return self._call("run_state", input, mocks)  # type: ignore[no-any-return]

    def agent_text(self, text: str) -> None:
        self._call("agent_text", text)

    def user_turn(self) -> None:
        self._call("user_turn")

    def _call(self, op: str, *arguments: Any) -> Any:
        """Call the session's method for operation ``op``: unsupported if the session lacks
        the interface it needs, blamed if it raises, its result checked for the shape the
        operation answers."""
        operation = BY_NAME[op]
        session = self.session
        if operation.needs is not None and not conforms(session, operation.needs):
            raise Unsupported(
                f"the adapter's sessions have no {operation.method}() ({operation.feature})"
            )
        try:
            result = getattr(session, operation.method)(*arguments)
        except BaseException as error:
            _blame(f"{operation.method}()", error)
        if operation.shape == "object" and not isinstance(result, Mapping):
            _checked_mapping(result, f"{operation.method}()", _EXPECTED[op])  # raises
        return result

    def close(self) -> None:
        """Let the runtime free the session; never raises (the part's outcome matters more)."""
        if conforms(self.session, Closable):
            with contextlib.suppress(Exception):
                cast(Closable, self.session).close()


# -- checking answers ---------------------------------------------------------------------------


def _checked_session(session: Any, operation: str) -> AdapterSession:
    if not conforms(session, AdapterSession):
        got = "None" if session is None else f"a {type(session).__name__}"
        raise AdapterFault(
            f"{operation} returned {got}, not a session (an object with send, set_artifact, "
            "record_tool_calls, advance_clock, state and snapshot): return a session, or raise "
            "Rejected(code) to refuse the start"
        )
    return cast(AdapterSession, session)


_EXPECTED = {
    "state": "the session data {current_state, status, ...}",
    "run_state": "a result {status, output, ...}",
    "run_composition": "a result {status, output, ...}",
}
"""What a session or adapter method whose operation answers an object returns, in words."""


def _checked_mapping(value: Any, operation: str, expected: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise AdapterFault(f"{operation} returned {_describe(value)}, not {expected}")
    return value


def _describe(value: Any) -> str:
    return "None" if value is None else f"a {type(value).__name__} ({value!r:.60})"


def check_diagnostics(diagnostics: Any) -> list[Reported]:
    """Check ``validate()``'s answer and normalise it to ``(severity, code, path)`` tuples.

    Raises:
        AdapterFault: not a list of ``{code, severity, path}`` mappings with a known severity.
    """
    if isinstance(diagnostics, str | bytes | Mapping) or not isinstance(diagnostics, Sequence):
        raise AdapterFault(
            f"validate() returned {_describe(diagnostics)}, not a list of "
            "{code, severity, path} mappings"
        )
    reported: list[Reported] = []
    for index, item in enumerate(diagnostics):
        if not isinstance(item, Mapping):
            raise AdapterFault(f"validate() item {index} is {_describe(item)}, not a mapping")
        code, severity, path = item.get("code"), item.get("severity"), item.get("path")
        if not isinstance(code, str) or not code:
            raise AdapterFault(f"validate() item {index} has no code (a string): {item!r:.200}")
        if severity not in SEVERITIES:
            raise AdapterFault(
                f"validate() item {index} ({code}) has severity {severity!r}: "
                "use 'error' or 'warning'"
            )
        if path is not None and not isinstance(path, str):
            raise AdapterFault(
                f"validate() item {index} ({code}) has path {path!r}: a JSON pointer string, "
                "or null"
            )
        reported.append((severity, code, path))
    return reported


def check_transition(transition: Any) -> Mapping[str, Any]:
    """Check ``send()``'s answer: ``{from, to, event, redirected?, original_target?}``.

    Raises:
        AdapterFault: not a mapping, or ``to`` missing, or a field of the wrong type.
    """
    if not isinstance(transition, Mapping):
        raise AdapterFault(
            f"send() returned {_describe(transition)}, not a transition {{from, to, event}}: "
            "raise Rejected(code) to refuse an event"
        )
    if not isinstance(transition.get("to"), str):
        raise AdapterFault(f"send() returned a transition without 'to' (a state): {transition!r}")
    for key in ("from", "event", "original_target"):
        value = transition.get(key)
        if value is not None and not isinstance(value, str):
            raise AdapterFault(f"send() returned {key!r} = {value!r}, not a string")
    redirected = transition.get("redirected")
    if redirected is not None and not isinstance(redirected, bool):
        raise AdapterFault(f"send() returned 'redirected' = {redirected!r}, not true or false")
    return transition
