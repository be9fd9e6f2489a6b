"""Where the kit's data is: the built-in catalog and the project's JSON Schemas."""

from __future__ import annotations

from pathlib import Path

__all__ = ["catalog_root", "schema_path"]

_PACKAGE = Path(__file__).resolve().parents[1]


def schema_path(name: str) -> Path:
    """The path of one of the kit's schemas (``case.schema.json``, ``protocol.schema.json`` ...).

    An installed wheel carries them inside this package (``_data/schema``); a source checkout or
    an editable install reads the top-level ``schema/`` folder.
    """
    installed = _PACKAGE / "_data" / "schema" / name
    if installed.is_file():
        return installed
    return _PACKAGE.parent / "schema" / name


def catalog_root() -> Path:
    """The built-in catalog folder.

    An installed wheel carries it inside this package (``_data/cases``); a source checkout or
    an editable install reads the top-level ``cases/`` folder.
    """
    installed = _PACKAGE / "_data" / "cases"
    if installed.is_dir():
        return installed
    return _PACKAGE.parent / "cases"
