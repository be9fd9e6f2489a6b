"""A session's records (its history, its artifact history) as :meth:`Session.state` hands them
out: a plain list, made when first read, so that reading a state costs the same after a million
events as after ten.

A session only ever appends to its records (a restore gives it new ones), so the first ``n``
entries of the list it appends to never change: a :class:`Records` of length ``n`` holds that
list and ``n``, and builds its own entries from them the first time anything reads it. From then
on it is an ordinary list, owned by whoever asked for the state, as a list built at once would be.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from itertools import islice
from typing import Any, SupportsIndex, TypeVar

__all__ = ["Records"]

_Entry = TypeVar("_Entry")


class Records(list[dict[str, Any]]):
    """The first ``length`` entries of an append-only ``source``, each made a dict by ``make``
    when the list is first read (its length is known before).

    Everything that reads the list, including ``json.dumps``, ``list(...)``, comparisons,
    ``copy`` and ``pickle`` (which see a plain list), goes through a method that builds it first;
    writing to it builds it too, then writes to the caller's own copy.
    """

    __slots__ = ("_length", "_make", "_source")

    def __init__(
        self, source: Sequence[_Entry], length: int, make: Callable[[_Entry], dict[str, Any]]
    ) -> None:
        super().__init__()
        self._source: Sequence[Any] | None = source
        self._length = length
        self._make: Callable[[Any], dict[str, Any]] = make

    def _built(self) -> Records:
        """This list with its entries made (once)."""
        source = self._source
        if source is not None:
            self._source = None
            list.extend(self, map(self._make, islice(source, self._length)))
        return self

    def __len__(self) -> int:
        if self._source is not None:
            return self._length
        return list.__len__(self)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return list.__iter__(self._built())

    def __reversed__(self) -> Iterator[dict[str, Any]]:
        return list.__reversed__(self._built())

    def __repr__(self) -> str:
        return list.__repr__(self._built())

    def __radd__(self, other: object) -> list[Any]:
        # ``[...] + records``: list's own concatenation would read the entries directly.
        if isinstance(other, list):
            return list.__add__(other, self._built())
        return NotImplemented

    def __reduce_ex__(self, protocol: SupportsIndex) -> tuple[Any, ...]:
        # A copy or a pickle is a plain list of the entries.
        return (list, (list(self._built()),))


def _reading(name: str) -> Callable[..., Any]:
    method = getattr(list, name)

    def built_first(self: Records, *args: Any, **kwargs: Any) -> Any:
        # list's own code reads another list's entries directly, so another Records is
        # built too (as in ``records == other_records``).
        args = tuple(a._built() if isinstance(a, Records) else a for a in args)
        return method(self._built(), *args, **kwargs)

    built_first.__name__ = name
    built_first.__qualname__ = f"Records.{name}"
    built_first.__doc__ = method.__doc__
    return built_first


# Every other method of list reads or writes the entries: each builds them first. (Operators
# are looked up on the type, so each is set on the class; a reflected one, such as
# ``[...] + records``, runs before list's own because Records is a subclass of list.)
for _name in (
    "__add__",
    "__contains__",
    "__delitem__",
    "__eq__",
    "__ge__",
    "__getitem__",
    "__gt__",
    "__iadd__",
    "__imul__",
    "__le__",
    "__lt__",
    "__mul__",
    "__ne__",
    "__rmul__",
    "__setitem__",
    "__sizeof__",
    "append",
    "clear",
    "copy",
    "count",
    "extend",
    "index",
    "insert",
    "pop",
    "remove",
    "reverse",
    "sort",
):
    setattr(Records, _name, _reading(_name))
del _name
