package jsonschema

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// TestTrustedCompileLeavesMetaschemasUncompiled must run first in this package: nothing else has
// compiled the metaschemas yet, and a trusted compile must not.
func TestTrustedCompileLeavesMetaschemasUncompiled(t *testing.T) {
	if Draft2020.sch != nil {
		t.Skip("the metaschemas were compiled by an earlier run of this package's tests (-count)")
	}
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
// first use and a schema breaking them is refused, as upstream does at package init. The first
// uses race on purpose (go test -race): a schema under a metaschema declaring $vocabulary reads
// the vocabulary names while another goroutine compiles the metaschemas.
func TestUntrustedCompileChecksTheMetaschema(t *testing.T) {
	// A metaschema of its own, whose $vocabulary getVocabs reads.
	meta := map[string]any{"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "mem:///meta.json",
		"$vocabulary": map[string]any{"https://json-schema.org/draft/2020-12/vocab/core": true,
			"https://json-schema.org/draft/2020-12/vocab/validation": true}}
	docs := []map[string]any{
		{"type": "string", "title": 5.0},
		{"$schema": "mem:///meta.json", "type": "string"},
	}
	errs := make([]error, 8)
	var wg sync.WaitGroup
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := NewCompiler()
			if err := c.AddResource("mem:///meta.json", meta); err != nil {
				errs[i] = err
				return
			}
			url := fmt.Sprintf("mem:///b%d.json", i)
			if err := c.AddResource(url, docs[i%2]); err != nil {
				errs[i] = err
				return
			}
			_, errs[i] = c.Compile(url)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		var sve *SchemaValidationError
		switch {
		case i%2 == 0 && (!errors.As(err, &sve) || !strings.Contains(err.Error(), "title")):
			t.Errorf("compile %d: err = %v, want a SchemaValidationError at title", i, err)
		case i%2 == 1 && err != nil:
			t.Errorf("compile %d ($vocabulary): %v", i, err)
		}
	}
	for _, d := range []*Draft{Draft4, Draft6, Draft7, Draft2019, Draft2020} {
		if d.sch == nil {
			t.Errorf("%s metaschema not compiled", d)
		}
	}
}
