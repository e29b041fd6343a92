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

// allowedChar is the §10.5.3 character set: [A-Za-z0-9], space, tab and - _ . / : = , +, and the
// backslash, which parse accepts only inside a program token (C:\Go\bin\go.exe).
func allowedChar(r rune) bool {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		return true
	}
	return strings.ContainsRune(" \t-_./:=,+\\", r)
}

// Recognize reports whether cmd is a recognised test-runner invocation under the grammar of
// spec-and-lifecycle.md §10.5.3 as amended by lifecycle-v2.md §7, and which runner.
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
	for _, t := range rest {
		if strings.ContainsRune(t, '\\') {
			return nil, false // a backslash only in a program path
		}
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

// program returns the program name a command token runs: the part after the last '/' or '\',
// without one ".exe" or ".cmd" suffix. "./node_modules/.bin/jest" and "C:\Go\bin\go.exe" are
// "jest" and "go".
func program(tok string) string {
	if i := strings.LastIndexAny(tok, `/\`); i >= 0 {
		tok = tok[i+1:]
	}
	for _, suf := range []string{".exe", ".cmd"} {
		if strings.HasSuffix(tok, suf) {
			return strings.TrimSuffix(tok, suf)
		}
	}
	return tok
}

// family restricts which runners a launcher may start.
type family uint8

const (
	familyAny    family = iota
	familyPython        // uv run, poetry run, pipenv run: pytest only
	familyJS            // npx, bunx, pnpm, yarn: jest and vitest only
)

// matchPrefix matches an optional launcher and a runner prefix (§10.5.3, lifecycle-v2.md §7) and
// returns the remaining tokens.
func matchPrefix(toks []string) (r Runner, rest []string, vitestRun, ok bool) {
	fam := familyAny
	if len(toks) > 0 {
		second := ""
		if len(toks) > 1 {
			second = toks[1]
		}
		switch program(toks[0]) {
		case "uv", "poetry", "pipenv":
			if second != "run" {
				return "", nil, false, false
			}
			toks, fam = toks[2:], familyPython
		case "npx", "bunx":
			toks, fam = toks[1:], familyJS
		case "pnpm", "yarn":
			if second == "exec" {
				toks = toks[1:]
			}
			toks, fam = toks[1:], familyJS
		}
	}
	r, rest, vitestRun, ok = matchRunner(toks)
	switch {
	case !ok:
	case fam == familyPython && r != RunnerPytest, fam == familyJS && r != RunnerJest && r != RunnerVitest:
		return "", nil, false, false
	}
	return r, rest, vitestRun, ok
}

// matchRunner matches the runner prefixes of §10.5.3 on program names and returns the remaining
// tokens.
func matchRunner(toks []string) (r Runner, rest []string, vitestRun, ok bool) {
	at := func(i int) string {
		if i < len(toks) {
			return toks[i]
		}
		return ""
	}
	switch prog := program(at(0)); prog {
	case "cargo":
		if at(1) == "test" {
			return RunnerCargo, toks[2:], false, true
		}
	case "go":
		if at(1) == "test" {
			return RunnerGo, toks[2:], false, true
		}
	case "pytest", "py.test":
		return RunnerPytest, toks[1:], false, true
	case "jest":
		return RunnerJest, toks[1:], false, true
	case "vitest":
		switch at(1) {
		case "run":
			return RunnerVitest, toks[2:], false, true
		case "--run":
			return RunnerVitest, toks[2:], true, true
		}
	default:
		if isPython(prog) && at(1) == "-m" && at(2) == "pytest" {
			return RunnerPytest, toks[3:], false, true
		}
	}
	return "", nil, false, false
}

// isPython reports whether prog is a Python interpreter name: python, python3, python3.N or the
// Windows launcher py.
func isPython(prog string) bool {
	switch prog {
	case "python", "python3", "py":
		return true
	}
	minor, ok := strings.CutPrefix(prog, "python3.")
	if !ok || minor == "" {
		return false
	}
	for _, c := range minor {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
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

// RunArgs returns the runner of a recognised command (Recognize) and its tokens after the
// launcher and the runner's prefix, so that two spellings of one run compare equal:
// "python -m pytest X" and "pytest X", "npx jest" and "jest". ok is false when cmd is not
// recognised.
func RunArgs(cmd string) (r Runner, args []string, ok bool) {
	if _, ok := parse(cmd); !ok {
		return "", nil, false
	}
	toks := strings.FieldsFunc(strings.TrimSpace(cmd), func(r rune) bool { return r == ' ' || r == '\t' })
	r, rest, _, _ := matchPrefix(toks)
	return r, rest, true
}
