"""An in-process adapter that prints to stdout, for ``ppconf serve --adapter noisy_adapter:Noisy``.

``ppconf serve`` must keep such output off the protocol stream (it goes to stderr).
"""

from __future__ import annotations

from conformance import PackInput, ReferenceAdapter

NOISE = "noisy_adapter: loading a pack"


class Noisy(ReferenceAdapter):
    """The reference, printing a line on every load."""

    def load(self, pack: PackInput) -> None:
        print(NOISE)
        super().load(pack)
