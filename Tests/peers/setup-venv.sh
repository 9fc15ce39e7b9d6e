#!/usr/bin/env bash
# Creates <repo>/.venv with the pinned test-peer packages of Tests/peers/requirements.txt.
# Idempotent: when the venv already holds exactly these pins it returns at once.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="$root/.venv"
req="$here/requirements.txt"
stamp="$venv/.lastset-requirements"

if [[ -x "$venv/bin/python" && -f "$stamp" ]] && cmp -s "$req" "$stamp"; then
    exit 0
fi
# Serialise concurrent callers (parallel test processes) on a lock next to the venv.
mkdir -p "$venv"
exec 9>"$venv/.lock"
flock 9
if [[ -x "$venv/bin/python" && -f "$stamp" ]] && cmp -s "$req" "$stamp"; then
    exit 0
fi
if [[ ! -x "$venv/bin/python" ]]; then
    python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$req"
"$venv/bin/python" -c 'import pymodbus, serial, selenium, sunspec2; print("pymodbus", pymodbus.__version__, "selenium", selenium.__version__)' >&2
cp "$req" "$stamp"
