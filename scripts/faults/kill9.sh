#!/usr/bin/env bash
# kill -9 fault loop (docs/hardening.md, "Faults and concurrency"): builds mastermind, then for
# each writing command (run-task post-flight and re-pre-flight, run-task on a broken task that
# upserts _lessons.md, gate --record, forge-report ingest, filter --dispatch) starts it N times,
# kills it with SIGKILL after a random 0–50 ms, and checks that every file is the old or a new
# complete version and that the next run succeeds despite leftover temporary files and locks.
#
#   scripts/faults/kill9.sh [N] [SEED]      N iterations per scenario (default 50)
#
# Exit status: 0 all checks passed, 1 a check failed, 2 set-up failed.
set -euo pipefail
cd "$(dirname "$0")/../.."
n=${1:-50}
seed=${2:-$(date +%s)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/mastermind" ./cmd/mastermind
go build -o "$tmp/kill9" ./scripts/faults/kill9
"$tmp/kill9" -bin "$tmp/mastermind" -n "$n" -seed "$seed"
