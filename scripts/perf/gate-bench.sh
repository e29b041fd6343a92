#!/bin/sh
# Pre-merge gate benchmark: 50 tasks sharing one baseline on the 100k-file fixture.
#
# Reuses the fixture of scripts/perf/gen-repo.sh (default /tmp/mm-perf; generated only when
# missing). Writes 50 tasks into OUT/a/.mastermind/tasks/9NN-gate-perf/ (removed on exit; the
# directory is excluded from the changed set): each spec touches the 50 modified paths of
# scenario A and creates its 30 added/untracked ones, each report lists all 95 changed paths,
# and each state.json is approved with the fixture's baseline. Every audit is therefore a full
# post-flight audit (verdict drift), read-only.
#
# Shows that the changed set is computed once (MASTERMIND_DEBUG_GATE=1 counters: 50 audited,
# 1 baseline, 1 changed-set computation) and compares, over ROUNDS rounds (default 5):
#   G    mastermind gate (50 tasks)
#   C1   mastermind changes --since <baseline>            (one changed set)
#   C50  50 × mastermind changes --since <baseline>       (what 50 separate audits would pay)
# printing medians, G/C1, G/C50 and the gate's peak RSS (VmHWM via MASTERMIND_DEBUG_RSS=1).
#
# Usage: scripts/perf/gate-bench.sh [OUT] ; env ROUNDS=N TASKS=N
set -eu
OUT=${1:-/tmp/mm-perf}
ROUNDS=${ROUNDS:-5}
TASKS=${TASKS:-50}
cd "$(dirname "$0")/../.."
[ -d "$OUT/a/.git" ] || sh scripts/perf/gen-repo.sh "$OUT"
A=$OUT/a
. scripts/perf/recipe.sh
BASELINE=$(cat "$OUT/baseline")
TMP=$(mktemp -d)
BIN=$TMP/mastermind
go build -trimpath -o "$BIN" ./cmd/mastermind

[ -e "$A/.mastermind" ] && { echo "$A/.mastermind already exists; remove it first" >&2; exit 1; }
trap 'rm -rf "$A/.mastermind" "$TMP"' EXIT

i=1
while [ "$i" -le "$TASKS" ]; do
	perf_gate_task "$A" "$i" "$OUT/a.expected" "$BASELINE"
	i=$((i + 1))
done
# State bytes before, to show the gate writes nothing.
STATES_BEFORE=$(cat "$A"/.mastermind/tasks/*/state.json | sha256sum)

gate() {
	MASTERMIND_DEBUG_GATE=1 MASTERMIND_DEBUG_RSS=1 "$BIN" gate --root "$A" >"$TMP/gate.out" 2>"$TMP/gate.err" || {
		code=$?
		echo "gate exited $code" >&2
		cat "$TMP/gate.err" >&2
		exit 1
	}
}
changes() { "$BIN" changes --since "$BASELINE" --root "$A" >/dev/null; }
changes50() {
	j=1
	while [ "$j" -le "$TASKS" ]; do
		changes
		j=$((j + 1))
	done
}

# Warm-up and checks.
changes
gate
grep -q "audited $TASKS, baselines 1, changed-set computations 1," "$TMP/gate.err" || {
	echo "unexpected gate counters:" >&2
	cat "$TMP/gate.err" >&2
	exit 1
}
[ "$(grep -c ': drift — ' "$TMP/gate.out")" -eq "$TASKS" ] || { echo "not every task is drift:" >&2; head "$TMP/gate.out" >&2; exit 1; }
[ "$(cat "$A"/.mastermind/tasks/*/state.json | sha256sum)" = "$STATES_BEFORE" ] || { echo "the gate changed a state.json" >&2; exit 1; }
grep 'debug: gate:' "$TMP/gate.err"
tail -1 "$TMP/gate.out"

G="" C1="" C50="" RSS=0
r=1
while [ "$r" -le "$ROUNDS" ]; do
	t0=$(now); gate; t1=$(now); changes; t2=$(now); changes50; t3=$(now)
	g=$(( (t1 - t0) / 1000 )); c1=$(( (t2 - t1) / 1000 )); c50=$(( (t3 - t2) / 1000 ))
	kb=$(sed -n 's/.*VmHWM: \([0-9]*\) kB.*/\1/p' "$TMP/gate.err")
	[ "${kb:-0}" -gt "$RSS" ] && RSS=$kb
	printf 'round %d: gate %7.1f ms  changes %6.1f ms  %dx changes %8.1f ms  VmHWM %s kB\n' "$r" \
		"$(awk -v x="$g" 'BEGIN{print x/1000}')" "$(awk -v x="$c1" 'BEGIN{print x/1000}')" "$TASKS" \
		"$(awk -v x="$c50" 'BEGIN{print x/1000}')" "$kb"
	G="$G $g"; C1="$C1 $c1"; C50="$C50 $c50"
	r=$((r + 1))
done
mg=$(median "$G"); m1=$(median "$C1"); m50=$(median "$C50")
awk -v g="$mg" -v c1="$m1" -v c50="$m50" -v n="$TASKS" -v rss="$RSS" 'BEGIN {
	printf "median: gate (%d tasks) %.1f ms; changes %.1f ms; %dx changes %.1f ms\n", n, g / 1000, c1 / 1000, n, c50 / 1000
	printf "gate / changes = %.2f; gate / (%dx changes) = %.3f\n", g / c1, n, g / c50
	printf "gate peak RSS %.1f MiB\n", rss / 1024
}'
