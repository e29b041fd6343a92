#!/bin/sh
# Builds the deterministic 100k benchmark repositories of gitscope.md §8.1 under OUT
# (default /tmp/mm-perf), once; an existing OUT/base is reused.
#   OUT/base        100,001 tracked + 50,100 ignored files, one commit, git gc
#   OUT/a           copy of base with scenario A applied; OUT/a.expected lists the 95 paths of D
#   OUT/b           copy of base with scenario B applied (100,000 modified files)
#   OUT/baseline    the baseline commit OID
# GEN_FILES=1000000 builds the 1M fixture of the same shape (no OUT/b).
set -eu
OUT=${1:-/tmp/mm-perf}
cd "$(dirname "$0")/../.."
mkdir -p "$OUT"
GEN="go run -tags perf ./scripts/perf/gen"
if [ ! -d "$OUT/base/.git" ]; then
	rm -rf "$OUT/base"
	echo "generating $OUT/base ..." >&2
	$GEN base "$OUT/base"
	sleep 1
	git -C "$OUT/base" status --porcelain >/dev/null # refresh racily-clean index entries
fi
git -C "$OUT/base" rev-parse HEAD >"$OUT/baseline"
if [ ! -d "$OUT/a/.git" ]; then
	rm -rf "$OUT/a"
	cp -a "$OUT/base" "$OUT/a"
	git -C "$OUT/a" status --porcelain >/dev/null # new inodes: refresh the index stat cache once
	$GEN scenario-a "$OUT/a"
	sleep 1
	git -C "$OUT/a" status --porcelain >/dev/null
fi
if [ "${GEN_FILES:-100000}" = 100000 ] && [ ! -d "$OUT/b/.git" ]; then
	rm -rf "$OUT/b"
	cp -a "$OUT/base" "$OUT/b"
	git -C "$OUT/b" status --porcelain >/dev/null
	$GEN scenario-b "$OUT/b"
fi
echo "baseline $(cat "$OUT/baseline"); fixtures in $OUT/{base,a,b}" >&2
