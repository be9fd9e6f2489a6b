"""The options of a run, declared once for ``ppconf run`` and the pytest plugin.

Each :class:`RunOption` is ``--NAME`` on ``ppconf run``, ``--ppconf-NAME`` on pytest, and the
settings-file line ``ppconf_NAME`` (``pytest.ini``, ``pyproject.toml``, ...): one name, one
help text, one way its value is read and checked, so the two ways of running the catalog take
the same values and refuse the same ones with the same words.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import reference
from conformance._basics.areas import AREAS
from conformance._basics.spec_versions import NEWEST
from conformance._judging.runner import DEFAULT_TIMEOUT
from conformance._report.views import VIEWS
from conformance._runtime.adapter_spec import REFERENCE

MAX_SECONDS = 86_400.0
"""The longest time limit taken (a day): beyond it a limit is no limit, and a platform's own
waits overflow."""
MAX_REPEAT = 1000
"""The most runs of each part ``--repeat`` takes."""
MAX_EXAMPLES = 10_000_000
"""The most examples a fuzz run takes."""
MAX_VALUES = 10_000_000
"""The highest --max-values: a pack's bytes are bounded too (10 MiB), which no more values fill."""


ITEMS = ("part", "case", "area")
"""What one of the plugin's test items may run (``--ppconf-items``)."""


def whole_number(maximum: int) -> Callable[[str], int]:
    """An argparse type: a whole number from 1 to ``maximum`` (``--repeat``, ``--examples``)."""

    def parse(text: str) -> int:
        if len(text) > 30:
            raise argparse.ArgumentTypeError(f"{text[:30]!r}... is not from 1 to {maximum:,}")
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if not 1 <= value <= maximum:
            raise argparse.ArgumentTypeError(f"{value} is not from 1 to {maximum:,}")
        return value

    return parse


def positive_seconds(text: str) -> float:
    """An argparse type: a positive, finite number of seconds up to :data:`MAX_SECONDS`
    (``--timeout``, ``--max-time``); 0, negatives, ``nan``, ``inf`` and 1e10 are refused, since
    none of them is a usable limit."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text[:30]!r} is not a number of seconds") from None
    if not math.isfinite(value) or not 0 < value <= MAX_SECONDS:
        raise argparse.ArgumentTypeError(
            f"{text[:30]} is not a number of seconds above 0 and at most {MAX_SECONDS:,.0f}"
        )
    return value


def percent(text: str) -> float:
    """An argparse type: a percentage, 0 to 100 (``--fail-under``); ``nan`` (which no
    coverage is under, so it would never fail), infinities and numbers outside the range are
    refused."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text[:30]!r} is not a percentage") from None
    if not math.isfinite(value) or not 0 <= value <= 100:
        raise argparse.ArgumentTypeError(f"{text[:30]} is not a percentage from 0 to 100")
    return value


def level_number(text: str) -> int:
    """An argparse type: a support level, 0 to 3."""
    try:
        return int(text.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text[:30]!r} is not a whole number") from None


Kind = Literal["text", "texts", "path", "paths", "number", "flag", "reports"]


