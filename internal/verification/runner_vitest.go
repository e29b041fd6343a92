package verification

func init() {
	// Positionals are allowed after "vitest run" and not after "vitest --run" (parse clears it).
	grammars[RunnerVitest] = grammar{
		switches:    []string{"--coverage", "--silent"},
		valued:      []string{"-t", "--testNamePattern"},
		positionals: true,
	}
}
