"""One rulebook for compositions: the engine refuses exactly what the validator reports.

The engine (``run_composition``) and the validator (``reference.validate``) read the same rules
(``reference/_compositions/rules.py``). Walked over every pack of the catalog, loaded through the
kit's public API: a composition the engine refuses is refused under one of the validator's
diagnostics for it (same code, same pointer); one it accepts has no error there.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

import reference
from conformance import load_catalog
from reference import CompositionRunError, Diagnostic

ENGINE_REFUSES = {"parallel-member-kind"}  # valid, warned about, and not run by the reference


def catalog_compositions() -> Iterator[tuple[str, dict[str, Any], str]]:
    """``(case id, pack, composition name)`` for every composition of every catalog pack."""
    for case in load_catalog().cases:
        pack = case.pack.document
        compositions = pack.get("compositions") if isinstance(pack, dict) else None
        if isinstance(compositions, dict):
            for name in compositions:
                yield case.id, pack, name


def diagnostics_of(pack: dict[str, Any], name: str) -> list[Diagnostic]:
    """The validator's diagnostics about composition ``name``."""
    where = reference.json_pointer("compositions", name)
    return [
        d for d in reference.validate(pack) if d.path == where or d.path.startswith(where + "/")
    ]


def engine_refusal(pack: dict[str, Any], name: str) -> CompositionRunError | None:
    try:
        # No mocks: a composition the engine accepts fails at its first call, and that is fine.
        reference.run_composition(pack, name, {}, {}, extensions=reference.test_extensions())
    except CompositionRunError as error:
        return error
    return None


COMPOSITIONS = list(catalog_compositions())


def test_the_catalog_has_invalid_compositions_to_walk() -> None:
    invalid = [
        (case, name)
        for case, pack, name in COMPOSITIONS
        if any(d.severity == "error" for d in diagnostics_of(pack, name))
    ]
    assert len(invalid) >= 30


@pytest.mark.parametrize(
    ("pack", "name"),
    [(pack, name) for _, pack, name in COMPOSITIONS],
    ids=[f"{case}:{name}" for case, _, name in COMPOSITIONS],
)
def test_the_engine_refuses_under_one_of_the_validators_diagnostics(
    pack: dict[str, Any], name: str
) -> None:
    found = diagnostics_of(pack, name)
    refusals = [d for d in found if d.severity == "error" or d.code in ENGINE_REFUSES]
    error = engine_refusal(pack, name)
    if not refusals:
        assert error is None, f"the engine refuses a composition the validator accepts: {error}"
        return
    assert error is not None, f"the engine runs a composition with {refusals[0]}"
    assert (error.code, error.where) in {(d.code, d.path) for d in found}
    # The first, in the order the validator lists them.
    assert (error.code, error.where) == (refusals[0].code, refusals[0].path)
