#!/usr/bin/env bash
# The README tour: starts two simulated presses (press-a configured, press-b blank) on 127.0.0.1:15020/15021
# and lastsetd on the demo config, then captures press-a's heating page and applies it to press-b.
# lastsetd also listens on http://127.0.0.1:8502/ (the technicians' console) with two fresh tokens, an
# operator's and a viewer's, printed at the end (kept in .demo/*.token; the config holds only their hashes).
# Everything keeps running afterwards so you can try more commands; `make demo-stop` ends it.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bin="$(swift build --show-bin-path)"
demo="$root/.demo"
config="$root/Config/demo/lastset.json"
mkdir -p "$demo"
"$root/scripts/demo-stop.sh" >/dev/null 2>&1 || true

# The console's listener: the demo config plus an api section naming two new random tokens by their hashes.
console_port=8502
token() { head -c 24 /dev/urandom | base64 | tr '+/' '-_'; }
(umask 077; token >"$demo/operator.token"; token >"$demo/viewer.token")
hash() { printf %s "$(cat "$1")" | sha256sum | cut -d' ' -f1; }
api="  api: { tcp: { listen: \"127.0.0.1:$console_port\", tokens: [
    { name: \"technician\", role: \"operator\", sha256: \"$(hash "$demo/operator.token")\" },
    { name: \"visitor\", role: \"viewer\", sha256: \"$(hash "$demo/viewer.token")\" } ] } },"
awk -v api="$api" '{ print } /^  version: 1,$/ && !done { print api; done = 1 }' "$config" >"$demo/lastset.json"
grep -q 'tcp: { listen' "$demo/lastset.json" || { echo "demo: could not add the api section to $demo/lastset.json" >&2; exit 1; }

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
"$bin/lastsetd" --config "$demo/lastset.json" --data-dir "$demo/data" --socket "$demo/api.sock" >"$demo/lastsetd.log" 2>&1 &
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

The technicians' console: open http://127.0.0.1:$console_port/ and sign in with
  operator token (capture, apply): $(cat "$demo/operator.token")
  viewer token (read, dry runs):   $(cat "$demo/viewer.token")
(also in $demo/operator.token and $demo/viewer.token; docs/CONSOLE.md walks through it)

Stop everything with: make demo-stop
EOT
