package cli

import (
	"testing"

	"github.com/mastermind-controller/mastermind/internal/postflight"
)

// The table covers every kind the audit knows, in its order.
func TestAuditKindsMatchTheAudit(t *testing.T) {
	if len(auditKinds) != len(postflight.KindOrder) {
		t.Fatalf("%d kinds in the table, the audit has %d", len(auditKinds), len(postflight.KindOrder))
	}
	for i, k := range auditKinds {
		if k.ID != postflight.KindOrder[i] {
			t.Errorf("row %d is %s, the audit's is %s", i, k.ID, postflight.KindOrder[i])
		}
		if k.Help == "" {
			t.Errorf("%s has no help", k.ID)
		}
		if reportSideKinds[k.ID] != k.ReportSide {
			t.Errorf("%s: report side %v, the annotations say %v", k.ID, k.ReportSide, reportSideKinds[k.ID])
		}
	}
}
