#!/usr/bin/env bash
# `make bench`: builds lastsetd, lastset-sim and lastset-bench in release mode, compiles the C libmodbus
# worker, prepares the pinned pymodbus venv, and runs the benchmarks (servers on 127.0.0.1 only).
# Prints a Markdown table, then one JSON object (also written to $BENCH_JSON, default .build/bench.json).
#
# Environment:
#   BENCH_SCRATCH  SwiftPM scratch directory (default: <repo>/.build)
#   BENCH_JSON     where to write the JSON object
#   BENCH_ARGS     extra lastset-bench arguments, e.g. "--idle-seconds 60 --reps 9" (see lastset-bench --help)
# Arguments given to this script are passed on to lastset-bench as well.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
scratch="${BENCH_SCRATCH:-$root/.build}"
for product in lastsetd lastset-sim lastset-bench; do
    swift build -c release --scratch-path "$scratch" --product "$product" >&2
done
bin="$(swift build -c release --scratch-path "$scratch" --show-bin-path)"
work="$(mktemp -d /tmp/lastset-bench-tools.XXXXXX)"
trap 'rm -rf "$work"' EXIT
# shellcheck disable=SC2046 # pkg-config prints several words on purpose
cc -O2 -Wall -o "$work/lastset-bench-c" Benchmarks/c/lastset_bench_c.c $(pkg-config --cflags --libs libmodbus)
Tests/peers/setup-venv.sh
json="${BENCH_JSON:-$scratch/bench.json}"
# shellcheck disable=SC2086 # BENCH_ARGS is a list of words
"$bin/lastset-bench" --bin "$bin" --c-worker "$work/lastset-bench-c" --python "$root/.venv/bin/python" \
    --py-script "$root/Benchmarks/python/pymodbus_bench.py" --json-out "$json" ${BENCH_ARGS:-} "$@"
