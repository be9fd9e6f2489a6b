"""Quotes of the spec texts: where each source's text is, and how quotes are compared with it.

The statement registry quotes the RFCs and the published schemas verbatim; a quote is compared
with a text with whitespace, Markdown emphasis and escapes ignored (the plain-text copies of the
RFCs lost them) and curly quotes read as straight ones.
"""

from __future__ import annotations

import re

__all__ = ["SOURCE_FILES", "normalize"]

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
