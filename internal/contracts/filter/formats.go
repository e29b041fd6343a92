package filter

import (
	"errors"
	"regexp"
	"strconv"
	"sync"

	"github.com/mastermind-controller/mastermind/internal/thirdparty/jsonschema"

	"github.com/mastermind-controller/mastermind/internal/repopath"
)

// Custom JSON Schema formats registered by the filter (agent-contracts.md §2.5). Formats are
// asserted: a string that breaks its format's syntax fails validation.
const (
	FormatPathLine   = "path-line"
	FormatRepoPath   = "repo-path"
	FormatGitSHA     = "git-sha"
	FormatCommitLine = "git-commit-line"
)

var (
	shaRe        = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f]{7,40}$`) })
	commitLineRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([0-9a-f]{7,40}) — (.+)$`) })
	pathLineRe   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(.+):([1-9][0-9]*)(?:-([1-9][0-9]*))?$`) })
)

// PathLine is a parsed path-line reference with a repopath-normalised Path and 1 ≤ Start ≤ End;
// a single line has End == Start.
type PathLine struct {
	Path       string
	Start, End int
}

// ParsePathLine parses `<path>:<line>` or `<path>:<start>-<end>`: the path passes the hygiene of
// executor-report-v1.md §4.2, line numbers are decimal, ≥ 1, without leading zeros, and
// start ≤ end. ok is false otherwise.
func ParsePathLine(s string) (pl PathLine, ok bool) {
	m := pathLineRe().FindStringSubmatch(s)
	if m == nil {
		return pl, false
	}
	p, err := repopath.Clean(m[1])
	if err != nil {
		return pl, false
	}
	start, err := strconv.Atoi(m[2])
	if err != nil {
		return pl, false
	}
	end := start
	if m[3] != "" {
		if end, err = strconv.Atoi(m[3]); err != nil || end < start {
			return pl, false
		}
	}
	return PathLine{Path: p, Start: start, End: end}, true
}

// ValidRepoPath reports whether s is a repository-relative path passing hygiene (repo-path).
func ValidRepoPath(s string) bool {
	_, err := repopath.Clean(s)
	return err == nil
}

// ValidSHA reports whether s is 7–40 lowercase hex digits (git-sha).
func ValidSHA(s string) bool { return shaRe().MatchString(s) }

// ParseCommitLine splits a git-commit-line, `<sha> — <subject>` with one space each side of the
// em dash.
func ParseCommitLine(s string) (sha, subject string, ok bool) {
	m := commitLineRe().FindStringSubmatch(s)
	if m == nil {
		return "", "", false
	}
	return m[1], m[2], true
}

// formats are the validator's format checks; non-strings pass (JSON Schema format semantics).
var formats = []*jsonschema.Format{
	strFormat(FormatPathLine, func(s string) bool { _, ok := ParsePathLine(s); return ok }),
	strFormat(FormatRepoPath, ValidRepoPath),
	strFormat(FormatGitSHA, ValidSHA),
	strFormat(FormatCommitLine, func(s string) bool { _, _, ok := ParseCommitLine(s); return ok }),
}

// errFormat is the validator-side failure of a custom format; the item reason comes from
// formatReason.
var errFormat = errors.New("does not match the format")

func strFormat(name string, f func(string) bool) *jsonschema.Format {
	return &jsonschema.Format{Name: name, Validate: func(v any) error {
		if s, ok := v.(string); ok && !f(s) {
			return errFormat
		}
		return nil
	}}
}

// formatReason is the item reason for a value that fails one of the custom formats (§2.7).
func formatReason(format, value string) (string, bool) {
	q := `"` + value + `"`
	switch format {
	case FormatPathLine:
		return "not a path:line reference: " + q, true
	case FormatRepoPath:
		return "not a repository-relative path: " + q, true
	case FormatGitSHA:
		return "not a commit SHA (7–40 lowercase hex): " + q, true
	case FormatCommitLine:
		return `not "<sha> — <subject>": ` + q, true
	}
	return "", false
}
