package report

import (
	"strconv"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/verification"
)

// evidence applies the audit rules that need neither git nor the spec to the report's rows
// (§5.7, lifecycle-v2.md §6): internal/verification's per-row contradictions of
// spec-and-lifecycle.md §10.5.1. Each finding keeps its audit kind, message and fields and is
// positioned at the field that shows the contradiction.
func evidence(r *Report) []finding.Finding {
	var out []finding.Finding
	for _, v := range r.Verifications {
		row := verification.Row{Index: v.Index, Cmd: v.Cmd, Result: v.Result, OutputExcerpt: v.OutputExcerpt}
		if v.Observed != nil {
			row.ExitCode, row.TestsRun = v.Observed.ExitCode, v.Observed.TestsRun
		}
		f, ok := verification.Contradiction(row)
		if !ok {
			continue
		}
		base := "/verifications/" + strconv.Itoa(v.Index)
		ptr := base
		switch f.Rule {
		case verification.KindExitNonZero:
			ptr = base + "/observed/exit_code"
		case verification.KindZeroTests:
			ptr = base + "/observed/tests_run"
		case verification.KindPassContradicted:
			ptr = base + "/output_excerpt"
		}
		if _, ok := r.Positions[ptr]; !ok {
			ptr = base
		}
		p := r.Positions[ptr]
		f.Line, f.Column, f.Pointer = p.Line, p.Column, ptr
		out = append(out, f)
	}
	return out
}
