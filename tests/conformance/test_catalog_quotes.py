"""Every quote in the catalog is the spec's own text (SEMANTICS section 0, R1).

The spec texts are the ones the project was written against, in ``../shared/spec``; the
quotes are compared with whitespace and Markdown emphasis ignored.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from conformance import Catalog
from conformance._quotes import SOURCE_FILES, normalize

SPEC = Path(__file__).resolve().parents[2].parent / "shared" / "spec"


@cache
def spec_text(source: str) -> str:
    return normalize((SPEC / SOURCE_FILES[source]).read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def spec_folder() -> Path:
    if not SPEC.is_dir():
        pytest.skip(f"the spec texts are not at {SPEC}; the quotes cannot be compared")
    return SPEC


def test_every_quote_is_verbatim(catalog: Catalog, spec_folder: Path) -> None:
    wrong = []
    for case in catalog.cases:
        for index, entry in enumerate(case.spec):
            quote = entry.get("quote")
            if quote is None or entry["source"] not in SOURCE_FILES:
                continue
            if normalize(quote) not in spec_text(entry["source"]):
                wrong.append(f"{case.where(f'/spec/{index}/quote')}: {case.id}: {quote!r}")
    assert not wrong, "quotes not found in their source:\n" + "\n".join(wrong)


def test_normalize_ignores_layout_and_emphasis() -> None:
    assert normalize("a **MUST** `x`\n  be") == normalize("a MUST x be")
    assert normalize("don\u2019t") == normalize("don't")
    assert normalize("a b") != normalize("a c")
