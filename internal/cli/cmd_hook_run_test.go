package cli

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mastermind-controller/mastermind/internal/finding"
)

// Both envelope shapes read back into the finding the audit produced.
func TestFindingFromJSONRoundTrip(t *testing.T) {
	audit := finding.Finding{Rule: finding.KindUnexpectedFile, Class: finding.ClassWarning, Message: "changed outside the declared scope: a b.go",
		Fields: []finding.Field{{Key: "file", Value: "a b.go"}, {Key: "claim_index", Value: 3}}}
	positional := finding.Finding{Rule: "schema.enum", Class: finding.ClassError, File: "r.md", Line: 5, Column: 9, Pointer: "/status",
		Message: "status must be one of complete, partial, failed"}
	for name, c := range map[string]struct {
		f   finding.Finding
		raw func(finding.Finding) ([]byte, error)
	}{
		"audit":      {audit, func(f finding.Finding) ([]byte, error) { return json.Marshal(finding.Audit(f)) }},
		"positional": {positional, func(f finding.Finding) ([]byte, error) { return json.Marshal(f) }},
	} {
		raw, err := c.raw(c.f)
		if err != nil {
			t.Fatal(err)
		}
		got, err := findingFromJSON(raw)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if d := cmp.Diff(c.f, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", name, d)
		}
	}
}

func FuzzFindingFromJSON(f *testing.F) {
	f.Add([]byte(`{"kind":"unexpected_file","class":"warning","message":"m","file":"a"}`))
	f.Add([]byte(`{"rule":"schema.enum","class":"error","file":"r.md","line":5,"column":1,"pointer":"","message":"m"}`))
	f.Add([]byte(`{"line":1e99,"kind":[1,{"a":null}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			return
		}
		_, _ = findingFromJSON(data)
	})
}
