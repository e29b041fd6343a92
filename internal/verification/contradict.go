package verification

import (
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// Failure summaries of the recognised runners (lifecycle-v2.md §7). Each pattern matches the
// summary a runner prints only when something failed; an excerpt is often squeezed onto one line
// ("FAILED tests/a.py::t … 1 failed, 12 passed"), so the patterns do not need a line start.
var (
	// pytest: "1 failed, 12 passed in 0.4s", "=== 2 errors in 1.1s ===", "FAILED tests/a.py::t",
	// "ERROR tests/a.py - ImportError". A count must be followed by a summary separator, so
	// "3 failed attempts" in a test's own output is not a summary.
	pytestCountRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?:^|[\s=,(])([1-9][0-9]*) (?:failed|errors?)(?:,|;| in [0-9]|\s*=|\s*\)|\s*$)`)
	})
	pytestLineRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:^|\s)(?:FAILED|ERROR) [^\s:]+(?:::[^\s]+| - )`) })
	// go: "--- FAIL: TestX (0.00s)", a "FAIL" line ("FAIL\tpkg\t0.01s", "FAIL"), and -json output.
	goTestRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:^|\s)--- FAIL: \S+`) })
	goLineRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)(?:^|\s)FAIL(?:[ \t]+\S+[ \t]+(?:[0-9.]+s|\[[^\]]*\])|[ \t]*$)`)
	})
	goJSONRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`"Action"\s*:\s*"fail"`) })
	// jest: "Tests:       1 failed, 12 passed, 13 total", "Test Suites: 1 failed, …";
	// vitest: "Tests  1 failed | 12 passed (13)", "Test Files  1 failed | 3 passed (4)".
	jsSummaryRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\bTest(?:s|\s+Suites|\s+Files):?[ \t]+(?:[0-9]+ [a-z]+(?:,|[ \t]*\|)[ \t]*)*([1-9][0-9]*) failed\b`)
	})
	// cargo: "test result: FAILED. 3 passed; 1 failed" and "error: test failed, to rerun pass …".
	cargoRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`test result: FAILED|error: test failed\b`) })
	// A Python traceback: its header, then the exception line that ends it.
	tracebackHeader = "Traceback (most recent call last):"
	exceptionRE     = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?:^|\s)((?:[A-Za-z_][A-Za-z0-9_]*\.)*[A-Z][A-Za-z0-9_]*(?:Error|Exception|Exit|Interrupt|Failure|Warning))(?::[^\n]*|\s*$)`)
	})
)

// escapeRE matches the terminal escape sequences runners print in colour: CSI, OSC and
// two-character ESC sequences, so that a coloured "\x1b[31m1 failed\x1b[0m" reads as "1 failed".
var escapeRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("(?:\x1b\\[|\u009b)[0-9:;<=>?]*[ -/]*[@-~]|\x1b\\][^\x07\x1b]*(?:\x07|\x1b\\\\)|\x1b[@-Z\\\\-_]")
})

// StripEscapes returns s, a runner's output, without its terminal escape sequences: CSI sequences
// (ESC [ or U+009B), OSC sequences ended by BEL or ESC \, and two-character ESC sequences. Some
// runners print colour even into a pipe; the report excerpts' contradiction check and the
// receipts' count parsers (verification-receipts.md §2) read the text without it.
func StripEscapes(s string) string {
	if !strings.ContainsAny(s, "\x1b\u009b") {
		return s
	}
	return escapeRE().ReplaceAllString(s, "")
}

// maxEvidence is the longest excerpt text quoted in a message, in code points.
const maxEvidence = 120

// contradiction returns the failure summary that out (a pass row's output_excerpt) shows for the
// runner r, trimmed and clipped for a message; ok is false when out shows none.
func contradiction(r Runner, out string) (string, bool) {
	out = StripEscapes(out)
	var res []*regexp.Regexp
	switch r {
	case RunnerPytest:
		if s, ok := traceback(out); ok {
			return s, true
		}
		res = []*regexp.Regexp{pytestLineRE(), pytestCountRE()}
	case RunnerGo:
		res = []*regexp.Regexp{goTestRE(), goLineRE(), goJSONRE()}
	case RunnerJest, RunnerVitest:
		res = []*regexp.Regexp{jsSummaryRE()}
	case RunnerCargo:
		res = []*regexp.Regexp{cargoRE()}
	}
	for _, re := range res {
		if loc := re.FindStringIndex(out); loc != nil {
			return clip(strings.TrimSpace(out[loc[0]:loc[1]])), true
		}
	}
	return "", false
}

// traceback finds a Python traceback in out and returns the exception line that ends it.
func traceback(out string) (string, bool) {
	i := strings.LastIndex(out, tracebackHeader)
	if i < 0 {
		return "", false
	}
	rest := out[i+len(tracebackHeader):]
	// In a multi-line excerpt the exception is the first line after the header that is not
	// indented (frames and source lines are); in a squeezed one it is the first exception name.
	for _, line := range strings.Split(rest, "\n") {
		if line == "" || line[0] == ' ' || line[0] == '\t' {
			continue
		}
		if m := exceptionRE().FindStringSubmatchIndex(line); m != nil && m[0] == 0 {
			return clip(strings.TrimSpace(line)), true
		}
	}
	if m := exceptionRE().FindStringIndex(rest); m != nil {
		return clip(strings.TrimSpace(rest[m[0]:m[1]])), true
	}
	return "", false
}

// clip shortens s to maxEvidence code points and replaces line breaks, so that the evidence stays
// one line of a message.
func clip(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= maxEvidence {
		return s
	}
	n := 0
	for i := range s {
		if n == maxEvidence {
			return s[:i] + "…"
		}
		n++
	}
	return s
}
