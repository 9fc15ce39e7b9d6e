#!/usr/bin/env bash
# make soak: a long run of the real daemon under load, watching its memory, descriptors and threads.
#
# Starts SOAK_DEVICES simulated presses (lastset-sim, default 20) on 127.0.0.1, a lastsetd (release build)
# polling every one of them every 200 ms, and a loop of CLI jobs through the daemon's socket — capture,
# dry run, apply (real writes to the simulators), diff, audit, devices, templates — for SOAK_MINUTES
# (default 10). Every minute it prints the daemon's RSS, open descriptors and threads, and the jobs done.
# After the warm-up (SOAK_WARMUP minutes, default 2) it fails when RSS grows by more than SOAK_RSS_MB
# (default 24) over the end of the warm-up, when descriptors grow by more than 8, when threads are still
# growing (the peak of the second half of the run above the first half's by more than 2) or grew by more
# than 16 over the warm-up (libdispatch sizes its pool of worker threads to the load: two runs levelled
# off 10-15 threads above an early sample, so a leak shows as a trend), or when any job fails.
# Not part of `make test`. Usage: SOAK_MINUTES=60 scripts/soak.sh
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
minutes="${SOAK_MINUTES:-10}"
devices="${SOAK_DEVICES:-20}"
warmup="${SOAK_WARMUP:-2}"
rss_bound_mb="${SOAK_RSS_MB:-24}"
fd_bound=8
thread_bound=2
thread_ceiling=16
((minutes > warmup)) || { echo "soak: SOAK_MINUTES ($minutes) must exceed SOAK_WARMUP ($warmup)" >&2; exit 64; }

swift build -c release --product lastsetd >&2
swift build -c release --product lastset >&2
swift build -c release --product lastset-sim >&2
bin="$(swift build -c release --show-bin-path)"
work="$(mktemp -d /tmp/lastset-soak.XXXXXX)"
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

# The simulators: one register map (the demo's two pages), press-a's values, a free port each.
for i in $(seq "$devices"); do
    "$bin/lastset-sim" --config Config/demo/lastset.json --device press-a --tcp 127.0.0.1:0 \
        --values Config/demo/press-a.values.json >"$work/sim-$i.log" 2>&1 &
    pids+=($!)
done
ports=()
for i in $(seq "$devices"); do
    port=""
    for _ in $(seq 100); do
        port="$(sed -n 's/^READY tcp 127.0.0.1:\([0-9]*\)$/\1/p' "$work/sim-$i.log")"
        [[ -n "$port" ]] && break
        sleep 0.1
    done
    [[ -n "$port" ]] || { cat "$work/sim-$i.log" >&2; echo "soak: simulator $i did not start" >&2; exit 1; }
    ports+=("$port")
done

# The config: every simulator as dev-N, polled every 200 ms, with the demo's pages.
{
    echo "{ version: 1, history: 20, devices: ["
    for i in $(seq "$devices"); do
        echo "  { id: \"dev-$i\", endpoint: \"tcp://127.0.0.1:${ports[$((i - 1))]}\", unit: 1, pages: [\"heating\", \"motion\"], poll: \"200ms\" },"
    done
    echo "],"
    sed -n '/^  pages: \[/,$p' Config/demo/lastset.json
} >"$work/lastset.json"
"$bin/lastsetd" --check-config --config "$work/lastset.json" >&2
"$bin/lastsetd" --config "$work/lastset.json" --data-dir "$work/data" --socket "$work/api.sock" >"$work/lastsetd.log" 2>&1 &
daemon=$!
pids+=("$daemon")
for _ in $(seq 100); do [[ -S "$work/api.sock" ]] && break; sleep 0.1; done
[[ -S "$work/api.sock" ]] || { cat "$work/lastsetd.log" >&2; echo "soak: lastsetd did not start" >&2; exit 1; }

cli() { "$bin/lastset" --socket "$work/api.sock" "$@"; }
: >"$work/jobs"
: >"$work/failures"
# The job loop: each round uses the next pair of devices.
jobs_loop() {
    local round=0
    while [[ ! -e "$work/stop" ]]; do
        local a=$((round % devices + 1)) b=$(((round + 1) % devices + 1))
        local page=heating
        ((round % 3 == 2)) && page=motion
        for job in "capture $page --from dev-$a" "apply $page --to dev-$b --dry-run" "apply $page --to dev-$b" \
            "diff $page --device dev-$b" "audit --limit 200" "devices" "templates $page" "show $page"; do
            # shellcheck disable=SC2086
            if cli $job >/dev/null 2>"$work/last-error"; then
                echo ok >>"$work/jobs"
            else
                echo "$(date +%T) lastset $job: $(head -c 300 "$work/last-error")" >>"$work/failures"
            fi
        done
        round=$((round + 1))
    done
}
jobs_loop &
loop=$!
pids+=("$loop")

