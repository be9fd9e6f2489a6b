"""``python -m conformance`` is the ``ppconf`` command."""

from conformance._cli import entry_point

entry_point()
