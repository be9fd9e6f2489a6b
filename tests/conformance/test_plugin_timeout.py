"""``--ppconf-timeout``: a part that hangs fails as a timeout, and the next parts still run."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import fakes
import pytest

pytest_plugins = ["pytester"]

RunPytest = Callable[..., pytest.RunResult]


def test_a_hang_times_out_and_the_session_goes_on(
    write_catalog: Callable[[Mapping[str, str]], Path],
    case_text: Callable[..., str],
    run_pytest: RunPytest,
) -> None:
    root = write_catalog(
        {
            "workflow/a.yaml": case_text("workflow.t.a-hangs", pack_id=fakes.Hangs.HANG_PACK_ID),
            "workflow/b.yaml": case_text("workflow.t.b-after", pack_id="after"),
        }
    )
    result = run_pytest(
        "--ppconf-adapter=fakes:Hangs", f"--ppconf-catalog={root}", "--ppconf-timeout=0.5", "-v"
    )
    result.assert_outcomes(failed=1, passed=1)
    result.stdout.fnmatch_lines(
        [
            "*ppconf::workflow.t.a-hangs::submit FAILED*",
            "*ppconf::workflow.t.b-after::submit PASSED*",
            "timeout: no answer within 0.5 s",
        ]
    )
    # Not a speed target: the hung part is cut off at 0.5 s, and HANG_SECONDS (60 s) is how long
    # the fake would block, so a busy machine has most of a minute of margin.
    assert result.duration < fakes.HANG_SECONDS


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("soon", "'soon' is not a number of seconds"),
        ("", "'' is not a number of seconds"),
        ("0", "0 is not a number of seconds above 0 and at most 86,400"),
        ("1e10", "1e10 is not a number of seconds above 0 and at most 86,400"),
    ],
)
def test_a_timeout_is_a_usable_number_of_seconds(
    run_pytest: RunPytest, value: str, reason: str
) -> None:
    result = run_pytest("--ppconf-adapter=reference", f"--ppconf-timeout={value}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*argument --ppconf-timeout: {reason}*"])