@dataclass(frozen=True)
class RunOption:
    """One option of a run.

    Attributes:
        name: ``--NAME`` on ``ppconf run``; ``--ppconf-NAME`` and ``ppconf_NAME`` for pytest.
        kind: how it is given: ``text`` or ``path`` (one value), ``texts`` or ``paths``
            (repeatable; one per line in a settings file), ``number`` (read by ``type``),
            ``flag`` (``true``/``false`` in a settings file) or ``reports`` (``FORMAT PATH``).
        help: what it does, for ``--help``.
        default: the value when it is not given.
        type: what reads and checks one value (an argparse type), if not the text itself.
        choices: the values allowed, where it has choices.
        metavar: how ``--help`` names its value.
        cli: an option of ``ppconf run``.
        plugin: an option of the pytest plugin.
    """

    name: str
    kind: Kind
    help: str
    default: Any = None
    type: Callable[[str], Any] | None = None
    choices: tuple[Any, ...] = ()
    metavar: str | tuple[str, str] | None = None
    cli: bool = True
    plugin: bool = True
    plugin_default: Any = ...
    """The plugin's value when it is not given, if not ``default`` (``...``): the adapter's is
    none, since the plugin is inert without one."""

    @property
    def repeatable(self) -> bool:
        """Whether it is given once per value (a list; one per line in a settings file)."""
        return self.kind in ("texts", "paths", "reports")

    @property
    def initial(self) -> Any:
        """Its value on ``ppconf run`` when it is not given."""
        return [] if self.repeatable else self.default

    @property
    def setting_default(self) -> Any:
        """Its value in the plugin when neither the command line nor a settings file gives it."""
        return self.initial if self.plugin_default is ... else self.plugin_default

    @property
    def dest(self) -> str:
        """Its attribute on ``ppconf run``'s arguments (``require_level``)."""
        return self.name.replace("-", "_")

    @property
    def setting(self) -> str:
        """Its settings-file line, and its attribute on pytest's options (``ppconf_strict``)."""
        return f"ppconf_{self.dest}"

    def arguments(self, *, prefix: str = "") -> tuple[str, dict[str, Any]]:
        """The flag and the keyword arguments of argparse's ``add_argument`` (or pytest's
        ``addoption``, with ``prefix="ppconf-"``).

        Options of pytest have no default (``None``: not given), so that a settings-file line
        can fill them (``conformance._plugin_settings``); a flag's is ``False``.
        """
        keywords: dict[str, Any] = {"help": self.help}
        if self.kind == "flag":
            keywords["action"] = "store_true"
        else:
            if self.repeatable:
                keywords["action"] = "append"
            if self.kind == "reports":
                keywords["nargs"] = 2
            if self.type is not None:
                keywords["type"] = self.type
            if self.choices:
                keywords["choices"] = self.choices
            if self.metavar is not None:
                keywords["metavar"] = self.metavar
            if not prefix:
                keywords["default"] = self.initial
        return f"--{prefix}{self.name}", keywords


REPORT_HELP = (
    f"write a report: json (JSON Lines, streamed), or a view of it: {', '.join(VIEWS)} (see "
    "`ppconf report`); repeatable; PATH - is stdout (ppconf run's summary then goes to stderr)"
)

