#!/bin/sh
# Local gate benchmark (issue 26): the local gate on the 100k-file fixture against one post-flight.
#
# Reuses the fixture of scripts/perf/gen-repo.sh (default /tmp/mm-perf; generated only when
# missing). Writes TASKS tasks (default 1) into OUT/a/.mastermind/tasks/9NN-gate-perf/ — each spec
# touches the 50 modified paths of scenario A and creates its 30 added/untracked ones, each report
# lists all 95 changed paths — and pre-flights each at the fixture's baseline (`--pre-only
# --adopt`: a controller-store record with its pre-flight snapshots, in a temporary store), so
# every audit is a full post-flight audit under that task's snapshots (verdict drift). For the
# range, an upstream is set: refs/remotes/origin/HEAD at the baseline. Everything the benchmark
# adds to the fixture is removed on exit.
#
# Each round re-approves the tasks (untimed; a re-pre-flight keeps the baseline and snapshots),
# then times, in this order:
#   P    mastermind run-task <first task> --post-only    one full post-flight
#   G    mastermind gate                                  the branch against its upstream
#   GN   mastermind gate, without the upstream            the open tasks only
# and prints the per-round ratios, the medians with min–max of G/P and GN/P (target G/P <= 1.30
# with TASKS=1), the gate's counters (MASTERMIND_DEBUG_GATE=1) and its peak RSS.
#
# Usage: scripts/perf/gate-bench.sh [OUT] ; env ROUNDS=N TASKS=N MM_BIN=<binary to measure>
set -eu
OUT=${1:-/tmp/mm-perf}
ROUNDS=${ROUNDS:-7}
TASKS=${TASKS:-1}
cd "$(dirname "$0")/../.."
[ -d "$OUT/a/.git" ] || sh scripts/perf/gen-repo.sh "$OUT"
A=$OUT/a
. scripts/perf/recipe.sh
BASELINE=$(cat "$OUT/baseline")
TMP=$(mktemp -d)
BIN=$TMP/mastermind
if [ -n "${MM_BIN:-}" ]; then cp "$MM_BIN" "$BIN"; else go build -trimpath -o "$BIN" ./cmd/mastermind; fi

[ -e "$A/.mastermind" ] && { echo "$A/.mastermind already exists; remove it first" >&2; exit 1; }
git -C "$A" remote get-url origin >/dev/null 2>&1 && { echo "$A already has a remote origin; remove it first" >&2; exit 1; }
MASTERMIND_STATE_DIR=$TMP/store
export MASTERMIND_STATE_DIR
cleanup() {
	rm -rf "$A/.mastermind" "$TMP"
	git -C "$A" symbolic-ref --delete refs/remotes/origin/HEAD 2>/dev/null || true
	git -C "$A" update-ref -d refs/remotes/origin/main 2>/dev/null || true
	git -C "$A" config --remove-section remote.origin 2>/dev/null || true
}
trap cleanup EXIT

i=1
while [ "$i" -le "$TASKS" ]; do
	perf_gate_task "$A" "$i" "$OUT/a.expected" "$BASELINE"
	dir=$(printf '.mastermind/tasks/9%02d-gate-perf' "$i")
	# The state.json perf_gate_task writes names the fixture's baseline; --adopt keeps it.
	(cd "$A" && "$BIN" run-task "$dir/spec.md" --pre-only --adopt --max-iterations 0 >/dev/null) || { echo "adopting the baseline for task $i failed" >&2; exit 1; }
	i=$((i + 1))
done
FIRST=.mastermind/tasks/901-gate-perf/spec.md

