package yamlstrict

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// suiteDir holds a copy of /work/shared/testdata/yaml-test-suite (51 cases of
// the official YAML test suite, each with in.yaml and either in.json or an
// empty error file, plus meta.json saying why the case was chosen).
const suiteDir = "testdata/yaml-test-suite"

type suiteCase struct {
	ID, Dir  string
	Meta     map[string]string
	YAML     []byte
	JSON     []byte // nil when the case has no in.json
	WantsErr bool
}

func loadSuite(t testing.TB) []suiteCase {
	t.Helper()
	dirs, err := os.ReadDir(suiteDir)
	if err != nil {
		t.Fatalf("read suite: %v", err)
	}
	var cases []suiteCase
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		dir := filepath.Join(suiteDir, d.Name())
		c := suiteCase{ID: d.Name(), Dir: dir}
		metaRaw, err := os.ReadFile(filepath.Join(dir, "meta.json"))
		if err != nil {
			t.Fatalf("%s: %v", d.Name(), err)
		}
		if err := json.Unmarshal(metaRaw, &c.Meta); err != nil {
			t.Fatalf("%s meta.json: %v", d.Name(), err)
		}
		if c.YAML, err = os.ReadFile(filepath.Join(dir, "in.yaml")); err != nil {
			t.Fatalf("%s: %v", d.Name(), err)
		}
		if b, err := os.ReadFile(filepath.Join(dir, "in.json")); err == nil {
			c.JSON = b
		}
		if _, err := os.Stat(filepath.Join(dir, "error")); err == nil {
			c.WantsErr = true
		}
		if c.WantsErr != (c.Meta["suite_expectation"] == "error") {
			t.Fatalf("%s: error file and meta.json disagree", c.ID)
		}
		cases = append(cases, c)
	}
	if len(cases) < 50 {
		t.Fatalf("only %d suite cases found in %s", len(cases), suiteDir)
	}
	return cases
}

// jsonStream decodes every JSON text in b (in.json holds one per document).
func jsonStream(t testing.TB, b []byte) []any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	var out []any
	for {
		var v any
		err := dec.Decode(&v)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("in.json: %v", err)
		}
		out = append(out, v)
	}
}

// TestYAMLTestSuite: every error case is rejected; every other case is either
// accepted with a value equal to in.json (JSON-normalised) or rejected by a
// named rule; there is never a panic and never a silently different value.
func TestYAMLTestSuite(t *testing.T) {
	cases := loadSuite(t)
	classes := map[string][]string{}
	for _, c := range cases {
		doc, issues := Decode(c.YAML)
		rules := map[string]bool{}
		for _, is := range issues {
			if is.Rule == "" || is.Message == "" {
				t.Errorf("%s: issue without rule or message: %+v", c.ID, is)
			}
			rules[is.Rule] = true
		}
		var ruleList []string
		for r := range rules {
			ruleList = append(ruleList, r)
		}
		sort.Strings(ruleList)
		class := ""
		switch {
		case c.WantsErr:
			if len(issues) == 0 {
				t.Errorf("%s (%s): error case accepted with value %#v", c.ID, c.Meta["name"], doc.Value)
				continue
			}
			class = "error case rejected: " + strings.Join(ruleList, ",")
		case len(issues) > 0:
			class = "rejected by rule: " + strings.Join(ruleList, ",")
			if strings.HasPrefix(ruleList[0], "decode.") && doc != nil {
				t.Errorf("%s: decode issue with a non-nil doc", c.ID)
			}
		default:
			if c.JSON == nil {
				t.Errorf("%s (%s): accepted but the suite has no JSON form for it: %#v", c.ID, c.Meta["name"], doc.Value)
				continue
			}
			docs := jsonStream(t, c.JSON)
			if len(docs) != 1 {
				t.Errorf("%s: accepted, but in.json holds %d documents", c.ID, len(docs))
				continue
			}
			if diff := cmp.Diff(docs[0], normJSON(t, doc.Value)); diff != "" {
				t.Errorf("%s (%s): value differs from in.json (-want +got):\n%s", c.ID, c.Meta["name"], diff)
				continue
			}
			checkNodes(t, doc)
			class = "accepted, equal to in.json"
		}
		classes[class] = append(classes[class], c.ID)
	}
	var keys []string
	for k := range classes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	t.Logf("%d yaml-test-suite cases:", len(cases))
	for _, k := range keys {
		t.Logf("  %2d %s: %s", len(classes[k]), k, strings.Join(classes[k], " "))
	}
}
