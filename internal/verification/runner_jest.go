package verification

func init() {
	grammars[RunnerJest] = grammar{
		switches: []string{"--ci", "--runInBand", "--coverage", "--verbose", "--silent", "--no-cache",
			"--detectOpenHandles", "--forceExit"},
		valued:      []string{"-t", "--testNamePattern"},
		positionals: true,
	}
}

// jsScope resolves §10.5.4 for jest and vitest: with no positional and no -t/--testNamePattern
// the scope is the repository root, recursively; any filter makes it unknown.
func jsScope(_ string, inv *invocation) (scanPlan, bool) {
	p := scanPlan{runner: inv.runner, recursive: true}
	if len(inv.positionals) > 0 || inv.has("-t", "--testNamePattern") {
		return p, false
	}
	p.dirs = []string{""}
	p.reason = "no *.test.* or *.spec.* files found in the repository"
	return p, true
}
