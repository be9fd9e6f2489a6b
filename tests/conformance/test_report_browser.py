"""The HTML report in a real browser: Debian's ``chromium``, headless, driven over the DevTools
protocol on a pipe (standard library only), loads the report of a broken runtime from a
``file://`` URL at phone width and at desktop width. The test reads the laid-out page: the
verdict and the level table on the first screen, nothing wider than a phone, a blocking case's
link leading to its state diagram with the path taken and the diverging step, no script; and
it saves a screenshot of each width under the test's tmp dir.

Skipped only when no chromium binary is on ``PATH`` (``.ci/run`` installs Debian's).
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import select
import shutil
import struct
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from conformance import Catalog, Runner
from conformance._catalog.cases import Selection
from conformance._judging.levels import describe_level
from conformance._judging.records import Report, RunHeader, records_of
from conformance._report.html import render_html

BINARIES = ("chromium", "chromium-browser")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--remote-debugging-pipe",
)
WAIT = 60.0  # seconds for any one answer of the browser; a hung browser fails, never hangs
PHONE = {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True}
DESKTOP = {"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": False}
PNG = b"\x89PNG\r\n\x1a\n"
TRAMPOLINE = (
    "import os, sys; os.dup2(int(sys.argv[1]), 3); os.dup2(int(sys.argv[2]), 4); "
    "os.execvp(sys.argv[3], sys.argv[3:])"
)

PROBE = """(() => {
  const box = (element) => {
    const r = element.getBoundingClientRect();
    return {top: r.top, bottom: r.bottom, right: r.right, width: r.width};
  };
  const table = document.querySelector("table.levels");
  const rows = [...table.querySelectorAll("tbody.area")].map((body) => ({
    area: body.querySelector(".name").textContent,
    level: body.querySelector(".pill").textContent,
    links: [...body.querySelectorAll("tr.why a")].map((a) => a.getAttribute("href")),
  }));
  const link = table.querySelector("tr.why a");
  const target = link && document.getElementById(link.getAttribute("href").slice(1));
  const article = target && target.closest("article");
  const svg = article && article.querySelector("figure svg");
  const canvas = article && article.querySelector("figure .canvas");
  // The size each text of the drawing is shown at: its font size times the drawing's scale.
  const sizes = svg ? [...svg.querySelectorAll("text")].map(
    (t) => parseFloat(getComputedStyle(t).fontSize) * svg.getScreenCTM().a) : [];
  return {
    width: window.innerWidth,
    height: window.innerHeight,
    pageWidth: document.documentElement.scrollWidth,
    verdict: {word: document.querySelector(".verdict .word").textContent,
              ...box(document.querySelector(".verdict"))},
    table: {...box(table), contentWidth: table.scrollWidth,
            roomWidth: table.parentElement.clientWidth},
    rows: rows,
    target: target && target.textContent,
    diagram: svg && {...box(svg), nodes: svg.querySelectorAll(".node").length,
                     taken: svg.querySelectorAll(".edge.taken").length,
                     diverged: svg.querySelectorAll(".diverged").length,
                     smallestText: Math.min(...sizes),
                     box: box(canvas),
                     legend: article.querySelectorAll(".legend li").length},
    // The first failure explains itself: the statement's quote and the rerun command, shown.
    why: (() => {
      const first = document.querySelector("#failures article.failure");
      const quote = first && first.querySelector(".why blockquote");
      const rerun = first && first.querySelector(".rerun code");
      const visible = (e) => !!e && e.getBoundingClientRect().height > 0;
      return {quote: quote && quote.textContent, quoteShown: visible(quote),
              rerun: rerun && rerun.textContent, rerunShown: visible(rerun)};
    })(),
    scripts: document.scripts.length,
  };
})()"""


def chromium() -> str:
    """The chromium binary on ``PATH``; the test is skipped without one."""
    for name in BINARIES:
        found = shutil.which(name)
        if found is not None:
            return found
    pytest.skip(
        "no chromium binary on PATH (chromium, chromium-browser): install Debian's "
        "`chromium` package to run the browser test (.ci/run does)"
    )


class DevTools:
    """A headless chromium, spoken to over ``--remote-debugging-pipe``: it reads commands on
    its fd 3 and writes answers and events on its fd 4, each a JSON text ended by NUL."""

    def __init__(self, binary: str, profile: Path) -> None:
        theirs_in, self._out = os.pipe()
        self._in, theirs_out = os.pipe()
        # A small trampoline moves chromium's pipe ends to fds 3 and 4, where it looks for
        # them; they start above 4, so that neither move overwrites the other.
        theirs_in, theirs_out = _above_4(theirs_in), _above_4(theirs_out)
        command = [binary, *FLAGS, f"--user-data-dir={profile}", "about:blank"]
        self.process = subprocess.Popen(
            [sys.executable, "-c", TRAMPOLINE, str(theirs_in), str(theirs_out), *command],
            pass_fds=(theirs_in, theirs_out),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(theirs_in)
        os.close(theirs_out)
        self._buffer = b""
        self._last_id = 0
        self._events: list[dict[str, Any]] = []

    def call(
        self, method: str, params: Mapping[str, Any] | None = None, session: str | None = None
    ) -> dict[str, Any]:
        """Send one command and return its result (an error answer fails the test)."""
        self._last_id += 1
        message: dict[str, Any] = {"id": self._last_id, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        data = json.dumps(message).encode() + b"\0"
        while data:
            data = data[os.write(self._out, data) :]
        while True:
            answer = self._receive()
            if answer.get("id") == self._last_id:
                assert "error" not in answer, f"{method}: {answer['error']}"
                result: dict[str, Any] = answer["result"]
                return result
            self._events.append(answer)

    def wait_for(self, event: str, session: str) -> None:
        """Wait until the page of ``session`` sends ``event``."""
        while True:
            for number, seen in enumerate(self._events):
                if seen.get("method") == event and seen.get("sessionId") == session:
                    del self._events[: number + 1]
                    return
            self._events.append(self._receive())

    def _receive(self) -> dict[str, Any]:
        deadline = time.monotonic() + WAIT
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([self._in], [], [], max(left, 0))
            if not ready:
                raise TimeoutError(f"chromium sent nothing for {WAIT:g} s")
            chunk = os.read(self._in, 1 << 16)
            if not chunk:
                raise EOFError(f"chromium closed the pipe (exit status {self.process.poll()})")
            self._buffer += chunk
        text, _, self._buffer = self._buffer.partition(b"\0")
        answer: dict[str, Any] = json.loads(text)
        return answer

    def close(self) -> None:
        with contextlib.suppress(OSError, EOFError, TimeoutError, AssertionError):
            self.call("Browser.close")  # it is going anyway
        try:
            self.process.wait(timeout=WAIT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._in)
        os.close(self._out)


def _above_4(fd: int) -> int:
    """The same pipe end at a descriptor above 4 (the original is closed)."""
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 5)
    os.close(fd)
    return moved


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[DevTools]:
    devtools = DevTools(chromium(), tmp_path / "profile")
    try:
        yield devtools
    finally:
        devtools.close()


@pytest.fixture
def failing_report(catalog: Catalog, fakes_importable: Path) -> Report:
    """The whole catalog against a runtime that follows ``on_max_visits`` one level only."""
    from breaking import OneLevelRedirects  # noqa: PLC0415 (on sys.path by the fixture)

    adapter = OneLevelRedirects()
    results = Runner(adapter, timeout=None).run_all(catalog.select())
    header = RunHeader.of(
        "breaking:OneLevelRedirects", adapter.capabilities(), catalog, Selection()
    )
    return Report(header, tuple(records_of(results)))


def look(
    devtools: DevTools,
    page: Path,
    screen: Mapping[str, Any],
    shot: Path,
    *,
    probe: str = PROBE,
    fragment: str = "",
) -> dict[str, Any]:
    """Load ``page`` (at ``#fragment``) on a screen of this size, save a screenshot, return what
    ``probe`` read."""
    target = devtools.call("Target.createTarget", {"url": "about:blank"})["targetId"]
    session = devtools.call("Target.attachToTarget", {"targetId": target, "flatten": True})[
        "sessionId"
    ]
    devtools.call("Page.enable", session=session)
    devtools.call("Emulation.setDeviceMetricsOverride", screen, session)
    url = page.as_uri() + (f"#{fragment}" if fragment else "")
    devtools.call("Page.navigate", {"url": url}, session)
    devtools.wait_for("Page.loadEventFired", session)
    found = devtools.call("Runtime.evaluate", {"expression": probe, "returnByValue": True}, session)
    assert "exceptionDetails" not in found, found
    picture = devtools.call("Page.captureScreenshot", {"format": "png"}, session)["data"]
    shot.write_bytes(base64.b64decode(picture))
    devtools.call("Target.closeTarget", {"targetId": target})
    value: dict[str, Any] = found["result"]["value"]
    return value


def png_size(path: Path) -> tuple[int, int]:
    """The width and height a PNG file says it has."""
    data = path.read_bytes()
    assert data[:8] + data[12:16] == PNG + b"IHDR", f"{path} is no PNG"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_the_report_in_a_browser(browser: DevTools, failing_report: Report, tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    page.write_text(render_html(failing_report), encoding="utf-8")
    levels = failing_report.levels()
    for name, screen in (("phone", PHONE), ("desktop", DESKTOP)):
        shot = tmp_path / f"report-{name}.png"
        seen = look(browser, page, screen, shot)
        assert (seen["width"], seen["height"]) == (screen["width"], screen["height"])

        # The level table, one row per area, each with its level.
        assert [row["area"] for row in seen["rows"]] == [a.area for a in levels.areas]
        shown = [row["level"] for row in seen["rows"]]
        assert shown == [
            describe_level(a.level) if a.level is not None else "\u2013" for a in levels.areas
        ]
        # What a reader sees first: the verdict, then the level table.
        assert seen["verdict"]["word"] == "FAILED"
        assert 0 <= seen["verdict"]["top"] < seen["verdict"]["bottom"] <= screen["height"]
        assert seen["verdict"]["bottom"] <= seen["table"]["top"] < screen["height"]
        # Nothing is wider than the screen: no sideways scrolling, the table and diagram fit.
        assert seen["pageWidth"] <= screen["width"]
        assert seen["table"]["contentWidth"] <= seen["table"]["roomWidth"]
        # A blocking case's link leads to its failure, with the path taken and where it diverged.
        blocking = [a for a in levels.areas if a.blocking]
        assert blocking
        assert seen["target"] is not None
        assert blocking[0].blocking[0] in seen["target"]
        diagram = seen["diagram"]
        assert diagram is not None
        assert diagram["nodes"] > 1
        assert diagram["taken"] >= 1
        assert diagram["diverged"] >= 1
        assert diagram["width"] > 0
        # Its box fits the screen (a wide drawing scrolls inside it), its text stays legible.
        assert diagram["box"]["right"] <= screen["width"]
        assert diagram["smallestText"] >= 9
        assert diagram["legend"] >= 2
        # The first failure says why it is required and how to rerun it, visibly.
        why = seen["why"]
        assert why["quoteShown"]
        assert len(why["quote"]) > 20
        assert why["rerunShown"]
        assert why["rerun"].startswith("ppconf run --adapter ")
        assert seen["scripts"] == 0

        assert png_size(shot) == (screen["width"], screen["height"])
        assert shot.stat().st_size > 10_000  # a page, not a blank screen


MATRIX_PROBE = """(() => {
  const box = (element) => {
    const r = element.getBoundingClientRect();
    return {top: r.top, bottom: r.bottom, right: r.right, width: r.width, height: r.height};
  };
  const shown = [...document.querySelectorAll(".boxes .box")].filter(
    (b) => getComputedStyle(b).display !== "none");
  const first = document.querySelector("table.cases td.outcome a");
  return {
    pageWidth: document.documentElement.scrollWidth,
    columns: document.querySelectorAll("table.levels thead th.runtime").length,
    caseColumns: document.querySelector("table.cases thead").querySelectorAll("th").length,
    names: [...document.querySelectorAll("th.runtime .name")].map((n) => n.textContent),
    levels: {...box(document.querySelector("table.levels"))},
    firstLink: first && first.getAttribute("href"),
    shown: shown.map((b) => ({id: b.id, ...box(b),
                              text: b.querySelector(".message") &&
                                    b.querySelector(".message").textContent})),
    scripts: document.scripts.length,
  };
})()"""


def test_the_matrix_in_a_browser(
    browser: DevTools, catalog: Catalog, failing_report: Report, tmp_path: Path
) -> None:
    from conformance import ReferenceAdapter  # noqa: PLC0415
    from conformance._report.matrix import build_matrix, render_matrix_html  # noqa: PLC0415

    def reference_at(version: str) -> Report:
        adapter = ReferenceAdapter()
        selection = Selection(spec_version=version)
        results = Runner(adapter, timeout=None).run_all(catalog.select(selection))
        header = RunHeader.of("reference", adapter.capabilities(), catalog, selection)
        return Report(header, tuple(records_of(results)))

    reports = [reference_at("1.9"), failing_report, reference_at("1.5")]
    matrix = build_matrix(reports, ["reference.jsonl", "loops.jsonl", "reference-1.5.jsonl"])
    assert matrix.rows
    page = tmp_path / "matrix.html"
    page.write_text(render_matrix_html(matrix), encoding="utf-8")
    for name, screen in (("phone", PHONE), ("desktop", DESKTOP)):
        seen = look(browser, page, screen, tmp_path / f"matrix-{name}.png", probe=MATRIX_PROBE)
        # One column per report, in the levels and in the cases that differ.
        assert seen["columns"] == 3
        assert seen["caseColumns"] == 1 + 3
        assert len(seen["names"]) == 3
        assert seen["levels"]["top"] < screen["height"]  # the matrix is on the first screen
        assert seen["pageWidth"] <= screen["width"]  # a wide table scrolls in its own box
        assert seen["shown"] == []  # no failure box until a cell is followed
        assert seen["scripts"] == 0
        # Following a cell shows that runtime's failure box, and only that one.
        link = seen["firstLink"]
        assert link is not None
        boxed = look(
            browser,
            page,
            screen,
            tmp_path / f"matrix-box-{name}.png",
            probe=MATRIX_PROBE,
            fragment=link.removeprefix("#"),
        )
        (shown,) = boxed["shown"]
        assert shown["id"] == link.removeprefix("#")
        assert shown["height"] > 0
        assert -1 <= shown["top"] < screen["height"]  # scrolled to it (to a fraction of a px)
        assert shown["text"]
        assert png_size(tmp_path / f"matrix-box-{name}.png") == (screen["width"], screen["height"])
