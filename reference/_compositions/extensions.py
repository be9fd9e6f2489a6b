"""Vendor extensions of compositions (RFC 0010 Level 3, SEMANTICS C12) and the kit's own.

A runtime reaches Level 3 by running step kinds and reducer strategies written
``namespace.name`` that the v1 vocabulary does not have. The reference runs them through an
:class:`Extensions` registry; without a registration such a step fails with
``step-kind-unsupported`` and such a parallel step with ``reduce-strategy-unsupported``.

The kit's test vendor namespace is ``ppconf`` (see :func:`test_extensions`): every runtime that
claims Level 3 registers these two through its own extension mechanism.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from reference._compositions.vocabulary import is_namespaced
from reference._errors import InterpreterError
from reference._json import describe_json_type

KindFn = Callable[[Mapping[str, Any], Any], Any]
"""A vendor step kind: ``fn(step, input) -> output``.

``step`` is the step as written in the pack (so the kind can read its own fields), ``input`` its
``input`` binding with every reference resolved (``None`` when the step has none). Raise
:class:`StepFailure` to fail the step with a code of your choice; any other exception fails it
with ``extension-failed``.
"""

ReducerFn = Callable[[Sequence[tuple[str, Any]], Mapping[str, Any]], Any]
"""A vendor reducer: ``fn(outputs, reduce) -> merged``.

``outputs`` holds ``(branch id, output)`` for every branch that produced output, in branch
order; ``reduce`` is the parallel step's ``reduce`` object as written. The merged value is
exposed as ``${<parallel id>.output.<into>}``. Failures as for :data:`KindFn`.
"""


class StepFailure(InterpreterError):
    """A step could not produce its output; the composition records it under ``code``.

    Extensions raise it to fail a step on purpose; the engine raises it for every failure of
    SEMANTICS section 4 (``reference-unresolved``, ``predicate-type-error``, ...).

    Attributes:
        code: a stable code, e.g. ``extension-failed``.
        message: a sentence for people.
        final: whether another attempt could not change the outcome (the same input gives the
            same failure); a final failure is not retried.
    """

    def __init__(self, code: str, message: str, *, final: bool = False) -> None:
        self.code = code
        self.message = message
        self.final = final
        super().__init__(f"{code}: {message}")


class Extensions:
    """A registry of vendor step kinds and reducer strategies for :func:`run_composition`.

    Register everything before running; the registry is then only read, from any thread.
    """

    def __init__(self) -> None:
        self._kinds: dict[str, KindFn] = {}
        self._reducers: dict[str, ReducerFn] = {}

    def register_kind(self, name: str, fn: KindFn) -> None:
        """Make steps of kind ``name`` run ``fn`` (see :data:`KindFn`).

        Raises:
            ValueError: ``name`` is not ``namespace.name``, or is registered already.
        """
        _check_name("step kind", name, self._kinds)
        self._kinds[name] = fn

    def register_reducer(self, name: str, fn: ReducerFn) -> None:
        """Make parallel steps with ``reduce.strategy: name`` merge with ``fn``.

        Raises:
            ValueError: ``name`` is not ``namespace.name``, or is registered already.
        """
        _check_name("reducer", name, self._reducers)
        self._reducers[name] = fn

    def kind(self, name: str) -> KindFn | None:
        """The function registered for step kind ``name``, if any."""
        return self._kinds.get(name)

    def reducer(self, name: str) -> ReducerFn | None:
        """The function registered for reducer strategy ``name``, if any."""
        return self._reducers.get(name)

    @property
    def kinds(self) -> tuple[str, ...]:
        """The registered step kinds, sorted (what an adapter claims as capabilities)."""
        return tuple(sorted(self._kinds))

    @property
    def reducers(self) -> tuple[str, ...]:
        """The registered reducer strategies, sorted."""
        return tuple(sorted(self._reducers))

    def __repr__(self) -> str:
        return f"Extensions(kinds={list(self.kinds)}, reducers={list(self.reducers)})"


def _check_name(what: str, name: str, registered: Mapping[str, object]) -> None:
    if not isinstance(name, str) or not is_namespaced(name):
        raise ValueError(
            f"a vendor {what} is named 'namespace.name' in lower case (e.g. 'acme.judge'), "
            f"not {name!r}"
        )
    if name in registered:
        raise ValueError(f"{what} {name!r} is registered already")


# -- the kit's test vendor namespace -----------------------------------------------------------


def test_extensions() -> Extensions:
    """Return a new registry holding the kit's test vendor namespace, ``ppconf``.

    - ``ppconf.upper`` (step kind): the output is the step's ``input``, which must resolve to a
      string, upper-cased.
    - ``ppconf.join`` (reducer): the branch outputs, which must be strings, joined in branch
      order with the reduce object's ``separator`` (a string; default: none, ``""``).
    """
    extensions = Extensions()
    extensions.register_kind("ppconf.upper", _upper)
    extensions.register_reducer("ppconf.join", _join)
    return extensions


test_extensions.__test__ = False  # type: ignore[attr-defined]  # not a pytest test


def _upper(step: Mapping[str, Any], input: Any) -> Any:
    if not isinstance(input, str):
        raise StepFailure(
            "extension-failed",
            f"ppconf.upper needs a string input, got {describe_json_type(input)}",
            final=True,
        )
    # Python's full Unicode mapping ('ß' -> 'SS'); catalog cases keep to ASCII, where every
    # language's upper-casing agrees.
    return input.upper()


def _join(outputs: Sequence[tuple[str, Any]], reduce: Mapping[str, Any]) -> Any:
    separator = reduce.get("separator", "")
    if not isinstance(separator, str):
        raise StepFailure(
            "extension-failed",
            f"ppconf.join needs a string separator, got {describe_json_type(separator)}",
            final=True,
        )
    for branch, output in outputs:
        if not isinstance(output, str):
            raise StepFailure(
                "extension-failed",
                f"ppconf.join joins strings; branch {branch!r} gave {describe_json_type(output)}",
                final=True,
            )
    return separator.join(output for _, output in outputs)
