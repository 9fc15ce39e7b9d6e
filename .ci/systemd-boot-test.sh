#!/usr/bin/env bash
# Runs systemd/lastsetd.service under the host's real systemd: boots /lib/systemd/systemd as PID 1 in fresh
# PID/mount/cgroup/UTS/IPC/net namespaces on a tmpfs-backed overlay of /, with a minimal /dev and /run, its own
# cgroup2 mount and a target that starts only lastset-sim (the device, on the namespace's loopback) and
# lastsetd. Drives it with `nsenter -t PID1 -a systemctl …` and checks:
#   READY and the status text · watchdog pings · API through the unit's socket (capture from the simulator)
#   hardening in effect (/proc/PID/status: NoNewPrivs, seccomp, no capabilities; MemoryDenyWriteExecute;
#   no W+X mapping) · `systemd-analyze security` of the running unit <= 1.5 · reload accepted · reload
#   refused (systemctl reload fails, the daemon keeps running) · a quiet journal · the forced watchdog
#   restart of a SIGSTOPped daemon within 5 s after WatchdogSec · stop · power-off with SIGRTMIN+4.
# Usage: .ci/systemd-boot-test.sh [BIN_DIR]   (root; BIN_DIR defaults to `swift build --show-bin-path`)
# Exits 0 when every check passed; prints "systemd-boot: N passed, N failed".
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${1:-$(cd "$root" && swift build --show-bin-path)}"
unit="$root/systemd/lastsetd.service"
# The test's WatchdogSec (the shipped 30 s would make the forced restart a 30 s wait); the bound is the
# issue's: restarted (READY again) within WatchdogSec + 5 s of the SIGSTOP.
watchdog_sec=3
restart_bound=$((watchdog_sec + 5))
max_exposure=1.5

passed=0
failed=0
ok() { passed=$((passed + 1)); echo "systemd-boot: ok   $*"; }
bad() { failed=$((failed + 1)); echo "systemd-boot: FAIL $*" >&2; }
die() { echo "systemd-boot: FAIL $*" >&2; echo "systemd-boot: $passed passed, $((failed + 1)) failed" >&2; exit 1; }

[[ $(id -u) -eq 0 ]] || die "must run as root (it boots systemd in new namespaces)"
for f in lastsetd lastset lastset-sim; do [[ -x "$bin/$f" ]] || die "no $bin/$f (build first)"; done
[[ -x /lib/systemd/systemd ]] || die "no /lib/systemd/systemd"
for c in unshare nsenter mount; do command -v "$c" >/dev/null || die "$c not found"; done

work="$(mktemp -d /tmp/lastset-systemd.XXXXXX)"
stage="$work/stage"   # what the inner script copies onto the overlay
mkdir -p "$stage/units" "$stage/bin" "$stage/etc"
cp "$bin/lastsetd" "$bin/lastset" "$bin/lastset-sim" "$stage/bin/"
cp "$unit" "$stage/units/lastsetd.service"
mkdir -p "$stage/units/lastsetd.service.d"
cat >"$stage/units/lastsetd.service.d/test.conf" <<EOF
# The test's only change to the shipped unit: a short watchdog so the forced restart is quick to see.
[Service]
WatchdogSec=${watchdog_sec}s
EOF
cat >"$stage/units/lastset-sim.service" <<'EOF'
[Unit]
Description=Simulated press (lastset-sim) on the namespace's loopback
Before=lastsetd.service
[Service]
Type=simple
ExecStart=/usr/local/bin/lastset-sim --config /etc/lastset/lastset.json --device press-a --tcp 127.0.0.1:15020 --values /etc/lastset/press-a.values.json
DynamicUser=yes
EOF
cat >"$stage/units/lastset-test.target" <<'EOF'
[Unit]
Description=Lastset systemd test: the simulator and lastsetd, nothing else
Requires=lastset-sim.service lastsetd.service
After=lastset-sim.service lastsetd.service
AllowIsolate=yes
EOF
# The demo config with one device (the simulator), polled every second.
sed -e 's/poll: "5s"/poll: "1s"/' "$root/Config/demo/lastset.json" |
    awk '!/id: "press-b"/ && !/quirks: \{ maxReadRegisters: 40/' >"$stage/etc/lastset.json"
