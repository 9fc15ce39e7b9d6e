#!/usr/bin/env bash
# Runs the whole XCTest/swift-testing suite (`swift test`) with its output on the terminal and in
# .build/test-output.log; when it fails, ends with a summary a CI log's tail keeps: every failed assertion,
# the crash (what was printed before it, the crash report's frames), the test that was running.
set -uo pipefail
cd "$(dirname "$0")/.."
SWIFT="${SWIFT:-swift}"
log=.build/test-output.log
mkdir -p .build
# A hung peer must fail the run, not stall it.
timeout --kill-after=30 1200 "$SWIFT" test "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
[[ $status -eq 0 ]] && exit 0
# timeout ends swift-test; the test process it started runs in a process group of its own: end it too.
pkill -KILL -f "^$PWD/\.build/.*/LastsetPackageTests\.xctest" 2>/dev/null || true
{
    echo
    echo "==== swift test failed (exit $status): summary of $log ===="
    echo "-- failures:"
    grep -E ": error: |' failed \(" "$log" | head -40
    if grep -q -E "=== crash-report:|Program crashed|Fatal error" "$log"; then
        echo "-- crash: what the process printed just before it, then its frames (Tests/CrashReport):"
        # The lines before the report name the test that ran and any message (glibc, Swift runtime).
        first=$(grep -n -m1 -E "=== crash-report:|\*\*\* Signal [0-9]+:|Program crashed" "$log" | cut -d: -f1)
        sed -n "$((first > 12 ? first - 12 : 1)),$((first - 1))p" "$log" | cut -c1-240
        grep -E "Fatal error|Program crashed" "$log" | head -3
        # The report prints each frame as two lines (function, file:line): one line each here.
        awk '/^=== crash-report:/ { p = 1; print; next }
             /^=== end of crash-report/ { exit }
             p && NF { if (fn == "") { fn = $0 } else { if (fn != "handler" && $0 != "??:0:0") printf "   %s  %s\n", fn, $0; fn = "" } }' "$log" |
            head -40 | cut -c1-240
    fi
    echo "-- test cases started but not finished:"
    awk '
        /^Test Case .* started/ { t=$3; open[t]=1 }
        /^Test Case .* (passed|failed|skipped)/ { t=$3; delete open[t] }
        END { for (t in open) print "   " t }' "$log"
    echo "==== end of summary ===="
} >&2
exit "$status"
