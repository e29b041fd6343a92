# Sourced by the perf scripts: the bare git recipe R of gitscope.md §4.1 and §8.2, the yardstick
# mastermind is compared against — both commands run concurrently with the hardened flags and an
# explicitly built environment. Usage: recipe DIR BASELINE_OID; now prints nanoseconds;
# perf_report SPEC EXPECTED prints the benchmark tasks' executor report (every path of the
# generator's EXPECTED list reported, one passing verify command) for the spec at SPEC;
# perf_gate_task ROOT I EXPECTED BASELINE writes gate benchmark task I under ROOT/.mastermind/tasks
# (a spec touching EXPECTED's modified paths and creating its added/untracked ones, its report,
# and a state.json approved with BASELINE); median "N N ..." prints the median of the numbers.

now() { date +%s%N; }

recipe() {
	local dir=$1 base=$2
	env -i PATH="$PATH" HOME="$HOME" LC_ALL=C GIT_OPTIONAL_LOCKS=0 GIT_TERMINAL_PROMPT=0 \
		GIT_NO_REPLACE_OBJECTS=1 GIT_NO_LAZY_FETCH=1 GIT_ALLOW_PROTOCOL= \
		git -C "$dir" --no-optional-locks --no-pager --literal-pathspecs -c core.quotepath=off \
		-c core.fsmonitor=false -c diff.external= -c color.ui=never \
		diff --no-ext-diff --no-textconv --no-color --name-status -z --no-renames \
		--ignore-submodules=none "$base" -- >/dev/null &
	local p1=$!
	env -i PATH="$PATH" HOME="$HOME" LC_ALL=C GIT_OPTIONAL_LOCKS=0 GIT_TERMINAL_PROMPT=0 \
		GIT_NO_REPLACE_OBJECTS=1 GIT_NO_LAZY_FETCH=1 GIT_ALLOW_PROTOCOL= \
		git -C "$dir" --no-optional-locks --no-pager --literal-pathspecs -c core.quotepath=off \
		-c core.fsmonitor=false ls-files -z --others --exclude-standard --full-name -- >/dev/null &
	local p2=$!
	wait $p1 $p2
}

perf_report() {
	echo '<!-- mastermind:report-begin -->'
	echo '```yaml'
	echo 'schema_version: 1'
	echo "spec: $1"
	echo 'status: complete'
	echo 'phases: []'
	echo 'files_modified:'
	awk -F '\t' '{ print "  - " $2 }' "$2"
	echo 'claims: []'
	echo 'defects: []'
	echo 'verifications:'
	echo '  - cmd: go test ./...'
	echo '    result: pass'
	echo '    observed: {exit_code: 0, tests_run: 5}'
	echo '```'
	echo '<!-- mastermind:report-end -->'
}

perf_gate_task() {
	local root=$1 i=$2 expected=$3 baseline=$4
	local dir hash
	dir=.mastermind/tasks/$(printf '9%02d-gate-perf' "$i")
	mkdir -p "$root/$dir"
	{
		echo '---'
		echo 'touches:'
		awk -F '\t' '$1 == "modified" { print "  - file: " $2 }' "$expected"
		echo 'creates:'
		awk -F '\t' '$1 == "added" || $1 == "untracked" { print "  - " $2 }' "$expected"
		echo 'verify:'
		echo '  - cmd: go test ./...'
		echo 'mode: lite'
		echo '---'
		echo "# Gate perf task $i"
		echo
		echo '## Goals'
		echo
		echo 'Exercise the gate on scenario A.'
	} >"$root/$dir/spec.md"
	perf_report "$dir/spec.md" "$expected" >"$root/$dir/executor-report.md"
	hash=$(sha256sum "$root/$dir/spec.md" | cut -d' ' -f1)
	cat >"$root/$dir/state.json" <<JSON
{
  "schema_version": 1,
  "status": "approved",
  "next_step": "run_executor",
  "risk": "low",
  "last_artifact": "spec.md",
  "spec_path": "$dir/spec.md",
  "spec_hash": "$hash",
  "baseline_ref": "$baseline",
  "started_at": 1796040000,
  "iteration": 1,
  "blocking_streak": 0
}
JSON
}

median() { echo "$1" | tr ' ' '\n' | sed '/^$/d' | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
