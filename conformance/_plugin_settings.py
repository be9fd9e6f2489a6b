"""The plugin's settings in ``pytest.ini``, ``tox.ini``, ``setup.cfg`` or ``pyproject.toml``
(``[tool.pytest.ini_options]``): ``ppconf_adapter = cmd:node adapter.js`` and one line for each
``--ppconf-*`` option, the option given on the command line winning.

Relative paths in a settings file are relative to that file's folder (as pytest's own ``paths``
settings are); on the command line, to the current folder.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pytest

from conformance._areas import AREAS
from conformance._runner import DEFAULT_TIMEOUT
from conformance._spec_versions import NEWEST

Kind = Literal["text", "texts", "path", "paths", "int", "seconds", "flag", "reports"]


@dataclass(frozen=True)
class Setting:
    """One ``--ppconf-*`` option as a settings-file line.

    Attributes:
        name: the line's name, the option's without dashes (``ppconf_require_level``).
        kind: how its text is read: ``text``, ``texts`` (one per line), ``path``, ``paths``,
            ``int``, ``seconds``, ``flag`` (true/false) or ``reports`` (``FORMAT PATH`` lines).
        default: the value when neither the command line nor a file gives one.
        help: what it is, for ``pytest --help``.
        choices: the values allowed, where the option has choices.
    """

    name: str
    kind: Kind
    default: Any
    help: str
    choices: tuple[Any, ...] = ()


SETTINGS = (
    Setting("ppconf_adapter", "text", None, "the runtime: module:Class, cmd:COMMAND or reference"),
    Setting("ppconf_spec_version", "text", NEWEST, "the PromptPack spec version to assess"),
    Setting("ppconf_area", "texts", [], "only cases of these areas (one per line)", AREAS),
    Setting(
        "ppconf_require_level",
        "int",
        None,
        "fail unless the headline level is at least N",
        (0, 1, 2, 3),
    ),
    Setting("ppconf_strict", "flag", False, "every check counts, not only claimed MUSTs (true)"),
    Setting("ppconf_expected_failures", "path", None, "expected-failures file (YAML)"),
    Setting("ppconf_catalog", "path", None, "a catalog folder (default: built-in)"),
    Setting("ppconf_extra_catalog", "paths", [], "more case folders (one per line)"),
    Setting("ppconf_validate_protocol", "flag", False, "check cmd: adapters' traffic (true)"),
    Setting("ppconf_timeout", "seconds", DEFAULT_TIMEOUT, "time limit of each case part"),
    Setting("ppconf_repeat", "int", 1, "run each case part N times"),
    Setting("ppconf_fuzz", "int", None, "fuzz N examples per area instead of the catalog"),
    Setting("ppconf_report", "reports", [], "reports to write, FORMAT PATH (one per line)"),
)
"""Every ``--ppconf-*`` option, in the order of ``pytest --help``."""


def add_settings(parser: pytest.Parser) -> None:
    """Declare the settings-file lines (read as text: their kinds are checked when used)."""
    for setting in SETTINGS:
        help = f"ppconf: {setting.help} (--{setting.name.replace('_', '-')} wins over this line)"
        if setting.kind in ("texts", "paths", "reports"):
            parser.addini(setting.name, help, type="linelist", default=[])
        else:
            parser.addini(setting.name, help, type="string", default="")


def apply_settings(config: pytest.Config) -> None:
    """Fill each ``--ppconf-*`` option the command line did not give from the settings file,
    else with its default (the options' own defaults are None, so that "not given" shows).

    Raises:
        pytest.UsageError: a line whose value is not of its kind, saying which and where.
    """
    option = config.option
    folder = config.inipath.parent if config.inipath is not None else config.rootpath
    for setting in SETTINGS:
        given = getattr(option, setting.name, None)
        if given not in (None, False):
            continue
        raw = config.getini(setting.name)
        if raw in ("", []):
            setattr(option, setting.name, setting.default if given is None else given)
            continue
        try:
            value = _READERS[setting.kind](raw, folder)
            _check_choices(setting, value)
        except ValueError as error:
            where = config.inipath or "the settings file"
            raise pytest.UsageError(f"ppconf: {setting.name} in {where}: {error}") from None
        setattr(option, setting.name, value)


def _check_choices(setting: Setting, value: Any) -> None:
    if not setting.choices:
        return
    for item in value if isinstance(value, list) else [value]:
        if item not in setting.choices:
            allowed = ", ".join(map(str, setting.choices))
            raise ValueError(f"{item!r} is not one of {allowed}")


def _int(raw: Any, folder: Path) -> int:
    try:
        return int(str(raw).strip())
    except ValueError:
        raise ValueError(f"{raw!r} is not a whole number") from None


def _seconds(raw: Any, folder: Path) -> float:
    try:
        value = float(str(raw).strip())
    except ValueError:
        raise ValueError(f"{raw!r} is not a number of seconds") from None
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"{raw!r} is not a positive, finite number of seconds")
    return value


def _flag(raw: Any, folder: Path) -> bool:
    text = str(raw).strip().lower()
    if text in ("true", "yes", "1", "on"):
        return True
    if text in ("false", "no", "0", "off"):
        return False
    raise ValueError(f"{raw!r} is neither true nor false")


def _path(raw: Any, folder: Path) -> str:
    return str(folder / str(raw).strip())


def _reports(raw: Any, folder: Path) -> list[tuple[str, str]]:
    reports = []
    for line in raw:
        parts = str(line).split(maxsplit=1)
        if len(parts) != 2:
            raise ValueError(f"{line!r}: write FORMAT PATH, e.g. 'json ppconf.jsonl'")
        reports.append((parts[0], _path(parts[1], folder)))
    return reports


_READERS: dict[str, Callable[[Any, Path], Any]] = {
    "text": lambda raw, folder: str(raw).strip(),
    "texts": lambda raw, folder: [str(item).strip() for item in raw],
    "path": _path,
    "paths": lambda raw, folder: [_path(item, folder) for item in raw],
    "int": _int,
    "seconds": _seconds,
    "flag": _flag,
    "reports": _reports,
}
