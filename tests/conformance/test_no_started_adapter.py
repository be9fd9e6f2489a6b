"""A run whose adapter answered ``hello`` once and then never started again (the run gives up
after three failed starts) shows no level: the headline is "not assessed", in every view."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from conformance._cli import main

ONCE = """\
import json, os, sys
if os.path.exists("started"):
    sys.exit(3)
open("started", "w").close()
for line in sys.stdin:
    request = json.loads(line)
    if request.get("op") != "hello":
        sys.exit(3)
    runtime = {"name": "once", "version": "1", "language": "python"}
    answer = {"id": request["id"], "ok": True, "protocol": 1, "runtime": runtime,
              "claims": {"workflow": 1}}
    print(json.dumps(answer), flush=True)
"""


def test_a_run_that_gave_up_on_its_adapter_shows_no_level(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "once.py").write_text(ONCE, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    adapter = f"--adapter=cmd:{shlex.quote(sys.executable)} once.py"
    assert main(["run", adapter, "--report", "json", "run.jsonl"]) == 2
    out = capsys.readouterr().out
    assert "headline level: not assessed" in out
    assert main(["report", "run.jsonl", "--format", "json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["levels"]["headline"] is None
    for view in ("md", "badge"):
        assert main(["report", "run.jsonl", "--format", view]) == 0
        shown = capsys.readouterr().out
        assert "not assessed" in shown, view
