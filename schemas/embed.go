// Package schemas embeds mastermind's JSON Schemas (executor-report-v1.md Appendix A,
// spec-and-lifecycle.md state.json) and compiles each once with
// github.com/santhosh-tekuri/jsonschema/v6 (conventions.md practice 13). The files live beside
// this package because go:embed cannot reach a parent directory.
package schemas

import (
	"bytes"
	"embed"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/mastermind-controller/mastermind/internal/thirdparty/jsonschema"
)

//go:embed *.schema.json
var files embed.FS

const suffix = ".schema.json"

// Names returns the names of the embedded schemas (file names without ".schema.json"), sorted.
func Names() []string {
	entries, err := files.ReadDir(".")
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), suffix) {
			names = append(names, strings.TrimSuffix(e.Name(), suffix))
		}
	}
	sort.Strings(names)
	return names
}

// Get returns the bytes of the embedded schema name (without ".schema.json"), exactly as stored.
func Get(name string) ([]byte, bool) {
	if name == "" || strings.ContainsAny(name, "/\\") {
		return nil, false
	}
	b, err := files.ReadFile(name + suffix)
	if err != nil {
		return nil, false
	}
	return b, true
}

var (
	mu       sync.Mutex
	compiled = map[string]*compileResult{}
)

type compileResult struct {
	once   sync.Once
	schema *jsonschema.Schema
	err    error
}

// Compile returns the compiled schema name. Each name is compiled once per process; later calls
// return the same *jsonschema.Schema (or the same error). Remote references are refused: a schema
// may only refer into itself.
func Compile(name string) (*jsonschema.Schema, error) {
	mu.Lock()
	r, ok := compiled[name]
	if !ok {
		r = &compileResult{}
		compiled[name] = r
	}
	mu.Unlock()
	r.once.Do(func() { r.schema, r.err = compile(name, true) })
	return r.schema, r.err
}

// compile compiles the embedded schema name. trusted skips its validation against the draft
// 2020-12 metaschema, which a test does instead (the schemas are fixed at build time), so that a
// run never compiles the metaschemas.
func compile(name string, trusted bool) (*jsonschema.Schema, error) {
	data, ok := Get(name)
	if !ok {
		return nil, fmt.Errorf("no embedded schema %q (have %s)", name, strings.Join(Names(), ", "))
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", name, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if trusted {
		c.TrustSchemas()
	}
	c.UseLoader(refuseLoader(name))
	url := "mastermind:///schemas/" + name + suffix
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("schema %s: %w", name, err)
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", name, err)
	}
	return s, nil
}

// refuseLoader refuses every remote reference of the schema name.
type refuseLoader string

func (l refuseLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("schema %s: remote reference %s refused", string(l), url)
}
