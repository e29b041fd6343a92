package verification

import "strings"

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

// goScope resolves §10.5.4 for go test: no package or "." is the root (not recursive); one
// "./dir" is that directory (not recursive); "./dir/..." is recursive and "./..." is the root
// recursively. Several packages or import paths are unknown.
func goScope(_ string, inv *invocation) (scanPlan, bool) {
	p := scanPlan{runner: RunnerGo}
	switch len(inv.positionals) {
	case 0:
		p.dirs = []string{""}
	case 1:
		arg := inv.positionals[0]
		if arg != "." && !strings.HasPrefix(arg, "./") {
			return p, false // an import path such as std or example.com/x
		}
		if arg == "./..." || strings.HasSuffix(arg, "/...") {
			p.recursive = true
			arg = strings.TrimSuffix(arg, "...")
		}
		dir, ok := resolveDir(arg)
		if !ok {
			return p, false
		}
		p.dirs = []string{dir}
	default:
		return p, false
	}
	if p.recursive {
		if p.dirs[0] == "" {
			p.reason = "no conventional *_test.go files found in the repository (recursive)"
		} else {
			p.reason = "no conventional *_test.go files found under " + display(p.dirs[0]) + " (recursive)"
		}
	} else {
		p.reason = "no conventional *_test.go files found in " + display(p.dirs[0]) + " (not recursive)"
	}
	return p, true
}
