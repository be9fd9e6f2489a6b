"""Where a fuzz campaign keeps the failures it found: a folder, or a Redis server shared by many
machines layered over the local folder.

``--database DIR`` is Hypothesis' directory database. ``--database redis://HOST:PORT/N`` is
Hypothesis' own :class:`~hypothesis.extra.redis.RedisExampleDatabase` (the ``redis`` extra:
``pip install 'ppconf[redis]'``) under a :class:`~hypothesis.database.MultiplexedDatabase` with
the local folder, so that each machine replays what any other found and keeps its own findings
too. A bad URL, a missing client and a server that does not answer are one clear error each,
before anything runs; a server lost in the middle of a campaign is one warning, after which the
campaign goes on with the local folder alone (nothing found is lost: it is kept there, and the
exported cases are written as always).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any
from urllib.parse import SplitResult, urlsplit

from hypothesis.database import (
    DirectoryBasedExampleDatabase,
    ExampleDatabase,
    MultiplexedDatabase,
)

from conformance._basics.errors import KitError

__all__ = [
    "CONNECT_SECONDS",
    "KEY_PREFIX",
    "SCHEMES",
    "DatabaseError",
    "is_url",
    "open_database",
    "shown",
]

SCHEMES = ("redis", "rediss")
"""The URL schemes of a shared database (``rediss``: Redis over TLS)."""
KEY_PREFIX = b"ppconf-fuzz:"
"""What the kit's keys start with on a shared server, beside anything else kept there."""
CONNECT_SECONDS = 5.0
"""How long a shared server has to answer a connection, and then each request: a server that
stops answering costs a campaign this long once, then it goes on without it."""
_EXAMPLE = "redis://HOST:PORT/N, e.g. redis://localhost:6379/0"

Warn = Callable[[str], None]
"""Told, in one line, that the shared database was lost and the campaign goes on without it."""


class DatabaseError(KitError):
    """The example database cannot be used: what, and how to fix it."""


def is_url(where: str) -> bool:
    """Whether ``where`` names a server rather than a folder."""
    return "://" in where


def shown(url: str) -> str:
    """``url`` as printed: without its password, which has no place in a CI log."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rpartition("@")[2]
    user = f"{parts.username}:***@" if parts.username else ":***@"
    return parts._replace(netloc=user + host).geturl()


def open_database(
    where: str, *, local: Path, warn: Warn, option: str = "--database"
) -> ExampleDatabase:
    """The example database at ``where``: a folder, or a shared server's URL layered over the
    folder ``local``. ``option`` is what an error names (the option that gave ``where``).

    Raises:
        DatabaseError: a URL of another scheme or malformed, no Redis client installed, or a
            server that does not answer.
    """
    if not is_url(where):
        return DirectoryBasedExampleDatabase(str(where))
    shared = _redis(where, warn, local, option)
    return MultiplexedDatabase(DirectoryBasedExampleDatabase(str(local)), shared)


def _checked(url: str, option: str) -> SplitResult:
    """The parts of a shared database's URL, checked before any connection is tried."""
    name = shown(url)
    parts = urlsplit(url)
    if parts.scheme not in SCHEMES:
        raise DatabaseError(
            f"{option} {name}: a shared example database is a Redis server, {_EXAMPLE} "
            "(or a folder)"
        )
    try:
        port = parts.port
    except ValueError:
        raise DatabaseError(
            f"{option} {name}: the port is not a number from 1 to 65535; write {_EXAMPLE}"
        ) from None
    if not parts.hostname or port == 0:
        raise DatabaseError(f"{option} {name}: the URL names no server; write {_EXAMPLE}")
    number = parts.path.lstrip("/")
    if number and not (number.isascii() and number.isdigit()):
        raise DatabaseError(
            f"{option} {name}: the database {number!r} is not a number; write {_EXAMPLE}"
        )
    if parts.query or parts.fragment:
        raise DatabaseError(f"{option} {name}: the URL takes no options; write {_EXAMPLE}")
    return parts


def _redis(url: str, warn: Warn, local: Path, option: str) -> ExampleDatabase:
    _checked(url, option)
    name = shown(url)
    try:
        import redis  # noqa: PLC0415 (an optional extra)
        from hypothesis.extra.redis import RedisExampleDatabase  # noqa: PLC0415
    except ImportError:
        raise DatabaseError(
            f"{option} {name}: the Redis client is not installed; "
            "pip install 'ppconf[redis]' (or give a folder)"
        ) from None
    client = redis.Redis.from_url(
        url, socket_connect_timeout=CONNECT_SECONDS, socket_timeout=CONNECT_SECONDS
    )
    try:
        client.ping()
    except (redis.RedisError, OSError) as error:
        client.close()
        raise DatabaseError(
            f"{option} {name}: the server does not answer ({_reason(error)}); start it, or "
            "check the host, port and password"
        ) from None
    database = RedisExampleDatabase(client, key_prefix=KEY_PREFIX)
    return _UntilLost(database, (redis.RedisError, OSError), name, warn, local)


def _reason(error: BaseException) -> str:
    return " ".join(str(error).split())[:200] or type(error).__name__


class _UntilLost(ExampleDatabase):
    """A shared database that, the first time it fails, says so once and is dropped: the
    campaign goes on, the local database beside it keeping everything found."""

    def __init__(
        self,
        inner: ExampleDatabase,
        errors: tuple[type[BaseException], ...],
        name: str,
        warn: Warn,
        local: Path,
    ) -> None:
        super().__init__()
        self.inner = inner
        self.errors = errors
        self.name = name
        self.warn = warn
        self.local = local
        self.lost = False

    def _lose(self, error: BaseException) -> None:
        self.lost = True
        self.warn(
            f"the shared example database {self.name} was lost ({_reason(error)}); going on "
            f"with the local one ({self.local}) alone, which keeps what is found from now on"
        )

    def _do(self, action: Callable[[], Any]) -> Any:
        if self.lost:
            return None
        try:
            return action()
        except self.errors as error:
            self._lose(error)
            return None

    def fetch(self, key: bytes) -> Iterable[bytes]:
        # Read whole, so that a server lost halfway is caught here, not in Hypothesis.
        values: list[bytes] | None = self._do(lambda: list(self.inner.fetch(key)))
        return values or []

    def save(self, key: bytes, value: bytes) -> None:
        self._do(lambda: self.inner.save(key, value))

    def delete(self, key: bytes, value: bytes) -> None:
        self._do(lambda: self.inner.delete(key, value))

    def move(self, src: bytes, dest: bytes, value: bytes) -> None:
        self._do(lambda: self.inner.move(src, dest, value))
