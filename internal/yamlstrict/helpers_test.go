package yamlstrict

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mastermind-controller/mastermind/internal/jsonptr"
)

// want is the compact form of an expected Issue: "rule pointer line:col".
type want = string

func issueKey(is Issue) string {
	return fmt.Sprintf("%s %s %d:%d", is.Rule, is.Pointer, is.Pos.Line, is.Pos.Column)
}

func issueKeys(issues []Issue) []string {
	out := []string{}
	for _, is := range issues {
		out = append(out, issueKey(is))
	}
	return out
}

// normJSON turns a value into its JSON-normalised form (numbers as float64).
func normJSON(t testing.TB, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal %#v: %v", v, err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("unmarshal %s: %v", b, err)
	}
	return out
}

func parseJSONValue(t testing.TB, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("bad expected JSON %q: %v", s, err)
	}
	return v
}

type decodeCase struct {
	name   string
	src    string
	value  string // expected Value as JSON ("" = do not check; "-" = nil Doc)
	issues []want
}

func runDecodeCases(t *testing.T, decode func([]byte) (*Doc, []Issue), cases []decodeCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			doc, issues := decode([]byte(tc.src))
			if diff := cmp.Diff(append([]string{}, tc.issues...), issueKeys(issues)); diff != "" {
				t.Errorf("issues (-want +got):\n%s\nfull: %+v", diff, issues)
			}
			for _, is := range issues {
				if is.Message == "" || strings.Contains(is.Message, "%!") {
					t.Errorf("bad message %q", is.Message)
				}
			}
			switch tc.value {
			case "":
			case "-":
				if doc != nil {
					t.Errorf("doc = %#v, want nil", doc.Value)
				}
			default:
				if doc == nil {
					t.Fatalf("doc is nil, want %s", tc.value)
				}
				if diff := cmp.Diff(parseJSONValue(t, tc.value), normJSON(t, doc.Value)); diff != "" {
					t.Errorf("value (-want +got):\n%s", diff)
				}
				checkNodes(t, doc)
			}
		})
	}
}

// checkNodes asserts the Nodes invariants: every pointer reachable in Value
// has a Node whose Keys/Len match the value.
func checkNodes(t *testing.T, doc *Doc) {
	t.Helper()
	var visit func(ptr string, v any)
	visit = func(ptr string, v any) {
		n, ok := doc.Nodes[ptr]
		if !ok {
			t.Errorf("no node for pointer %q", ptr)
			return
		}
		if n.Pos.Line < 1 || n.Pos.Column < 1 {
			t.Errorf("node %q has no position: %+v", ptr, n.Pos)
		}
		switch x := v.(type) {
		case map[string]any:
			if n.Kind != KindMap || len(n.Keys) != len(x) {
				t.Errorf("node %q = %+v for a mapping of %d keys", ptr, n, len(x))
			}
			for _, k := range n.Keys {
				if _, ok := x[k]; !ok {
					t.Errorf("node %q lists key %q not in the value", ptr, k)
				}
				visit(jsonptr.Append(ptr, k), x[k])
			}
		case []any:
			if n.Kind != KindList || n.Len != len(x) {
				t.Errorf("node %q = %+v for a list of %d items", ptr, n, len(x))
			}
			for i, item := range x {
				visit(jsonptr.AppendIndex(ptr, i), item)
			}
		case string:
			if n.Kind != KindString {
				t.Errorf("node %q kind %v for a string", ptr, n.Kind)
			}
		case int64:
			if n.Kind != KindInt {
				t.Errorf("node %q kind %v for an int", ptr, n.Kind)
			}
		case float64:
			if n.Kind != KindFloat {
				t.Errorf("node %q kind %v for a float", ptr, n.Kind)
			}
		case bool:
			if n.Kind != KindBool {
				t.Errorf("node %q kind %v for a bool", ptr, n.Kind)
			}
		case nil:
		default:
			t.Errorf("node %q holds %T, not a JSON-compatible value", ptr, v)
		}
		if ptr != "" && n.KeyPos.Line == 0 {
			// list items have no key; mapping entries must
			if _, isList := parentValue(doc, ptr).([]any); !isList {
				t.Errorf("node %q has no key position", ptr)
			}
		}
	}
	visit("", doc.Value)
}

func parentValue(doc *Doc, ptr string) any {
	i := strings.LastIndex(ptr, "/")
	parent := ptr[:i]
	v := doc.Value
	if parent == "" {
		return v
	}
	for _, tok := range strings.Split(parent[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch x := v.(type) {
		case map[string]any:
			v = x[tok]
		case []any:
			var n int
			fmt.Sscan(tok, &n)
			v = x[n]
		}
	}
	return v
}

func jsonMarshalIndent(v any) ([]byte, error) { return json.MarshalIndent(v, "", "  ") }
