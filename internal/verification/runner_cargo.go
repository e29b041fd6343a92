package verification

func init() {
	grammars[RunnerCargo] = grammar{
		switches: []string{"--lib", "--bins", "--tests", "--doc", "--workspace", "--all", "--all-features",
			"--no-default-features", "--release", "-r", "--locked", "--offline", "--frozen", "--quiet", "-q",
			"--verbose", "-v", "-vv", "--no-fail-fast"},
		valued: []string{"--manifest-path", "--package", "-p", "--exclude", "--test", "--bin", "--features",
			"-F", "--target", "--profile", "--target-dir"},
		positionals: true, // test-name filters
	}
}
