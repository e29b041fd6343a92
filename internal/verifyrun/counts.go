package verifyrun

import (
	"encoding/json"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/mastermind-controller/mastermind/internal/verification"
)

// Counts are the test counts read from a run's output by its runner's grammar
// (verification-receipts.md §2). A nil field means the output did not show it.
type Counts struct {
	TestsRun    *int64
	TestsFailed *int64
}

// counter reads a runner's output one line at a time, without the line feed or a trailing CR.
type counter interface {
	line(l string)
	counts() Counts
}

// newCounter returns the count parser for runner, or nil for an unrecognised command.
// Recognition itself is verification.Recognize (spec-and-lifecycle.md §10.5.3, lifecycle-v2.md §7).
// cmd is the command as declared: for go test, a -v token means every test run prints "=== RUN".
func newCounter(runner verification.Runner, cmd string) counter {
	switch runner {
	case verification.RunnerGo:
		return &goCounter{verbose: slices.Contains(strings.Fields(cmd), "-v")}
	case verification.RunnerPytest:
		return &pytestCounter{}
	case verification.RunnerJest:
		return newJestCounter()
	case verification.RunnerVitest:
		return newVitestCounter()
	case verification.RunnerCargo:
		return &cargoCounter{}
	}
	return nil
}

// ParseCounts reads the counts of a complete output of the command cmd, recognised as runner. It
// is the same parser Run applies while streaming.
func ParseCounts(runner verification.Runner, cmd, output string) Counts {
	c := newCounter(runner, cmd)
	if c == nil {
		return Counts{}
	}
	for l := range strings.Lines(output) {
		l = strings.TrimSuffix(l, "\n")
		c.line(strings.TrimSuffix(l, "\r"))
	}
	return c.counts()
}

func ptr(n int64) *int64 { return &n }

// count parses a count the grammar matched as digits; a number beyond int64 saturates.
func count(digits string) int64 {
	n, _ := strconv.ParseInt(digits, 10, 64) // ErrRange gives math.MaxInt64
	return n
}

// sum adds two non-negative counts, saturating at math.MaxInt64: the output is the executor's
// code's, and "99999999999999999999 passed" must not wrap to a negative or zero count.
func sum(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// goCounter reads go test output in its three forms: the -json test events, the -v "--- PASS:"
// and "--- FAIL:" lines at any indentation, or the package lines, which show a count only when
// it is zero. With -v declared, a run without any "=== RUN" line ran no test.
type goCounter struct {
	verbose               bool
	jsonTests, jsonFailed int64
	jsonPackages          bool
	sawRun                bool // "=== RUN" lines: -v output
	pass, fail            int64
	pkgOK, pkgNoTests     int64
	pkgFail               int64
}

var (
	goResult  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*--- (PASS|FAIL|SKIP): `) })
	goPkgOK   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^ok  \t\S+\t`) })
	goPkgNone = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\?   \t\S+\t\[no test files\]`) })
	goPkgFail = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^FAIL\t\S+`) })
)

// goEvent is the part of a test2json event the counter reads.
type goEvent struct {
	Action  string
	Package string
	Test    string
}

func (g *goCounter) line(l string) {
	if strings.HasPrefix(l, "{") {
		var ev goEvent
		if json.Unmarshal([]byte(l), &ev) == nil && ev.Action != "" {
			if ev.Package != "" {
				g.jsonPackages = true
			}
			if ev.Test != "" {
				switch ev.Action {
				case "pass":
					g.jsonTests++
				case "fail":
					g.jsonTests++
					g.jsonFailed++
				}
			}
			return
		}
	}
	switch {
	case strings.HasPrefix(l, "=== RUN "):
		g.sawRun = true
	case goPkgOK().MatchString(l):
		if strings.HasSuffix(l, "[no tests to run]") {
			g.pkgNoTests++
		} else {
			g.pkgOK++
		}
	case goPkgNone().MatchString(l):
		g.pkgNoTests++
	case goPkgFail().MatchString(l):
		g.pkgFail++
	default:
		if m := goResult().FindStringSubmatch(l); m != nil {
			switch m[1] {
			case "PASS":
				g.pass++
			case "FAIL":
				g.fail++
			}
		}
	}
}

func (g *goCounter) counts() Counts {
	switch {
	case g.jsonPackages:
		return Counts{TestsRun: ptr(g.jsonTests), TestsFailed: ptr(g.jsonFailed)}
	case g.sawRun:
		return Counts{TestsRun: ptr(g.pass + g.fail), TestsFailed: ptr(g.fail)}
	case g.verbose && g.fail == 0 && g.pkgFail == 0 && g.pkgOK+g.pkgNoTests > 0:
		return Counts{TestsRun: ptr(0), TestsFailed: ptr(0)}
	case g.pkgOK == 0 && g.pkgFail == 0 && g.fail == 0 && g.pkgNoTests > 0:
		return Counts{TestsRun: ptr(0), TestsFailed: ptr(0)}
	case g.fail > 0:
		return Counts{TestsFailed: ptr(g.fail)}
	case g.pkgOK > 0 && g.pkgFail == 0:
		return Counts{TestsFailed: ptr(0)}
	}
	return Counts{}
}

