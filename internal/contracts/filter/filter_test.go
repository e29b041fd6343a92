package filter

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const validJSON = `{"tests_added": ["src/a.test.ts:1"], "files_changed": ["src/a.ts"], "test_command": "npm test", "test_output_tail": "\u001b[32m PASS \u001b[0m  \n3 passed  ", "commits": ["abc1234 — test: add failing test"]}`

const validIndented = `{
  "tests_added": [
    "src/a.test.ts:1"
  ],
  "files_changed": [
    "src/a.ts"
  ],
  "test_command": "npm test",
  "test_output_tail": "\u001b[32m PASS \u001b[0m  \n3 passed  ",
  "commits": [
    "abc1234 — test: add failing test"
  ]
}
`

func fence(s string) string { return "```json\n" + s + "\n```\n" }

// replace returns validJSON with one key's value replaced (raw JSON text).
func with(key, value string) string {
	i := strings.Index(validJSON, `"`+key+`": `)
	if i < 0 {
		// add the key at the end
		return validJSON[:len(validJSON)-1] + `, "` + key + `": ` + value + "}"
	}
	j := i + len(key) + 4
	depth, k := 0, j
	for ; k < len(validJSON); k++ {
		c := validJSON[k]
		if c == '[' || c == '{' {
			depth++
		} else if c == ']' || c == '}' {
			if depth == 0 {
				break
			}
			depth--
		} else if c == '"' {
			for k++; validJSON[k] != '"'; k++ {
				if validJSON[k] == '\\' {
					k++
				}
			}
		} else if c == ',' && depth == 0 {
			break
		}
		if depth == 0 && (c == ']' || c == '}' || c == '"') && k > j {
			if c != '"' || validJSON[j] == '"' {
				k++
				break
			}
		}
	}
	return validJSON[:j] + value + validJSON[k:]
}

func TestVariantA(t *testing.T) {
	d := loadBrief(t, "brief.md")
	d.Union = false
	noBlockItems := []string{
		"(output) (required, object) — no JSON object found; return the report as one JSON object, optionally in a ```json fence",
		"tests_added (required, array of string) — absent",
		"files_changed (required, array of paths) — absent",
		"test_command (required, string) — absent",
		"test_output_tail (required, string) — absent",
		"commits (required, array of string) — absent",
	}
	tests := []struct {
		name string
		raw  string
		want []string // nil: accepted
	}{
		{"whole return is JSON", "\n  " + validJSON + "\n\n", nil},
		{"pleasantries around a fenced block", "Hi! I looked into it as you asked.\n\n" + fence(validJSON) + "\nLet me know if you want more!\n", nil},
		{"fence after prose", "I found that the middleware is fine.\nHere is the report:\n" + fence(validJSON), nil},
		{"fence inside a list item", "- report:\n\n  ```json\n  " + validJSON + "\n  ```\n", nil},
		{"two blocks: the last one is validated", fence(`{"draft": true}`) + "final:\n" + fence(validJSON), nil},
		{"two blocks: a bad last one is not rescued", fence(validJSON) + "final:\n" + fence(`{"tests_added": []}`), []string{
			"files_changed (required, array of paths) — absent",
			"test_command (required, string) — absent",
			"test_output_tail (required, string) — absent",
			"commits (required, array of string) — absent",
		}},
		{"malformed last block, no fallback", fence(validJSON) + "\n```json\n{\"a\": 1,}\n```\n", []string{
			"(output) (required, object) — malformed JSON: invalid character '}' looking for beginning of object key string at line 6, column 9",
		}},
		{"malformed bare JSON", "{\"tests_added\": [\"a\"\n", []string{
			"(output) (required, object) — malformed JSON: unexpected end of JSON input at line 1, column 21",
		}},
		{"duplicate key is malformed", fence(`{"a": 1, "a": 2}`), []string{
			`(output) (required, object) — malformed JSON: duplicate object key "a" at line 2, column 10`,
		}},
		{"root is an array", `[1, 2]`, []string{"(output) (required, object) — got an array"}},
		{"root is a string in a fence", fence(`"done"`), []string{"(output) (required, object) — got a string"}},
		{"no block at all", "I did the task. It went well. Files got changed.", noBlockItems},
		{"a yaml fence is not json but a block", "```yaml\ntests_added: []\n```\n", []string{
			"files_changed (required, array of paths) — absent",
			"test_command (required, string) — absent",
			"test_output_tail (required, string) — absent",
			"commits (required, array of string) — absent",
		}},
		{"a string where a list is required", with("files_changed", `"src/a.ts and some others"`), []string{
			"files_changed (required, array of paths) — wrong type: got a string, not a list",
		}},
		{"no coercion of numbers in strings", with("duration_ms", `"42"`), []string{
			"duration_ms (optional, integer) — wrong type: got a string",
		}},
		{"null where not allowed", with("test_command", `null`), []string{"test_command (required, string) — null"}},
		{"enum", with("risk", `"extreme"`), []string{`risk (optional, any) — must be one of "low", "medium", "high"; got "extreme"`}},
		{"unknown key", with("notes", `"hi"`), []string{"notes (not allowed, any) — not declared in the OUTPUT schema"}},
		{"path:line forms", with("tests_added", `["src/a.go:0", "src/a.go:10-2", "/abs/a.go:3", "src/a.go:3-4", "a.go"]`), []string{
			`tests_added[0] (required, string) — not a path:line reference: "src/a.go:0"`,
			`tests_added[1] (required, string) — not a path:line reference: "src/a.go:10-2"`,
			`tests_added[2] (required, string) — not a path:line reference: "/abs/a.go:3"`,
			`tests_added[4] (required, string) — not a path:line reference: "a.go"`,
		}},
		{"uppercase sha in a commit line", with("commits", `["ABC1234 — x"]`), []string{
			`commits[0] (required, string) — not "<sha> — <subject>": "ABC1234 — x"`,
		}},
		{"short sha", with("head", `{"sha": "abc12"}`), []string{
			`head.sha (required, string) — not a commit SHA (7–40 lowercase hex): "abc12"`,
		}},
		{"nested absent", with("head", `{"subject": "x"}`), []string{"head.sha (required, string) — absent"}},
		{"repo-path hygiene", with("files_changed", `["../etc/passwd"]`), []string{
			`files_changed[0] (required, string) — not a repository-relative path: "../etc/passwd"`,
		}},
		{"union off: status is the schema's business", with("status", `"done"`), nil},
		{"union off: status type from the schema", with("status", `3`), []string{"status (optional, string) — wrong type: got a number"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, got := run(t, d, tt.raw)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Fatalf("items (-want +got):\n%s", diff)
			}
			if res.Accepted && tt.name != "union off: status is the schema's business" && string(res.Output) != validIndented {
				t.Fatalf("clean output:\n%s\nwant:\n%s", res.Output, validIndented)
			}
		})
	}
}

