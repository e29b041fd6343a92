package verification

import (
	"fmt"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/textsafe"
)

// Check compares the report rows with the declared commands (the spec's §1.5 obligations, already
// trimmed and deduplicated) and runs the advisory vacuous-test scan under root, the absolute
// repository root. It never executes anything.
//
// Findings come in this order: the per-row contradictions of §10.5.1 (observed_exit_code_non_zero,
// observed_zero_tests, verification_pass_contradicted; at most one per row, in that precedence)
// in row order, then verification_requirement_unmet per declared command in
// declaration order (§10.5.2), then vacuous_test_claim warnings in row order (§10.5.4). The caller
// sorts them for audit.md (§9.3). Rows holds the classification of every row.
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
		if r.Result == "pass" {
			switch {
			case r.ExitCode != nil && *r.ExitCode != 0:
				contradicted[i] = true
				res.Findings = append(res.Findings, exitNonZero(r.Cmd, *r.ExitCode))
			case r.TestsRun != nil && *r.TestsRun == 0 && recognised:
				contradicted[i] = true
				res.Findings = append(res.Findings, zeroTests(r.Cmd))
			case recognised && r.OutputExcerpt != nil:
				if ev, ok := contradiction(inv.runner, *r.OutputExcerpt); ok {
					contradicted[i] = true
					res.Findings = append(res.Findings, passContradicted(r.Cmd, inv.runner, ev))
				}
			}
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
	for _, c := range declared {
		c = strings.TrimSpace(c)
		if c == "" || seen[c] {
			continue
		}
		seen[c] = true
		var n, passed, unobserved, unsuccessful int
		for i, r := range rows {
			if strings.TrimSpace(r.Cmd) != c {
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
			res.Findings = append(res.Findings, finding.Finding{Rule: KindRequirementUnmet, Class: finding.ClassError,
				Message: fmt.Sprintf("declared verification \"%s\" is not satisfied (%s)", textsafe.Escape(c), reason),
				Fields:  []finding.Field{{Key: "cmd", Value: c}, {Key: "reason", Value: reason}}})
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
			Message: fmt.Sprintf("\"%s\" is reported as pass but %s", textsafe.Escape(r.Cmd), out.reason),
			Fields:  []finding.Field{{Key: "cmd", Value: r.Cmd}, {Key: "reason", Value: out.reason}}})
	}
	return res
}

func exitNonZero(cmd string, code int64) finding.Finding {
	return finding.Finding{Rule: KindExitNonZero, Class: finding.ClassError,
		Message: fmt.Sprintf("\"%s\" is reported as pass but its observed exit code is %d", textsafe.Escape(cmd), code),
		Fields:  []finding.Field{{Key: "cmd", Value: cmd}, {Key: "exit_code", Value: code}}}
}

func zeroTests(cmd string) finding.Finding {
	return finding.Finding{Rule: KindZeroTests, Class: finding.ClassError,
		Message: fmt.Sprintf("\"%s\" is reported as pass but observed 0 tests run", textsafe.Escape(cmd)),
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
