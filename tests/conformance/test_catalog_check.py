"""``ppconf cases check`` refuses a MUST case that quotes no RFC (SEMANTICS R1)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from conformance._catalog_check import check_catalog

QUOTED = """\
  - source: RFC 0005
    section: "Validation Rules"
    quote: "Every state referenced in on_event must exist in states"
"""


def test_a_must_case_without_a_quote_is_refused(
    write_catalog: Callable[[Mapping[str, str]], Path], case_text: Callable[..., str]
) -> None:
    bare = case_text("workflow.t.bare")
    should = case_text("workflow.t.advice", requirement="SHOULD")
    quoted = case_text("workflow.t.quoted").replace(
        '  - {source: SEMANTICS, section: "kit tests"}\n', QUOTED
    )
    root = write_catalog(
        {"workflow/bare.yaml": bare, "workflow/advice.yaml": should, "workflow/q.yaml": quoted}
    )
    _, problems = check_catalog(root, coverage=False)
    unquoted = [p for p in problems if "quotes no RFC" in p]
    assert len(unquoted) == 1
    assert unquoted[0].startswith("workflow/bare.yaml:7: workflow.t.bare is MUST")
