"""The checked-in survivors file: why each mutant the catalog does not kill may live.

Each entry names a mutant by id and says what it is:

- ``equivalent``: no observable change (``why`` says why);
- ``rfc-allowed``: the change is a choice an RFC leaves open (``statement``: the statement id
  whose sentence leaves it open); no case may kill it;
- ``kit-pick``: the change alters only what the kit's own vocabulary or interface carries (a
  field of a session's data, a check's wording), which no RFC statement decides; a check of it
  could be MAY at most, and none reads it (``why``);
- ``unreachable`` or ``defensive``: the changed code runs on no pack a runtime can be given,
  or guards what an earlier check already refused (``why``);
- ``killed-by``: a gap closed: ``case`` names the case that now kills it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

__all__ = ["KINDS", "SURVIVORS", "Explanation", "read_survivors"]

SURVIVORS = Path(__file__).with_name("survivors.yaml")
KINDS = ("equivalent", "rfc-allowed", "kit-pick", "unreachable", "defensive", "killed-by")
_NEEDS = {"rfc-allowed": "statement", "killed-by": "case"}


@dataclass(frozen=True)
class Explanation:
    """One entry of the survivors file."""

    id: str
    change: str
    kind: str
    why: str
    statement: str = ""
    case: str = ""


def read_survivors(path: Path = SURVIVORS) -> dict[str, Explanation]:
    """The entries by mutant id.

    Raises:
        ValueError: an entry without its fields, of an unknown kind, or repeated; the message
            says which entry (by position and id) and what to write.
    """
    if not path.exists():
        return {}
    data: Any = yaml.safe_load(path.read_text(encoding="utf-8")) or []
    if not isinstance(data, list):
        raise ValueError(f"{path}: a list of entries, not {type(data).__name__}")
    found: dict[str, Explanation] = {}
    for position, entry in enumerate(data, start=1):
        where = f"{path}: entry {position}"
        if not isinstance(entry, dict):
            raise ValueError(f"{where}: a mapping with id, change, kind and why")
        missing = [k for k in ("id", "change", "kind", "why") if not entry.get(k)]
        kind = entry.get("kind")
        if kind in _NEEDS and not entry.get(_NEEDS[kind]):
            missing.append(_NEEDS[kind])
        if missing:
            raise ValueError(f"{where} ({entry.get('id', '?')}): give {', '.join(missing)}")
        if kind not in KINDS:
            raise ValueError(f"{where} ({entry['id']}): kind {kind!r} is not one of {KINDS}")
        if entry["id"] in found:
            raise ValueError(f"{where}: {entry['id']} is explained twice")
        found[entry["id"]] = Explanation(
            str(entry["id"]),
            str(entry["change"]),
            str(kind),
            str(entry["why"]),
            str(entry.get("statement", "")),
            str(entry.get("case", "")),
        )
    return found
