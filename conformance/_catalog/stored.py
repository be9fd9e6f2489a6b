"""A loaded catalog kept in a folder between runs, keyed by everything its loading reads.

Parsing and checking the catalog's case files takes most of a second; reading back a pickle of
the result takes a sixth of that. The key is a hash of the catalog folders' files (names and
contents: cases, packs, statements), the kit's own code and data (names, sizes and modification
times of the ``conformance`` and ``reference`` packages' files) and the interpreter's version, so
an edited case, an edited kit or another Python loads afresh; a stored catalog that cannot be
read back is loaded afresh too. A catalog that does not load is not stored: every run says why.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import reference
from conformance._basics.resources import catalog_root
from conformance._catalog.cases import Catalog, load_catalog

__all__ = ["catalog_key", "stored_catalog"]

_KIT = (Path(__file__).resolve().parents[1], Path(reference.__file__).resolve().parent)
"""The ``conformance`` and ``reference`` packages' folders."""
_SUFFIX = ".catalog.pickle"


def catalog_key(folders: Sequence[Path]) -> str:
    """The hash of what loading the catalog under ``folders`` reads (see the module)."""
    digest = hashlib.sha256()
    digest.update(sys.version.encode())
    for package in _KIT:
        for path in sorted(package.rglob("*")):
            if "__pycache__" in path.parts or not path.is_file():
                continue
            stat = path.stat()
            digest.update(f"{path}\0{stat.st_size}\0{stat.st_mtime_ns}\0".encode())
    for folder in folders:
        digest.update(f"catalog\0{folder.resolve()}\0".encode())
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                digest.update(f"{path.relative_to(folder)}\0".encode())
                digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def stored_catalog(
    store: Path, root: str | Path | None = None, *, extra: Sequence[str | Path] = ()
) -> Catalog:
    """The catalog :func:`~conformance._catalog.cases.load_catalog` loads, read from ``store``
    when it holds one for the same files, else loaded and stored there (the one stored before
    replaced). A store that cannot be written only costs the time saved.

    Raises:
        CaseError: as :func:`~conformance._catalog.cases.load_catalog` raises it.
    """
    folders = [Path(root) if root is not None else catalog_root(), *map(Path, extra)]
    if not all(folder.is_dir() for folder in folders):
        return load_catalog(root, extra=extra)  # which says what is wrong with a folder
    path = store / (catalog_key(folders) + _SUFFIX)
    with contextlib.suppress(OSError, pickle.UnpicklingError, EOFError, ValueError, TypeError):
        with open(path, "rb") as stored:
            catalog = pickle.load(stored)
        if isinstance(catalog, Catalog):
            return catalog
    catalog = load_catalog(root, extra=extra)
    with contextlib.suppress(OSError):
        store.mkdir(parents=True, exist_ok=True)
        for old in store.glob(f"*{_SUFFIX}"):
            old.unlink(missing_ok=True)
        descriptor, temporary = tempfile.mkstemp(dir=store, suffix=".tmp")
        try:
            with os.fdopen(descriptor, "wb") as out:
                pickle.dump(catalog, out, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(temporary, path)
        finally:
            Path(temporary).unlink(missing_ok=True)
    return catalog
