package yamlstrict

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// seedFromSuite adds every in.yaml and in.json of the YAML test suite copy.
func seedFromSuite(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(suiteDir, "*", "in.*"))
	if len(files) == 0 {
		f.Fatal("no suite inputs to seed from")
	}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// checkContract asserts the Decode/DecodeJSON contract on any input.
func checkContract(t *testing.T, doc *Doc, issues []Issue) {
	t.Helper()
	for _, is := range issues {
		if is.Rule == "" || is.Message == "" {
			t.Fatalf("issue without rule or message: %+v", is)
		}
		decodeRule := strings.HasPrefix(is.Rule, "decode.")
		if decodeRule != (doc == nil) {
			t.Fatalf("issue %+v with doc=%v", is, doc != nil)
		}
	}
	if doc == nil {
		if len(issues) == 0 {
			t.Fatal("nil doc without an issue")
		}
		return
	}
	if _, ok := doc.Value.(map[string]any); !ok && doc.Value != nil {
		t.Fatalf("root value is %T", doc.Value)
	}
	if _, err := json.Marshal(doc.Value); err != nil {
		t.Fatalf("value is not JSON-compatible: %v", err)
	}
	checkNodes(t, doc)
	if len(issues) == 0 {
		// A clean value round-trips through the JSON decoder unchanged.
		b, _ := json.Marshal(doc.Value)
		back, backIssues := DecodeJSON(b)
		if len(backIssues) != 0 {
			t.Fatalf("re-decoding %s: %+v", b, backIssues)
		}
		if diff := cmp.Diff(normJSON(t, doc.Value), normJSON(t, back.Value)); diff != "" {
			t.Fatalf("JSON round trip differs:\n%s", diff)
		}
	}
}

func FuzzDecode(f *testing.F) {
	seedFromSuite(f)
	f.Add([]byte("a: [x,\n]\nb: \"q\\'\"#\nc: ! 1\n"))
	f.Add([]byte("- &a [*a]\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) > 1<<16 {
			return
		}
		doc, issues := Decode(src)
		checkContract(t, doc, issues)
	})
}

func FuzzDecodeJSON(f *testing.F) {
	seedFromSuite(f)
	f.Add([]byte(`{"a": [1, 1.0, -0, 1e3, "\/\ud83d\ude00", null, true], "a": {}}`))
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) > 1<<16 {
			return
		}
		doc, issues := DecodeJSON(src)
		checkContract(t, doc, issues)
		syntaxErr := len(issues) > 0 && issues[0].Rule == RuleSyntax
		// encoding/json is the oracle for syntax, except for what this decoder
		// deliberately rejects (lone surrogates, >10000 levels) or tolerates (a
		// leading BOM, an empty text reported as not_mapping, invalid UTF-8
		// which encoding/json silently replaces).
		if utf8.Valid(src) && !bytes.HasPrefix(src, bom) && len(bytes.TrimSpace(src)) > 0 && !bytes.Contains(bytes.ToLower(src), []byte(`\ud`)) &&
			bytes.Count(src, []byte("[")) < maxJSONNesting && bytes.Count(src, []byte("{")) < maxJSONNesting {
			if valid := json.Valid(src); valid == syntaxErr {
				t.Fatalf("json.Valid=%v but issues=%+v", valid, issues)
			}
		}
		if doc != nil && len(issues) == 0 {
			var want any
			if err := json.Unmarshal(bytes.TrimPrefix(src, bom), &want); err != nil {
				t.Fatalf("accepted but encoding/json fails: %v", err)
			}
			if diff := cmp.Diff(want, normJSON(t, doc.Value)); diff != "" {
				t.Fatalf("value differs from encoding/json:\n%s", diff)
			}
		}
	})
}
