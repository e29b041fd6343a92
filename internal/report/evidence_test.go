package report

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// describe renders a typed report compactly for the evidence goldens.
func describe(r *Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "  spec=%q status=%q\n", r.Spec, r.Status)
	for _, p := range r.Phases {
		fmt.Fprintf(&b, "  phase %s %s\n", p.ID, p.Status)
	}
	for _, f := range r.FilesModified {
		fmt.Fprintf(&b, "  file %s\n", f.Path)
	}
	for _, c := range r.Claims {
		sym := ""
		if c.Symbol != nil {
			sym = *c.Symbol
		}
		fmt.Fprintf(&b, "  claim %d %s %s\n", c.Index, c.Kind, sym)
	}
	for _, d := range r.Defects {
		fmt.Fprintf(&b, "  defect %s\n", d.Kind)
	}
	for _, v := range r.Verifications {
		obs := "-"
		if v.Observed != nil {
			obs = ""
			if v.Observed.ExitCode != nil {
				obs += fmt.Sprintf("exit=%d ", *v.Observed.ExitCode)
			}
			if v.Observed.TestsRun != nil {
				obs += fmt.Sprintf("tests=%d", *v.Observed.TestsRun)
			}
		}
		fmt.Fprintf(&b, "  verification %d %q %s %s\n", v.Index, v.Cmd, v.Result, strings.TrimSpace(obs))
	}
	if r.Dropped != nil {
		fmt.Fprintf(&b, "  dropped %v\n", r.Dropped)
	}
	return b.String()
}

// evidenceText renders everything `report validate` prints, then the typed or partial report.
func evidenceText(r Result) string {
	var b strings.Builder
	for _, f := range r.All() {
		b.WriteString(f.String())
		b.WriteByte('\n')
	}
	switch {
	case r.Report != nil:
		b.WriteString("report:\n" + describe(r.Report))
	case r.Partial != nil:
		b.WriteString("partial:\n" + describe(r.Partial))
	}
	return b.String()
}

// TestEvidenceGolden validates testdata/evidence/*.md: the audit rules `report validate` applies
// without git or spec (lifecycle-v2.md §6) and the usable parts of a rejected report (§5.6).
func TestEvidenceGolden(t *testing.T) {
	eachGolden(t, goldenInputs(t, filepath.Join("testdata", "evidence", "*.md"), 1), func(t *testing.T, name string, data []byte) (string, func()) {
		return evidenceText(Validate(data, name+".md")), func() {
			good := strings.Contains(name, "_good_")
			if hasEvidence := len(Validate(data, "x").All()) > 0; hasEvidence == good {
				t.Errorf("a _good_ case must have no finding and every other case at least one")
			}
		}
	})
}

// TestPartialNeverHoldsRefusedValues checks that a partial report leaves out every element a
// value or schema rule refused and keeps the report positions of the rest.
func TestPartialNeverHoldsRefusedValues(t *testing.T) {
	res := Validate([]byte("schema_version: 1\nspec: s.md\nstatus: complete\nphases: []\nfiles_modified: [a.go, /abs, b.go]\nclaims: []\ndefects: []\nverifications:\n  - {cmd: go test ./..., result: pass, observed: {exit_code: 0}}\n  - {cmd: x, result: maybe}\n  - {cmd: y, result: pass, observed: {exit_code: 1}}\n"), "r.yaml")
	if res.Report != nil || res.Partial == nil {
		t.Fatalf("report %v partial %v", res.Report, res.Partial)
	}
	p := res.Partial
	var files []string
	for _, f := range p.FilesModified {
		files = append(files, f.Path)
	}
	var rows []int
	for _, v := range p.Verifications {
		rows = append(rows, v.Index)
	}
	if d := cmp.Diff([]string{"a.go", "b.go"}, files); d != "" {
		t.Errorf("files %s", d)
	}
	if d := cmp.Diff([]int{0, 2}, rows); d != "" {
		t.Errorf("rows %s", d)
	}
	if d := cmp.Diff([]string{"/files_modified/1", "/verifications/1"}, p.Dropped); d != "" {
		t.Errorf("dropped %s", d)
	}
	if len(res.Evidence) != 1 || res.Evidence[0].Rule != "observed_exit_code_non_zero" || res.Evidence[0].Pointer != "/verifications/2/observed/exit_code" || res.Evidence[0].Line != 11 {
		t.Errorf("evidence %v", res.Evidence)
	}
	if res.Valid() {
		t.Error("valid")
	}
}
