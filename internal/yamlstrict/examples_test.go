package yamlstrict

import "testing"

// TestReportExamples covers the value-stage findings of
// executor-report-v1.md §8.3 (bare YAML form, so positions are file
// positions) and the value cases of §8.4.
func TestReportExamples(t *testing.T) {
	const head = "schema_version: 1\nspec: .mastermind/tasks/020-cache/spec.md\n"
	runDecodeCases(t, Decode, []decodeCase{
		{"Y1 numeric id is a float, not a value finding", head + "status: complete\nphases:\n  - id: 1.1\n    status: done\nfiles_modified: [internal/cache/lru.go]\nclaims: []\ndefects: []\nverifications: []\n", "", nil},
		{"Y2 empty value", head + "status: partial\nphases: []\nfiles_modified: []\nclaims: []\ndefects:\n  - kind: implementation_defect\n    phase: plan-1\n    details: eviction test still fails\n    remediation_hint:\nverifications: []\n", "",
			[]want{"value.null /defects/0/remediation_hint 11:22"}},
		{"Y3 duplicate key", head + "status: complete\nphases: []\nfiles_modified: []\nclaims: []\ndefects: []\nverifications: []\nstatus: failed\n", "",
			[]want{"value.duplicate_key /status 9:1"}},
		{"Y4 anchor and alias", head + "status: complete\nphases: []\nfiles_modified: [internal/cache/lru.go]\nclaims: []\ndefects: []\nverifications:\n  - &unit\n    cmd: go test ./internal/cache/\n    result: pass\n    observed: {exit_code: 0, tests_run: 9}\n  - *unit\n", "",
			[]want{"value.anchor /verifications/0 9:5", "value.anchor /verifications/1 13:5"}},
		{"Y14 tag and non-finite", "schema_version: 1\nspec: !!str .mastermind/tasks/020-cache/spec.md\nstatus: complete\nphases: []\nfiles_modified: [internal/cache/lru.go]\nclaims: []\ndefects: []\nverifications:\n  - cmd: go test ./internal/cache/\n    result: pass\n    observed:\n      exit_code: .inf\n", "",
			[]want{"value.tag /spec 2:7", "value.non_finite /verifications/0/observed/exit_code 12:18"}},
		{"Y15 two documents", "schema_version: 1\nstatus: complete\n---\nstatus: failed\n", "-",
			[]want{"decode.multi_document  3:1"}},
		{"Y16 non-specific tag", "schema_version: 1\nspec: ! 42\n", `{"schema_version":1,"spec":null}`,
			[]want{"value.tag /spec 2:7"}},
		// §8.4
		{"observed empty mapping", "observed: {}\n", `{"observed":{}}`, nil},
		{"observed null", "observed: null\nsignature: null\noutput_excerpt: ~\n", "",
			[]want{"value.null /observed 1:11", "value.null /signature 2:12", "value.null /output_excerpt 3:17"}},
		{"integer key", "schema_version: 1\n7: ignored\n", `{"schema_version":1}`, []want{"value.key_not_string /7 2:1"}},
		{"merge key", "schema_version: 1\n<<: {spec: x}\n", `{"schema_version":1}`, []want{"value.merge_key /<< 2:1"}},
		{"hex exit code", "exit_code: 0x1F\n", `{"exit_code":31}`, nil},
		{"tests_run 1_000 is a string", "tests_run: 1_000\n", `{"tests_run":"1_000"}`, nil},
		{"date spec is a string", "spec: 2024-01-15\n", `{"spec":"2024-01-15"}`, nil},
		{"65 levels inside claims", "claims:\n  - " + nest(63) + "\n", "",
			[]want{"value.depth /claims/0" + repeatStr("/a", 62) + " 2:" + itoa(5+62*4)}},
		{"64 levels inside claims", "claims:\n  - " + nest(62) + "\n", "", nil},
	})
	doc, _ := Decode([]byte("schema_version: 1\nspec: .mastermind/tasks/020-cache/spec.md\nstatus: complete\nphases:\n  - id: 1.1\n"))
	if n := doc.Nodes["/phases/0/id"]; n == nil || n.Kind != KindFloat || n.Literal != "1.1" || !n.Plain || n.Pos != (Pos{5, 9}) {
		t.Errorf("Y1 node = %+v, want float 1.1 plain at 5:9", n)
	}
	doc, _ = Decode([]byte("verifications:\n  - observed:\n      exit_code: 0.0\n      tests_run: -3\n"))
	if n := doc.Nodes["/verifications/0/observed/exit_code"]; n == nil || n.Kind != KindFloat || n.Pos != (Pos{3, 18}) {
		t.Errorf("Y13 exit_code node = %+v", n)
	}
	if v := doc.Value.(map[string]any)["verifications"].([]any)[0].(map[string]any)["observed"].(map[string]any)["tests_run"]; v != int64(-3) {
		t.Errorf("Y13 tests_run = %#v", v)
	}
}

// nest returns n nested flow mappings {a: {a: ... 1}}.
func nest(n int) string { return repeatStr("{a: ", n) + "1" + repeatStr("}", n) }

func repeatStr(s string, n int) string {
	out := ""
	for i := 0; i < n; i++ {
		out += s
	}
	return out
}
