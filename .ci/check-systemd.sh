#!/bin/sh
# Checks systemd/lastsetd.service:
#   1. `systemd-analyze verify` reports nothing but the missing binary (no unknown key, no invalid value);
#   2. `systemd-analyze security --offline=true` scores at most 1.5;
#   3. every Exec*= runs one of the project's own binaries (a minimal Debian has no /bin/kill: it is in procps);
#   4. systemd/lastset-modules.conf loads the driver of every DeviceAllow=char-ttyUSB/char-ttyACM class.
# The unit under the real systemd is .ci/systemd-boot-test.sh.
# Usage: .ci/check-systemd.sh [unit-file]   (run from anywhere; exits 0 when both pass, 1 otherwise)
set -eu

unit=${1:-"$(dirname "$0")/../systemd/lastsetd.service"}
max_score=1.5
status=0

[ -f "$unit" ] || { echo "check-systemd: no unit file at $unit" >&2; exit 1; }
command -v systemd-analyze >/dev/null || { echo "check-systemd: systemd-analyze not found" >&2; exit 1; }

# verify exits non-zero when ExecStart's binary is not installed (as on a build host), so judge by its output:
# every line except that one is a finding.
verify_output=$(systemd-analyze verify "$unit" 2>&1 || true)
findings=$(printf '%s\n' "$verify_output" | grep -v -e 'is not executable: No such file or directory' -e '^$' || true)
if [ -n "$findings" ]; then
    echo "check-systemd: systemd-analyze verify reported:" >&2
    printf '%s\n' "$findings" >&2
    if printf '%s\n' "$findings" | grep -q 'Unknown key'; then
        echo "check-systemd: FAIL: unknown key(s) in $unit" >&2
    fi
    status=1
else
    echo "check-systemd: verify OK (no unknown keys or invalid values)"
fi

security_output=$(systemd-analyze security --offline=true "$unit" 2>&1 || true)
score=$(printf '%s\n' "$security_output" | sed -n 's/.*Overall exposure level for [^:]*: \([0-9][0-9.]*\).*/\1/p' | head -n 1)
if [ -z "$score" ]; then
    echo "check-systemd: FAIL: could not read the exposure score:" >&2
    printf '%s\n' "$security_output" >&2
    status=1
elif awk -v s="$score" -v m="$max_score" 'BEGIN { exit !(s > m) }'; then
    printf '%s\n' "$security_output" | grep '✗' >&2 || true
    echo "check-systemd: FAIL: exposure $score > $max_score" >&2
    status=1
else
    echo "check-systemd: security OK (exposure $score <= $max_score)"
fi

exec_lines=$(grep -E '^Exec[A-Za-z]*=' "$unit" || true)
foreign=$(printf '%s\n' "$exec_lines" | grep -v -E '^Exec[A-Za-z]*=[-@:+!]*/usr/local/bin/lastset(d|-sim)?( |$)' || true)
if [ -n "$foreign" ]; then
    echo "check-systemd: FAIL: Exec lines that run something the project does not install:" >&2
    printf '%s\n' "$foreign" >&2
    status=1
else
    echo "check-systemd: Exec lines OK (only the project's binaries)"
fi

modules="$(dirname "$unit")/lastset-modules.conf"
for pair in ttyUSB:usbserial ttyACM:cdc_acm; do
    class=${pair%%:*}
    module=${pair#*:}
    grep -q "^DeviceAllow=char-$class " "$unit" || continue
    if [ -f "$modules" ] && grep -qx "$module" "$modules"; then
        echo "check-systemd: DeviceAllow=char-$class: $module is in $(basename "$modules")"
    else
        echo "check-systemd: FAIL: DeviceAllow=char-$class needs $module in $modules (modules-load.d)" >&2
        status=1
    fi
done

exit $status
