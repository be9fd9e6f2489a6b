"""The interface between the kit and a runtime: every operation the kit may call.

An adapter wraps one runtime. The kit calls it with packs and inputs only; expectations never
cross this line. Refusals are reported by raising :class:`~conformance.Rejected` (a SEMANTICS
rejection code), :class:`~conformance.PackRejected` (the pack cannot be loaded) or
:class:`~conformance.Unsupported` (the runtime does not do this; the case part is skipped,
which counts as not passed). Any other exception marks the case part ``errored``.

:class:`Adapter` and :class:`AdapterSession` are what every runtime implements. The other
protocols are optional: a runtime implements those of the features it has (compositions,
starting at a state, turns, freeing resources), and the kit skips the parts needing the others.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

__all__ = [
    "Adapter",
    "AdapterSession",
    "Call",
    "Capabilities",
    "Closable",
    "CompositionAdapter",
    "CompositionSession",
    "PackFormat",
    "PackInput",
    "ScriptingAdapter",
    "StateStartingAdapter",
    "Terminable",
    "TimesOutItself",
    "TurnSession",
    "copy_json",
]

PackFormat = Literal["json", "yaml"]
_UNSET: Any = object()


class PackInput:
    """A pack as handed to a runtime: its text, and the kit's own parse of it.

    Every call of an adapter gets its own ``PackInput``, whose ``document`` is a fresh copy made
    on first use: a runtime that changes the mapping it is given changes nothing for the kit or
    for the next call.

    Attributes:
        text: the pack as a document (raw file text for ``pack_file``, JSON for inline packs).
        format: ``json`` or ``yaml``, the syntax of ``text``.
        document: the parsed pack, or ``None`` when the kit's loader refuses the text (a case
            about load failures, such as duplicate keys).
        source: where the pack comes from, for messages.
    """

    __slots__ = ("_copy", "_original", "format", "source", "text")

    def __init__(
        self, text: str, format: PackFormat, document: dict[str, Any] | None, source: str
    ) -> None:
        self.text = text
        self.format: PackFormat = format
        self.source = source
        self._original = document
        self._copy: dict[str, Any] | None = _UNSET

    @property
    def document(self) -> dict[str, Any] | None:
        if self._copy is _UNSET:
            self._copy = None if self._original is None else copy_json(self._original)
        return self._copy

    def fresh(self) -> PackInput:
        """The same pack with a document of its own (copied from the kit's, never from a
        document an adapter has had)."""
        return PackInput(self.text, self.format, self._original, self.source)

    def __repr__(self) -> str:
        return f"PackInput(source={self.source!r}, format={self.format!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PackInput):
            return NotImplemented
        return (self.text, self.format, self.source, self._original) == (
            other.text,
            other.format,
            other.source,
            other._original,
        )

    __hash__ = None  # type: ignore[assignment]


def copy_json(value: Any) -> Any:
    """A deep copy of JSON-shaped data (dicts, lists, scalars), several times faster than
    :func:`copy.deepcopy` for the packs the kit hands out on every call."""
    if isinstance(value, dict):
        return {key: copy_json(item) for key, item in value.items()}
    if isinstance(value, list):
        return [copy_json(item) for item in value]
    return value


@dataclass(frozen=True)
class Capabilities:
    """What an adapter says about its runtime.

    Attributes:
        name: the runtime's name.
        version: its version.
        language: the language it is written in.
        claims: area -> the support level the runtime claims (reported beside the measured one;
            the headline level covers the claimed areas, or every area when none is claimed).
        extensions: vendor extensions registered (e.g. ``ppconf.upper``), for RFC 0010 Level 3.
    """

    name: str
    version: str = ""
    language: str = ""
    claims: Mapping[str, int] = field(default_factory=dict)
    extensions: Sequence[str] = ()

    def to_dict(self) -> dict[str, Any]:
        """As JSON-able data (the ``hello`` answer and the report header use this shape)."""
        return {
            "name": self.name,
            "version": self.version,
            "language": self.language,
            "claims": dict(sorted(self.claims.items())),
            "extensions": list(self.extensions),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Capabilities:
        """Read what :meth:`to_dict` writes; only ``name`` is required.

        Raises:
            ValueError: a field is missing, unknown or of the wrong type (the message names it).
        """
        unknown = sorted(set(data) - {"name", "version", "language", "claims", "extensions"})
        if unknown:
            raise ValueError(f"capabilities have no field {unknown[0]!r}")
        if "name" not in data:
            raise ValueError("capabilities need a name")
        for key in ("name", "version", "language"):
            if not isinstance(data.get(key, ""), str):
                raise ValueError(f"capabilities: {key} must be a string, not {data[key]!r}")
        claims = data.get("claims", {})
        if not isinstance(claims, Mapping) or not all(
            isinstance(area, str) and type(level) is int for area, level in claims.items()
        ):
            raise ValueError(
                f"capabilities: claims must map each area to an integer level, not {claims!r}"
            )
        extensions = data.get("extensions", [])
        if not isinstance(extensions, list | tuple) or not all(
            isinstance(name, str) for name in extensions
        ):
            raise ValueError(
                f"capabilities: extensions must be a list of names, not {extensions!r}"
            )
        return cls(
            name=data["name"],
            version=data.get("version", ""),
            language=data.get("language", ""),
            claims=dict(claims),
            extensions=tuple(extensions),
        )


@runtime_checkable
class AdapterSession(Protocol):
    """One running workflow session inside the runtime."""

    def send(self, event: str, source: str) -> Mapping[str, Any]:
        """Process an event from ``"host"`` or ``"agent"``; return ``{from, to, event, ...}``.

        A redirect adds ``redirected: true`` and ``original_target``. Raise ``Rejected`` with
        the SEMANTICS code (and ``limit`` for ``budget-exhausted``) when the event is refused.
        """
        ...

    def set_artifact(self, name: str, value: str) -> None:
        """Write an artifact; raise ``Rejected("artifact-undeclared")`` if refused."""
        ...

    def record_tool_calls(self, count: int) -> None:
        """Tell the runtime that ``count`` more tool calls happened."""
        ...

    def advance_clock(self, seconds: float) -> None:
        """Move the session's clock forward (the runtime must let the kit control time)."""
        ...

    def state(self) -> Mapping[str, Any]:
        """The observable session data: ``current_state``, ``status``, ``visit_counts`` ...

        Report what the runtime has; a key it cannot report is best left out (a case checking
        it then fails with "not reported" rather than on a made-up value).
        """
        ...

    def snapshot(self) -> Any:
        """An opaque snapshot that :meth:`Adapter.restore` accepts."""
        ...


