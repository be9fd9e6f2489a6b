"""The folder a ``cmd:`` adapter runs in: the current folder of the command that starts it
(``ppconf run`` or ``pytest``), whichever file names the adapter; a settings file's folder is
where its report and catalog paths are read from, not where the adapter runs (README,
docs/protocol.md "For an adapter's author")."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

SERVE = f"{shlex.quote(sys.executable)} -m ppconf serve"
ADAPTER = f"cmd:sh -c 'pwd > adapter-folder.txt; exec {SERVE}'"


def _pytest(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "PPCONF_"))}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-k", "format", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.mark.parametrize("started_in", ["project", "tests"])
def test_a_cmd_adapter_named_in_a_settings_file_runs_where_pytest_was_started(
    tmp_path: Path, started_in: str
) -> None:
    project = tmp_path / "project"
    settings = project / "tests"
    settings.mkdir(parents=True)
    (settings / "pytest.ini").write_text(
        f"[pytest]\nppconf_adapter = {ADAPTER}\nppconf_report = json run.jsonl\n",
        encoding="utf-8",
    )
    cwd = project if started_in == "project" else settings
    done = _pytest(cwd, "-c", str(settings / "pytest.ini"), f"--rootdir={settings}")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    # The adapter ran in the current folder; the report went beside the settings file.
    assert (cwd / "adapter-folder.txt").read_text("utf-8").strip() == str(cwd.resolve())
    others = {project, settings} - {cwd}
    assert not any((other / "adapter-folder.txt").exists() for other in others)
    assert (settings / "run.jsonl").is_file()
