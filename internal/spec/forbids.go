package spec

import (
	"fmt"
	"path"
	"strings"
	"unicode"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
	"github.com/mastermind-controller/mastermind/internal/jsonptr"
	"github.com/mastermind-controller/mastermind/internal/yamlstrict"
)

// MaxForbids is the largest number of forbids patterns accepted (lifecycle-v2.md §2); more is
// spec.frontmatter_invalid.
const MaxForbids = 1024

// MaxForbidBytes is the longest forbids pattern accepted, in bytes: the path limit of §1.4.
const MaxForbidBytes = 4096

// Forbids are the compiled forbids patterns of a spec: gitignore-style patterns matched against
// repository-relative paths as in a .gitignore at the root, with the two deviations from git
// that spec-and-lifecycle.md §1.2 lists. The zero value forbids nothing.
type Forbids struct {
	patterns []forbidPattern
}

type forbidPattern struct {
	text string
	p    gitignore.Pattern
}

// Patterns returns the patterns as written, in order.
func (f Forbids) Patterns() []string {
	out := make([]string, len(f.patterns))
	for i, p := range f.patterns {
		out[i] = p.text
	}
	return out
}

// Empty reports whether no pattern is declared.
func (f Forbids) Empty() bool { return len(f.patterns) == 0 }

// Match reports whether the repository-relative path p ('/'-separated) is forbidden, and by
// which pattern (as written): the last pattern that matches p decides, a `!` pattern allowing it.
// isDir is true for a directory entry (an untracked nested repository).
func (f Forbids) Match(p string, isDir bool) (pattern string, forbidden bool) {
	if len(f.patterns) == 0 || p == "" {
		return "", false
	}
	parts := strings.Split(p, "/")
	for i := len(f.patterns) - 1; i >= 0; i-- {
		switch f.patterns[i].p.Match(parts, isDir) {
		case gitignore.Exclude:
			return f.patterns[i].text, true
		case gitignore.Include:
			return "", false
		}
	}
	return "", false
}

// CompileForbids checks and compiles forbids patterns; the error of the first invalid one
// names it and says what to write instead.
func CompileForbids(patterns []string) (Forbids, error) {
	var f Forbids
	for i, s := range patterns {
		if why := ForbidPatternProblem(s); why != "" {
			return Forbids{}, fmt.Errorf("forbids[%d] %q %s", i, s, why)
		}
		f.patterns = append(f.patterns, forbidPattern{text: s, p: gitignore.ParsePattern(s, nil)})
	}
	return f, nil
}

// ForbidPatternProblem returns why s is not an acceptable forbids pattern, or "" when it is one,
// by the rules of spec-and-lifecycle.md §1.2.
func ForbidPatternProblem(s string) string {
	switch {
	case strings.TrimSpace(s) == "":
		return "is empty; write a gitignore-style pattern such as tests/** or package.json"
	case len(s) > MaxForbidBytes:
		return fmt.Sprintf("is longer than %d bytes", MaxForbidBytes)
	case strings.TrimSpace(s) != s:
		return "has leading or trailing white space; remove it"
	case strings.IndexFunc(s, unicode.IsControl) >= 0:
		return "contains a control character"
	case strings.HasPrefix(s, "#"):
		return `starts with #, which a .gitignore reads as a comment; write \# for a literal #`
	}
	body := strings.TrimPrefix(s, "!")
	body = strings.TrimPrefix(body, "/")
	body = strings.TrimSuffix(body, "/")
	if body == "" {
		return "names no path; write a gitignore-style pattern such as tests/** or package.json"
	}
	for _, c := range strings.Split(body, "/") {
		switch c {
		case "":
			return "has an empty path component (//); remove it"
		case ".", "..":
			return "has a " + c + " component, which never matches a repository path; write the path from the repository root"
		case "**":
			continue
		}
		if _, err := path.Match(c, ""); err != nil {
			return "is not a valid glob (an unclosed [ or a trailing \\); escape a literal [ as \\["
		}
	}
	return ""
}

// forbids checks the forbids list: strings that are valid patterns (ForbidPatternProblem), at
// most MaxForbids of them. The valid ones are compiled into Spec.Forbids.
func (w *fmWalker) forbids(ptr string) []string {
	items, ok := w.list(ptr)
	if !ok {
		return nil
	}
	if len(items) > MaxForbids {
		w.fail(ptr, fmt.Sprintf("forbids holds %d patterns; the limit is %d", len(items), MaxForbids))
		return nil
	}
	var out, valid []string
	for i := range items {
		ip := jsonptr.AppendIndex(ptr, i)
		s, ok := w.str(ip)
		if !ok {
			continue
		}
		out = append(out, s)
		if why := ForbidPatternProblem(s); why != "" {
			w.fail(ip, fmt.Sprintf("%s %q %s", yamlstrict.FieldName(ip), s, why))
			continue
		}
		valid = append(valid, s)
	}
	w.p.spec.Forbids, _ = CompileForbids(valid) // every pattern was checked above
	return out
}