reapprove() {
	j=1
	while [ "$j" -le "$TASKS" ]; do
		(cd "$A" && "$BIN" run-task "$(printf '.mastermind/tasks/9%02d-gate-perf' "$j")/spec.md" --pre-only --max-iterations 0 >/dev/null 2>&1) || { echo "re-pre-flight of task $j failed" >&2; exit 1; }
		j=$((j + 1))
	done
}
upstream() {
	git -C "$A" config remote.origin.url "$A"
	git -C "$A" update-ref refs/remotes/origin/main "$BASELINE"
	git -C "$A" symbolic-ref refs/remotes/origin/HEAD refs/remotes/origin/main
}
no_upstream() { git -C "$A" symbolic-ref --delete refs/remotes/origin/HEAD; }
post() {
	(cd "$A" && "$BIN" run-task "$FIRST" --post-only >/dev/null 2>"$TMP/post.err") || {
		echo "post-flight exited $?" >&2
		cat "$TMP/post.err" >&2
		exit 1
	}
}
# The gate exits 1 (the drift tasks' deleted paths are out of their scope, so not owned); only
# an operational failure stops the benchmark.
gate() {
	MASTERMIND_DEBUG_GATE=1 MASTERMIND_DEBUG_RSS=1 "$BIN" gate --root "$A" >"$TMP/gate.out" 2>"$TMP/gate.err" || {
		code=$?
		[ "$code" -eq 1 ] || { echo "gate exited $code" >&2; cat "$TMP/gate.err" >&2; exit 1; }
	}
}

# Warm-up and checks.
upstream
reapprove
post
grep -q '"verdict": "drift"' "$A/${FIRST%/spec.md}/state.json" || { echo "unexpected verdict:" >&2; cat "$A/${FIRST%/spec.md}/state.json" >&2; exit 1; }
gate
grep -q "^gate origin/main\.\.HEAD + work tree" "$TMP/gate.out" || { echo "the gate did not gate the range:" >&2; tail -3 "$TMP/gate.out" >&2; exit 1; }
[ "$(grep -c ': drift — ' "$TMP/gate.out")" -eq "$TASKS" ] || { echo "not every task is drift:" >&2; head "$TMP/gate.out" >&2; exit 1; }
grep 'debug: gate:' "$TMP/gate.err"
tail -1 "$TMP/gate.out"

P="" G="" GN="" RG="" RGN="" RSS=0
r=1
while [ "$r" -le "$ROUNDS" ]; do
	reapprove
	t0=$(now); post; t1=$(now); gate; t2=$(now)
	kb=$(sed -n 's/.*VmHWM: \([0-9]*\) kB.*/\1/p' "$TMP/gate.err")
	no_upstream
	t3=$(now); gate; t4=$(now)
	upstream
	p=$(( (t1 - t0) / 1000 )); g=$(( (t2 - t1) / 1000 )); gn=$(( (t4 - t3) / 1000 ))
	[ "${kb:-0}" -gt "$RSS" ] && RSS=$kb
	rg=$(awk -v g="$g" -v p="$p" 'BEGIN { printf "%.3f", g / p }')
	rgn=$(awk -v g="$gn" -v p="$p" 'BEGIN { printf "%.3f", g / p }')
	printf 'round %d: post-flight %7.1f ms  gate %7.1f ms  gate without upstream %7.1f ms  G/P %s  GN/P %s  VmHWM %s kB\n' "$r" \
		"$(awk -v x="$p" 'BEGIN{print x/1000}')" "$(awk -v x="$g" 'BEGIN{print x/1000}')" "$(awk -v x="$gn" 'BEGIN{print x/1000}')" "$rg" "$rgn" "$kb"
	P="$P $p"; G="$G $g"; GN="$GN $gn"; RG="$RG $rg"; RGN="$RGN $rgn"
	r=$((r + 1))
done
minmax() { echo "$1" | tr ' ' '\n' | sed '/^$/d' | sort -n | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%s–%s", lo, hi }'; }
awk -v p="$(median "$P")" -v g="$(median "$G")" -v gn="$(median "$GN")" -v n="$TASKS" -v rss="$RSS" \
	-v rg="$(median "$RG")" -v rgn="$(median "$RGN")" -v rgr="$(minmax "$RG")" -v rgnr="$(minmax "$RGN")" 'BEGIN {
	printf "median (%d task(s)): post-flight %.1f ms; gate %.1f ms; gate without upstream %.1f ms\n", n, p / 1000, g / 1000, gn / 1000
	printf "G/P median %s (%s); GN/P median %s (%s); target G/P <= 1.30 with 1 task\n", rg, rgr, rgn, rgnr
	printf "gate peak RSS %.1f MiB\n", rss / 1024
}'
