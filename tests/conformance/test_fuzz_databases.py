"""The fuzzer's example databases: a folder, or a real Redis server shared by machines over
each one's local folder; bad URLs, a server that does not answer and one lost mid-campaign."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis.database import DirectoryBasedExampleDatabase

from conformance._cli import main
from conformance._fuzz.databases import KEY_PREFIX, DatabaseError, open_database, shown
from conformance._fuzz.engine import BATCH

pytest_plugins = ["pytester"]

RunPytest = Callable[..., pytest.RunResult]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class Server:
    """A redis-server of its own on the loopback, on a free port, with nothing kept on disk."""

    def __init__(self, folder: Path) -> None:
        self.port = _free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        command = [
            "redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
            "--appendonly", "no", "--dir", str(folder),
        ]  # fmt: skip
        self.process = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, cwd=folder
        )

    def answers(self) -> bool:
        import redis  # noqa: PLC0415

        client = redis.Redis(port=self.port, socket_connect_timeout=1)
        try:
            return bool(client.ping())
        except redis.RedisError:
            return False
        finally:
            client.close()

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    """A fresh server, stopped after the test; skipped, with the reason, where none starts."""
    pytest.importorskip("redis", reason="the Redis client is not installed (ppconf[redis])")
    if shutil.which("redis-server") is None:
        pytest.skip("no redis-server on PATH (Debian: apt-get install redis-server)")
    folder = tmp_path / "redis"
    folder.mkdir()
    started = Server(folder)
    try:
        for _ in range(100):  # a liveness margin for a loaded machine, not a speed target
            if started.process.poll() is not None or started.answers():
                break
            time.sleep(0.1)
        if not started.answers():
            pytest.skip(f"redis-server did not start on port {started.port}")
        yield started
    finally:
        started.stop()


def _fuzz_on(machine: Path, url: str, seed: int) -> dict[str, object]:
    """``ppconf fuzz`` in a process of its own, in ``machine`` (whose .ppconf/fuzz is its
    local database), against a fake that breaks an RFC 0009 budget rule."""
    machine.mkdir()
    command = [
        sys.executable, "-m", "conformance", "fuzz",
        "--adapter=breaking:BudgetOffByOne", "--area=loops", "--examples=500",
        f"--seed={seed}", f"--database={url}", "--format=json",
    ]  # fmt: skip
    done = subprocess.run(
        command,
        cwd=machine,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert done.returncode == 1, done.stderr
    result: dict[str, object] = json.loads(done.stdout)
    return result


def _kept(machine: Path) -> list[Path]:
    return [p for p in (machine / ".ppconf" / "fuzz").rglob("*") if p.is_file()]


@pytest.mark.usefixtures("fakes_importable")
def test_two_machines_share_what_either_found(server: Server, tmp_path: Path) -> None:
    first = _fuzz_on(tmp_path / "first", server.url, seed=5)
    assert first["verdict"] == "divergence"
    # Another machine, another seed, an empty local folder: the server alone carries it.
    second = _fuzz_on(tmp_path / "second", server.url, seed=9)
    assert second["verdict"] == "divergence"
    finding = second["finding"]
    assert isinstance(finding, dict)
    assert finding["found_after"] <= BATCH  # in the first test case Hypothesis tries
    assert finding["rule"] == first["finding"]["rule"]  # type: ignore[index]
    # Each machine keeps its own findings too.
    assert _kept(tmp_path / "first")
    assert _kept(tmp_path / "second")


def test_a_server_lost_mid_campaign_is_said_once_and_the_local_folder_keeps_all(
    server: Server, tmp_path: Path
) -> None:
    warnings: list[str] = []
    local = tmp_path / "local"
    database = open_database(server.url, local=local, warn=warnings.append)
    database.save(b"key", b"before")
    assert set(database.fetch(b"key")) == {b"before"}
    server.stop()
    database.save(b"key", b"after")
    database.move(b"key", b"other", b"before")
    assert set(database.fetch(b"other")) == {b"before"}
    assert len(warnings) == 1
    assert warnings[0].startswith(f"the shared example database {server.url} was lost (")
    assert f"going on with the local one ({local}) alone" in warnings[0]
    kept = DirectoryBasedExampleDatabase(str(local))
    assert set(kept.fetch(b"key")) == {b"after"}
    assert set(kept.fetch(b"other")) == {b"before"}


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("redis://127.0.0.1:notaport/0", "the port is not a number from 1 to 65535"),
        ("redis://127.0.0.1:70000/0", "the port is not a number from 1 to 65535"),
        ("redis://127.0.0.1:6379/first", "the database 'first' is not a number"),
        ("redis:///0", "the URL names no server"),
        ("redis://127.0.0.1:6379/0?timeout=1", "the URL takes no options"),
        ("http://127.0.0.1:6379/0", "a shared example database is a Redis server"),
    ],
)
def test_a_bad_url_is_one_line_before_anything_runs(
    url: str, words: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    with pytest.raises(DatabaseError, match=words):
        open_database(url, local=tmp_path, warn=pytest.fail)
    status = main(["fuzz", "--adapter=reference", "--examples=1", f"--database={url}"])
    err = capsys.readouterr().err
    assert status == 2
    assert err == f"ppconf: error: --database {url}: {err.split(': ', 3)[3]}"
    assert words in err
    assert err.count("\n") == 1
    assert "redis://HOST:PORT/N" in err


def test_a_server_that_does_not_answer_is_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    pytest.importorskip("redis", reason="the Redis client is not installed (ppconf[redis])")
    url = f"redis://user:secret@127.0.0.1:{_free_port()}/0"
    status = main(["fuzz", "--adapter=reference", "--examples=1", f"--database={url}"])
    err = capsys.readouterr().err
    assert status == 2
    assert err.startswith(f"ppconf: error: --database {shown(url)}: the server does not answer (")
    assert "secret" not in err
    assert err.count("\n") == 1


def test_without_the_client_the_error_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "redis", None)
    with pytest.raises(DatabaseError, match=r"pip install 'ppconf\[redis\]'"):
        open_database("redis://127.0.0.1:6379/0", local=tmp_path, warn=pytest.fail)


def test_a_password_is_never_shown() -> None:
    assert shown("redis://:pw@host:1/0") == "redis://:***@host:1/0"
    assert shown("redis://me:pw@host:1/0") == "redis://me:***@host:1/0"
    assert shown("redis://host:1/0") == "redis://host:1/0"


def test_a_folder_is_a_folder(tmp_path: Path) -> None:
    database = open_database(str(tmp_path / "db"), local=tmp_path / "unused", warn=pytest.fail)
    assert isinstance(database, DirectoryBasedExampleDatabase)


# -- the plugin's setting -------------------------------------------------------------------------


def test_the_plugin_refuses_a_bad_url_with_its_own_option(run_pytest: RunPytest) -> None:
    url = "redis://127.0.0.1:notaport/0"
    result = run_pytest(
        "--ppconf-adapter=reference", "--ppconf-fuzz=5", f"--ppconf-fuzz-database={url}"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert f"ppconf: --ppconf-fuzz-database {url}: the port is not a number" in (
        result.stderr.str()
    )


def test_the_plugin_setting_needs_an_adapter(run_pytest: RunPytest) -> None:
    result = run_pytest("--ppconf-fuzz-database=redis://127.0.0.1:1/0")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--ppconf-fuzz-database needs --ppconf-adapter" in result.stderr.str()


def test_the_plugin_keeps_its_findings_on_the_shared_server(
    server: Server, run_pytest_subprocess: RunPytest
) -> None:
    import redis  # noqa: PLC0415

    result = run_pytest_subprocess(
        "--ppconf-adapter=breaking:BudgetOffByOne",
        "--ppconf-fuzz=500",
        "--ppconf-area=loops",
        f"--ppconf-fuzz-database={server.url}",
    )
    result.assert_outcomes(failed=1)
    client = redis.Redis(port=server.port)
    try:
        assert client.keys(KEY_PREFIX + b"*")
    finally:
        client.close()
