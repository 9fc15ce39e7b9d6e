#!/usr/bin/env bash
# Stops what scripts/demo.sh started.
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
pids="$root/.demo/pids"
[[ -f $pids ]] || exit 0
while read -r pid; do kill "$pid" 2>/dev/null || true; done <"$pids"
rm -f "$pids"
