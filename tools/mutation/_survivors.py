"""The checked-in survivors file: why each mutant the catalog does not kill may live.

Each entry names a mutant by id, quotes the line it changes (``source``, stripped, so that an
edit of the module that moves or rewrites the line shows as a stale entry, not as a silent
explanation of another mutant), and says what it is:

- ``equivalent``: no observable change (``why`` says why);
- ``rfc-allowed``: the change is a choice an RFC leaves open (``statement``: the statement id
  whose sentence leaves it open); no case may kill it at MUST (a MAY case of the kit's pick
  may: the entry then becomes ``killed-by``, naming that case);
- ``kit-pick``: the change alters only what the kit's own vocabulary or interface carries (a
  field of a session's data, a check's wording), which no RFC statement decides; a check of it
  could be MAY at most, and none reads it (``why``);
- ``unreachable`` or ``defensive``: the changed code runs on no pack a runtime can be given,
  or guards what an earlier check already refused (``why``);
- ``killed-by``: a gap closed: ``case`` names the case that now kills it.
"""

from __future__ import annotations

import collections
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tools.mutation._mutants import Mutant

__all__ = ["KINDS", "SURVIVORS", "Account", "Explanation", "account", "read_survivors", "stale"]

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
    source: str
    statement: str = ""
    case: str = ""

    def explains(self, mutant: Mutant, line: str) -> bool:
        """Whether this entry is about ``mutant``, which changes ``line`` (stripped)."""
        return self.id == mutant.id and self.source == line


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
            raise ValueError(f"{where}: a mapping with id, source, change, kind and why")
        missing = [k for k in ("id", "source", "change", "kind", "why") if not entry.get(k)]
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
            str(entry["source"]),
            str(entry.get("statement", "")),
            str(entry.get("case", "")),
        )
    return found


def stale(
    entries: dict[str, Explanation], found: Iterable[Mutant], lines: dict[str, list[str]]
) -> list[str]:
    """What is wrong with each entry that names no mutant of today's source, sorted by id.

    ``found`` is every mutant the tool makes today and ``lines`` each module's lines. An entry
    is stale when its id is not made any more, or when the line at that id reads differently
    from its ``source`` (the module was edited: find the mutant's new id with
    ``python -m tools.mutation list`` and write it with the line as it reads now).
    """
    by_id = {mutant.id: mutant for mutant in found}
    problems = []
    for name, entry in sorted(entries.items()):
        mutant = by_id.get(name)
        if mutant is None:
            problems.append(f"{name}: no such mutant today ({entry.change})")
            continue
        line = lines[mutant.module][mutant.line - 1].strip()
        if not entry.explains(mutant, line):
            problems.append(f"{name}: the line reads {line!r}, not {entry.source!r}")
    return problems


@dataclass
class Account:
    """What the survivors file says of a campaign's verdicts.

    Attributes:
        kinds: how many survivors each kind of entry explains.
        unexplained: the survivors no entry explains (no entry, a stale one, or a
            ``killed-by`` entry: the case it names does not kill the mutant after all).
        killed_now: entries of a survivor kind whose mutant is killed now (the entry can go,
            or become ``killed-by``).
        not_killed: ``killed-by`` entries whose mutant survives.
    """

    kinds: collections.Counter[str] = field(default_factory=collections.Counter)
    unexplained: list[Mutant] = field(default_factory=list)
    killed_now: list[Explanation] = field(default_factory=list)
    not_killed: list[Explanation] = field(default_factory=list)


def account(
    verdicts: Iterable[tuple[Mutant, str]],
    entries: Mapping[str, Explanation],
    lines: Mapping[str, list[str]],
) -> Account:
    """Hold each verdict (``survived`` or a kill) against the entries, given each module's
    lines as they read today: an entry written for the line as it read before an edit
    explains nothing."""
    found = Account()
    for mutant, verdict in verdicts:
        entry = entries.get(mutant.id)
        if entry is not None and not entry.explains(
            mutant, lines[mutant.module][mutant.line - 1].strip()
        ):
            entry = None
        if verdict != "survived":
            if entry is not None and entry.kind != "killed-by":
                found.killed_now.append(entry)
        elif entry is None:
            found.unexplained.append(mutant)
        elif entry.kind == "killed-by":
            found.not_killed.append(entry)
            found.unexplained.append(mutant)
        else:
            found.kinds[entry.kind] += 1
    return found
