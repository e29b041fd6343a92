package verification

func init() {
	grammars[RunnerJest] = grammar{
		switches: []string{"--ci", "--runInBand", "--coverage", "--verbose", "--silent", "--no-cache",
			"--detectOpenHandles", "--forceExit"},
		valued:      []string{"-t", "--testNamePattern"},
		positionals: true,
	}
}
