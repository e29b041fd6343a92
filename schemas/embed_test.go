package schemas

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestNamesAndGet(t *testing.T) {
	names := Names()
	if !slices.Contains(names, "executor-report-v1") {
		t.Fatalf("Names() = %v, want executor-report-v1 among them", names)
	}
	for _, n := range names {
		got, ok := Get(n)
		want, err := os.ReadFile(n + ".schema.json")
		if !ok || err != nil || !bytes.Equal(got, want) {
			t.Errorf("Get(%q) does not return the file's bytes (ok=%v, err=%v)", n, ok, err)
		}
	}
	for _, bad := range []string{"", "nope", "../embed", "executor-report-v1.schema.json"} {
		if _, ok := Get(bad); ok {
			t.Errorf("Get(%q) succeeded", bad)
		}
	}
	if _, err := Compile("nope"); err == nil {
		t.Error("Compile(nope) succeeded")
	}
}

// TestEveryEmbeddedSchemaCompiles compiles each embedded schema and checks it is compiled once.
func TestEveryEmbeddedSchemaCompiles(t *testing.T) {
	for _, n := range Names() {
		s1, err := Compile(n)
		if err != nil {
			t.Errorf("%s: %v", n, err)
			continue
		}
		s2, _ := Compile(n)
		if s1 != s2 {
			t.Errorf("%s compiled twice", n)
		}
	}
}

// TestEveryEmbeddedSchemaMeetsTheMetaschema validates each embedded schema against the draft
// 2020-12 metaschema, the check Compile leaves out at run time.
func TestEveryEmbeddedSchemaMeetsTheMetaschema(t *testing.T) {
	for _, n := range Names() {
		if _, err := compile(n, false); err != nil {
			t.Errorf("%s: %v", n, err)
		}
	}
}

// TestExamples validates testdata/<name>/valid/*.json (must pass) and
// testdata/<name>/invalid/*.json (must fail) against each embedded schema. The valid
// executor-report-v1 instances are the §8.1 examples V1–V3.
func TestExamples(t *testing.T) {
	seen := 0
	for _, n := range Names() {
		s, err := Compile(n)
		if err != nil {
			t.Fatal(err)
		}
		for _, kind := range []string{"valid", "invalid"} {
			files, _ := filepath.Glob(filepath.Join("testdata", n, kind, "*.json"))
			for _, f := range files {
				data, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				var v any
				dec := json.NewDecoder(bytes.NewReader(data))
				dec.UseNumber()
				if err := dec.Decode(&v); err != nil {
					t.Fatalf("%s: %v", f, err)
				}
				err = s.Validate(v)
				if kind == "valid" && err != nil {
					t.Errorf("%s: %v", f, err)
				}
				if kind == "invalid" && err == nil {
					t.Errorf("%s: validated, want an error", f)
				}
				seen++
			}
		}
	}
	if seen < 9 {
		t.Fatalf("only %d schema examples found", seen)
	}
}
