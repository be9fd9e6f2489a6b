"""The interface between the kit and a runtime.

An adapter wraps one runtime. The kit calls it with packs and inputs only; expectations never
cross this line. Refusals are reported by raising :class:`~conformance.Rejected` (a SEMANTICS
rejection code), :class:`~conformance.PackRejected` (the pack cannot be loaded) or
:class:`~conformance.Unsupported` (the runtime does not do this; the case part is skipped).
Any other exception marks the case part ``errored``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from conformance._cases import PackInput


@dataclass(frozen=True)
class Capabilities:
    """What an adapter says about its runtime.

    Attributes:
        name: the runtime's name.
        version: its version.
        language: the language it is written in.
        claims: area -> the support level the runtime claims (reported beside the measured one).
        extensions: vendor extensions registered (e.g. ``ppconf.upper``), for RFC 0010 Level 3.
    """

    name: str
    version: str = ""
    language: str = ""
    claims: Mapping[str, int] = field(default_factory=dict)
    extensions: Sequence[str] = ()

    def to_dict(self) -> dict[str, Any]:
        """As JSON data: ``{name, version, language, claims: {area: level}, extensions: [...]}``."""
        return {
            "name": self.name,
            "version": self.version,
            "language": self.language,
            "claims": dict(self.claims),
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
        """The observable session data: ``current_state``, ``status``, ``visit_counts`` ..."""
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
        """Load a pack as the runtime would to run its prompts; raise ``PackRejected`` if not."""
        ...

    def validate(self, pack: PackInput) -> Sequence[Mapping[str, Any]]:
        """Validate a pack; return diagnostics as ``{code, severity, path}`` mappings."""
        ...

    def start(self, pack: PackInput) -> AdapterSession:
        """Start a workflow session with a clock the kit controls; ``Rejected`` if refused."""
        ...

    def restore(self, pack: PackInput, snapshot: Any) -> AdapterSession:
        """Continue a session from :meth:`AdapterSession.snapshot` data in a fresh session."""
        ...
