#!/bin/sh
# Post-flight on scenario B of gitscope.md §8.1 (every tracked file modified; the spec touches
# and the report lists two of them), issues 15 and 18: prints wall time, user+sys CPU time and
# peak RSS (VmHWM via MASTERMIND_DEBUG_RSS=1) of RUNS full post-flights and of one repeated
# post-flight on unchanged inputs (which reads the recorded audit), then RUNS local gates (mastermind
# gate, no upstream), each exiting 1 for the broken task.
# Targets: peak RSS <= 128 MiB, wall <= 5 s.
#
# Usage: scripts/perf/postflight-b-bench.sh DIR ; DIR is a copy of the fixture's OUT/b (with
# extra untracked files for the 200,000-path variant). env RUNS=N (default 3), MM_BIN=<binary>,
# PROF_DIR=<dir> (heap profiles full1.prof … and repeat.prof via MASTERMIND_DEBUG_MEMPROFILE),
# JSON=1 (the post-flights print the --json envelope, to /dev/null, instead of the text).
# Writes the task under DIR/.mastermind/tasks/901-perf-b and removes it on exit.
set -eu
B=$1
RUNS=${RUNS:-3}
cd "$(dirname "$0")/../.."
BIN=$(mktemp -d)/mastermind
if [ -n "${MM_BIN:-}" ]; then cp "$MM_BIN" "$BIN"; else go build -trimpath -o "$BIN" ./cmd/mastermind; fi
TASK=.mastermind/tasks/901-perf-b
[ -e "$B/.mastermind" ] && { echo "$B/.mastermind already exists; remove it first" >&2; exit 1; }
MASTERMIND_STATE_DIR=$(mktemp -d)
# Scratch files live outside the repository, so that D is exactly the fixture's changed paths.
SCRATCH=$(mktemp -d)
export MASTERMIND_STATE_DIR
[ -n "${KEEP:-}" ] || trap 'rm -rf "$B/.mastermind" "$(dirname "$BIN")" "$MASTERMIND_STATE_DIR" "$SCRATCH"' EXIT
mkdir -p "$B/$TASK"
F1=src/d00/d00/d00/f000.txt
F2=src/d00/d00/d00/f001.txt
cat >"$B/$TASK/spec.md" <<SPEC
---
touches:
  - file: $F1
  - file: $F2
verify:
  - cmd: go test ./...
mode: lite
---
# Perf task B

## Goals

Exercise post-flight on scenario B.
SPEC
printf 'modified\t%s\nmodified\t%s\n' "$F1" "$F2" >"$SCRATCH/expected"
. scripts/perf/recipe.sh
perf_report "$TASK/spec.md" "$SCRATCH/expected" >"$B/$TASK/executor-report.md"
(cd "$B" && "$BIN" run-task "$TASK/spec.md" --pre-only --max-iterations 0 >/dev/null) || { echo "pre-flight failed" >&2; exit 1; }

# measure NAME PROFILE ARGS... runs mastermind ARGS in the repository (exit 0 or 1: the task is
# broken) and prints its wall time, CPU time and peak RSS; PROFILE names its heap profile in
# PROF_DIR ("" for none).
measure() {
	name=$1 prof=$2
	shift 2
	(cd "$B" && /usr/bin/time -f '%e %U %S' -o "$SCRATCH/time.txt" env MASTERMIND_DEBUG_RSS=1 MASTERMIND_DEBUG_MEMPROFILE="${PROF_DIR:+${prof:+$PROF_DIR/$prof.prof}}" "$BIN" "$@" ${JSON:+--json} >/dev/null 2>"$SCRATCH/stderr.txt") || {
		code=$?
		[ "$code" -eq 1 ] || { echo "$name: mastermind $* exited $code" >&2; cat "$SCRATCH/stderr.txt" >&2; exit 1; }
	}
	kb=$(sed -n 's/.*VmHWM: \([0-9]*\) kB.*/\1/p' "$SCRATCH/stderr.txt")
	read -r wall usr sys <<EOT
$(tail -n 1 "$SCRATCH/time.txt")
EOT
	printf '%s: wall %s s  cpu %s s  peak RSS %.1f MiB\n' "$name" "$wall" "$(awk -v u="$usr" -v s="$sys" 'BEGIN{print u+s}')" "$(awk -v k="$kb" 'BEGIN{print k/1024}')"
}
post() { measure "$1" "$2" run-task "$TASK/spec.md" --post-only; }
i=1
while [ "$i" -le "$RUNS" ]; do
	(cd "$B" && "$BIN" run-task "$TASK/spec.md" --pre-only --max-iterations 0 >/dev/null 2>&1) || true
	post "full post-flight $i" "full$i"
	i=$((i + 1))
done
grep -q '"verdict": "broken"' "$B/$TASK/state.json" || { echo "unexpected verdict" >&2; cat "$B/$TASK/state.json" >&2; exit 1; }
echo "changed set: $(sed -n 's/^  changed files: \([0-9]*\).*/\1/p' "$B/$TASK/audit.md") paths; audit.md $(wc -c <"$B/$TASK/audit.md") bytes"
post "repeated post-flight (unchanged inputs)" repeat

# The local gate (no upstream: the work tree against the task's baseline) re-audits the broken
# task read-only and lists every finding.
i=1
while [ "$i" -le "$RUNS" ]; do
	measure "local gate $i" "" gate
	i=$((i + 1))
done
