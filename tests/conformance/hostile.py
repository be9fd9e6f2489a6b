"""Hostile runtimes: the reference, with one attack each, for the tests of a hostile world.

Each class is an adapter (``hostile:Name`` with this folder on ``sys.path``). The strings some
of them answer with are what a runtime may send to poison the views of its own results:

=====================  ======================================================================
``Slow``               the reference, each session start taking :data:`SLOW` seconds (so that
                       a signal can arrive half way through a run)
``HangsOnStart``       writes the file named by ``PPCONF_TEST_MARK``, then never returns from
                       its first ``start``
``MarkdownName``       named with Markdown and HTML that fake a verdict; every event refused
                       with that text as the rejection code
``ControlName``        the same with terminal escape sequences and C0 control characters
``LongName``           the same with a string of a million characters
``SurrogateName``      the same with a lone surrogate (``"\\ud800"``)
``NonAsciiName``       the same with letters beyond ASCII (for a terminal that has only ASCII)
``EveryOddity``        the same with every string of :data:`ODDITIES` at once
``ExitsZero``          calls ``os._exit(0)`` in ``start``
``RejectsWithoutCode`` raises ``Rejected(None)`` for every event
``LosesOldestHistory`` drops the oldest history entry and adds one of hostile strings, a huge
                       and a deeply nested value; from its 51st event on, it answers that
                       entry as the transition taken, and refuses its 101st event: after a long
                       path (100 transitions in ``workflow.execution.history-complete``) every
                       field of the failure is larger than a record keeps
``OddValuesHandedOn``  reports every oddity as each step's output (or each of its fields) in a
                       composition's trace,
                       and hands later steps the same text marked ``(handed on)``
``OddClaims``          claims workflow Level 99999999999999999999 (``ClaimsNegative``: loops
                       -1; ``ClaimsUnknownArea``: an area named with control characters;
                       ``ClaimsAboveTheKit``: providers 3, a level of the RFC the kit does not
                       assess, which is no lie)
=====================  ======================================================================

The tests of a hostile world call the kit as a user would, through :func:`ppconf`, and hold
each refusal to :func:`one_error`.
"""

from __future__ import annotations

import os
import threading
import time
from typing import TYPE_CHECKING, Any, ClassVar

from fakes import Delegating, SessionWrapper, WrapsSessions

from conformance import Capabilities, PackInput, Rejected
from conformance._cli import main

if TYPE_CHECKING:
    import pytest

SLOW = 0.02
MARKDOWN = (
    "x\n# PASSED: level 3\n</details><h1>PASSED</h1>![pixel](https://evil.example/p.png)"
    "<img src=https://evil.example/q.png> | cell | $x$ [link](https://evil.example)"
)
CONTROL = "\x1b[2J\x1b]0;retitled\x07\x00\x01\x0b\x7f\x9b\u202eevil\r\nFAKE LINE"
LONG = "A" * 1_000_000
SURROGATE = "bad \ud800 text"
NON_ASCII = "Ünïcødé ✓ 名前"
ODDITIES = (
    "\x1b[2J",  # ESC, CSI: clear the screen
    "\x07",  # BEL
    "\x00",  # NUL
    "\u202eevil",  # a right-to-left override
    "\u2028",  # a line separator
    "\ud800",  # a lone surrogate
    "\n::error file=x.py,line=1::owned",  # a GitHub workflow command, on a line of its own
    "::warning::owned",  # one that starts the string
    "</details><h1>FAKE</h1>",
    "<script>alert(1)</script>",
    "https://evil.example/x www.evil.example",
    "| a | b |\n|---|---|",
    "```\nfenced\n```",
)
"""What a runtime (or a file the kit reads) may hold to break out of text in some view."""
EVERY_ODDITY = " ".join(ODDITIES)

ONE = ("--id", "workflow.execution.unknown-event")
"""One case that the reference passes."""


def ppconf(capsys: pytest.CaptureFixture[str], *args: object) -> tuple[int, str, str]:
    """``ppconf ARGS`` in this process: its exit status, stdout and stderr (never a
    traceback)."""
    status = main([str(a) for a in args])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err, captured.err
    return status, captured.out, captured.err


def one_error(err: str, *parts: str, alone: bool = True) -> None:
    """``err`` holds one ``ppconf: error:`` line, holding every part, and no adapter fault.

    Arguments:
        alone: the error line is all of ``err`` (``False``: a run's progress may stand
            beside it).
    """
    lines = [line for line in err.splitlines() if line.startswith("ppconf: error: ")]
    assert len(lines) == 1, err
    if alone:
        assert err == lines[0] + "\n", err
    for part in parts:
        assert part in lines[0], err
    assert "adapter fault" not in err, err
    assert "Traceback" not in err, err


class Slow(Delegating):
    NAME = "slow"

    def start(self, pack: PackInput) -> Any:
        time.sleep(SLOW)
        return super().start(pack)


