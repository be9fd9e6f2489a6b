"""The options of a run are one table: ``ppconf run`` and the pytest plugin take each of them
under its name, with the same default and the same check of its value."""

from __future__ import annotations

import argparse

import pytest

from conformance._cli import _parser
from conformance._options import RUN_OPTIONS, RunOption
from conformance._plugin_settings import SETTINGS


def run_parser() -> argparse.ArgumentParser:
    commands = next(a for a in _parser()._actions if isinstance(a, argparse._SubParsersAction))
    return commands.choices["run"]  # type: ignore[no-any-return]


@pytest.mark.parametrize("option", [o for o in RUN_OPTIONS if o.cli], ids=lambda o: o.name)
def test_ppconf_run_takes_the_option_with_its_default(option: RunOption) -> None:
    action = next(a for a in run_parser()._actions if f"--{option.name}" in a.option_strings)
    assert action.dest == option.dest
    assert action.help == option.help
    expected = [] if option.kind in ("texts", "paths", "reports") else option.default
    assert action.default == expected


def test_the_plugin_takes_every_plugin_option_as_a_setting_too() -> None:
    assert [s.setting for s in SETTINGS] == [f"ppconf_{o.dest}" for o in RUN_OPTIONS if o.plugin]


@pytest.mark.parametrize(
    ("name", "text"), [("repeat", "0"), ("timeout", "nan"), ("require-level", "x")]
)
def test_ppconf_run_refuses_a_value_with_the_tables_words(
    name: str, text: str, capsys: pytest.CaptureFixture[str]
) -> None:
    option = next(o for o in RUN_OPTIONS if o.name == name)
    assert option.type is not None
    with pytest.raises(argparse.ArgumentTypeError) as refused:
        option.type(text)
    with pytest.raises(SystemExit):
        run_parser().parse_args([f"--{name}", text])
    assert f"argument --{name}: {refused.value}" in capsys.readouterr().err


def test_the_plugin_is_inert_without_an_adapter_and_run_defaults_to_the_reference() -> None:
    adapter = next(o for o in RUN_OPTIONS if o.name == "adapter")
    assert adapter.initial == "reference"
    assert adapter.setting_default is None
    assert all(o.setting_default == o.initial for o in RUN_OPTIONS if o is not adapter)
