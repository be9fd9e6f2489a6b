"""``python -m ppconf`` is the ``ppconf`` command."""

from conformance._cli import entry_point

entry_point()
