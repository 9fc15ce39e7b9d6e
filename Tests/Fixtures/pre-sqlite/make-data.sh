#!/usr/bin/env bash
# Makes Tests/Fixtures/pre-sqlite/data: a data directory written by the release before lastset.db (issue 20,
# phase 2), with the lastsetd, lastset and lastset-sim of that release (BIN, default .build/debug of a checkout
# of it). What it holds: page "heating" captured twice (v1, v2), v1 exported and imported (v3), v1 promoted
# (v4), v3 deleted (its tombstone), v4 applied to press-b (succeeded), a replay to press-c that failed and was
# rolled back (press-c clamps heating.hysteresis), page "motion" captured twice (v1, v2), and a replay to
# press-d killed (SIGKILL of lastsetd) while it wrote: its journal and "started" record stay. Then, as the
# release left them: the audit log rotated once (audit.000001.jsonl holds the older lines, as a rotation at a
# line boundary leaves it), a torn last line, and the "archived" record of motion v2 removed — a capture killed after its version
# was in place and before its outcome record (only the "started" record is left).
# Used by MigrationEndToEndTests; run once, its output committed.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
BIN="${BIN:-$here/../../../.build/debug}"
work="$(mktemp -d)"
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
cat >"$work/config.json5" <<'CFG'
{ version: 1,
  devices: [
    { id: "press-a", endpoint: "tcp://127.0.0.1:PORT_A", unit: 1, pages: ["heating", "motion"] },
    { id: "press-b", endpoint: "tcp://127.0.0.1:PORT_B", unit: 1, pages: ["heating", "motion"] },
    { id: "press-c", endpoint: "tcp://127.0.0.1:PORT_C", unit: 1, pages: ["heating", "motion"] },
    { id: "press-d", endpoint: "tcp://127.0.0.1:PORT_D", unit: 1, pages: ["heating", "motion"] },
  ],
  pages: [
    { id: "heating", title: "Heating",
      identity: [ { registerId: "model", address: 0, type: "string(8)" } ],
      registers: [
        { registerId: "heating.mode", address: 100, type: "u16", enum: [0, 1, 2] },
        { registerId: "heating.setpoint", address: 101, type: "s16", min: -200, max: 900 },
        { registerId: "heating.energy", address: 102, type: "u32", wordOrder: "little" },
        { registerId: "heating.label", address: 110, type: "string(16)" },
        { registerId: "heating.hysteresis", address: 120, type: "u16", max: 50 },
        { registerId: "comm.unit", address: 200, type: "u16", clone: false },
      ] },
    { id: "motion", title: "Motion",
      registers: [
        { registerId: "motion.speed", address: 300, type: "u16" },
        { registerId: "motion.ramp", address: 301, type: "u16" },
        { registerId: "motion.limit", address: 302, type: "u32" },
      ] },
  ],
}
CFG
cat >"$work/values-a.json" <<'V'
{"model": "PRS-200", "heating.mode": 2, "heating.setpoint": -150, "heating.energy": 123456, "heating.label": "Line 3",
 "heating.hysteresis": 12, "comm.unit": 17, "motion.speed": 1500, "motion.ramp": 20, "motion.limit": 70000}
V
echo '{"model": "PRS-200"}' >"$work/values-blank.json"
sed 's/PORT_[A-D]"/1"/' "$work/config.json5" >"$work/sim-config.json5"
sim() {  # sim NAME VALUES [FAULTS…]: starts lastset-sim, sets PORT_NAME
    local name=$1 values=$2
    shift 2
    "$BIN/lastset-sim" --config "$work/sim-config.json5" --tcp 127.0.0.1:0 --values "$values" "$@" >"$work/$name.out" 2>&1 &
    for _ in $(seq 100); do grep -q READY "$work/$name.out" && break; sleep 0.05; done
    local port
    port="$(sed -n 's/^READY tcp 127.0.0.1:\([0-9]*\)$/\1/p' "$work/$name.out")"
    sed -i "s/PORT_$name\"/$port\"/" "$work/config.json5"
    eval "PORT_$name=$port"
}
sim A "$work/values-a.json"
sim B "$work/values-blank.json"
sim C "$work/values-blank.json" --clamp 120:5
sim D "$work/values-blank.json" --delay-ms 250
data="$work/data"
sock="$work/api.sock"
"$BIN/lastsetd" --config "$work/config.json5" --data-dir "$data" --socket "$sock" >"$work/daemon.log" 2>&1 &
daemon=$!
for _ in $(seq 200); do [[ -S "$sock" ]] && break; sleep 0.05; done
[[ -S "$sock" ]] || { cat "$work/daemon.log" "$work/config.json5" "$work"/*.out >&2; exit 1; }
cli() { "$BIN/lastset" --socket "$sock" "$@"; }
cli capture heating --from press-a
mbpoll -m tcp -a 1 -r 121 -t 4 -1 -q 127.0.0.1 -p "$PORT_A" 20 >/dev/null
cli capture heating --from press-a
cli export heating --version 1 --output "$work/v1.json"
cli import "$work/v1.json"
cli promote heating --version 1
cli delete heating --version 3
cli apply heating --to press-b
cli apply heating --to press-c --on-error rollback || echo "(failed and rolled back, as meant)"
cli capture motion --from press-a
mbpoll -m tcp -a 1 -r 301 -t 4 -1 -q 127.0.0.1 -p "$PORT_A" 1600 >/dev/null
cli capture motion --from press-a
cli apply heating --to press-d >/dev/null 2>&1 &
sleep 1.2
kill -9 "$daemon"
wait "$daemon" || true
ls "$data/journal" | grep -q . || { echo "no journal left by the killed replay" >&2; exit 1; }
# The rotation the release makes past 16 MiB, at a line boundary: the older lines become segment 1.
total=$(wc -l <"$data/audit.jsonl")
head -n $((total / 2)) "$data/audit.jsonl" >"$data/audit.000001.jsonl"
tail -n +$((total / 2 + 1)) "$data/audit.jsonl" >"$data/audit.tmp" && mv "$data/audit.tmp" "$data/audit.jsonl"
# A capture killed between its version file and its outcome record: motion v2 with only its "started" record.
grep -v '"kind":"capture".*"pageId":"motion".*"result":"archived".*"templateVersion":2' "$data/audit.jsonl" >"$data/audit.tmp" || true
[[ $(wc -l <"$data/audit.tmp") -eq $(($(wc -l <"$data/audit.jsonl") - 1)) ]] || { echo "motion v2's archived record not found exactly once" >&2; exit 1; }
mv "$data/audit.tmp" "$data/audit.jsonl"
# A record torn by a crash in the middle of its write (no newline): the release skipped it as unreadable.
printf '{"kind":"replay","pageId":"heating","result":"succ' >>"$data/audit.jsonl"
rm -f "$data/lastsetd.lock"
rm -rf "$here/data"
cp -a "$data" "$here/data"
cp "$work/config.json5" "$here/config.json5"
find "$here/data" -type f | sort
