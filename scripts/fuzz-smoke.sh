#!/usr/bin/env bash
# Runs every Fuzz* target in the module for a short time each: scripts/fuzz-smoke.sh [DURATION].
# A crasher fails the run and is written under the package's testdata/fuzz/ by go test.
set -euo pipefail
cd "$(dirname "$0")/.."
dur="${1:-5s}"
count=0
while IFS= read -r file; do
  pkg="./$(dirname "$file")"
  for target in $(grep -oE '^func (Fuzz[A-Za-z0-9_]+)\(' "$file" | sed -E 's/^func (Fuzz[A-Za-z0-9_]+)\(/\1/'); do
    echo "fuzz $pkg $target ($dur)"
    if ! out=$(go test "$pkg" -run '^$' -fuzz "^${target}\$" -fuzztime "$dur" 2>&1); then
      # Go's fuzz coordinator can give up on a busy machine with a bare "context deadline
      # exceeded" and no failing input; that is retried once. A real failure names its input.
      if grep -q 'context deadline exceeded' <<<"$out" && ! grep -q 'Failing input written' <<<"$out"; then
        echo "fuzz $pkg $target: coordinator timeout without a failing input, retrying once" >&2
        out=$(go test "$pkg" -run '^$' -fuzz "^${target}\$" -fuzztime "$dur" 2>&1) && { count=$((count + 1)); continue; }
      fi
      printf '%s\n' "$out" >&2
      echo "fuzz-smoke: $count passed, 1 failed ($pkg $target)" >&2
      exit 1
    fi
    count=$((count + 1))
  done
done < <(grep -rlE '^func Fuzz' --include='*_test.go' . | sed 's|^\./||' | sort)
echo "fuzz-smoke: $count passed, 0 failed"
