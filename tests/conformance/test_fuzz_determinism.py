"""The same seed draws the same examples in every process: under pytest or not, whatever the
hash seed, whatever local modules are loaded (Hypothesis would otherwise mix their constants
into its draws: :mod:`conformance._fuzz.local_constants`)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from hypothesis.internal.conjecture import providers

from conformance._fuzz.local_constants import no_local_constants

_DRAWS = """
import hashlib, json, sys
if len(sys.argv) > 1:
    sys.path.insert(0, sys.argv[1])
    import vendor_constants  # noqa: F401
from conformance import ReferenceAdapter
from conformance._fuzz.engine import AREAS, fuzz
result = fuzz(ReferenceAdapter(), areas=AREAS, examples_wanted=80, seed=1)
tally = result.tally
drawn = [sorted(tally.exercised.items()), sorted(tally.by_area.items()),
         sorted(tally.states.items()), sorted(tally.steps.items())]
print(hashlib.sha256(json.dumps(drawn).encode()).hexdigest())
"""

_CONSTANTS = """
NAMES = ("Go", "start", "work", "agent", "main", "aide", "0", "1", "zz", "abc")
NUMBERS = (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 63, 64, 255, 4095)
BLOB = b"\\x00\\x01\\x02\\x03"
"""


def _drawn(hash_seed: str, extra: Path | None) -> str:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    arguments = [sys.executable, "-c", _DRAWS, *([str(extra)] if extra else [])]
    done = subprocess.run(
        arguments, check=False, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_the_same_seed_draws_the_same_examples_whatever_the_process_loaded(
    tmp_path: Path,
) -> None:
    # A local module full of the constants the fuzzer's draws could take (a runtime's package,
    # a conftest), loaded in one process only, and another hash seed there.
    folder = tmp_path / "vendor"
    folder.mkdir()
    (folder / "vendor_constants.py").write_text(_CONSTANTS, encoding="utf-8")
    assert _drawn("0", None) == _drawn("4242", folder)


def test_the_hook_is_there_and_restored() -> None:
    # If Hypothesis renames its hook, no_local_constants changes nothing: fail loudly then.
    hook = providers._get_local_constants
    with no_local_constants():
        assert len(providers._get_local_constants()) == 0
        with no_local_constants():
            assert len(providers._get_local_constants()) == 0
        assert len(providers._get_local_constants()) == 0
    assert providers._get_local_constants is hook
