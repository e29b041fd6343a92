#!/bin/sh
# Benchmark of the gate against a protected base (trust-model.md §5): 50 tasks sharing one
# baseline on the 100k-file fixture, all committed on a branch.
#
# Reuses the fixture of scripts/perf/gen-repo.sh (default /tmp/mm-perf; generated when missing).
# Copies OUT/a (scenario A applied to the work tree) to OUT/gate-base once and commits scenario A
# there on top of the baseline; then writes the 50 tasks of gate-bench.sh (each spec touches the
# 50 modified paths and creates the 30 added ones, each report lists those 80 changed paths, each
# state.json is approved with the fixture's baseline) and commits them too. Every audit is a full
# post-flight audit (verdict held), and every one of the 80 paths is owned, so the range has no
# finding.
#
# Shows the work counters (MASTERMIND_DEBUG_GATE=1: 50 audited, 1 baseline, 2 changed-set
# computations — one per distinct baseline plus the range diff) and compares, over ROUNDS rounds
# (default 3):
#   GB   mastermind gate --base <baseline> --head HEAD   (50 tasks, committed content only; the
#        work tree is a fresh checkout without ignored files, audited in place with CI=true)
#   GC   the same with one untracked file present: the head tree is written out first
#   G    mastermind gate                                   (the local gate, work tree)
#   P50  50 × mastermind run-task <task> --post-only        (what 50 separate audits cost;
#        the state files are restored before each round, outside the timing)
# printing medians, GB/G, GB/P50 and GC/P50 and the peak RSS of gate --base.
#
# Usage: scripts/perf/gate-base-bench.sh [OUT] ; env ROUNDS=N TASKS=N
set -eu
OUT=${1:-/tmp/mm-perf}
ROUNDS=${ROUNDS:-3}
TASKS=${TASKS:-50}
cd "$(dirname "$0")/../.."
[ -d "$OUT/a/.git" ] || sh scripts/perf/gen-repo.sh "$OUT"
. scripts/perf/recipe.sh
BASELINE=$(cat "$OUT/baseline")
R=$OUT/gate-base
TMP=$(mktemp -d)
BIN=$TMP/mastermind
go build -trimpath -o "$BIN" ./cmd/mastermind
trap 'rm -rf "$TMP"' EXIT

# Scenario A without its deletions: a deleted path cannot be declared in v1 scope (a `touches`
# file must exist), so it could never be owned. EXPECTED lists the 80 other paths.
EXPECTED=$TMP/expected
awk -F '\t' '$1 != "deleted"' "$OUT/a.expected" >"$EXPECTED"
if [ ! -d "$R/.git" ]; then
	echo "copying $OUT/a to $R ..." >&2
	rm -rf "$R"
	cp -a "$OUT/a" "$R"
fi
if [ "$(git -C "$R" rev-parse HEAD)" = "$BASELINE" ]; then
	git -C "$R" checkout -q -B feature
	awk -F '\t' '$1 == "deleted" { print $2 }' "$OUT/a.expected" | while read -r p; do
		git -C "$R" checkout -q "$BASELINE" -- "$p"
	done
	git -C "$R" add -A
	git -C "$R" -c user.name=bench -c user.email=bench@example.com commit -q -m 'scenario A'
	i=1
	while [ "$i" -le "$TASKS" ]; do
		perf_gate_task "$R" "$i" "$EXPECTED" "$BASELINE"
		i=$((i + 1))
	done
	git -C "$R" add -A
	git -C "$R" -c user.name=bench -c user.email=bench@example.com commit -q -m 'tasks'
	sleep 1
	git -C "$R" status --porcelain >/dev/null
fi
# The task folders as committed (an interrupted run leaves post-flight's writes behind), and no
# ignored file: the work tree is then a fresh checkout of HEAD, which gate --base audits in place.
git -C "$R" checkout -q -- .mastermind
git -C "$R" clean -fdq -- .mastermind
git -C "$R" clean -fdqX
cp -a "$R/.mastermind" "$TMP/mastermind-dir"
restore() { rm -rf "$R/.mastermind" && cp -a "$TMP/mastermind-dir" "$R/.mastermind"; }