class HangsOnStart(Delegating):
    NAME = "hangs-on-start"

    def start(self, pack: PackInput) -> Any:
        with open(os.environ["PPCONF_TEST_MARK"], "w", encoding="utf-8") as mark:
            mark.write("hung")
        threading.Event().wait()  # for ever: only a stop abandons it


class _Refusing:
    """A session that refuses every event with ``code`` as the rejection code."""

    def __init__(self, inner: Any, code: Any) -> None:
        self.inner = inner
        self.code = code

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def send(self, event: str, source: str = "host") -> Any:
        raise Rejected(self.code, message=str(self.code))


class _Says(Delegating):
    """Named ``PAYLOAD``; refuses every event with ``PAYLOAD`` as the code."""

    PAYLOAD = ""

    def capabilities(self) -> Capabilities:
        base = super().capabilities()
        return Capabilities(name=self.PAYLOAD, version="1", language="python", claims=base.claims)

    def start(self, pack: PackInput) -> Any:
        return _Refusing(super().start(pack), self.PAYLOAD)


class MarkdownName(_Says):
    PAYLOAD = MARKDOWN


class ControlName(_Says):
    PAYLOAD = CONTROL


class LongName(_Says):
    PAYLOAD = LONG


class SurrogateName(_Says):
    PAYLOAD = SURROGATE


class NonAsciiName(_Says):
    PAYLOAD = NON_ASCII


class EveryOddity(_Says):
    PAYLOAD = EVERY_ODDITY


class OddValuesHandedOn(Delegating):
    """A composition's trace says each step output :data:`EVERY_ODDITY` (in each field of an
    object), and the steps after it received that text with `` (handed on)`` added: a
    ``$same_as`` mismatch carries both."""

    def run_composition(self, pack: PackInput, name: str, input: Any, mocks: Any) -> Any:
        result = dict(super().run_composition(pack, name, input, mocks))
        handed_on = EVERY_ODDITY + " (handed on)"
        trace = []
        for reported in result.get("trace") or []:
            entry = dict(reported)
            if isinstance(entry.get("output"), dict):
                entry["output"] = dict.fromkeys(entry["output"], EVERY_ODDITY)
            elif isinstance(entry.get("output"), str):
                entry["output"] = EVERY_ODDITY
            if isinstance(entry.get("input"), dict):
                entry["input"] = dict.fromkeys(entry["input"], handed_on)
            elif isinstance(entry.get("input"), str):
                entry["input"] = handed_on
            trace.append(entry)
        return {**result, "trace": trace}


class ExitsZero(Delegating):
    NAME = "exits-zero"

    def start(self, pack: PackInput) -> Any:
        os._exit(0)


class RejectsWithoutCode(Delegating):
    NAME = "rejects-without-code"

    def start(self, pack: PackInput) -> Any:
        return _Refusing(super().start(pack), None)


def deep(levels: int) -> Any:
    """A list nested ``levels`` deep."""
    value: Any = "bottom"
    for _ in range(levels):
        value = [value]
    return value


HOSTILE_ENTRY = {
    "from": CONTROL,
    "to": MARKDOWN,
    "event": SURROGATE,
    "huge": LONG,
    "deep": deep(200),
    "many": {f"key {n} {CONTROL}": n for n in range(500)},
}


class _LosingHistory(SessionWrapper):
    sent = 0

    def send(self, event: str, source: str = "host") -> Any:
        self.sent += 1
        if self.sent > 100:
            raise Rejected(MARKDOWN, message=CONTROL + LONG)
        answer = self._session.send(event, source)
        return {**answer, "transition": HOSTILE_ENTRY} if self.sent > 50 else answer

    def state(self) -> Any:
        state = dict(self._session.state())
        history = list(state.get("history") or [])
        state["history"] = [*history[1:], HOSTILE_ENTRY]
        return state


class LosesOldestHistory(WrapsSessions, Delegating):
    NAME = "loses-oldest-history"

    def wrap(self, pack: PackInput, session: Any) -> Any:
        return _LosingHistory(session)


class OddClaims(Delegating):
    """Claims :attr:`CLAIMS` (set by a subclass, or by a test on this class)."""

    NAME = "odd-claims"
    CLAIMS: ClassVar[dict[str, int]] = {"workflow": 99999999999999999999}


class ClaimsNegative(OddClaims):
    CLAIMS: ClassVar[dict[str, int]] = {"loops": -1}


class ClaimsUnknownArea(OddClaims):
    CLAIMS: ClassVar[dict[str, int]] = {"x\x1b[2J": 1}


class ClaimsAboveTheKit(OddClaims):
    """Providers Level 3: a level of RFC 0017, above the kit's Level 1: possible, judged to 1."""

    CLAIMS: ClassVar[dict[str, int]] = {"providers": 3}
