"""The catalog's YAML files read as documents: parse errors and schema errors raised as
:class:`~conformance._basics.errors.CaseError` at the line they concern.

Case files, statement files, context tables and expected-failures files are all read here, so
each says what is wrong, where and how to fix it in the same words.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema_rs

import reference
from conformance._basics.errors import CaseError
from conformance._basics.resources import schema_path
from reference import Document

__all__ = ["check_schema", "read_checked", "read_yaml"]


def read_yaml(path: str | Path) -> Document:
    """The YAML file at ``path`` as a document whose lines can be located.

    Raises:
        CaseError: the file cannot be read or parsed (where, and how to fix it).
    """
    try:
        return reference.read_document(path, format="yaml")
    except reference.PackLoadError as error:
        raise CaseError(error.message, error.location, error.hint) from None


@cache
def _validator(schema: str) -> Any:
    with open(schema_path(schema), encoding="utf-8") as stream:
        return jsonschema_rs.validator_for(json.load(stream))


def check_schema(document: Document, schema: str, what: str) -> None:
    """Check the document's data against one of the kit's schemas.

    Arguments:
        schema: the schema's file name (``statements.schema.json``).
        what: what the schema describes, for the hint (``the statement format``).

    Raises:
        CaseError: at the pointer of the deepest error (the most specific), the first in the
            file among those, with how many more problems there are.
    """
    errors = list(_validator(schema).iter_errors(document.data))
    if not errors:
        return
    error = min(errors, key=lambda e: (-len(e.instance_path), list(map(str, e.instance_path))))
    pointer = reference.json_pointer(*error.instance_path)
    more = f" ({len(errors) - 1} more problems)" if len(errors) > 1 else ""
    raise CaseError(
        f"field {pointer or '/'}: {error.message}{more}",
        document.locate(pointer),
        f"see schema/{schema} for {what}",
    )


def read_checked(path: str | Path, schema: str, what: str) -> Document:
    """The YAML file at ``path``, checked against ``schema`` (see :func:`check_schema`).

    Raises:
        CaseError: the file cannot be parsed, or breaks the schema.
    """
    document = read_yaml(path)
    check_schema(document, schema, what)
    return document