// pytestCounter reads pytest's final summary line, such as "=== 3 passed, 1 failed in 0.12s ===".
// Tests run are passed, failed, errors, xfailed and xpassed; failed are failed and errors. The last
// summary line wins.
type pytestCounter struct{ c Counts }

var (
	pytestSummary = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^=*\s*((?:\d+ (?:passed|failed|errors?|skipped|deselected|xfailed|xpassed|warnings?)(?:, )?)+)\s+in\s+[\d.]+s\b`)
	})
	pytestNone = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^=*\s*no tests ran\b`) })
	pytestItem = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(\d+) (passed|failed|errors?|skipped|deselected|xfailed|xpassed|warnings?)`)
	})
)

func (p *pytestCounter) line(l string) {
	l = strings.TrimSpace(verification.StripEscapes(l))
	if pytestNone().MatchString(l) {
		p.c = Counts{TestsRun: ptr(0), TestsFailed: ptr(0)}
		return
	}
	m := pytestSummary().FindStringSubmatch(l)
	if m == nil {
		return
	}
	var run, failed int64
	for _, it := range pytestItem().FindAllStringSubmatch(m[1], -1) {
		n := count(it[1])
		switch it[2] {
		case "passed", "xfailed", "xpassed":
			run = sum(run, n)
		case "failed", "error", "errors":
			run = sum(run, n)
			failed = sum(failed, n)
		}
	}
	p.c = Counts{TestsRun: ptr(run), TestsFailed: ptr(failed)}
}

func (p *pytestCounter) counts() Counts { return p.c }

// summaryCounter reads a runner such as jest or vitest whose summary line lists "<n> passed" and
// "<n> failed" items among others: tests run are passed plus failed, a "no tests" line reads as
// zero, and the last such line wins.
type summaryCounter struct {
	none    func(l string) bool // a "no tests" line
	summary *regexp.Regexp      // group 1 holds the items
	item    *regexp.Regexp      // group 1 the number, group 2 the item's word
	c       Counts
}

func (s *summaryCounter) line(l string) {
	l = strings.TrimSpace(verification.StripEscapes(l))
	if s.none(l) {
		s.c = Counts{TestsRun: ptr(0), TestsFailed: ptr(0)}
		return
	}
	m := s.summary.FindStringSubmatch(l)
	if m == nil {
		return
	}
	var passed, failed int64
	for _, it := range s.item.FindAllStringSubmatch(m[1], -1) {
		n := count(it[1])
		switch it[2] {
		case "passed":
			passed = n
		case "failed":
			failed = n
		}
	}
	s.c = Counts{TestsRun: ptr(sum(passed, failed)), TestsFailed: ptr(failed)}
}

func (s *summaryCounter) counts() Counts { return s.c }

// newJestCounter reads jest's "Tests:       1 failed, 2 passed, 3 total" line. "No tests found"
// reads as zero.
func newJestCounter() *summaryCounter {
	return &summaryCounter{summary: jestTests(), item: jestItem(),
		none: func(l string) bool { return strings.HasPrefix(l, "No tests found") }}
}

var (
	jestTests = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^Tests:\s+(.*\d+ total)`) })
	jestItem  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(\d+) (passed|failed|skipped|todo|total)`) })
)

// newVitestCounter reads vitest's "Tests  1 failed | 2 passed | 1 skipped (4)" line. "No test
// files found" and "Tests  no tests" read as zero.
func newVitestCounter() *summaryCounter {
	return &summaryCounter{summary: vitestTests(), item: vitestItem(),
		none: func(l string) bool { return strings.HasPrefix(l, "No test files found") || vitestNone().MatchString(l) }}
}

var (
	vitestTests = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^Tests\s+(.*)\(\d+\)`) })
	vitestNone  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^Tests\s+no tests$`) })
	vitestItem  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(\d+) (passed|failed|skipped|todo)`) })
)

// cargoCounter sums cargo's "test result: ok. 3 passed; 0 failed; …" lines, one per test binary
// and doc-test run.
type cargoCounter struct {
	run, failed int64
	set         bool
}

var cargoResult = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^test result: (?:ok|FAILED)\. (\d+) passed; (\d+) failed;`)
})

func (c *cargoCounter) line(l string) {
	m := cargoResult().FindStringSubmatch(strings.TrimSpace(verification.StripEscapes(l)))
	if m == nil {
		return
	}
	p, f := count(m[1]), count(m[2])
	c.run = sum(c.run, sum(p, f))
	c.failed = sum(c.failed, f)
	c.set = true
}

func (c *cargoCounter) counts() Counts {
	if !c.set {
		return Counts{}
	}
	return Counts{TestsRun: ptr(c.run), TestsFailed: ptr(c.failed)}
}