cp "$root/Config/demo/press-a.values.json" "$stage/etc/press-a.values.json"

# Runs inside the new namespaces: builds the root, pivots into it and becomes systemd.
cat >"$work/inner.sh" <<'EOF'
#!/bin/sh
set -eu
work=$1
mount --make-rprivate /
base="$work/mnt"
mkdir -p "$base"
mount -t tmpfs -o mode=755 tmpfs "$base"
mkdir -p "$base/upper" "$base/work" "$base/root"
mount -t overlay overlay -o "lowerdir=/,upperdir=$base/upper,workdir=$base/work" "$base/root"
r="$base/root"
mount -t tmpfs -o mode=755,nosuid tmpfs "$r/dev"
for d in null:1:3 zero:1:5 full:1:7 random:1:8 urandom:1:9 tty:5:0; do
    n=${d%%:*}; mm=${d#*:}
    mknod -m 666 "$r/dev/$n" c "${mm%:*}" "${mm#*:}"
done
mkdir -p "$r/dev/pts" "$r/dev/shm"
mount -t devpts -o newinstance,ptmxmode=0666,mode=620 devpts "$r/dev/pts"
ln -s pts/ptmx "$r/dev/ptmx"
mount -t tmpfs -o mode=755,nosuid,nodev tmpfs "$r/run"
mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs "$r/tmp"
mount -t proc proc "$r/proc"
mount -t sysfs sysfs "$r/sys"
mount -t cgroup2 cgroup2 "$r/sys/fs/cgroup"
# The installed layout (as `make install` leaves it), on the overlay only.
mkdir -p "$r/usr/local/bin" "$r/etc/lastset" "$r/etc/systemd/system"
cp "$work/stage/bin/"* "$r/usr/local/bin/"
cp -r "$work/stage/units/"* "$r/etc/systemd/system/"
cp "$work/stage/etc/lastset.json" "$r/etc/lastset/lastset.json"
cp "$work/stage/etc/press-a.values.json" "$r/etc/lastset/press-a.values.json"
chmod 0644 "$r/etc/lastset/"*
rm -rf "$r/var/lib/lastset" "$r/var/lib/private/lastset" "$r/etc/machine-id"
: >"$r/etc/machine-id"
cd "$r"
mkdir -p oldroot
pivot_root . oldroot
umount -l /oldroot
rmdir /oldroot
export container=lastset-test
exec /lib/systemd/systemd --unit=lastset-test.target --show-status=no
EOF
chmod +x "$work/inner.sh"

# The new cgroup namespace is rooted at the cgroup it is created in: give it a fresh leaf of its own, so that
# two runs at once (or the host's own units) never share a cgroup tree.
cg_mount="$(findmnt -n -t cgroup2 -o TARGET | head -n 1 || true)"
cg_mounted_here=""
if [[ -z "$cg_mount" ]]; then
    cg_mount="$work/cgroup2"
    mkdir -p "$cg_mount"
    mount -t cgroup2 cgroup2 "$cg_mount" || die "cannot mount cgroup2"
    cg_mounted_here=yes
fi
cg_self="$(sed -n 's/^0:://p' /proc/self/cgroup)"
cg_dir="$cg_mount${cg_self%/}/lastset-boot-$$"
mkdir "$cg_dir" || die "cannot create the cgroup $cg_dir"

(
    echo "$BASHPID" >"$cg_dir/cgroup.procs"
    exec unshare --fork --pid --mount --cgroup --uts --ipc --net --kill-child "$work/inner.sh" "$work"
) >"$work/console.log" 2>&1 </dev/null &
outer=$!
pid1=""
cleanup() {
    if [[ -n "$pid1" ]] && kill -0 "$pid1" 2>/dev/null; then kill -s RTMIN+4 "$pid1" 2>/dev/null || true; fi
    for _ in $(seq 100); do kill -0 "$outer" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$outer" 2>/dev/null || true
    wait "$outer" 2>/dev/null || true
    # Leaves first: systemd may leave empty cgroups behind.
    find "$cg_dir" -depth -type d -exec rmdir {} + 2>/dev/null || true
    [[ -n "$cg_mounted_here" ]] && umount "$cg_mount"
    rm -rf "$work"
}
trap cleanup EXIT

# PID 1 of the namespace is unshare's child (inner.sh, which execs systemd).
for _ in $(seq 100); do
    pid1="$(cat /proc/"$outer"/task/*/children 2>/dev/null | tr -d ' ' || true)"
    [[ -n "$pid1" ]] && break
    kill -0 "$outer" 2>/dev/null || break
    sleep 0.05
done
[[ -n "$pid1" ]] || { cat "$work/console.log" >&2; die "unshare did not start PID 1"; }
in_ns() { nsenter -t "$pid1" -a "$@"; }
for _ in $(seq 200); do
    [[ "$(readlink /proc/"$pid1"/exe 2>/dev/null || true)" == */systemd ]] && in_ns test -S /run/systemd/private 2>/dev/null && break
    kill -0 "$pid1" 2>/dev/null || { cat "$work/console.log" >&2; die "PID 1 exited while booting"; }
    sleep 0.05
done
boot_start=$(date +%s.%N)
show() { in_ns systemctl show lastsetd.service -p "$1" --value; }
journal() { in_ns journalctl --no-pager -o cat -u lastsetd.service "$@"; }
elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }'; }

