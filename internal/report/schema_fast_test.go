package report

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mastermind-controller/mastermind/internal/yamlstrict"
)

// TestFastValidAgrees checks the fast schema check against the full validator on every bare
// golden input and on the §8.1 examples, in both directions.
func TestFastValidAgrees(t *testing.T) {
	sd, err := loadSchema()
	if err != nil {
		t.Fatal(err)
	}
	inputs, _ := filepath.Glob(filepath.Join("testdata", "*.md"))
	checked := 0
	for _, in := range inputs {
		data, _ := os.ReadFile(in)
		doc, _ := yamlstrict.Decode(data)
		if doc == nil {
			if doc, _ = yamlstrict.DecodeJSON(data); doc == nil {
				continue
			}
		}
		fast := sd.fastValid(doc.Value, sd.root, 0)
		full := sd.compiled.Validate(doc.Value) == nil
		if fast != full {
			t.Errorf("%s: fast %v, full %v", in, fast, full)
		}
		checked++
	}
	if checked < 20 {
		t.Fatalf("only %d inputs decoded", checked)
	}
}
