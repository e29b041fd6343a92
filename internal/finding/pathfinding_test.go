package finding

import (
	"encoding/json"
	"testing"
)

// TestPathFindingMatchesExplicit: a finding built by PathFinding shows, sorts and encodes exactly
// as the same finding with its message written out.
func TestPathFindingMatchesExplicit(t *testing.T) {
	// The loop below checks nothing when the table is empty: pin the per-path kinds.
	if _, ok := pathMessages[KindUnexpectedFile]; !ok || len(pathMessages) != 2 {
		t.Fatalf("pathMessages = %v, want unexpected_file and executor_report_missing_changed_file", pathMessages)
	}
	if _, ok := pathMessages[KindReportMissingChangedFile]; !ok {
		t.Fatalf("pathMessages lacks %s", KindReportMissingChangedFile)
	}
	for kind, tmpl := range pathMessages {
		shared := []Field{{Key: "file", Value: "src/a b.go"}}
		compact := PathFinding(kind, shared[0:1:1])
		explicit := Finding{Rule: kind, Class: KindClass(kind), Message: tmpl + "src/a b.go", Fields: []Field{{Key: "file", Value: "src/a b.go"}}}
		if compact.Message != "" {
			t.Errorf("%s: compact finding stores its message %q", kind, compact.Message)
		}
		if compact.Text() != explicit.Message {
			t.Errorf("%s: Text() = %q, want %q", kind, compact.Text(), explicit.Message)
		}
		if compact.String() != explicit.String() {
			t.Errorf("%s: String() = %q, want %q", kind, compact.String(), explicit.String())
		}
		for _, pair := range [][2]any{{Audit(compact), Audit(explicit)}, {compact, explicit}} {
			got, err := json.Marshal(pair[0])
			if err != nil {
				t.Fatal(err)
			}
			want, _ := json.Marshal(pair[1])
			if string(got) != string(want) {
				t.Errorf("%s: JSON %s, want %s", kind, got, want)
			}
		}
		if e := compact.Expand(); e.Message != explicit.Message {
			t.Errorf("%s: Expand().Message = %q", kind, e.Message)
		}
	}
}

// TestPathFindingOtherKind: a kind without a template gets its message at once.
func TestPathFindingOtherKind(t *testing.T) {
	f := PathFinding(KindMissingExpectedFile, []Field{{Key: "file", Value: "a.go"}})
	if f.Message != "a.go" || f.Text() != "a.go" {
		t.Errorf("message %q, text %q", f.Message, f.Text())
	}
}
