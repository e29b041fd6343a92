#!/bin/sh
# Post-flight against the bare recipe on the shapes real work leaves (issue #29, gitscope.md §8.3),
# each shape's pairs in one run:
#   A         scenario A committed before pre-flight: no object written since (postflight-bench.sh)
#   A-commit  pre-flight at the baseline, then the executor applies scenario A: its commits are
#             loose objects written since pre-flight
#   A-repack  A-commit followed by `git repack -ad`: one new pack holding every object
#
# The fixture is scripts/perf/gen-repo.sh's (OUT, default /tmp/mm-perf; GEN_FILES=1000000 for
# the M fixture of a million files). A and the two others use OUT/a and OUT/ac (a copy of
# OUT/base, made once). Each post-flight is a full one: an untimed re-pre-flight, which keeps the
# first snapshot, approves the task again before it. For every shape: PAIRS pairs (default 9, at
# least 7) of R (the two git commands of §4.1, concurrently) and P (`mastermind run-task <spec>
# --post-only`), the per-pair ratio P/R, the median with min–max, and P's peak RSS (VmHWM via
# MASTERMIND_DEBUG_RSS=1). Targets: median P/R <= 1.30; peak RSS <= 64 MiB at 100k, 256 MiB at 1M.
#
# Usage: scripts/perf/postflight-shapes-bench.sh [OUT [SHAPE...]]; env PAIRS=N, MM_BIN=<binary>,
# PROF_DIR=<dir> (a CPU profile of each shape's last post-flight, <shape>.prof)
set -eu
OUT=${1:-/tmp/mm-perf}
[ $# -gt 0 ] && shift
SHAPES=${*:-A A-commit A-repack}
PAIRS=${PAIRS:-9}
[ "$PAIRS" -ge 7 ] || { echo "PAIRS must be at least 7" >&2; exit 2; }
cd "$(dirname "$0")/../.."
[ -d "$OUT/a/.git" ] || sh scripts/perf/gen-repo.sh "$OUT"
. scripts/perf/recipe.sh
BASELINE=$(cat "$OUT/baseline")
SCRATCH=$(mktemp -d)
BIN=$SCRATCH/mastermind
if [ -n "${MM_BIN:-}" ]; then cp "$MM_BIN" "$BIN"; else go build -trimpath -o "$BIN" ./cmd/mastermind; fi
MASTERMIND_STATE_DIR=$SCRATCH/state
export MASTERMIND_STATE_DIR
TASK=.mastermind/tasks/900-perf
AC=$OUT/ac
trap 'rm -rf "$OUT/a/.mastermind" "$AC/.mastermind" "$SCRATCH"' EXIT
RSS_TARGET=64
[ "${GEN_FILES:-100000}" = 100000 ] || RSS_TARGET=256

# task DIR writes the benchmark task into DIR (below .mastermind/, left out of the changed set
# by name) and adopts it at the fixture's baseline: its first pre-flight takes the snapshot.
task() {
	[ -e "$1/.mastermind" ] && { echo "$1/.mastermind already exists; remove it first" >&2; exit 1; }
	mkdir -p "$1/$TASK"
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
	} >"$1/$TASK/spec.md"
	perf_report "$TASK/spec.md" "$OUT/a.expected" >"$1/$TASK/executor-report.md"
	hash=$(sha256sum "$1/$TASK/spec.md" | cut -d' ' -f1)
	cat >"$1/$TASK/state.json" <<JSON
{
  "schema_version": 1,
  "status": "approved",
  "next_step": "run_executor",
  "risk": "low",
  "last_artifact": "spec.md",
  "spec_path": "$TASK/spec.md",
  "spec_hash": "$hash",
  "baseline_ref": "$BASELINE",
  "started_at": 1796040000,
  "iteration": 1,
  "blocking_streak": 0
}
JSON
	(cd "$1" && "$BIN" run-task "$TASK/spec.md" --pre-only --adopt --max-iterations 0 >/dev/null) || { echo "adopting the baseline in $1 failed" >&2; exit 1; }
}

