"""Quotes of the spec in case files (SEMANTICS section 0, R1).

A MUST case asserts only what RFC text requires, and its ``spec`` entries quote that text. The
kit checks that a MUST case carries a quote from an RFC or a published schema; the project's
tests check every quote against the texts themselves (whitespace and Markdown emphasis aside,
since the plain-text copies of the RFCs lost both).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

NORMATIVE_SOURCES = (
    "RFC 0005",
    "RFC 0009",
    "RFC 0010",
    "RFC 0011",
    "RFC 0014",
    "RFC 0016",
    "RFC 0017",
    "schema 1.4.0",
    "schema 1.5.1",
    "schema 1.9.0",
)
"""Sources whose text can require a behaviour: the RFCs and the published schemas."""

SOURCE_FILES = {
    "RFC 0005": "rfc-0005-workflow.txt",
    "RFC 0009": "rfc-0009-agent-loops.txt",
    "RFC 0010": "rfc-0010-compositions.txt",
    "RFC 0011": "rfc-0011-workflow-states-as-agents.md",
    "RFC 0014": "rfc-0014-workflow-state-control.md",
    "RFC 0016": "rfc-0016-governance-and-policy-annotation.md",
    "RFC 0017": "rfc-0017-provider-references.md",
    "schema 1.4.0": "promptpack-1.4.0.schema.json",
    "schema 1.5.1": "promptpack-1.5.1.schema.json",
    "schema 1.9.0": "promptpack-1.9.0.schema.json",
    "guide": "guide-add-workflow.txt",
}
"""The file of each source in the spec folder (SEMANTICS is the contract itself)."""

_IGNORED = re.compile(r"[\s*`\\]+")
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})


def normalize(text: str) -> str:
    """Text as quotes are compared: no whitespace, Markdown emphasis or escapes, straight quotes."""
    return _IGNORED.sub("", text.translate(_QUOTES))


def normative_quotes(spec: Sequence[Mapping[str, str]]) -> list[str]:
    """The quotes of a case's ``spec`` entries that come from an RFC or a published schema."""
    return [
        entry["quote"]
        for entry in spec
        if entry.get("source") in NORMATIVE_SOURCES and entry.get("quote")
    ]
