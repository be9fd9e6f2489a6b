"""ppconf: the conformance kit (:mod:`conformance`) and reference interpreter (:mod:`reference`)
for PromptPack workflows.

This module is the name the kit is installed and run by: ``python -m ppconf`` is the ``ppconf``
command. The libraries are imported by their own names, ``conformance`` and ``reference``.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("ppconf")
except PackageNotFoundError:  # a bare source tree
    __version__ = "unknown"

__all__ = ["__version__"]
