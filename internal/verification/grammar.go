package verification

import "strings"

// grammar is one runner's token grammar (§10.5.3): after the prefix, every token must be one of
// the switches, a valued flag with its value (next token or --flag=value), or a positional when
// positionals are allowed.
type grammar struct {
	switches    []string
	valued      []string
	positionals bool
	// validValue reports whether a valued flag's value is acceptable beyond the general rule
	// (non-empty, not starting with "-"); nil accepts every such value.
	validValue func(flag, value string) bool
}

// invocation is a recognised command split into its parts.
type invocation struct {
	runner      Runner
	switches    map[string]bool
	valued      map[string][]string // flag name as written -> values in order
	positionals []string
	vitestRun   bool // vitest --run (positionals not allowed) rather than vitest run
}

// has reports whether any of the named switches or valued flags is present.
func (inv *invocation) has(names ...string) bool {
	for _, n := range names {
		if inv.switches[n] || len(inv.valued[n]) > 0 {
			return true
		}
	}
	return false
}

// allowedChar is the §10.5.3 character set: [A-Za-z0-9], space, tab and - _ . / : = , +.
func allowedChar(r rune) bool {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		return true
	}
	return strings.ContainsRune(" \t-_./:=,+", r)
}

// Recognize reports whether cmd is a recognised test-runner invocation under the grammar of
// spec-and-lifecycle.md §10.5.3, and which runner. After trimming, every character must be in the
// allowed set, and the tokens (split on runs of spaces and tabs) must match one runner's prefix,
// switches, valued flags and positionals exactly; anything else is unrecognised.
func Recognize(cmd string) (Runner, bool) {
	inv, ok := parse(cmd)
	if !ok {
		return "", false
	}
	return inv.runner, true
}

// parse recognises cmd and returns its parts.
func parse(cmd string) (*invocation, bool) {
	c := strings.TrimSpace(cmd)
	if c == "" {
		return nil, false
	}
	for _, r := range c {
		if !allowedChar(r) {
			return nil, false
		}
	}
	toks := strings.FieldsFunc(c, func(r rune) bool { return r == ' ' || r == '\t' })
	runner, rest, vitestRun, ok := matchPrefix(toks)
	if !ok {
		return nil, false
	}
	g := grammars[runner]
	if runner == RunnerVitest && vitestRun {
		g.positionals = false
	}
	inv := &invocation{runner: runner, switches: map[string]bool{}, valued: map[string][]string{}, vitestRun: vitestRun}
	for i := 0; i < len(rest); i++ {
		t := rest[i]
		if !strings.HasPrefix(t, "-") {
			if !g.positionals {
				return nil, false
			}
			inv.positionals = append(inv.positionals, t)
			continue
		}
		if contains(g.switches, t) {
			inv.switches[t] = true
			continue
		}
		name, value, hasEq := strings.Cut(t, "=")
		if !contains(g.valued, name) {
			return nil, false
		}
		if !hasEq {
			if i+1 >= len(rest) {
				return nil, false
			}
			i++
			value = rest[i]
		}
		if value == "" || strings.HasPrefix(value, "-") {
			return nil, false
		}
		if g.validValue != nil && !g.validValue(name, value) {
			return nil, false
		}
		inv.valued[name] = append(inv.valued[name], value)
	}
	return inv, true
}

// matchPrefix matches the runner prefixes of §10.5.3 and returns the remaining tokens.
func matchPrefix(toks []string) (r Runner, rest []string, vitestRun, ok bool) {
	at := func(i int) string {
		if i < len(toks) {
			return toks[i]
		}
		return ""
	}
	switch at(0) {
	case "cargo", "cargo.exe":
		if at(1) == "test" {
			return RunnerCargo, toks[2:], false, true
		}
	case "go":
		if at(1) == "test" {
			return RunnerGo, toks[2:], false, true
		}
	case "pytest":
		return RunnerPytest, toks[1:], false, true
	case "python", "python3", "python.exe", "python3.exe":
		if at(1) == "-m" && at(2) == "pytest" {
			return RunnerPytest, toks[3:], false, true
		}
	case "jest":
		return RunnerJest, toks[1:], false, true
	case "vitest":
		switch at(1) {
		case "run":
			return RunnerVitest, toks[2:], false, true
		case "--run":
			return RunnerVitest, toks[2:], true, true
		}
	}
	return "", nil, false, false
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// grammars holds each runner's grammar; the per-runner files fill it.
var grammars = map[Runner]grammar{}
