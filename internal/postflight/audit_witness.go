package postflight

import (
	"fmt"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/textsafe"
	"github.com/mastermind-controller/mastermind/internal/verification"
	"github.com/mastermind-controller/mastermind/internal/verifyrun"
)

// writeWitnessText writes audit.md's witness lines (docs/design/transcripts.md §3): the info
// lines, and, when the transcript was read, one line per verification row with the columns
// claimed | witnessed | ran by mastermind.
func writeWitnessText(ew *errWriter, a *Audit) {
	w := a.Witness
	if w == nil {
		return
	}
	for _, l := range w.Lines {
		ew.str("  ", textsafe.Escape(l), "\n")
	}
	if !w.Read || a.Verification == nil || len(a.Verification.Rows) == 0 {
		return
	}
	ew.str("  verification rows (claimed | witnessed | ran by mastermind):\n")
	for _, row := range a.Verification.Rows {
		claimed := row.Result
		witnessed := "not witnessed"
		if row.Witnessed != nil {
			witnessed = *row.Witnessed
		}
		ran := "not run"
		for _, rc := range a.Verification.Receipts {
			if verification.MatchKey(rc.Cmd) == verification.MatchKey(row.Cmd) {
				ran = strings.TrimPrefix(rc.Summary, verifyrun.BasisRan+": ")
			}
		}
		if row.Basis == verifyrun.BasisWitnessed {
			ran = "not run (run: witnessed)"
		}
		fmt.Fprintf(ew, "    [%d] \"%s\" %s | %s | %s\n", row.Index, textsafe.Escape(row.Cmd), claimed, textsafe.Escape(witnessed), ran)
	}
}
