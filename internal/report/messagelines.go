package report

import (
	"regexp"
	"strconv"
	"sync"

	"github.com/mastermind-controller/mastermind/internal/yamlstrict"
)

// Messages from internal/yamlstrict cite lines of the decoded YAML text, which in sentinel form
// starts at the fence's first content line, so the numbers are rewritten to file lines: every line
// a reader sees is a line of executor-report.md (executor-report-v1.md §1.6).
var (
	syntaxLineRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^((?:YAML|JSON) syntax error: line )(\d+)(: )`) })
	multiDocRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(second starts at line )(\d+)(\))`) })
	dupLinesRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(\(lines )(\d+)( and )(\d+)(\); remove one)$`) })
)

// fileMessage returns is.Message with every cited YAML line mapped to its file line.
func (l *located) fileMessage(is yamlstrict.Issue) string {
	if l.fence == nil && l.cr == nil {
		return is.Message
	}
	mapLine := func(s string) string {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return s
		}
		line, _ := l.filePos(yamlstrict.Pos{Line: n, Column: 1})
		return strconv.Itoa(line)
	}
	var re *regexp.Regexp
	switch is.Rule {
	case yamlstrict.RuleSyntax:
		re = syntaxLineRE()
	case yamlstrict.RuleMultiDocument:
		re = multiDocRE()
	case yamlstrict.RuleDuplicateKey:
		re = dupLinesRE()
	default:
		return is.Message
	}
	m := re.FindStringSubmatchIndex(is.Message)
	if m == nil {
		return is.Message
	}
	// Rebuild from the groups: odd groups (2, 4) are line numbers, the rest literal text.
	out := is.Message[:m[0]]
	for g := 1; 2*g < len(m); g++ {
		part := is.Message[m[2*g]:m[2*g+1]]
		if part != "" && part[0] >= '0' && part[0] <= '9' {
			part = mapLine(part)
		}
		out += part
	}
	return out + is.Message[m[1]:]
}
