"""The same seed draws the same examples, whatever else the process has imported.

Hypothesis mixes constants found in the source of the "local" modules loaded (those outside
the standard library and site-packages: the kit itself when installed editable, a runtime's
own package, a ``conftest.py``) into what it draws, now and then, in place of a random value.
Which modules are loaded differs between ``ppconf fuzz``, a pytest run (and the tests run
before in the same process) and a user's script, so one seed would draw other examples in each
(and a module imported in the middle of a run would change the draws from there on).

:func:`no_local_constants` keeps that pool empty while the fuzzer runs: its draws then depend
on the seed alone. Hypothesis' own constants (boundary integers, odd strings) still take part.
The hook is Hypothesis' internal ``_get_local_constants``; if a version of Hypothesis has none,
nothing is changed, and ``tests/conformance/test_fuzz_determinism.py`` says so.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from hypothesis.internal.conjecture import providers

try:
    from hypothesis.internal.constants_ast import Constants as _Pool
except ImportError:  # another Hypothesis: no hook to replace either (see the module docstring)
    _Pool = None  # type: ignore[assignment,misc]

__all__ = ["no_local_constants"]


class _Patch:
    """The hook replaced while at least one fuzz run is inside (runs may nest or overlap)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.depth = 0
        self.saved: Any = None
        self.empty: Any = None

    def empty_pool(self) -> Any:
        """An empty pool of the kind Hypothesis keeps (the same each call)."""
        return self.empty

    def enter(self, hook: Any, cache: Any) -> None:
        with self.lock:
            if self.depth == 0:
                if self.empty is None:
                    self.empty = _Pool()
                self.saved = hook
                providers._get_local_constants = self.empty_pool
                if cache is not None:
                    cache.cache.clear()  # the allowed constants per draw, made with the pool
            self.depth += 1

    def leave(self, cache: Any) -> None:
        with self.lock:
            self.depth -= 1
            if self.depth == 0:
                providers._get_local_constants = self.saved
                self.saved = None
                if cache is not None:
                    cache.cache.clear()


_PATCH = _Patch()


@contextmanager
def no_local_constants() -> Iterator[None]:
    """While inside, Hypothesis draws no constant taken from local modules (reentrant)."""
    hook = getattr(providers, "_get_local_constants", None)
    cache = getattr(providers, "CONSTANTS_CACHE", None)
    if hook is None or _Pool is None:
        yield
        return
    _PATCH.enter(hook, cache)
    try:
        yield
    finally:
        _PATCH.leave(cache)
