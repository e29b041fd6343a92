package verification

func init() {
	grammars[RunnerPytest] = grammar{
		switches: []string{"-q", "-qq", "-v", "-vv", "-x", "--exitfirst", "--disable-warnings",
			"--strict-markers", "--strict-config", "--setup-show"},
		valued:      []string{"-k", "-m"},
		positionals: true,
	}
}
