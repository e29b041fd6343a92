package report

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// designTables holds the expected rule, position and pointer of every example in
// executor-report-v1.md §8, copied by hand from the design's tables. The golden .out files are
// generated; this table is the independent check that they say what the design says.
var designTables = map[string][]string{
	"V1": nil, "V2": nil, "V3": nil,
	"T1":                  {"report.sentinel_nested 6:1 ", "report.sentinel_nested 10:1 "},
	"T2":                  {"report.sentinel_count 6:1 "},
	"T3":                  {"report.fence_info 4:1 "},
	"T4":                  {"report.block_content 2:1 "},
	"T5":                  {"report.legacy 1:1 "},
	"T6":                  {"report.fence_unclosed 2:1 "},
	"T7":                  {"report.sentinel_malformed 1:1 ", "report.sentinel_count 5:1 "},
	"T9_not_utf8":         {"report.not_utf8 1:1 "},
	"Y1":                  {"schema.type 5:9 /phases/0/id"},
	"Y2":                  {"value.null 11:22 /defects/0/remediation_hint"},
	"Y3":                  {"value.duplicate_key 9:1 /status"},
	"Y4":                  {"value.anchor 9:5 /verifications/0", "value.anchor 13:5 /verifications/1"},
	"Y5":                  {"schema.unknown_field 9:1 /notes"},
	"Y6":                  {"report.unsupported_version 1:17 /schema_version"},
	"Y7":                  {"schema.required 1:1 ", "schema.type 1:17 /schema_version", "schema.enum 3:9 /status", "schema.type 5:17 /files_modified"},
	"Y8":                  {"consistency.complete_step_not_done 8:13 /phases/1/status", "consistency.complete_has_defects 12:5 /defects/0", "consistency.complete_failed_verification 18:13 /verifications/0/result"},
	"Y9":                  {"consistency.defect_required 7:10 /defects"},
	"Y10":                 {"consistency.blank 2:7 /spec", "consistency.duplicate_phase_id 7:9 /phases/1/id"},
	"Y11":                 {"consistency.duplicate_path 7:5 /files_modified/1", "consistency.path_invalid 8:5 /files_modified/2", "consistency.path_invalid 9:5 /files_modified/3", "consistency.path_invalid 10:5 /files_modified/4"},
	"Y12":                 {"schema.enum 7:11 /claims/0/kind", "schema.required 9:5 /claims/1"},
	"Y13":                 {"schema.type 12:18 /verifications/0/observed/exit_code", "schema.range 13:18 /verifications/0/observed/tests_run"},
	"Y14":                 {"value.tag 2:7 /spec", "value.non_finite 12:18 /verifications/0/observed/exit_code"},
	"Y15":                 {"decode.multi_document 3:1 "},
	"Y16_nonspecific_tag": {"value.tag 2:7 /spec"},
	// §8.4 rows.
	"X01_end_sentinel_in_yaml":     nil,
	"X02_backticks_in_literal":     nil,
	"X03_space_before_info":        nil,
	"X04_shorter_close":            {"report.fence_unclosed 2:1 "},
	"X05_crlf_trailing_spaces":     nil,
	"X06_blockquote_begin":         nil,
	"X07_list_item_begin":          {"report.sentinel_nested 1:3 "},
	"X08_observed_empty":           nil,
	"X09_nulls":                    {"value.null 11:16 /claims/0/signature", "value.null 16:21 /verifications/0/output_excerpt", "value.null 19:15 /verifications/1/observed"},
	"X10_key_not_string":           {"value.key_not_string 9:1 /7"},
	"X11_merge_key":                {"value.merge_key 9:1 /<<"},
	"X12_hex_exit_code":            nil,
	"X13_underscore_int":           {"schema.type 12:18 /verifications/0/observed/tests_run"},
	"X14_date_spec":                nil,
	"X16_internal_projection":      {"report.no_block 0:0 "},
	"X17_empty_object":             {"report.no_block 0:0 "},
	"X18_crlf_V1":                  nil,
	"X19_tilde_fence":              nil,
	"X20_bom_Y1":                   {"schema.type 5:9 /phases/0/id"},
	"X21_bare_yaml_valid":          nil,
	"X22_quoted_example_then_tail": nil,
}

func TestDesignTables(t *testing.T) {
	for name, want := range designTables {
		data, err := os.ReadFile(filepath.Join("testdata", name+".md"))
		if err != nil {
			t.Fatal(err)
		}
		res := Validate(data, name+".md")
		var got []string
		for _, f := range res.Findings {
			got = append(got, fmt.Sprintf("%s %d:%d %s", f.Rule, f.Line, f.Column, f.Pointer))
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-design +got):\n%s", name, diff)
		}
		if want == nil && (res.Report == nil || res.Form == "") {
			t.Errorf("%s: valid example returned no typed report (form %q)", name, res.Form)
		}
	}
}
