#!/bin/sh
# The two rules of verification-receipts.md §2.1 measured on the 100k fixture's scenario A
# (gitscope.md §8.1): W names the ignored files written since pre-flight, C would run in a clean
# tree of HEAD plus the changed set. Each beside the git CLI doing the same walk or checkout.
#
# Usage: scripts/perf/verify-inputs-bench.sh [OUT] ; env RUNS=N (default 9)
set -eu
OUT=${1:-/tmp/mm-perf}
cd "$(dirname "$0")/../.."
sh scripts/perf/gen-repo.sh "$OUT"
exec go run -tags perf ./scripts/perf/verifyinputs -repo "$OUT/a" -runs "${RUNS:-9}"