@runtime_checkable
class Adapter(Protocol):
    """A runtime, as the kit drives it."""

    def capabilities(self) -> Capabilities:
        """Name, version and claimed levels of the runtime."""
        ...

    def load(self, pack: PackInput) -> None:
        """Load a pack as the runtime would to run its prompts; raise ``PackRejected`` if not.

        A runtime without workflows must still load a valid pack carrying them (Level 0).
        """
        ...

    def validate(self, pack: PackInput) -> Sequence[Mapping[str, Any]]:
        """Validate a pack; return diagnostics as ``{code, severity, path}`` mappings.

        ``severity`` is ``"error"`` or ``"warning"``; ``path`` a JSON pointer, or ``None``
        when the runtime has none (a null path matches no expected path).
        """
        ...

    def start(self, pack: PackInput) -> AdapterSession:
        """Start a workflow session at the entry, with a clock the kit controls.

        Raise ``Rejected`` if the runtime refuses to start (e.g.
        ``workflow-version-unsupported``); a pack with validation errors may be refused the
        same way. Returning anything but a session is an adapter fault.
        """
        ...

    def restore(self, pack: PackInput, snapshot: Any) -> AdapterSession:
        """Continue a session from :meth:`AdapterSession.snapshot` data in a fresh session."""
        ...