RUN_OPTIONS: tuple[RunOption, ...] = (
    RunOption(
        "adapter",
        "text",
        "the runtime: module:Class for a Python adapter, 'cmd:COMMAND LINE' for a program "
        "speaking the adapter protocol on stdio (docs/protocol.md), or reference (the default "
        "of ppconf run; the plugin is inert without it)",
        default=REFERENCE,
        plugin_default=None,
        metavar="SPEC",
    ),
    RunOption(
        "spec-version",
        "text",
        f"the PromptPack spec version to assess (default {NEWEST}): its cases and areas",
        default=NEWEST,
        metavar="VERSION",
    ),
    RunOption("area", "texts", "only cases of this area (repeatable)", choices=AREAS),
    RunOption(
        "require-level",
        "number",
        "fail unless the headline support level is at least N (0-3); needs the whole catalog "
        "of the spec version (no selection of areas, levels, requirements or ids)",
        type=level_number,
        choices=(0, 1, 2, 3),
        metavar="N",
    ),
    RunOption(
        "strict",
        "flag",
        "every check counts: fail on any failed check, at any requirement, a SHOULD or MAY "
        "finding included (default: only MUST checks of the claimed areas, up to the claimed "
        "levels)",
        default=False,
    ),
    RunOption(
        "expected-failures",
        "path",
        "YAML mapping of case id to reason (or {flaky: reason}); those failures do not fail "
        "the run, but an unexpected pass does",
        metavar="FILE",
    ),
    RunOption("catalog", "path", "a catalog folder (default: built-in)", metavar="DIR"),
    RunOption(
        "extra-catalog",
        "paths",
        "a folder of more cases, run on top of the catalog (repeatable)",
        metavar="DIR",
    ),
    RunOption(
        "validate-protocol",
        "flag",
        "for cmd: adapters, check every request and each answer against the protocol schema",
        default=False,
    ),
    RunOption(
        "timeout",
        "number",
        f"time limit for each case part and each protocol request (default {DEFAULT_TIMEOUT:g})",
        default=DEFAULT_TIMEOUT,
        type=positive_seconds,
        metavar="SECONDS",
    ),
    RunOption(
        "repeat",
        "number",
        "run each case part N times; a part that does not end the same way every time is "
        f"reported flaky and does not pass (default 1, at most {MAX_REPEAT})",
        default=1,
        type=whole_number(MAX_REPEAT),
        metavar="N",
    ),
    RunOption(
        "fuzz",
        "number",
        "fuzz the adapter against the reference instead of running the catalog: N examples "
        "per area and per xdist worker (docs/fuzzing.md; `ppconf fuzz` on the command line)",
        type=whole_number(MAX_EXAMPLES),
        metavar="N",
        cli=False,
    ),
    RunOption(
        "fuzz-database",
        "text",
        "with --ppconf-fuzz, where failures found are kept and tried first next time: a folder, "
        "or a Redis server shared by many machines, redis://HOST:PORT/N, over the local "
        ".ppconf/fuzz (default: a loaded Hypothesis profile's database, else .ppconf/fuzz)",
        metavar="DIR|URL",
        cli=False,
    ),
    RunOption(
        "items",
        "text",
        "what one test item runs: a case part (the default: select and rerun parts with -k "
        "and -m), a whole case, or a whole area (fewer items: pytest's own cost per item is "
        "more than a fast runtime takes to run a part; an area item has its area's marker "
        "only); the session is judged part by part either way",
        default="part",
        choices=ITEMS,
        cli=False,
    ),
    RunOption("report", "reports", REPORT_HELP, metavar=("FORMAT", "PATH")),
)
"""Every option of a run, in the order of ``--help``."""

BY_DEST: dict[str, RunOption] = {option.dest: option for option in RUN_OPTIONS}
"""The options by their attribute on ``ppconf run``'s arguments."""


def add_run_option(parser: Any, dest: str, *, prefix: str = "") -> None:
    """Add one option to an argparse parser (or, with ``prefix="ppconf-"``, a pytest group)."""
    flag, keywords = BY_DEST[dest].arguments(prefix=prefix)
    adder = parser.add_argument if isinstance(parser, argparse.ArgumentParser) else parser.addoption
    adder(flag, **keywords)


def add_max_values_option(parser: argparse.ArgumentParser, what: str = "a pack") -> None:
    """``--max-values N`` on a command that reads a user's pack (``validate``, ``trace``,
    ``graph``, ``run-composition``): the most values a file may hold; :func:`read_limits` gives
    the limits to read it with."""
    parser.add_argument(
        "--max-values",
        type=whole_number(MAX_VALUES),
        default=reference.DEFAULT_LIMITS.max_nodes,
        metavar="N",
        help=f"refuse {what} holding more than N values (mappings, sequences and scalars, "
        "counted alike in JSON and YAML: keys are no values; YAML aliases expanded) "
        f"(default {reference.DEFAULT_LIMITS.max_nodes:,})",
    )


def read_limits(args: argparse.Namespace) -> reference.Limits:
    """The limits to read a user's pack with, ``--max-values`` applied."""
    return dataclasses.replace(reference.DEFAULT_LIMITS, max_nodes=args.max_values)


__all__ = [
    "BY_DEST",
    "ITEMS",
    "MAX_EXAMPLES",
    "MAX_REPEAT",
    "MAX_SECONDS",
    "MAX_VALUES",
    "RUN_OPTIONS",
    "RunOption",
    "add_max_values_option",
    "add_run_option",
    "level_number",
    "percent",
    "positive_seconds",
    "read_limits",
    "whole_number",
]
