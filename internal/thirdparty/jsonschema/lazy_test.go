package jsonschema

import (
	"errors"
	"strings"
	"testing"
)

// TestTrustedCompileLeavesMetaschemasUncompiled must run first in this package: nothing else has
// compiled the metaschemas yet, and a trusted compile must not.
func TestTrustedCompileLeavesMetaschemasUncompiled(t *testing.T) {
	c := NewCompiler()
	c.TrustSchemas()
	if err := c.AddResource("mem:///a.json", map[string]any{"type": "string", "title": 5.0}); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("mem:///a.json")
	if err != nil {
		t.Fatalf("trusted compile of a schema breaking the metaschema: %v", err)
	}
	if s.Validate("x") != nil || s.Validate(1.0) == nil {
		t.Error("the trusted schema does not validate as compiled")
	}
	for _, d := range []*Draft{Draft4, Draft6, Draft7, Draft2019, Draft2020} {
		if d.sch != nil {
			t.Errorf("%s metaschema compiled by a trusted compile", d)
		}
	}
}

// TestUntrustedCompileChecksTheMetaschema: without TrustSchemas the metaschemas are compiled on
// first use and a schema breaking them is refused, as upstream does at package init.
func TestUntrustedCompileChecksTheMetaschema(t *testing.T) {
	c := NewCompiler()
	if err := c.AddResource("mem:///b.json", map[string]any{"type": "string", "title": 5.0}); err != nil {
		t.Fatal(err)
	}
	_, err := c.Compile("mem:///b.json")
	var sve *SchemaValidationError
	if !errors.As(err, &sve) || !strings.Contains(err.Error(), "title") {
		t.Fatalf("err = %v, want a SchemaValidationError at title", err)
	}
	for _, d := range []*Draft{Draft4, Draft6, Draft7, Draft2019, Draft2020} {
		if d.sch == nil {
			t.Errorf("%s metaschema not compiled", d)
		}
	}
}
