#!/bin/bash
# Benchmarks `mastermind changes --since <baseline>` against the bare git recipe R of
# gitscope.md §4.1/§8.2 on the fixtures built by gen-repo.sh (default /tmp/mm-perf).
# Usage: scripts/perf/changes-bench.sh [OUT] [PAIRS] ; env MM_BIN=<binary to measure>
# For each of scenario A and B: one warm-up of each, then PAIRS (>= 7) alternating R/P pairs;
# prints per-pair ratios P/R, the median and min-max, mastermind's peak RSS (VmHWM via
# MASTERMIND_DEBUG_RSS=1), and checks the changed set (A: equals OUT/a.expected; B: 100,000 lines).
set -euo pipefail
OUT=${1:-/tmp/mm-perf}
PAIRS=${2:-9}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
[ -d "$OUT/a/.git" ] || "$ROOT/scripts/perf/gen-repo.sh" "$OUT"
BASE=$(cat "$OUT/baseline")
BIN="$OUT/mastermind"
# MM_BIN: benchmark that binary instead of building this tree (before/after comparisons).
if [ -n "${MM_BIN:-}" ]; then cp "$MM_BIN" "$BIN"; else (cd "$ROOT" && go build -trimpath -o "$BIN" ./cmd/mastermind); fi

. "$ROOT/scripts/perf/recipe.sh"

mm() { MASTERMIND_DEBUG_RSS=1 "$BIN" changes --since "$BASE" --root "$1" 2>"$OUT/rss.txt" >"$OUT/changes.out"; }

bench() {
	local name=$1 dir=$2
	recipe "$dir" "$BASE"; mm "$dir" # warm-up
	local ratios=() rss=() r0 r1 p0 p1
	for i in $(seq 1 "$PAIRS"); do
		r0=$(now); recipe "$dir" "$BASE"; r1=$(now)
		p0=$(now); mm "$dir"; p1=$(now)
		local R=$(( (r1 - r0) / 1000 )) P=$(( (p1 - p0) / 1000 ))
		local ratio
		ratio=$(awk -v p="$P" -v r="$R" 'BEGIN { printf "%.3f", p / r }')
		ratios+=("$ratio")
		rss+=("$(awk '{print $3}' "$OUT/rss.txt")")
		printf '%s pair %d: R %6.1f ms  P %6.1f ms  P/R %s  VmHWM %s kB\n' "$name" "$i" \
			"$(awk -v x="$R" 'BEGIN{print x/1000}')" "$(awk -v x="$P" 'BEGIN{print x/1000}')" "$ratio" "${rss[-1]}"
	done
	printf '%s\n' "${ratios[@]}" | sort -n | awk -v n="$name" '
		{ a[NR] = $1 } END { m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2;
		printf "%s: median P/R %.3f (min %.3f, max %.3f, %d pairs)\n", n, m, a[1], a[NR], NR }'
	printf '%s\n' "${rss[@]}" | sort -n | tail -1 | awk -v n="$name" '{ printf "%s: peak VmHWM %.1f MiB\n", n, $1 / 1024 }'
}

bench A "$OUT/a"
if diff <(cat "$OUT/changes.out") "$OUT/a.expected" >/dev/null; then
	echo "A: changed set equals the generator's $(wc -l <"$OUT/a.expected") expected paths"
else
	echo "A: CHANGED SET DIFFERS from $OUT/a.expected" >&2
	exit 1
fi
bench B "$OUT/b"
lines=$(wc -l <"$OUT/changes.out")
mods=$(grep -c '^modified	src/' "$OUT/changes.out" || true)
echo "B: $lines lines, $mods modified src/ paths (want 100000)"
[ "$lines" -eq 100000 ] && [ "$mods" -eq 100000 ]
"$BIN" changes --since "$BASE" --root "$OUT/b" --json | grep -c '"status": "modified"' | awk '{ print "B: --json entries: " $1 }'
