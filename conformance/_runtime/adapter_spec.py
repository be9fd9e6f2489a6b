"""Turning an adapter spec into an adapter: ``module:Class`` in process, ``cmd:...`` over the
protocol, or ``reference``."""

from __future__ import annotations

import importlib
import os
import sys
from typing import IO

from conformance._basics.errors import AdapterError
from conformance._protocol import DEFAULT_REQUEST_TIMEOUT, SubprocessAdapter
from conformance._runtime.adapter import Adapter
from conformance._runtime.reference_adapter import ReferenceAdapter

__all__ = ["REFERENCE", "load_adapter"]

REFERENCE = "reference"


def load_adapter(
    spec: str,
    *,
    timeout: float = DEFAULT_REQUEST_TIMEOUT,
    validate_protocol: bool = False,
    transcript: IO[str] | None = None,
) -> Adapter:
    """Build the adapter a spec names.

    Arguments:
        spec: ``reference``; ``module:Class`` (a Python class called with no arguments); or
            ``cmd:COMMAND LINE`` (a program speaking the adapter protocol on stdio).
        timeout: for ``cmd:`` adapters, seconds each request may take.
        validate_protocol: for ``cmd:`` adapters, check all traffic against the protocol schema.
        transcript: for ``cmd:`` adapters, a text stream to copy all traffic to.

    Raises:
        AdapterError: the spec cannot be turned into an adapter.
    """
    if spec == REFERENCE:
        return ReferenceAdapter()
    if spec.startswith("cmd:"):
        return SubprocessAdapter.from_spec(
            spec, timeout=timeout, validate_protocol=validate_protocol, transcript=transcript
        )
    return _python_adapter(spec)


def _python_adapter(spec: str) -> Adapter:
    """Instantiate an adapter from ``module:Class`` (the class is called with no arguments).

    Raises:
        AdapterError: the module or class cannot be found, or the object is not an adapter.
    """
    module_name, sep, attribute = spec.partition(":")
    if not sep or not module_name or not attribute:
        raise AdapterError(
            f"adapter {spec!r} is not of the form module:Class (e.g. mypackage.ppconf:Adapter), "
            "cmd:COMMAND or reference"
        )
    # As `python -m` does: a module in the folder ppconf is run from can be named directly.
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise AdapterError(
            f"cannot import adapter module {module_name!r}: {error}; "
            "is it installed or on PYTHONPATH?"
        ) from None
    factory = module
    try:
        for part in attribute.split("."):
            factory = getattr(factory, part)
    except AttributeError:
        raise AdapterError(f"module {module_name!r} has no attribute {attribute!r}") from None
    try:
        adapter = factory()  # type: ignore[operator]
    except Exception as error:
        raise AdapterError(f"creating adapter {spec!r} failed: {error!r}") from None
    if not isinstance(adapter, Adapter):
        raise AdapterError(
            f"{spec!r} does not implement the adapter interface "
            "(capabilities, load, validate, start, restore)"
        )
    return adapter
