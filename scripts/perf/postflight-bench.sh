#!/bin/sh
# End-to-end post-flight benchmark (gitscope.md §8.2–§8.3, scenario A).
#
# Reuses the 100k-file fixture of scripts/perf/gen-repo.sh (default /tmp/mm-perf). Writes a task
# into OUT/a/.mastermind/tasks/900-perf/ (excluded from the changed set): a spec touching the 50
# modified paths and creating the 30 added/untracked ones, with verify `go test ./...`, and a
# report listing all 95 paths. The task is approved once with `--pre-only --adopt` (the saved
# state names the fixture's baseline), and re-approved with an untimed re-pre-flight before every
# post-flight, so every run is a full post-flight. The controller store is a temporary directory.
#
# Alternates R (the two git commands of §4.1, run concurrently) and P (`mastermind run-task
# <spec> --post-only`) for PAIRS pairs (default 9, at least 7), prints the per-pair ratio P/R,
# the median with min–max, and P's peak RSS (VmHWM via MASTERMIND_DEBUG_RSS=1).
# Targets: median P/R <= 1.30, peak RSS <= 64 MiB.
#
# Usage: scripts/perf/postflight-bench.sh [OUT] ; env PAIRS=N, MM_BIN=<binary to measure>
set -eu
OUT=${1:-/tmp/mm-perf}
PAIRS=${PAIRS:-9}
[ "$PAIRS" -ge 7 ] || { echo "PAIRS must be at least 7" >&2; exit 2; }
cd "$(dirname "$0")/../.."
[ -d "$OUT/a/.git" ] || sh scripts/perf/gen-repo.sh "$OUT"
A=$OUT/a
. scripts/perf/recipe.sh
BASELINE=$(cat "$OUT/baseline")
BIN=$(mktemp -d)/mastermind
# MM_BIN: benchmark that binary instead of building this tree (before/after comparisons).
if [ -n "${MM_BIN:-}" ]; then cp "$MM_BIN" "$BIN"; else go build -trimpath -o "$BIN" ./cmd/mastermind; fi

TASK=.mastermind/tasks/900-perf
# Scratch files stay outside the repository: below .mastermind/ only the controller's own names
# are left out of the changed set (trust-model.md I3), so a file the benchmark left in the task
# folder would be a changed path.
SCRATCH=$(dirname "$BIN")
# The task lives under OUT/a/.mastermind only while the benchmark runs, so other users of the
# fixture see the generator's exact changed set.
[ -e "$A/.mastermind" ] && { echo "$A/.mastermind already exists; remove it first" >&2; exit 1; }
MASTERMIND_STATE_DIR=$(mktemp -d)
export MASTERMIND_STATE_DIR
trap 'rm -rf "$A/.mastermind" "$(dirname "$BIN")" "$MASTERMIND_STATE_DIR"' EXIT
mkdir -p "$A/$TASK"
{
	echo '---'
	echo 'touches:'
	awk -F '\t' '$1 == "modified" { print "  - file: " $2 }' "$OUT/a.expected"
	echo 'creates:'
	awk -F '\t' '$1 == "added" || $1 == "untracked" { print "  - " $2 }' "$OUT/a.expected"
	echo 'verify:'
	echo '  - cmd: go test ./...'
	echo 'mode: lite'
	echo '---'
	echo '# Perf task'
	echo
	echo '## Goals'
	echo
	echo 'Exercise post-flight on scenario A.'
} >"$A/$TASK/spec.md"
perf_report "$TASK/spec.md" "$OUT/a.expected" >"$A/$TASK/executor-report.md"
HASH=$(sha256sum "$A/$TASK/spec.md" | cut -d' ' -f1)
# The task is adopted at the generator's baseline (scenario A has commits on top of it): a
# state.json naming that baseline, then `--pre-only --adopt`, whose first pre-flight records it in
# the controller store and takes the pre-flight snapshot (trust-model.md §4) against it.
rm -f "$A/$TASK/state.json"
cat >"$SCRATCH/approved-state.json" <<JSON
{
  "schema_version": 1,
  "status": "approved",
  "next_step": "run_executor",
  "risk": "low",
  "last_artifact": "spec.md",
  "spec_path": "$TASK/spec.md",
  "spec_hash": "$HASH",
  "baseline_ref": "$BASELINE",
  "started_at": 1796040000,
  "iteration": 1,
  "blocking_streak": 0
}
JSON

cp "$SCRATCH/approved-state.json" "$A/$TASK/state.json"
(cd "$A" && "$BIN" run-task "$TASK/spec.md" --pre-only --adopt --max-iterations 0 >/dev/null) || { echo "adopting the fixture's baseline failed" >&2; exit 1; }

# reapprove puts the task back to approved (untimed): a re-pre-flight keeps the baseline.
reapprove() {
	(cd "$A" && "$BIN" run-task "$TASK/spec.md" --pre-only --max-iterations 0 >/dev/null 2>&1) || { echo "re-pre-flight failed" >&2; exit 1; }
}

post() {
	(cd "$A" && MASTERMIND_DEBUG_RSS=1 "$BIN" run-task "$TASK/spec.md" --post-only >/dev/null 2>"$SCRATCH/stderr.txt") || {
		code=$?
		# drift exits 0; anything else is a failure of the benchmark itself
		echo "post-flight exited $code" >&2
		cat "$SCRATCH/stderr.txt" >&2
		exit 1
	}
}

# Warm-up, then check the verdict and the changed-set size once.
recipe "$A" "$BASELINE"
reapprove
post
grep -q '"verdict": "drift"' "$A/$TASK/state.json" || { echo "unexpected verdict:" >&2; cat "$A/$TASK/state.json" >&2; exit 1; }
grep -q 'changed files: 95 (source: git)' "$A/$TASK/audit.md" || { echo "changed set is not 95 paths" >&2; exit 1; }
echo "scenario A: verdict drift, $(grep -c '⚠️ unexpected_file' "$A/$TASK/audit.md") unexpected_file warnings, 95 changed paths"

RATIOS=""
RSS=0
i=1
while [ "$i" -le "$PAIRS" ]; do
	reapprove
	t0=$(now); recipe "$A" "$BASELINE"; t1=$(now)
	post; t2=$(now)
	r=$(( (t1 - t0) / 1000 )); p=$(( (t2 - t1) / 1000 ))
	kb=$(sed -n 's/.*VmHWM: \([0-9]*\) kB.*/\1/p' "$SCRATCH/stderr.txt")
	[ "${kb:-0}" -gt "$RSS" ] && RSS=$kb
	ratio=$(awk -v p="$p" -v r="$r" 'BEGIN { printf "%.3f", p / r }')
	printf 'pair %d: R %6.1f ms  P %6.1f ms  P/R %s  RSS %s kB\n' "$i" "$(awk -v x="$r" 'BEGIN{print x/1000}')" "$(awk -v x="$p" 'BEGIN{print x/1000}')" "$ratio" "$kb"
	RATIOS="$RATIOS $ratio"
	i=$((i + 1))
done
echo "$RATIOS" | tr ' ' '\n' | sed '/^$/d' | sort -n | awk -v rss="$RSS" '
	{ v[NR] = $1 }
	END {
		med = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "median P/R %.3f (min %.3f, max %.3f; target <= 1.30)\n", med, v[1], v[NR]
		printf "peak RSS %.1f MiB (target <= 64 MiB)\n", rss / 1024
	}'
