package verification

import "strings"

func init() {
	grammars[RunnerPytest] = grammar{
		switches: []string{"-q", "-qq", "-v", "-vv", "-x", "--exitfirst", "--disable-warnings",
			"--strict-markers", "--strict-config", "--setup-show"},
		valued:      []string{"-k", "-m"},
		positionals: true,
	}
}

// pytestScope resolves §10.5.4 for pytest: no positional is the root (recursive); exactly one
// positional path without "::" is scanned recursively if it is a directory, and counts as
// evidence if it is an existing .py file. Anything else is unknown.
func pytestScope(root string, inv *invocation) (scanPlan, bool) {
	p := scanPlan{runner: RunnerPytest, recursive: true}
	switch len(inv.positionals) {
	case 0:
		p.dirs = []string{""}
		p.reason = "no test_*.py or *_test.py files found in the repository"
		return p, true
	case 1:
	default:
		return p, false
	}
	arg := inv.positionals[0]
	if strings.Contains(arg, "::") {
		return p, false
	}
	rel, ok := resolveDir(arg)
	if !ok {
		return p, false
	}
	mode, ok := statInRoot(root, rel)
	switch {
	case !ok:
		return p, false
	case mode.IsDir():
		p.dirs = []string{rel}
		if rel == "" {
			p.reason = "no test_*.py or *_test.py files found in the repository"
		} else {
			p.reason = "no test_*.py or *_test.py files found under " + rel
		}
		return p, true
	case mode.IsRegular() && strings.HasSuffix(rel, ".py"):
		p.presentIf = true
		p.dirs = []string{rel}
		return p, true
	}
	return p, false
}
