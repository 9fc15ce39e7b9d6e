#!/usr/bin/env bash
# make fuzz: builds lastset-fuzz with libFuzzer and AddressSanitizer (swiftc -sanitize=fuzzer,address; the
# toolchain ships both runtimes) and runs every fuzz target for FUZZ_SECONDS (default 60) each, starting from
# its seed corpus Fuzz/corpus/<target>/. Prints executions and crashes per target; exits 1 if any target
# crashed. Findings go to .build-fuzz/findings/<target>/ — a crash input belongs in Fuzz/corpus/<target>/ once
# the code no longer traps on it (the corpus is replayed by `make test`).
# Usage: scripts/fuzz.sh [TARGET ...]      (FUZZ_SECONDS=N, FUZZ_JOBS=N parallel workers per target, default 1)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
seconds="${FUZZ_SECONDS:-60}"
jobs="${FUZZ_JOBS:-1}"
scratch="$root/.build-fuzz"

targets=("$@")
if ((${#targets[@]} == 0)); then
    for d in Fuzz/corpus/*/; do targets+=("$(basename "$d")"); done
fi

echo "fuzz: building lastset-fuzz (release, -sanitize=fuzzer,address) in $scratch" >&2
# lld: gold fails on the sanitizer objects (internal error in format_file_lineno).
swift build -c release --product lastset-fuzz --scratch-path "$scratch" \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -DLASTSET_LIBFUZZER -Xswiftc -use-ld=lld >&2
bin="$scratch/release/lastset-fuzz"

summary=()
crashed=0
for t in "${targets[@]}"; do
    [[ -d "Fuzz/corpus/$t" ]] || { echo "fuzz: no seed corpus Fuzz/corpus/$t/" >&2; exit 64; }
    work="$scratch/corpus/$t"
    findings="$scratch/findings/$t"
    log="$scratch/logs/$t.log"
    mkdir -p "$work" "$findings" "$(dirname "$log")"
    echo "fuzz: $t for ${seconds}s (log $log)" >&2
    # -fork with -ignore_crashes: a crash is recorded and fuzzing goes on, so every target gets its full time and
    # the count says how many inputs trapped. Swift's own backtracer is off: libFuzzer reports the signal.
    status=0
    SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1 \
        timeout --kill-after=30 $((seconds + 120)) "$bin" "$t" -fork="$jobs" -ignore_crashes=1 -ignore_timeouts=1 \
        -ignore_ooms=1 -rss_limit_mb=2048 -timeout=10 -max_len=65536 -max_total_time="$seconds" \
        -artifact_prefix="$findings/" "$work" "Fuzz/corpus/$t" >"$log" 2>&1 || status=$?
    last="$(grep -E '^#[0-9]+: cov:' "$log" | tail -n 1 || true)"
    execs="$(sed -n 's/^#\([0-9]*\):.*/\1/p' <<<"$last")"
    faults="$(sed -n 's|.*oom/timeout/crash: \([0-9]*/[0-9]*/[0-9]*\).*|\1|p' <<<"$last")"
    crashes="${faults##*/}"
    if [[ -z "$execs" ]]; then
        tail -n 20 "$log" >&2
        echo "fuzz: $t: libFuzzer printed no statistics (exit $status)" >&2
        exit 1
    fi
    kinds="$(grep -h -E 'Fatal error|ERROR: AddressSanitizer|ERROR: libFuzzer' "$log" | sed 's/==[0-9]*==//' | sort | uniq -c | sort -rn | head -n 5 || true)"
    summary+=("$(printf '%-16s %12s %8s %6s %s' "$t" "$execs" "${crashes:-0}" "$(ls "$work" | wc -l)" "oom/timeout/crash $faults")")
    if [[ "${crashes:-0}" -gt 0 ]]; then
        crashed=1
        echo "fuzz: $t: ${crashes} crashing input(s) in $findings; what trapped:" >&2
        printf '%s\n' "$kinds" >&2
        echo "fuzz: reproduce with: swift build && \$(swift build --show-bin-path)/lastset-fuzz $t $findings/crash-…" >&2
    fi
done

echo
printf '%-16s %12s %8s %6s %s\n' TARGET EXECUTIONS CRASHES CORPUS "(each ${seconds}s, $jobs worker(s))"
printf '%s\n' "${summary[@]}"
exit $crashed
