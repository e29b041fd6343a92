package verification

func init() {
	grammars[RunnerGo] = grammar{
		switches:    []string{"-v", "-race", "-short", "-failfast", "-cover", "-json"},
		valued:      []string{"-run", "-count"},
		positionals: true, // package patterns
		validValue: func(flag, value string) bool {
			if flag != "-count" {
				return true
			}
			// A positive decimal integer.
			if value == "" || value[0] == '0' {
				return false
			}
			for _, c := range value {
				if c < '0' || c > '9' {
					return false
				}
			}
			return true
		},
	}
}
