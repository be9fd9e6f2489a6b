"""The plugin's settings in ``pytest.ini``, ``tox.ini``, ``setup.cfg`` or ``pyproject.toml``
(``[tool.pytest.ini_options]``): ``ppconf_adapter = cmd:node adapter.js`` and one line for each
``--ppconf-*`` option, the option given on the command line winning.

Relative paths in a settings file are relative to that file's folder (as pytest's own ``paths``
settings are); on the command line, to the current folder.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conformance._options import RUN_OPTIONS, RunOption

__all__ = ["SETTINGS", "add_settings", "apply_settings"]

SETTINGS = tuple(option for option in RUN_OPTIONS if option.plugin)
"""Every ``--ppconf-*`` option, in the order of ``pytest --help``."""


def add_settings(parser: pytest.Parser) -> None:
    """Declare the settings-file lines (read as text: their kinds are checked when used)."""
    for setting in SETTINGS:
        help = f"ppconf: {setting.help} (--{setting.setting.replace('_', '-')} wins over this line)"
        if setting.repeatable:
            parser.addini(setting.setting, help, type="linelist", default=[])
        else:
            parser.addini(setting.setting, help, type="string", default="")


def apply_settings(config: pytest.Config) -> None:
    """Fill each ``--ppconf-*`` option the command line did not give from the settings file,
    else with its default (the options' own defaults are None, so that "not given" shows).

    Raises:
        pytest.UsageError: a line whose value is not of its kind, saying which and where.
    """
    option = config.option
    folder = config.inipath.parent if config.inipath is not None else config.rootpath
    for setting in SETTINGS:
        given = getattr(option, setting.setting, None)
        if given not in (None, False):
            continue
        raw = config.getini(setting.setting)
        if raw in ("", []):
            default = setting.setting_default
            setattr(option, setting.setting, default if given is None else given)
            continue
        try:
            value = _read(setting, raw, folder)
            _check_choices(setting, value)
        except ValueError as error:
            where = config.inipath or "the settings file"
            raise pytest.UsageError(f"ppconf: {setting.setting} in {where}: {error}") from None
        setattr(option, setting.setting, value)


def _read(setting: RunOption, raw: Any, folder: Path) -> Any:
    """A settings-file value, read and checked as the command line reads and checks it."""
    if setting.kind == "number":
        assert setting.type is not None
        try:
            return setting.type(str(raw).strip())
        except argparse.ArgumentTypeError as error:
            raise ValueError(str(error)) from None
    return _READERS[setting.kind](raw, folder)


def _check_choices(setting: RunOption, value: Any) -> None:
    if not setting.choices:
        return
    for item in value if isinstance(value, list) else [value]:
        if item not in setting.choices:
            allowed = ", ".join(map(str, setting.choices))
            raise ValueError(f"{item!r} is not one of {allowed}")


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
    "flag": _flag,
    "reports": _reports,
}
