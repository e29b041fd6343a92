package filter

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func headingsDecl(t *testing.T, reqs ...string) *Declaration {
	t.Helper()
	d := &Declaration{Mode: ModeHeadings}
	for _, r := range reqs {
		h, err := ParseHeading(r)
		if err != nil {
			t.Fatal(err)
		}
		d.Headings = append(d.Headings, h)
	}
	return d
}

func TestParseHeading(t *testing.T) {
	tests := []struct {
		in   string
		want Heading
	}{
		{"## Findings", Heading{Raw: "## Findings", Level: 2, Text: "Findings"}},
		{"  Findings  ", Heading{Raw: "Findings", Level: 0, Text: "Findings"}},
		{"### Root   cause ###", Heading{Raw: "### Root   cause ###", Level: 3, Text: "Root cause"}},
		{"#Findings", Heading{Raw: "#Findings", Level: 0, Text: "#Findings"}},
	}
	for _, tt := range tests {
		got, err := ParseHeading(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseHeading(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "   ", "##", "## ##"} {
		if _, err := ParseHeading(bad); err == nil {
			t.Errorf("ParseHeading(%q) must fail", bad)
		}
	}
}

func TestHeadingsMode(t *testing.T) {
	d := headingsDecl(t, "## Findings", "## Evidence")
	tests := []struct {
		name string
		raw  string
		want []string
		out  string // clean output when accepted
	}{
		{"ATX headings with preamble dropped", "Hi! Here you go.\n\n## Findings\nNo rate limiting.\n\n## Evidence\nauth.go:67\n",
			nil, "## Findings\nNo rate limiting.\n\n## Evidence\nauth.go:67\n"},
		{"setext level 2", "Findings\n--------\nx\n\nEvidence\n---\ny\n", nil, "Findings\n--------\nx\n\nEvidence\n---\ny\n"},
		{"closing hashes and case and spaces", "## findings ##\nx\n##   EVIDENCE   #####\ny\n", nil, "## findings ##\nx\n##   EVIDENCE   #####\ny\n"},
		{"order not enforced; output from the first", "pre\n## Evidence\ny\n## Findings\nx\n", nil, "## Evidence\ny\n## Findings\nx\n"},
		{"level mismatch", "### Findings\nx\n## Evidence\ny\n", []string{"## Findings (required, heading) — absent"}, ""},
		{"only inside a fence", "## Findings\nx\n```md\n## Evidence\ny\n```\n", []string{"## Evidence (required, heading) — absent"}, ""},
		{"inside a block quote or list", "## Findings\nx\n> ## Evidence\n> y\n- ## Evidence\n", []string{"## Evidence (required, heading) — absent"}, ""},
		{"template with empty sections", "## Findings\n\n## Evidence\n", []string{
			"## Findings (required, heading) — section is empty",
			"## Evidence (required, heading) — section is empty"}, ""},
		{"subheading alone is empty", "## Findings\n### Detail\n## Evidence\ny\n", []string{"## Findings (required, heading) — section is empty"}, ""},
		{"subsection content counts", "## Findings\n### Detail\nx\n## Evidence\ny\n", nil, "## Findings\n### Detail\nx\n## Evidence\ny\n"},
		{"empty fence is blank", "## Findings\n```\n```\n## Evidence\ny\n", []string{"## Findings (required, heading) — section is empty"}, ""},
		{"duplicate: the first is used", "## Findings\n## Findings\nx\n## Evidence\ny\n", []string{"## Findings (required, heading) — section is empty"}, ""},
		{"CRLF kept byte for byte", "hi\r\n## Findings\r\nx\r\n## Evidence\r\ny\r\n", nil, "## Findings\r\nx\r\n## Evidence\r\ny\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, got := run(t, d, tt.raw)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Fatalf("items (-want +got):\n%s", diff)
			}
			if res.Accepted && string(res.Output) != tt.out {
				t.Fatalf("output %q, want %q", res.Output, tt.out)
			}
		})
	}
	// a requirement without # matches any level
	if _, got := run(t, headingsDecl(t, "Findings"), "#### Findings\nx\n"); got != nil {
		t.Fatal(got)
	}
}

