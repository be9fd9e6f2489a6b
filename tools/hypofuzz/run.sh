#!/usr/bin/env bash
# HypoFuzz driving the kit's @given recipe (docs/fuzzing.md) until it finds a known RFC 0009 bug,
# then plain pytest replaying that failure from the shared example database.
#
# Not part of CI: HypoFuzz is licensed AGPL-3.0, so the kit neither depends on it nor ships it.
# Installs it from PyPI into a throw-away venv. Usage: bash tools/hypofuzz/run.sh [SECONDS]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
limit=${1:-900}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install -q hypofuzz "$root" 2>&1 | grep -v "^WARNING: Location" || true
cp "$root/tools/hypofuzz/test_fleet.py" "$work/"
cd "$work"
export PYTHONPATH="$root/tests/conformance"

setsid "$work/venv/bin/hypothesis" fuzz -n 2 --no-dashboard -- test_fleet.py \
    -p no:cacheprovider >fuzz.log 2>&1 &
campaign=$!
found=no
for _ in $(seq "$limit"); do
    if grep -q "Found a failing input" fuzz.log; then found=yes; break; fi
    sleep 1
done
kill -- -"$campaign" 2>/dev/null || true
wait "$campaign" 2>/dev/null || true
if [ "$found" = no ]; then
    cat fuzz.log
    echo "HypoFuzz found nothing in ${limit} s" >&2
    exit 1
fi
# The failure is in .hypothesis/examples: plain pytest replays it as its first example.
if "$work/venv/bin/python" -m pytest -q -p no:cacheprovider test_fleet.py >replay.log 2>&1; then
    cat replay.log
    echo "pytest did not replay HypoFuzz's failure" >&2
    exit 1
fi
grep -m 3 -E "^E  |Falsifying" replay.log || true
echo "HypoFuzz found the bug and pytest replayed it from the example database"