@runtime_checkable
class CompositionAdapter(Protocol):
    """Optional: a runtime that runs compositions (RFC 0010)."""

    def run_composition(
        self, pack: PackInput, name: str, input: Any, mocks: Mapping[str, Any]
    ) -> Mapping[str, Any]:
        """Run composition ``name`` with scripted mocks; return ``{status, output, error,
        trace}`` (docs/semantics.md section 5). ``Rejected`` when it cannot run at all."""
        ...


@runtime_checkable
class CompositionSession(Protocol):
    """Optional: a session that runs the current state's composition (RFC 0010, C11)."""

    def run_state(self, input: Any, mocks: Mapping[str, Any]) -> Mapping[str, Any]:
        """Run the composition of the current state; the result as ``run_composition``'s."""
        ...


@runtime_checkable
class StateStartingAdapter(Protocol):
    """Optional: a runtime that starts sessions at a named state or agent (RFC 0011)."""

    def start_at(
        self, pack: PackInput, *, state: str | None = None, agent: str | None = None
    ) -> AdapterSession:
        """Start at ``state``, or at the state backing the agents member ``agent``.

        Raise ``Rejected("start-state-unknown")``, ``Rejected("agent-unknown")`` or
        ``Rejected("agent-not-state-backed")`` when the start is refused.
        """
        ...


@runtime_checkable
class TurnSession(Protocol):
    """Optional: a session that tracks who holds the next turn (RFC 0014, ``control``).

    Its :meth:`~AdapterSession.state` then also reports ``turn`` and ``reply``.
    """

    def agent_text(self, text: str) -> None:
        """The agent emits ``text`` in the current round."""
        ...

    def user_turn(self) -> None:
        """The user speaks: the reply so far is delivered and the user holds the turn."""
        ...


Call = tuple[str, Mapping[str, Any]]
"""One call of a script: the name of an adapter method (``validate``, ``start``,
``run_composition``) or of a session method (``send``, ``state``, ``record_tool_calls`` ...),
and its keyword arguments (never the pack)."""


@runtime_checkable
class ScriptingAdapter(Protocol):
    """Optional: a runtime that answers a whole scenario at once (one round trip, for a runtime
    behind a process boundary, instead of one per step).

    The kit hands over every call it may make on one pack, in order, before it makes any:
    ``validate``, ``start`` (with ``at_state`` or ``agent``), the session's methods
    (``send``, ``state`` after each step whose expectations read it ...) and
    ``run_composition``. The answer is an adapter whose methods and sessions give, call by
    call, what the runtime answered (refusals and faults raised where they happened). The kit
    judges each step after it as usual: it may stop before the end and skip a listed
    ``state``; it never makes a call that is not listed. A call the answer cannot give raises
    :class:`~conformance._basics.errors.ScriptIncomplete`: the kit then makes the calls one at a
    time.
    """

    def scripted(self, pack: PackInput, calls: Sequence[Call]) -> Adapter | None:
        """The answers to ``calls`` on ``pack`` (``None``: make them one at a time after all).

        The work may go on after this returns: the kit may do other things before its first
        call on the answer.
        """
        ...


@runtime_checkable
class Closable(Protocol):
    """Optional, for adapters and sessions: free what they hold when the kit is done."""

    def close(self) -> None:
        """Release the session or the runtime (a process, files ...)."""
        ...


@runtime_checkable
class Terminable(Protocol):
    """Optional, for an adapter holding a process it can kill at once (the protocol adapter):
    a stop signal leaves no time for a goodbye."""

    def terminate(self) -> None:
        """Kill the adapter's process group now; start no other."""
        ...


@runtime_checkable
class TimesOutItself(Protocol):
    """Optional, for an adapter that bounds every call in time itself (the protocol client
    times out each request and restarts the process): the kit then calls it in the calling
    thread, with no worker thread to abandon."""

    handles_timeouts: bool