func TestHeadingsUnion(t *testing.T) {
	d := headingsDecl(t, "## Findings")
	d.Union = true
	res, got := run(t, d, halt(t, nil))
	if got != nil || res.Variant != VariantNeedsInput {
		t.Fatalf("needs_input halt in headings mode: %v %q", got, res.Variant)
	}
	_, got = run(t, d, halt(t, map[string]any{"status": "paused"}))
	if len(got) != 1 || !strings.Contains(got[0], "status discriminator") {
		t.Fatal(got)
	}
	if _, got = run(t, d, "## Findings\nx\n"); got != nil {
		t.Fatal(got)
	}
}

func TestParseBrief(t *testing.T) {
	const schema = `{"type": "object", "required": ["a"]}`
	tests := []struct {
		name  string
		brief string
		mode  Mode
		union bool
		err   string
	}{
		{"json-schema fence", "# T\n## OUTPUT\n```json-schema\n" + schema + "\n```\n", ModeJSONSchema, false, ""},
		{"json fence with type", "## Output: JSON\n```json\n" + schema + "\n```\n", ModeJSONSchema, false, ""},
		{"json example skipped, later schema used", "## output (schema)\n```json\n{\"a\": 1}\n```\n```json-schema\n" + schema + "\n```\n", ModeJSONSchema, false, ""},
		{"headings fence", "## OUTPUT\n```headings\n## Findings\n\nEvidence\n```\n## NEEDS INPUT\n", ModeHeadings, true, ""},
		{"fence in a nested list", "# OUTPUT\n- shape:\n\n  ```json-schema\n  " + schema + "\n  ```\n## needs_input\n", ModeJSONSchema, true, ""},
		{"OUTPUTS is not OUTPUT", "## OUTPUTS\n```json-schema\n" + schema + "\n```\n", "", false,
			"brief b.md declares no machine-readable OUTPUT schema (expected a ```json-schema or ```headings block under an OUTPUT heading)"},
		{"schema after the section ends", "## OUTPUT\ntext\n## Other\n```json-schema\n" + schema + "\n```\n", "", false, "declares no machine-readable OUTPUT schema"},
		{"subsection still inside", "## OUTPUT\n### Shape\n```json-schema\n" + schema + "\n```\n", ModeJSONSchema, false, ""},
		{"heading inside a fence is not a section", "```\n## OUTPUT\n```\n```json-schema\n" + schema + "\n```\n", "", false, "declares no machine-readable OUTPUT schema"},
		{"schema does not compile", "## OUTPUT\n```json-schema\n{\"type\": 5}\n```\n", "", false, "OUTPUT schema does not compile: "},
		{"schema not JSON", "## OUTPUT\n```json-schema\n{type: object}\n```\n", "", false, "OUTPUT schema does not compile: not valid JSON"},
		{"remote ref refused", "## OUTPUT\n```json-schema\n{\"$ref\": \"https://example.com/s.json\"}\n```\n", "", false, "only references inside the schema are allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := ParseBrief([]byte(tt.brief), "b.md")
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d.Mode != tt.mode || d.Union != tt.union {
				t.Fatalf("mode %q union %v", d.Mode, d.Union)
			}
		})
	}
}

func TestDraft07Schema(t *testing.T) {
	s := mustSchema(t, `{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "required": ["sha"],
		"properties": {"sha": {"type": "string", "format": "git-sha"}, "pair": {"type": "array", "items": [{"type": "integer"}]}}}`)
	d := &Declaration{Mode: ModeJSONSchema, Schema: s}
	_, got := run(t, d, `{"sha": "XYZ", "pair": ["1"]}`)
	want := []string{
		`sha (required, string) — not a commit SHA (7–40 lowercase hex): "XYZ"`,
		`pair[0] (required, integer) — wrong type: got a string`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatal(diff)
	}
}