gatebase() {
	CI=true MASTERMIND_DEBUG_GATE=1 MASTERMIND_DEBUG_RSS=1 "$BIN" gate --base "$BASELINE" --head HEAD --root "$R" >"$TMP/gb.out" 2>"$TMP/gb.err" || {
		echo "gate --base exited $?" >&2; cat "$TMP/gb.err" "$TMP/gb.out" >&2; exit 1; }
}
# The same gate with one untracked file: the work tree is no longer the head commit, so the head
# tree (100,000 files) is written to a temporary directory first.
gatecopy() {
	touch "$R/bench-untracked.txt"
	CI=true "$BIN" gate --base "$BASELINE" --head HEAD --root "$R" >"$TMP/gc.out" 2>&1 || { echo "gate --base (copy) exited $?" >&2; cat "$TMP/gc.out" >&2; exit 1; }
	rm -f "$R/bench-untracked.txt"
}
gatelocal() { "$BIN" gate --root "$R" >"$TMP/g.out" 2>&1 || true; }
post50() {
	for d in "$R"/.mastermind/tasks/9*-gate-perf; do
		"$BIN" run-task --root "$R" "$d/spec.md" --post-only >/dev/null 2>&1 || true
	done
}

gatebase
grep -q "audited $TASKS, baselines 1, changed-set computations 2," "$TMP/gb.err" || {
	echo "unexpected gate counters:" >&2; cat "$TMP/gb.err" >&2; exit 1; }
[ "$(grep -cE -- '-gate-perf: (held$|drift — )' "$TMP/gb.out")" -eq "$TASKS" ] || { echo "not every task is held or drift:" >&2; head "$TMP/gb.out" >&2; exit 1; }
grep -q '^gate --base' "$TMP/gb.out" && ! grep -q 'gate\.' "$TMP/gb.out" || { echo "range findings:" >&2; grep 'gate\.' "$TMP/gb.out" | head >&2; exit 1; }
grep 'debug: gate:' "$TMP/gb.err"
tail -1 "$TMP/gb.out"

GB="" GC="" G="" P="" RSS=0
r=1
while [ "$r" -le "$ROUNDS" ]; do
	restore
	t0=$(now); gatebase; t1=$(now); gatelocal; t2=$(now); post50; t3=$(now); gatecopy; t4=$(now)
	gb=$(( (t1 - t0) / 1000 )); g=$(( (t2 - t1) / 1000 )); p=$(( (t3 - t2) / 1000 )); gc=$(( (t4 - t3) / 1000 ))
	kb=$(sed -n 's/.*VmHWM: \([0-9]*\) kB.*/\1/p' "$TMP/gb.err")
	[ "${kb:-0}" -gt "$RSS" ] && RSS=$kb
	printf 'round %d: gate --base %8.1f ms (in place)  %8.1f ms (tree copy)  gate %8.1f ms  %dx run-task --post-only %9.1f ms  VmHWM %s kB\n' "$r" \
		"$(awk -v x="$gb" 'BEGIN{print x/1000}')" "$(awk -v x="$gc" 'BEGIN{print x/1000}')" "$(awk -v x="$g" 'BEGIN{print x/1000}')" "$TASKS" \
		"$(awk -v x="$p" 'BEGIN{print x/1000}')" "$kb"
	GB="$GB $gb"; GC="$GC $gc"; G="$G $g"; P="$P $p"
	r=$((r + 1))
done
restore
mgb=$(median "$GB"); mgc=$(median "$GC"); mg=$(median "$G"); mp=$(median "$P")
awk -v gb="$mgb" -v gc="$mgc" -v g="$mg" -v p="$mp" -v n="$TASKS" -v rss="$RSS" 'BEGIN {
	printf "median: gate --base (%d tasks) %.1f ms in place, %.1f ms with the tree copy; gate %.1f ms; %dx run-task --post-only %.1f ms\n", n, gb / 1000, gc / 1000, g / 1000, n, p / 1000
	printf "gate --base / gate = %.2f; gate --base / (%dx run-task --post-only) = %.3f (tree copy: %.3f)\n", gb / g, n, gb / p, gc / p
	printf "gate --base peak RSS %.1f MiB\n", rss / 1024
}'
