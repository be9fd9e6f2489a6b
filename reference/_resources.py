"""Where the project's data files (the JSON Schemas under ``schema/``) are found."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def schema_path(name: str) -> Path:
    """Return the path of one of the project's schemas, e.g. ``promptpack.schema.json``.

    An installed wheel carries the schemas inside this package (``_data/schema``); a source
    checkout or an editable install reads them from the top-level ``schema/`` folder.
    """
    installed = _PACKAGE / "_data" / "schema" / name
    if installed.is_file():
        return installed
    return _PACKAGE.parent / "schema" / name
