"""The ppconf conformance kit: cases, runner, adapters, levels, reports, CLI and pytest plugin."""

from __future__ import annotations

__all__: list[str] = []
