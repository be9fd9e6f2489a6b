"""A loaded catalog kept between runs: read back only for the same files, kit and interpreter."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from conformance._basics.errors import CaseError
from conformance._catalog import stored
from conformance._catalog.cases import Catalog, load_catalog

CaseText = Callable[..., str]


@pytest.fixture
def loads(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The catalog folders each real load read."""
    seen: list[Path] = []

    def counted(root: str | Path | None = None, *, extra: object = ()) -> Catalog:
        seen.append(Path(str(root)))
        return load_catalog(root, extra=extra)  # type: ignore[arg-type]

    monkeypatch.setattr(stored, "load_catalog", counted)
    return seen


@pytest.fixture
def root(write_catalog: Callable[[Mapping[str, str]], Path], case_text: CaseText) -> Path:
    return write_catalog({"workflow/a.yaml": case_text("workflow.mine.a", body="load: true\n")})


def ids(catalog: Catalog) -> list[str]:
    return [case.id for case in catalog.cases]


def test_the_same_files_are_read_back(root: Path, tmp_path: Path, loads: list[Path]) -> None:
    store = tmp_path / "store"
    first = stored.stored_catalog(store, root)
    second = stored.stored_catalog(store, root)
    assert ids(first) == ids(second) == ["workflow.mine.a"]
    assert second.cases[0].pack == first.cases[0].pack
    assert len(loads) == 1
    assert len(list(store.iterdir())) == 1


def test_an_edited_case_is_loaded_afresh(
    root: Path, tmp_path: Path, loads: list[Path], case_text: CaseText
) -> None:
    store = tmp_path / "store"
    stored.stored_catalog(store, root)
    (root / "workflow" / "a.yaml").write_text(case_text("workflow.mine.b", body="load: true\n"))
    assert ids(stored.stored_catalog(store, root)) == ["workflow.mine.b"]
    (root / "workflow" / "packs").mkdir()
    (root / "workflow" / "packs" / "p.json").write_text("{}")  # a pack file counts too
    stored.stored_catalog(store, root)
    assert len(loads) == 3
    assert len(list(store.iterdir())) == 1  # the one stored before is replaced


def test_the_key_follows_the_kit_and_the_catalog_folders(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kit = tmp_path / "kit"
    kit.mkdir()
    (kit / "module.py").write_text("x = 1\n")
    monkeypatch.setattr(stored, "_KIT", (kit,))
    before = stored.catalog_key([root])
    assert stored.catalog_key([root]) == before
    (kit / "module.py").write_text("x = 22\n")
    assert stored.catalog_key([root]) != before
    assert stored.catalog_key([root, kit]) != stored.catalog_key([root])


def test_a_stored_file_that_cannot_be_read_is_loaded_afresh(
    root: Path, tmp_path: Path, loads: list[Path]
) -> None:
    store = tmp_path / "store"
    stored.stored_catalog(store, root)
    [kept] = store.iterdir()
    kept.write_bytes(b"not a pickle")
    assert ids(stored.stored_catalog(store, root)) == ["workflow.mine.a"]
    assert len(loads) == 2
    assert ids(stored.stored_catalog(store, root)) == ["workflow.mine.a"]
    assert len(loads) == 2  # written again


def test_a_broken_catalog_is_never_stored(
    write_catalog: Callable[[Mapping[str, str]], Path], tmp_path: Path
) -> None:
    broken = write_catalog({"workflow/bad.yaml": "id: workflow.bad\n"})
    store = tmp_path / "store"
    for _ in range(2):
        with pytest.raises(CaseError, match=r"bad\.yaml"):
            stored.stored_catalog(store, broken)
    assert not store.exists() or not list(store.iterdir())
    with pytest.raises(CaseError, match="does not exist"):
        stored.stored_catalog(store, tmp_path / "nowhere")


def test_a_store_that_cannot_be_written_costs_only_the_time(root: Path, tmp_path: Path) -> None:
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("")
    assert ids(stored.stored_catalog(not_a_folder, root)) == ["workflow.mine.a"]
