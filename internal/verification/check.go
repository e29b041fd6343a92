package verification

import (
	"fmt"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/textsafe"
)

// Check compares the report rows with the declared commands and runs the advisory vacuous-test
// scan under the absolute repository root; it never executes anything. Findings come in the
// order of §10.5.1, §10.5.2 and §10.5.4, for the caller to sort.
func Check(root string, declared []string, rows []Row) Result {
	var res Result
	class := make([]string, len(rows))
	contradicted := make([]bool, len(rows))
	invs := make([]*invocation, len(rows))
	for i, r := range rows {
		inv, recognised := parse(r.Cmd)
		if recognised {
			invs[i] = inv
		}
		if f, ok := contradict(r, inv); ok {
			contradicted[i] = true
			res.Findings = append(res.Findings, f)
		}
		switch {
		case r.Result != "pass" || contradicted[i]:
			class[i] = ClassUnsuccessful
		case r.ExitCode != nil: // == 0, since not contradicted
			class[i] = ClassPassed
		default:
			class[i] = ClassUnobserved
		}
		ev := RowEvidence{Index: r.Index, Cmd: r.Cmd, Result: r.Result, Classification: class[i]}
		if recognised {
			name := string(inv.runner)
			ev.Runner = &name
		}
		res.Rows = append(res.Rows, ev)
	}

	seen := map[string]bool{}
	keys := make([]string, len(rows))
	for i, r := range rows {
		keys[i] = MatchKey(r.Cmd)
	}
	for _, c := range declared {
		key := MatchKey(c)
		c = strings.TrimSpace(c)
		if key == "" || seen[key] {
			continue
		}
		seen[key] = true
		var n, passed, unobserved, unsuccessful int
		for i := range rows {
			if keys[i] != key {
				continue
			}
			n++
			switch class[i] {
			case ClassPassed:
				passed++
			case ClassUnobserved:
				unobserved++
			default:
				unsuccessful++
			}
		}
		reason := ""
		switch {
		case n == 0:
			reason = ReasonMissingResult
		case unsuccessful == n:
			reason = ReasonNotPassed
		case unobserved == n:
			reason = ReasonUnobservedExit
		case passed == n:
		default:
			reason = ReasonConflictingResults
		}
		if reason != "" {
			res.Findings = append(res.Findings, requirementUnmet(c, reason, nearMiss(key, rows, keys, invs, reason)))
		}
	}

	sc := newScanCache(root)
	for i, r := range rows {
		if r.Result != "pass" || contradicted[i] || r.TestsRun != nil || invs[i] == nil {
			continue
		}
		out := sc.scan(invs[i])
		if out.state != absent {
			continue
		}
		res.Findings = append(res.Findings, finding.Finding{Rule: KindVacuous, Class: finding.ClassWarning,
			Message: fmt.Sprintf("\"%s\" is reported as pass but %s; %s", textsafe.Escape(r.Cmd), out.reason, fixVacuous),
			Fields:  []finding.Field{{Key: "cmd", Value: r.Cmd}, {Key: "reason", Value: out.reason}}})
	}
	return res
}

// Contradiction applies the per-row rules of spec-and-lifecycle.md §10.5.1 to one row, which need
// neither the repository nor the spec. ok is false when the row is not contradicted.
func Contradiction(r Row) (finding.Finding, bool) {
	inv, _ := parse(r.Cmd)
	return contradict(r, inv)
}

// contradict is Contradiction with the row's parsed invocation (nil when unrecognised).
func contradict(r Row, inv *invocation) (finding.Finding, bool) {
	if r.Result != "pass" {
		return finding.Finding{}, false
	}
	switch {
	case r.ExitCode != nil && *r.ExitCode != 0:
		return exitNonZero(r.Cmd, *r.ExitCode), true
	case inv == nil:
	case r.TestsRun != nil && *r.TestsRun == 0:
		return zeroTests(r.Cmd), true
	case r.OutputExcerpt != nil:
		if ev, ok := contradiction(inv.runner, *r.OutputExcerpt); ok {
			return passContradicted(r.Cmd, inv.runner, ev), true
		}
	}
	return finding.Finding{}, false
}

// Fix hints that end each message (lifecycle-v2.md §9: a message says what to change).
const (
	fixMissing     = "run it and report a row whose cmd is exactly the declared command, or revise the spec"
	fixNotPassed   = "fix the failure, rerun it and report the passing run with observed.exit_code 0"
	fixUnobserved  = "report observed.exit_code from the run"
	fixConflicting = "report the command's runs consistently: every row for it must pass with observed.exit_code 0"
	fixExit        = "report result: fail with a defect, or fix the failure and report the passing run"
	fixZeroTests   = "make the command run the tests (check its paths and filters) and report the real tests_run"
	fixVacuous     = "add the tests the command should run, or report observed.tests_run from the run"
)

// requirementUnmet is verification_requirement_unmet for declared command c. closest is the
// reported command nearest to c for a missing_result (lifecycle-v2.md §7), or "".
func requirementUnmet(c, reason, closest string) finding.Finding {
	fields := []finding.Field{{Key: "cmd", Value: c}, {Key: "reason", Value: reason}}
	var msg string
	if closest != "" {
		msg = fmt.Sprintf("declared `%s` has no result; the report ran `%s` — report the declared command or revise the spec (%s)",
			textsafe.Escape(c), textsafe.Escape(closest), reason)
		fields = append(fields, finding.Field{Key: "closest", Value: closest})
	} else {
		fix := map[string]string{ReasonMissingResult: fixMissing, ReasonNotPassed: fixNotPassed,
			ReasonUnobservedExit: fixUnobserved, ReasonConflictingResults: fixConflicting}[reason]
		msg = fmt.Sprintf("declared verification \"%s\" is not satisfied (%s); %s", textsafe.Escape(c), reason, fix)
	}
	return finding.Finding{Rule: KindRequirementUnmet, Class: finding.ClassError, Message: msg, Fields: fields}
}

func exitNonZero(cmd string, code int64) finding.Finding {
	return finding.Finding{Rule: KindExitNonZero, Class: finding.ClassError,
		Message: fmt.Sprintf("\"%s\" is reported as pass but its observed exit code is %d; %s", textsafe.Escape(cmd), code, fixExit),
		Fields:  []finding.Field{{Key: "cmd", Value: cmd}, {Key: "exit_code", Value: code}}}
}

func zeroTests(cmd string) finding.Finding {
	return finding.Finding{Rule: KindZeroTests, Class: finding.ClassError,
		Message: fmt.Sprintf("\"%s\" is reported as pass but observed 0 tests run; %s", textsafe.Escape(cmd), fixZeroTests),
		Fields:  []finding.Field{{Key: "cmd", Value: cmd}}}
}

// passContradicted is verification_pass_contradicted: a pass row whose output_excerpt shows the
// failure summary of its runner (lifecycle-v2.md §7).
func passContradicted(cmd string, r Runner, evidence string) finding.Finding {
	return finding.Finding{Rule: KindPassContradicted, Class: finding.ClassError,
		Message: fmt.Sprintf("\"%s\" is reported as pass but its output_excerpt shows a %s failure (%s); report result: fail with a defect, or fix the failure and report the passing run's output",
			textsafe.Escape(cmd), r, textsafe.Escape(evidence)),
		Fields: []finding.Field{{Key: "cmd", Value: cmd}, {Key: "runner", Value: string(r)}, {Key: "evidence", Value: evidence}}}
}
