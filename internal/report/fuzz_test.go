package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/markdown"
	"github.com/mastermind-controller/mastermind/internal/yamlstrict"
)

// seedCorpus adds every golden input and every CommonMark example to f.
func seedCorpus(f *testing.F) {
	inputs, _ := filepath.Glob(filepath.Join("testdata", "*.md"))
	for _, in := range inputs {
		data, err := os.ReadFile(in)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	data, err := os.ReadFile(filepath.Join("..", "markdown", "testdata", "commonmark-fences-and-html.json"))
	if err != nil {
		f.Fatal(err)
	}
	var cm struct {
		Examples []struct {
			Markdown string `json:"markdown"`
		} `json:"examples"`
	}
	if err := json.Unmarshal(data, &cm); err != nil {
		f.Fatal(err)
	}
	for _, ex := range cm.Examples {
		f.Add([]byte(ex.Markdown))
		f.Add([]byte(BeginSentinel + "\n" + ex.Markdown + EndSentinel + "\n"))
	}
}

// FuzzValidate runs the whole pipeline on arbitrary bytes: it must never panic, findings must be
// sorted per §5.5 and well formed, and a typed report is returned exactly when there are none.
func FuzzValidate(f *testing.F) {
	seedCorpus(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		res := Validate(data, "r.md")
		checkFastAgrees(t, data)
		if (res.Report != nil) != (len(res.Findings) == 0) {
			t.Fatalf("Report non-nil = %v with %d findings", res.Report != nil, len(res.Findings))
		}
		if res.Report != nil && (res.Form == "" || res.Report.Form != res.Form || res.Report.SchemaVersion != 1) {
			t.Fatalf("valid report with form %q / %q version %d", res.Form, res.Report.Form, res.Report.SchemaVersion)
		}
		if !slices.IsSortedFunc(res.Findings, finding.ComparePosition) {
			t.Fatalf("findings not sorted: %v", res.Findings)
		}
		for _, fd := range res.Findings {
			if fd.Rule == "" || fd.Message == "" || fd.Class != finding.ClassError || fd.File != "r.md" || fd.Line < 0 || fd.Column < 0 || (fd.Line == 0) != (fd.Column == 0) {
				t.Fatalf("malformed finding %#v", fd)
			}
		}
		// The usable parts exist only beside findings, and evidence only for a typed report.
		if res.Partial != nil && (res.Report != nil || !slices.IsSorted(res.Partial.Dropped)) {
			t.Fatalf("partial %v beside report %v", res.Partial, res.Report)
		}
		if len(res.Evidence) > 0 && res.Report == nil && res.Partial == nil {
			t.Fatalf("evidence without a typed report: %v", res.Evidence)
		}
		for _, fd := range res.Evidence {
			if fd.Message == "" || fd.Class != finding.ClassError || fd.File != "r.md" || !strings.HasPrefix(fd.Pointer, "/verifications/") {
				t.Fatalf("malformed evidence %#v", fd)
			}
		}
	})
}

// FuzzExtract exercises sentinel and fence location: locate must not panic, a located sentinel
// form must map every content line back to a real source line, and every code block's content
// positions must stay inside the document.
func FuzzExtract(f *testing.F) {
	seedCorpus(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		md := markdown.Parse(data)
		n := md.LineCount()
		for _, fb := range md.CodeBlocks() {
			if fb.OpenLine < 1 || fb.OpenLine > n+1 || fb.CloseLine < 0 || fb.CloseLine > n {
				t.Fatalf("fence lines open %d close %d outside 1..%d", fb.OpenLine, fb.CloseLine, n)
			}
			for i, cl := range fb.Lines {
				if l, c := fb.ContentPosition(i+1, 1); l != cl.Line || c < 1 || l < 1 || l > n {
					t.Fatalf("content line %d maps to %d:%d (segment line %d, %d lines)", i+1, l, c, cl.Line, n)
				}
			}
		}
		c := &checker{file: "r.md"}
		loc := c.locate(markdown.ParseBlocks(data), data)
		if !mayHoldSentinel(data) {
			// Skipping the Markdown parse without sentinel tokens must not change the outcome.
			c2 := &checker{file: "r.md"}
			loc2 := c2.locate(nil, data)
			if (loc == nil) != (loc2 == nil) || !reflect.DeepEqual(c.findings, c2.findings) {
				t.Fatalf("locate without Markdown differs: %v %v / %v %v", loc, c.findings, loc2, c2.findings)
			}
		}
		if loc != nil && len(c.findings) > 0 {
			t.Fatalf("located a %s report with locate findings %v", loc.form, c.findings)
		}
		if loc == nil && len(c.findings) == 0 {
			t.Fatal("nothing located and no finding")
		}
		if loc != nil && loc.form == FormSentinel {
			if loc.fence == nil || loc.fence.Info != "yaml" || loc.fence.CloseLine == 0 {
				t.Fatalf("sentinel form without a closed yaml fence: %+v", loc.fence)
			}
		}
	})
}

// checkFastAgrees decodes data as bare YAML and checks that the fast schema check never accepts a
// value the full jsonschema/v6 validator rejects.
func checkFastAgrees(t *testing.T, data []byte) {
	doc, _ := yamlstrict.Decode(data)
	if doc == nil {
		return
	}
	sd, err := loadSchema()
	if err != nil {
		t.Fatal(err)
	}
	if sd.fastValid(doc.Value, sd.root, 0) {
		if err := sd.compiled.Validate(doc.Value); err != nil {
			t.Fatalf("fast check accepted a value the validator rejects: %v", err)
		}
	}
}