# 1. READY: Type=notify reaches active/running only on READY=1; the status text comes from STATUS=.
state=""
for _ in $(seq 300); do
    state="$(show ActiveState)/$(show SubState)"
    [[ "$state" == active/running || "$state" == failed/* ]] && break
    sleep 0.05
done
if [[ "$state" == active/running ]]; then
    ok "READY: lastsetd active/running ($(elapsed "$boot_start") s after PID 1's bus came up)"
else
    in_ns systemctl status --no-pager lastsetd.service >&2 || true
    journal >&2 || true
    die "lastsetd did not reach READY (state $state)"
fi
status_text="$(show StatusText)"
[[ "$status_text" == "serving 1 devices" ]] && ok "status text \"$status_text\"" || bad "status text \"$status_text\", expected \"serving 1 devices\""
main_pid="$(show MainPID)"

# 2. Watchdog pings: WatchdogTimestamp moves on every WATCHDOG=1 (every WatchdogSec/2).
first="$(show WatchdogTimestampMonotonic)"
pinged=""
for _ in $(seq 80); do
    sleep 0.1
    now="$(show WatchdogTimestampMonotonic)"
    if [[ "$now" != "$first" && "$now" != 0 && "$first" != 0 ]]; then pinged=yes; break; fi
    [[ "$first" == 0 ]] && first="$now"
done
[[ -n "$pinged" ]] && ok "watchdog pings arrive (WatchdogTimestampMonotonic $first -> $now)" || bad "no watchdog ping within 8 s (WatchdogTimestampMonotonic stays $first)"

# 3. The API on the unit's socket, and a capture from the simulator archived in StateDirectory.
if out="$(in_ns /usr/local/bin/lastset capture heating --from press-a 2>&1)"; then
    ok "capture through /run/lastset/api.sock archived a template in StateDirectory"
else
    bad "capture through the unit's socket failed: $out"
fi

# 4. Hardening in effect on the running process.
status="$(in_ns cat /proc/"$main_pid"/status)"
field() { printf '%s\n' "$status" | sed -n "s/^$1:\s*//p"; }
[[ "$(field NoNewPrivs)" == 1 ]] && ok "NoNewPrivs: 1" || bad "NoNewPrivs is $(field NoNewPrivs)"
[[ "$(field Seccomp)" == 2 ]] && ok "Seccomp: 2 (filter), $(field Seccomp_filters) filters" || bad "Seccomp is $(field Seccomp)"
caps_ok=yes
for c in CapInh CapPrm CapEff CapBnd CapAmb; do [[ "$(field $c)" == 0000000000000000 ]] || caps_ok="$c=$(field $c)"; done
[[ "$caps_ok" == yes ]] && ok "no capabilities (CapInh/Prm/Eff/Bnd/Amb all 0)" || bad "capabilities left: $caps_ok"
uid="$(field Uid | awk '{print $2}')"
[[ "$uid" -ne 0 ]] && ok "runs as a dynamic user (uid $uid)" || bad "runs as root"
[[ "$(show MemoryDenyWriteExecute)" == yes ]] && ok "MemoryDenyWriteExecute=yes on the running unit" || bad "MemoryDenyWriteExecute is $(show MemoryDenyWriteExecute)"
wx="$(in_ns awk '$2 ~ /w.x/' /proc/"$main_pid"/maps)"
[[ -z "$wx" ]] && ok "no writable+executable mapping in /proc/PID/maps" || bad "W+X mappings: $wx"

# 5. systemd-analyze security of the running unit (not --offline).
sec="$(in_ns systemd-analyze security --no-pager lastsetd.service 2>&1 || true)"
exposure="$(printf '%s\n' "$sec" | sed -n 's/.*Overall exposure level for [^:]*: \([0-9][0-9.]*\).*/\1/p' | head -n 1)"
if [[ -z "$exposure" ]]; then
    bad "systemd-analyze security of the running unit printed no score: $sec"
elif awk -v s="$exposure" -v m="$max_exposure" 'BEGIN { exit !(s <= m) }'; then
    ok "systemd-analyze security of the running unit: $exposure <= $max_exposure"
else
    printf '%s\n' "$sec" | grep '✗' >&2 || true
    bad "systemd-analyze security of the running unit: $exposure > $max_exposure"
fi

# 6. Reload accepted: a second page device appears; same main PID.
in_ns sh -c 'sed -i "s/  devices: \[/  devices: [\n    { id: \"press-c\", endpoint: \"tcp:\/\/127.0.0.1:15029\", unit: 1, pages: [\"heating\"] },/" /etc/lastset/lastset.json'
if out="$(in_ns timeout 30 systemctl reload lastsetd.service 2>&1)"; then
    devices="$(in_ns /usr/local/bin/lastset --json devices 2>&1 | grep -c '"id"' || true)"
    [[ "$devices" -ge 2 && "$(show MainPID)" == "$main_pid" ]] && ok "reload accepted: systemctl reload exit 0, 2 devices now, same PID" ||
        bad "reload accepted but devices=$devices, MainPID $(show MainPID) (was $main_pid)"
else
    bad "systemctl reload of a valid config failed: $out"
fi

# 7. Reload refused: an invalid config must fail `systemctl reload`; the daemon keeps the running config.
in_ns sh -c 'cp /etc/lastset/lastset.json /etc/lastset/good.json && printf "{ version: 2, devices: [], pages: [] }\n" >/etc/lastset/lastset.json'
if out="$(in_ns timeout 30 systemctl reload lastsetd.service 2>&1)"; then
    bad "systemctl reload of an invalid config exited 0"
else
    state="$(show ActiveState)/$(show SubState)"
    devices="$(in_ns /usr/local/bin/lastset --json devices 2>&1 | grep -c '"id"' || true)"
    [[ "$state" == active/running && "$(show MainPID)" == "$main_pid" && "$devices" -ge 2 ]] &&
        ok "reload refused: systemctl reload failed, still active/running with the old config ($devices devices)" ||
        bad "after a refused reload: state $state, MainPID $(show MainPID) (was $main_pid), $devices devices"
fi
in_ns cp /etc/lastset/good.json /etc/lastset/lastset.json

# 8. A quiet journal: only the daemon's own lines, systemd's about the unit and `lastset reload`'s verdicts.
# libdispatch sets its worker threads' nice value from their QoS (setpriority, -4 for user-initiated work): a seccomp refusal (errno=1)
# repeats for every new worker. LimitNICE=-4 allows it; where the service manager cannot apply that limit
# (a sandbox without CAP_SYS_RESOURCE, as CI's is), an EACCES (errno=13) line per new user-initiated worker
# thread is, up to 3 (one is seen in a run here).
nice_limit="$(in_ns sed -n 's/^Max nice priority *\([0-9]*\).*/\1/p' /proc/"$main_pid"/limits)"
allowed_eacces=0
[[ "$nice_limit" -ge 24 ]] || allowed_eacces=3
all_lines="$(journal)"
noise="$(printf '%s\n' "$all_lines" | grep -v -E -e "^lastsetd: " -e "^(Starting|Started|Reloading|Reloaded|Stopping|Stopped|Reload failed for) lastsetd.service" \
    -e "^lastsetd.service: " -e "^$" -e "^config reloaded from " -e "^error: config reload refused" -e "^/etc/lastset/lastset.json: " |
    grep -v "Failed to set thread priority for worker thread: .* errno=13" || true)"
eacces="$(printf '%s\n' "$all_lines" | grep -c "Failed to set thread priority for worker thread: .* errno=13" || true)"
if [[ -z "$noise" && "$eacces" -le "$allowed_eacces" ]]; then
    ok "journal quiet: $(printf '%s\n' "$all_lines" | wc -l) lines, the daemon's own and systemd's (nice limit $nice_limit, $eacces EACCES line(s), $allowed_eacces tolerated)"
else
    bad "journal noise ($eacces EACCES setpriority line(s), $allowed_eacces tolerated; nice limit $nice_limit): $(printf '%s\n' "$noise" | sort | uniq -c | sort -rn | head -5)"
fi

# 9. Forced watchdog restart: a frozen daemon is killed and restarted (READY again) in time.
restarts_before="$(show NRestarts)"
in_ns kill -STOP "$main_pid"
stopped_at=$(date +%s.%N)
restarted=""
for _ in $(seq $((restart_bound * 20 + 40))); do
    sleep 0.05
    pid="$(show MainPID)"
    if [[ "$pid" != "$main_pid" && "$pid" != 0 && "$(show ActiveState)/$(show SubState)" == active/running ]]; then
        restarted="$(elapsed "$stopped_at")"
        break
    fi
done
if [[ -n "$restarted" ]] && awk -v t="$restarted" -v b="$restart_bound" 'BEGIN { exit !(t <= b) }'; then
    ok "watchdog restart: SIGSTOPped daemon READY again as PID $pid after $restarted s (WatchdogSec=${watchdog_sec}s, bound ${restart_bound} s)"
else
    bad "watchdog restart: not READY again within ${restart_bound} s of SIGSTOP (${restarted:-never}; NRestarts $restarts_before -> $(show NRestarts))"
    journal | tail -n 20 >&2 || true
fi
[[ "$(show NRestarts)" -gt "$restarts_before" ]] && ok "NRestarts $restarts_before -> $(show NRestarts)" || bad "NRestarts did not grow"

# 10. Stop: clean, quick, logged.
stop_start=$(date +%s.%N)
if in_ns timeout 20 systemctl stop lastsetd.service; then
    took="$(elapsed "$stop_start")"
    state="$(show ActiveState)"
    result="$(show Result)"
    [[ "$state" == inactive && "$result" == success ]] && journal | grep -q 'stopped$' &&
        ok "stop: inactive, Result=success, \"stopped\" logged, $took s" || bad "stop: state $state, Result $result"
else
    bad "systemctl stop failed"
fi

# 11. Power-off: SIGRTMIN+4 to PID 1 (systemd's poweroff request in a container).
kill -s RTMIN+4 "$pid1"
off_start=$(date +%s.%N)
for _ in $(seq 300); do kill -0 "$outer" 2>/dev/null || break; sleep 0.05; done
if kill -0 "$outer" 2>/dev/null; then bad "PID 1 still running 15 s after SIGRTMIN+4"; else ok "powered off $(elapsed "$off_start") s after SIGRTMIN+4"; fi
pid1=""

echo "systemd-boot: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
