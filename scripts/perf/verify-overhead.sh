#!/bin/sh
# Overhead of a declared command run through mastermind's runner (internal/verifyrun) against the
# same command run directly: `go test -count=1 .` of a small package, PAIRS paired runs (default
# 15, at least 7), alternating order. Target (verification-receipts.md §2): median through
# verifyrun <= 1.05 x median direct + 50 ms. Exit 1 when the target is missed.
#
# Usage: scripts/perf/verify-overhead.sh ; env PAIRS=N
set -eu
cd "$(dirname "$0")/../.."
exec go run ./scripts/perf/verifyoverhead -pairs "${PAIRS:-15}"
