package filter

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func loadBrief(t testing.TB, name string) *Declaration {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	d, err := ParseBrief(data, name)
	if err != nil {
		t.Fatalf("ParseBrief(%s): %v", name, err)
	}
	return d
}

func mustSchema(t testing.TB, src string) *Schema {
	t.Helper()
	s, err := CompileSchema([]byte(src))
	if err != nil {
		t.Fatalf("CompileSchema: %v", err)
	}
	return s
}

// run checks raw and returns the item lines (nil when accepted) and the clean output.
func run(t testing.TB, d *Declaration, raw string) (*Result, []string) {
	t.Helper()
	res, err := Check(context.Background(), []byte(raw), d, nil)
	if err != nil {
		t.Fatalf("Check: %v", err)
	}
	var lines []string
	for _, it := range res.Items {
		lines = append(lines, it.String())
	}
	if res.Accepted != (len(res.Items) == 0) {
		t.Fatalf("Accepted=%v with %d items", res.Accepted, len(res.Items))
	}
	return res, lines
}
