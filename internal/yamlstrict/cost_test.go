package yamlstrict

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	yaml "go.yaml.in/yaml/v3"
)

// reportYAML returns a realistic report-shaped YAML document of about size
// bytes: phases, files_modified, claims, defects and verifications with
// literal-block output excerpts.
func reportYAML(size int) []byte {
	var b bytes.Buffer
	b.WriteString("schema_version: 1\nspec: .mastermind/tasks/020-cache/spec.md\nstatus: partial\nphases:\n")
	for i := 0; i < 20; i++ {
		fmt.Fprintf(&b, "  - id: plan-%d\n    status: done\n", i)
	}
	b.WriteString("files_modified:\n")
	for i := 0; i < 2000; i++ {
		fmt.Fprintf(&b, "  - internal/cache/file_%04d.go\n", i)
	}
	b.WriteString("claims:\n")
	for i := 0; i < 2000; i++ {
		fmt.Fprintf(&b, "  - kind: function_added\n    symbol: Cache.Method%d\n    file: internal/cache/file_%04d.go\n    signature: \"func (c *Cache) Method%d(ctx context.Context, key string) (Value, error)\"\n", i, i, i)
		fmt.Fprintf(&b, "  - {kind: integration, from: Cache.Method%d, to: Store.Get, relation: calls}\n", i)
	}
	b.WriteString("defects:\n  - kind: implementation_defect\n    phase: plan-3\n    details: eviction test still fails\n    remediation_hint: guard the map with the existing mutex\n")
	b.WriteString("verifications:\n")
	for i := 0; b.Len() < size-400; i++ {
		fmt.Fprintf(&b, "  - cmd: go test ./internal/cache/... -run TestEvict%d\n    result: pass\n    observed: {exit_code: 0, tests_run: %d}\n    output_excerpt: |\n", i, i%300)
		for j := 0; j < 6 && b.Len() < size-400; j++ {
			fmt.Fprintf(&b, "      === RUN   TestEvict%d/case_%d\n      --- PASS: TestEvict%d/case_%d (0.00s)\n", i, j, i, j)
		}
	}
	return b.Bytes()
}

// listYAML returns a mapping with one list of n short items.
func listYAML(n int) []byte {
	var b bytes.Buffer
	b.WriteString("files_modified:\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "  - f%06d\n", i)
	}
	return b.Bytes()
}