func TestAcceptedOutputKeepsLiteralsAndOrder(t *testing.T) {
	d := &Declaration{Mode: ModeJSONSchema, Schema: mustSchema(t, `{"type": "object"}`)}
	raw := "Sure!\n```json\n{\"z\": 1.50, \"a\": [], \"m\": {}, \"s\": \"<b>&amp; \\u2028 tab\\t\", \"e\": 1e3}\n```\nBye."
	res, items := run(t, d, raw)
	if items != nil {
		t.Fatal(items)
	}
	want := "{\n  \"z\": 1.50,\n  \"a\": [],\n  \"m\": {},\n  \"s\": \"<b>&amp; \u2028 tab\\t\",\n  \"e\": 1e3\n}\n"
	if diff := cmp.Diff(want, string(res.Output)); diff != "" {
		t.Fatal(diff)
	}
}

func TestNotUTF8(t *testing.T) {
	d := loadBrief(t, "brief.md")
	_, got := run(t, d, "{\"a\": \"\xff\"}")
	if diff := cmp.Diff([]string{"(output) (required, text) — not valid UTF-8"}, got); diff != "" {
		t.Fatal(diff)
	}
	// a leading BOM is stripped, not rejected
	if _, got := run(t, d, "\xef\xbb\xbf"+validJSON); got != nil {
		t.Fatal(got)
	}
}

func TestYAMLBlock(t *testing.T) {
	d := &Declaration{Mode: ModeJSONSchema, Schema: mustSchema(t, `{"type": "object", "required": ["a", "b"], "properties": {"a": {"type": "integer"}, "b": {"type": ["string", "null"]}}}`)}
	res, got := run(t, d, "Report:\n```yaml\nb: ~\na: 3\n```\n")
	if got != nil {
		t.Fatal(got)
	}
	if string(res.Output) != "{\n  \"b\": null,\n  \"a\": 3\n}\n" {
		t.Fatalf("%q", res.Output)
	}
	_, got = run(t, d, "```yaml\na: [1\n```\n")
	if len(got) != 1 || !strings.HasPrefix(got[0], "(output) (required, object) — malformed YAML: ") {
		t.Fatal(got)
	}
	_, got = run(t, d, "```yml\n- 1\n```\n")
	if len(got) != 1 || !strings.HasPrefix(got[0], "(output) (required, object) — got ") {
		t.Fatal(got)
	}
}
