package report

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	yaml "go.yaml.in/yaml/v3"

	"github.com/mastermind-controller/mastermind/internal/yamlstrict"
)

// bigReport builds a valid sentinel-form report of just under 1 MiB and returns it with its YAML
// text.
func bigReport(tb testing.TB) (file, yamlText []byte) {
	tb.Helper()
	var y bytes.Buffer
	y.WriteString("schema_version: 1\nspec: .mastermind/tasks/020-cache/spec.md\nstatus: complete\nphases:\n")
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&y, "  - id: plan-%d\n    status: done\n", i)
	}
	y.WriteString("files_modified:\n")
	for i := 0; i < 2000; i++ {
		fmt.Fprintf(&y, "  - internal/pkg%03d/file_%04d.go\n", i%100, i)
	}
	y.WriteString("claims:\n")
	for i := 0; i < 1000; i++ {
		fmt.Fprintf(&y, "  - kind: function_added\n    symbol: Func%d\n    file: internal/pkg%03d/file_%04d.go\n", i, i%100, i)
		fmt.Fprintf(&y, "  - kind: integration\n    from: Caller%d\n    to: Func%d\n    relation: calls\n", i, i)
	}
	y.WriteString("defects: []\nverifications:\n")
	for i := 0; y.Len() < 1000000; i++ {
		fmt.Fprintf(&y, "  - cmd: go test ./internal/pkg%03d/ -run TestCase%d\n    result: pass\n    output_excerpt: \"ok  \\tgithub.com/example/internal/pkg%03d\\t0.%03ds\"\n    observed: {exit_code: 0, tests_run: %d}\n", i, i, i%100, i%1000, i%50+1)
	}
	var f bytes.Buffer
	f.WriteString("## Report\n\nAll done.\n\n<!-- mastermind:report-begin -->\n```yaml\n")
	f.Write(y.Bytes())
	f.WriteString("```\n<!-- mastermind:report-end -->\n")
	if f.Len() > MaxBytes {
		tb.Fatalf("report is %d bytes", f.Len())
	}
	if res := Validate(f.Bytes(), "r.md"); res.Report == nil {
		tb.Fatalf("benchmark report invalid: %v", res.Findings[:min(3, len(res.Findings))])
	}
	return f.Bytes(), y.Bytes()
}

// BenchmarkValidate1MiB is the full check (parse, locate, strict decode, schema, consistency) of a
// ~1 MiB valid report. Target: at most 3× BenchmarkYAMLBare1MiB.
func BenchmarkValidate1MiB(b *testing.B) {
	file, _ := bigReport(b)
	b.SetBytes(int64(len(file)))
	b.ResetTimer()
	start := cpuTime()
	for i := 0; i < b.N; i++ {
		if res := Validate(file, "r.md"); res.Report == nil {
			b.Fatal("invalid")
		}
	}
	reportCPU(b, start)
}

func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}

// BenchmarkSchemaFull1MiB is the schema stage alone on the decoded value of the same report with
// the full jsonschema/v6 validator, and BenchmarkSchemaFast1MiB with fastValid (schema_fast.go),
// which the schema stage tries first. Together with BenchmarkValidate1MiB they show what the
// validation would cost without the fast check.
func BenchmarkSchemaFull1MiB(b *testing.B) {
	sd, v := schemaBench(b)
	b.ResetTimer()
	start := cpuTime()
	for i := 0; i < b.N; i++ {
		if err := sd.compiled.Validate(v); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start)
}

func BenchmarkSchemaFast1MiB(b *testing.B) {
	sd, v := schemaBench(b)
	b.ResetTimer()
	start := cpuTime()
	for i := 0; i < b.N; i++ {
		if !sd.fastValid(v, sd.root, 0) {
			b.Fatal("fast check refused the benchmark report")
		}
	}
	reportCPU(b, start)
}

func schemaBench(b *testing.B) (*schemaDoc, any) {
	_, y := bigReport(b)
	doc, issues := yamlstrict.Decode(y)
	if doc == nil || len(issues) > 0 {
		b.Fatalf("decode: %v", issues)
	}
	sd, err := loadSchema()
	if err != nil {
		b.Fatal(err)
	}
	return sd, doc.Value
}

// BenchmarkYAMLBare1MiB decodes the same YAML bytes into a yaml.Node with yaml.v3 alone.
func BenchmarkYAMLBare1MiB(b *testing.B) {
	file, y := bigReport(b)
	b.SetBytes(int64(len(file)))
	b.ResetTimer()
	start := cpuTime()
	for i := 0; i < b.N; i++ {
		var n yaml.Node
		if err := yaml.NewDecoder(bytes.NewReader(y)).Decode(&n); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start)
}