// TestBoundedCost decodes the hostile and large inputs and checks their results. It asserts no
// time (speed lives in the benchmarks); a super-linear regression shows up as go test's own
// timeout, and the durations are logged with -v for a quick look.
func TestBoundedCost(t *testing.T) {
	if testing.Short() {
		t.Skip("cost test")
	}
	timed := func(name string, f func()) {
		t.Helper()
		start := time.Now()
		f()
		t.Logf("%s: %v", name, time.Since(start))
	}
	timed("1 MiB report", func() {
		src := reportYAML(1 << 20)
		doc, issues := Decode(src)
		if doc == nil || len(issues) != 0 {
			t.Fatalf("report: %d issues, first %+v", len(issues), issues[:min(1, len(issues))])
		}
	})
	timed("100,000 list items", func() {
		src := listYAML(100000)
		if len(src) < 1<<20 {
			t.Fatalf("list input is only %d bytes", len(src))
		}
		doc, issues := Decode(src)
		if doc == nil || len(issues) != 0 || doc.Nodes["/files_modified"].Len != 100000 || len(doc.Nodes) != 100002 {
			t.Fatalf("list: issues %+v", issues)
		}
	})
	timed("100,000 items on one flow line", func() {
		src := []byte("a: [" + strings.Repeat("é, ", 100000) + "x]\n")
		doc, issues := Decode(src)
		if doc == nil || len(issues) != 0 || doc.Nodes["/a/100000"].Pos != (Pos{1, 5 + 3*100000}) {
			t.Fatalf("flow line: %+v", issues)
		}
	})
	timed("100,000 nulls on one flow line", func() {
		src := []byte("a: [" + strings.Repeat("~, ", 100000) + "! x]\n")
		_, issues := Decode(src)
		if len(issues) != 100001 || issues[100000].Rule != RuleTag {
			t.Fatalf("%d issues", len(issues))
		}
	})
	timed("JSON 100,000 items on one line", func() {
		src := []byte(`{"a": [` + strings.Repeat(`"é", `, 100000) + `null]}`)
		doc, issues := DecodeJSON(src)
		if doc == nil || len(issues) != 1 || issues[0].Pos != (Pos{1, 8 + 5*100000}) {
			t.Fatalf("json line: %+v", issues)
		}
	})
	timed("deep flow nesting (9,999 levels)", func() {
		src := []byte("a: " + strings.Repeat("[", 9999) + strings.Repeat("]", 9999) + "\n")
		doc, issues := Decode(src)
		if doc != nil && (len(issues) != 1 || issues[0].Rule != RuleDepth) {
			t.Fatalf("issues %+v", issues)
		}
		if doc == nil && (len(issues) != 1 || issues[0].Rule != RuleSyntax) {
			t.Fatalf("issues %+v", issues)
		}
	})
	timed("deep flow nesting (10,001 levels)", func() {
		src := []byte("a: " + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + "\n")
		if _, issues := Decode(src); len(issues) != 1 || issues[0].Rule != RuleSyntax {
			t.Fatalf("issues %+v", issues)
		}
	})
	timed("deep block nesting (10,000 levels)", func() {
		src := []byte("a:\n" + strings.Repeat("- ", 10000) + "x\n")
		_, issues := Decode(src)
		if len(issues) != 1 || (issues[0].Rule != RuleDepth && issues[0].Rule != RuleSyntax) {
			t.Fatalf("issues %+v", issues)
		}
	})
	timed("deep JSON nesting (9,999 levels)", func() {
		src := []byte(`{"a":` + strings.Repeat(`{"b":`, 9998) + "1" + strings.Repeat("}", 9999))
		if _, issues := DecodeJSON(src); len(issues) != 1 || issues[0].Rule != RuleDepth {
			t.Fatalf("issues %+v", issues)
		}
	})
	timed("huge keys", func() {
		key := strings.Repeat("k", 1<<20)
		_, issues := Decode([]byte("? " + key + "\n: ~\n? " + key + "\n: 1\n"))
		if len(issues) != 2 || issues[0].Rule != RuleNull || issues[1].Rule != RuleDuplicateKey || len(issues[1].Message) > 1000 {
			t.Fatalf("issues: %d, first rule %q", len(issues), issues[0].Rule)
		}
		_, issues = DecodeJSON([]byte(`{"` + key + `": null, "` + key + `": 1}`))
		if len(issues) != 2 || issues[1].Rule != RuleDuplicateKey || len(issues[0].Message) > 1000 {
			t.Fatalf("json issues: %d", len(issues))
		}
	})
	timed("alias fan-out (billion laughs)", func() {
		var b strings.Builder
		b.WriteString("a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
		for i := 1; i < 10; i++ {
			fmt.Fprintf(&b, "a%d: &a%d [*a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d]\n", i, i, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1)
		}
		b.WriteString("bomb: [")
		for i := 0; i < 20000; i++ {
			b.WriteString("*a9, ")
		}
		b.WriteString("*a9]\n")
		doc, issues := Decode([]byte(b.String()))
		if doc == nil || len(issues) != 10+20001 {
			t.Fatalf("%d issues", len(issues))
		}
	})
}

func BenchmarkDecode1MiB(b *testing.B) {
	src := reportYAML(1 << 20)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if doc, issues := Decode(src); doc == nil || len(issues) != 0 {
			b.Fatalf("issues: %+v", issues[:1])
		}
	}
}

func BenchmarkYAMLv3Bare1MiB(b *testing.B) {
	src := reportYAML(1 << 20)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		var n yaml.Node
		if err := yaml.NewDecoder(bytes.NewReader(src)).Decode(&n); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeJSON1MiB(b *testing.B) {
	doc, _ := Decode(reportYAML(1 << 20))
	src, _ := jsonMarshalIndent(doc.Value)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if doc, issues := DecodeJSON(src); doc == nil || len(issues) != 0 {
			b.Fatalf("issues: %+v", issues[:1])
		}
	}
}
