"""Expected-failure files: case ids a runtime is known to fail, each with the reason."""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

import reference
from conformance._errors import CaseError


def load_expected_failures(path: str | Path, known_ids: Collection[str]) -> dict[str, str]:
    """Read a YAML mapping ``case id: reason``.

    Raises:
        CaseError: the file is malformed, a reason is empty, or an id is not in the catalog
            (a stale entry would hide nothing and mislead).
    """
    try:
        document = reference.read_document(path, format="yaml")
    except reference.PackLoadError as error:
        raise CaseError(error.message, error.location, error.hint) from None
    data = document.data if document.data is not None else {}
    if not isinstance(data, dict):
        raise CaseError(
            "an expected-failures file is a mapping of case id to reason",
            document.locate(""),
            "write lines like `loops.budget.wall-time: our clock cannot be injected`",
        )
    for case_id, reason in data.items():
        pointer = "/" + case_id.replace("~", "~0").replace("/", "~1")
        if not isinstance(reason, str) or not reason.strip():
            raise CaseError(
                f"expected failure {case_id!r} has no reason",
                document.locate(pointer),
                "give every entry a reason, so the list can be reviewed",
            )
        if case_id not in known_ids:
            raise CaseError(
                f"expected failure {case_id!r} is not a case of the catalog",
                document.locate(pointer),
                "remove the entry or fix the id (ppconf cases list shows them)",
            )
    return dict(data)
