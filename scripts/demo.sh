#!/usr/bin/env bash
# The README tour: starts two simulated presses (press-a configured, press-b blank) on 127.0.0.1:15020/15021
# and lastsetd on the demo config, then captures press-a's heating page and applies it to press-b.
# Everything keeps running afterwards so you can try more commands; `make demo-stop` ends it.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bin="$(swift build --show-bin-path)"
demo="$root/.demo"
config="$root/Config/demo/lastset.json"
mkdir -p "$demo"
"$root/scripts/demo-stop.sh" >/dev/null 2>&1 || true

wait_for() {  # FILE PATTERN: wait (max 10 s) until FILE has a line matching PATTERN
    for _ in $(seq 100); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
    echo "demo: timed out waiting for '$2' in $1:" >&2; cat "$1" >&2; return 1
}
"$bin/lastset-sim" --config "$config" --device press-a --tcp 127.0.0.1:15020 --values Config/demo/press-a.values.json >"$demo/press-a.log" 2>&1 &
echo $! >"$demo/pids"
"$bin/lastset-sim" --config "$config" --device press-b --tcp 127.0.0.1:15021 --values Config/demo/press-b.values.json --log-writes >"$demo/press-b.log" 2>&1 &
echo $! >>"$demo/pids"
wait_for "$demo/press-a.log" READY
wait_for "$demo/press-b.log" READY
"$bin/lastsetd" --config "$config" --data-dir "$demo/data" --socket "$demo/api.sock" >"$demo/lastsetd.log" 2>&1 &
echo $! >>"$demo/pids"
for _ in $(seq 100); do [[ -S "$demo/api.sock" ]] && break; sleep 0.1; done

export LASTSET_SOCKET="$demo/api.sock"
run() { echo; echo "\$ lastset $*"; "$bin/lastset" "$@"; }
run devices
run capture heating --from press-a
run apply heating --to press-b --dry-run || true
run apply heating --to press-b
echo
echo "press-b received (as logged by its simulator):"
grep WRITE "$demo/press-b.log" || true
cat <<EOT

The daemon and both simulated presses keep running. Try:
  export LASTSET_SOCKET=$demo/api.sock PATH=$bin:\$PATH
  lastset templates heating
  lastset show heating
  lastset diff heating --device press-b
  lastset audit
Stop everything with: make demo-stop
EOT