sample() {  # RSS_KB FDS THREADS of the daemon
    local rss threads fds
    rss="$(sed -n 's/^VmRSS:\s*\([0-9]*\) kB/\1/p' /proc/"$daemon"/status)"
    threads="$(sed -n 's/^Threads:\s*//p' /proc/"$daemon"/status)"
    fds="$(ls /proc/"$daemon"/fd | wc -l)"
    echo "$rss $fds $threads"
}

printf '%6s %9s %5s %8s %8s %8s %9s\n' MINUTE RSS_MB FDS THREADS JOBS FAILED DB_MB
read -r rss fds threads < <(sample)
printf '%6s %9.1f %5s %8s %8s %8s %9s\n' 0 "$(awk -v r="$rss" 'BEGIN{print r/1024}')" "$fds" "$threads" 0 0 0
base_rss=""
base_fds=""
base_threads=""
max_rss=0
max_fds=0
max_threads=0
first_half_threads=0
second_half_threads=0
for minute in $(seq "$minutes"); do
    sleep 60
    kill -0 "$daemon" 2>/dev/null || { tail -n 20 "$work/lastsetd.log" >&2; echo "soak: lastsetd died" >&2; exit 1; }
    read -r rss fds threads < <(sample)
    done_jobs="$(wc -l <"$work/jobs")"
    failed="$(wc -l <"$work/failures")"
    audit="$(($(stat -c %s "$work/data/lastset.db" 2>/dev/null || echo 0) + $(stat -c %s "$work/data/lastset.db-wal" 2>/dev/null || echo 0)))"
    printf '%6s %9.1f %5s %8s %8s %8s %9.1f\n' "$minute" "$(awk -v r="$rss" 'BEGIN{print r/1024}')" "$fds" "$threads" \
        "$done_jobs" "$failed" "$(awk -v a="$audit" 'BEGIN{print a/1048576}')"
    if ((minute == warmup)); then
        base_rss=$rss base_fds=$fds base_threads=$threads
    elif ((minute > warmup)); then
        ((rss > max_rss)) && max_rss=$rss
        ((fds > max_fds)) && max_fds=$fds
        ((threads > max_threads)) && max_threads=$threads
        if ((minute <= warmup + (minutes - warmup) / 2)); then
            ((threads > first_half_threads)) && first_half_threads=$threads
        else
            ((threads > second_half_threads)) && second_half_threads=$threads
        fi
    fi
done
touch "$work/stop"
wait "$loop" || true  # the round in flight finishes first: no job meets a stopping daemon
kill "$daemon"
status=0
wait "$daemon" || status=$?

verdict=0
growth_mb="$(awk -v m="$max_rss" -v b="$base_rss" 'BEGIN{printf "%.1f", (m-b)/1024}')"
echo
echo "soak: $devices devices polled every 200 ms, $(wc -l <"$work/jobs") CLI jobs in $minutes min; after the ${warmup}-min warm-up:"
echo "soak: RSS $(awk -v b="$base_rss" 'BEGIN{printf "%.1f", b/1024}') MB -> peak $(awk -v m="$max_rss" 'BEGIN{printf "%.1f", m/1024}') MB (+$growth_mb MB, bound $rss_bound_mb MB); fds $base_fds -> peak $max_fds (bound +$fd_bound); threads $base_threads -> peak $max_threads, peak $first_half_threads in the first half and $second_half_threads in the second (bounds: +$thread_ceiling over the warm-up, +$thread_bound from the first half to the second)"
awk -v g="$growth_mb" -v b="$rss_bound_mb" 'BEGIN { exit !(g > b) }' && { echo "soak: FAIL: RSS grew by $growth_mb MB" >&2; verdict=1; }
((max_fds > base_fds + fd_bound)) && { echo "soak: FAIL: descriptors grew $base_fds -> $max_fds" >&2; verdict=1; }
((max_threads > base_threads + thread_ceiling)) && { echo "soak: FAIL: threads grew $base_threads -> $max_threads" >&2; verdict=1; }
((second_half_threads > first_half_threads + thread_bound)) && {
    echo "soak: FAIL: threads still growing: peak $first_half_threads in the first half, $second_half_threads in the second" >&2
    verdict=1
}
if [[ -s "$work/failures" ]]; then
    echo "soak: FAIL: $(wc -l <"$work/failures") job(s) failed, the first:" >&2
    head -n 5 "$work/failures" >&2
    verdict=1
fi
((status == 0)) || { echo "soak: FAIL: lastsetd exited $status on SIGTERM" >&2; verdict=1; }
errors="$(grep -c -E ' (error|warning) ' "$work/lastsetd.log" || true)"
echo "soak: daemon log: $(wc -l <"$work/lastsetd.log") lines, $errors error/warning lines"
((verdict == 0)) && echo "soak: OK"
exit $verdict