reapprove() {
	(cd "$1" && "$BIN" run-task "$TASK/spec.md" --pre-only --max-iterations 0 >/dev/null 2>&1) || { echo "re-pre-flight in $1 failed" >&2; exit 1; }
}

post() {
	(cd "$1" && MASTERMIND_DEBUG_RSS=1 MASTERMIND_DEBUG_CPUPROFILE="${PROF_DIR:+$PROF_DIR/$2.prof}" "$BIN" run-task "$TASK/spec.md" --post-only >/dev/null 2>"$SCRATCH/stderr.txt") || {
		echo "post-flight in $1 exited $?" >&2
		cat "$SCRATCH/stderr.txt" >&2
		exit 1
	}
}

# measure SHAPE DIR runs the pairs of one shape.
measure() {
	dir=$2
	recipe "$dir" "$BASELINE"
	reapprove "$dir"
	post "$dir"
	grep -q '"verdict": "drift"' "$dir/$TASK/state.json" || { echo "$1: unexpected verdict:" >&2; cat "$dir/$TASK/state.json" >&2; exit 1; }
	grep -q 'changed files: 95 (source: git)' "$dir/$TASK/audit.md" || { echo "$1: changed set is not 95 paths" >&2; exit 1; }
	ratios="" rss=0 i=1
	while [ "$i" -le "$PAIRS" ]; do
		reapprove "$dir"
		t0=$(now); recipe "$dir" "$BASELINE"; t1=$(now)
		post "$dir" "$1"; t2=$(now)
		r=$(( (t1 - t0) / 1000 )); p=$(( (t2 - t1) / 1000 ))
		kb=$(sed -n 's/.*VmHWM: \([0-9]*\) kB.*/\1/p' "$SCRATCH/stderr.txt")
		[ "${kb:-0}" -gt "$rss" ] && rss=$kb
		ratios="$ratios $(awk -v p="$p" -v r="$r" 'BEGIN { printf "%.3f", p / r }')"
		echo "$r $p" >>"$SCRATCH/$1.times"
		i=$((i + 1))
	done
	rmed=$(median "$(cut -d' ' -f1 "$SCRATCH/$1.times" | tr '\n' ' ')")
	pmed=$(median "$(cut -d' ' -f2 "$SCRATCH/$1.times" | tr '\n' ' ')")
	echo "$ratios" | tr ' ' '\n' | sed '/^$/d' | sort -n | awk -v shape="$1" -v rss="$rss" -v rt="$RSS_TARGET" -v r="$rmed" -v p="$pmed" '
		{ v[NR] = $1 }
		END {
			med = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf "%-9s R %7.1f ms  P %7.1f ms  median P/R %.3f (min %.3f, max %.3f; target <= 1.30)  peak RSS %.1f MiB (target <= %d)\n", shape, r / 1000, p / 1000, med, v[1], v[NR], rss / 1024, rt
		}'
}

echo "load: $(uptime | sed 's/.*load average: //')"
for shape in $SHAPES; do
	case $shape in
	A)
		task "$OUT/a"
		measure A "$OUT/a"
		;;
	A-commit)
		rm -rf "$AC" "$AC.expected"
		cp -a "$OUT/base" "$AC"
		git -C "$AC" status --porcelain >/dev/null # new inodes: refresh the index stat cache once
		sleep 1
		task "$AC"
		sleep 1
		go run -tags perf ./scripts/perf/gen scenario-a "$AC"
		sleep 1
		git -C "$AC" status --porcelain >/dev/null # what the executor's own git status leaves
		measure A-commit "$AC"
		;;
	A-repack)
		[ -e "$AC/$TASK/state.json" ] || { echo "A-repack follows A-commit" >&2; exit 2; }
		git -C "$AC" -c gc.auto=0 repack -adq
		measure A-repack "$AC"
		;;
	*)
		echo "unknown shape $shape (A, A-commit, A-repack)" >&2
		exit 2
		;;
	esac
done
echo "load: $(uptime | sed 's/.*load average: //')"
