package forge

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const fence = "```"

func block(json string) string { return fence + "forge-report\n" + json + "\n" + fence + "\n" }

const validCompleted = `{"status":"completed","work_package":"WP-1","files_changed":["a.go"],"tests_run":"go test ./...","evidence":["ok"],"next_action":"merge"}`

func TestExtract(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    string // content of the chosen block; "" for none
		line    int
		nBlocks int
	}{
		{"prose around", "intro\n\n" + block(`{"a":1}`) + "\ntrailer\n", `{"a":1}` + "\n", 3, 1},
		{"draft then final", block(`{"d":1}`) + "\n" + block(`{"f":2}`), `{"f":2}` + "\n", 5, 2},
		{"unterminated final", block(`{"d":1}`) + "\n" + fence + "forge-report\n{\"f\":2}\n", `{"d":1}` + "\n", 1, 1},
		{"backticks inside string", fence + "forge-report\n{\"e\":\"run " + fence + "go test" + fence + "\"}\n" + fence + "\n", `{"e":"run ` + fence + `go test` + fence + `"}` + "\n", 1, 1},
		{"info string with json", fence + "forge-report json\n{}\n" + fence + "\n", "", 0, 0},
		{"tilde fence", "~~~forge-report\n{\"t\":1}\n~~~\n", `{"t":1}` + "\n", 1, 1},
		{"trailing blanks in info", fence + "forge-report  \t\n{}\n" + fence + "\n", "{}\n", 1, 1},
		{"CRLF", "x\r\n" + fence + "forge-report\r\n{}\r\n" + fence + "\r\n", "{}\r\n", 2, 1},
		{"blockquote", "> " + fence + "forge-report\n> {\"q\":1}\n> " + fence + "\n", `{"q":1}` + "\n", 1, 1},
		{"blockquote ended without fence", "> " + fence + "forge-report\n> {\"q\":1}\n\nafter\n", "", 0, 0},
		{"list item", "- item\n\n  " + fence + "forge-report\n  {\"l\":1}\n  " + fence + "\n", `{"l":1}` + "\n", 3, 1},
		{"indented code is not a fence", "    " + fence + "forge-report\n    {}\n    " + fence + "\n", "", 0, 0},
		{"four backticks close only with four", "````forge-report\n{\"x\":\"" + fence + "\"}\n" + fence + "\n````\n", "{\"x\":\"" + fence + "\"}\n" + fence + "\n", 1, 1},
		{"other language", fence + "json\n{}\n" + fence + "\n", "", 0, 0},
		{"uppercase info", fence + "Forge-Report\n{}\n" + fence + "\n", "", 0, 0},
		{"nested in a plain fence", fence + "\n" + fence + "forge-report\n{}\n" + fence + "\n", "", 0, 0},
		{"empty block", fence + "forge-report\n" + fence + "\n", "", 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bs := Blocks([]byte(tt.in))
			if len(bs) != tt.nBlocks {
				t.Fatalf("%d blocks, want %d", len(bs), tt.nBlocks)
			}
			b, ok := Extract([]byte(tt.in))
			if ok != (tt.nBlocks > 0) {
				t.Fatalf("ok = %v", ok)
			}
			if string(b.Content) != tt.want || b.Line != tt.line {
				t.Fatalf("got %q line %d, want %q line %d", b.Content, b.Line, tt.want, tt.line)
			}
		})
	}
}

func errsOf(r *Result) []string {
	var out []string
	for _, e := range r.Errors {
		out = append(out, e.Rule+": "+e.Message)
	}
	return out
}

func TestCheckRules(t *testing.T) {
	base := func(mod string) string {
		return block(mod)
	}
	tests := []struct {
		name  string
		in    string
		want  []string
		notes int
	}{
		{"valid completed", "prose\n" + base(validCompleted) + "more prose\n", nil, 1},
		{"valid with caveat", base(`{"status":"completed","work_package":"WP-1","files_changed":[],"tests_run":[],"evidence":["x"],"next_action":"none","result_caveat":"linux only"}`), nil, 0},
		{"no block", "nothing here", []string{"forge.no_block: no ```forge-report fenced block found in text"}, 0},
		{"malformed", base(`{ this is not json,,,`), []string{"forge.malformed_json: malformed JSON in ```forge-report block: invalid character 't' looking for beginning of object key string"}, 0},
		{"empty block", fence + "forge-report\n" + fence + "\n", []string{"forge.malformed_json: malformed JSON in ```forge-report block: unexpected end of JSON input"}, 0},
		{"array", base(`[1,2]`), []string{"forge.not_object: report must be a JSON object"}, 0},
		{"null", base(`null`), []string{"forge.not_object: report must be a JSON object"}, 0},
		{"empty object", base(`{}`), []string{
			"forge.status: status must be one of: completed, partial, blocked, failed (got undefined)",
			"forge.work_package: work_package must be a non-empty string",
			"forge.files_changed: files_changed must be an array (use [] when no files changed)",
			"forge.evidence_type: evidence must be an array (use [] when there is genuinely none — but see the completed rule below)",
			`forge.tests_run: tests_run must be a string or an array — use "none" if nothing was run (be honest)`,
			"forge.next_action: next_action must be a non-empty string",
		}, 0},
		{"status done", base(`{"status":"done","work_package":"W","files_changed":[],"tests_run":"none","evidence":[],"next_action":"x"}`),
			[]string{`forge.status: status must be one of: completed, partial, blocked, failed (got "done")`}, 0},
		{"status object", base(`{"status":{"a":[1,"<"]},"work_package":"W","files_changed":[],"tests_run":"none","evidence":[],"next_action":"x"}`),
			[]string{`forge.status: status must be one of: completed, partial, blocked, failed (got {"a":[1,"<"]})`}, 0},
		{"completed no evidence", base(`{"status":"completed","work_package":"W","files_changed":[],"tests_run":"none","evidence":[],"next_action":"x"}`),
			[]string{`forge.evidence_required: evidence must contain at least one non-empty string when status is "completed" — a completed claim REQUIRES evidence`}, 1},
		{"completed blank and number evidence", base(`{"status":"completed","work_package":"W","files_changed":[],"tests_run":"none","evidence":["   ",7],"next_action":"x"}`),
			[]string{`forge.evidence_required: evidence must contain at least one non-empty string when status is "completed" — a completed claim REQUIRES evidence`}, 1},
		{"completed BOM evidence", base(`{"status":"completed","work_package":"W","files_changed":[],"tests_run":"none","evidence":["\uFEFF\u3000\u00a0"],"next_action":"x"}`),
			[]string{`forge.evidence_required: evidence must contain at least one non-empty string when status is "completed" — a completed claim REQUIRES evidence`}, 1},
		{"completed evidence not array", base(`{"status":"completed","work_package":"W","files_changed":[],"tests_run":"none","evidence":"ok","next_action":"x"}`),
			[]string{"forge.evidence_type: evidence must be an array (use [] when there is genuinely none — but see the completed rule below)"}, 1},
		{"completed evidence absent", base(`{"status":"completed","work_package":"W","files_changed":[],"tests_run":"none","next_action":"x"}`),
			[]string{"forge.evidence_type: evidence must be an array (use [] when there is genuinely none — but see the completed rule below)"}, 1},
		{"blocked empty blockers", base(`{"status":"blocked","work_package":"W","files_changed":[],"tests_run":"none","evidence":[],"blockers":[],"next_action":"x"}`),
			[]string{`forge.blockers_required: blockers must be a non-empty array when status is "blocked"`}, 0},
		{"blocked blank blockers", base(`{"status":"blocked","work_package":"W","files_changed":[],"tests_run":"none","evidence":[],"blockers":["", "  ", null, [], [null]],"next_action":"x"}`),
			[]string{`forge.blockers_required: blockers must be a non-empty array when status is "blocked"`}, 0},
		{"blocked absent blockers", base(`{"status":"blocked","work_package":"W","files_changed":[],"tests_run":"none","evidence":[],"next_action":"x"}`),
			[]string{`forge.blockers_required: blockers must be a non-empty array when status is "blocked"`}, 0},
		{"blocked number blocker", base(`{"status":"blocked","work_package":"W","files_changed":[],"tests_run":"none","evidence":[],"blockers":[0],"next_action":"x"}`), nil, 0},
		{"blocked object blocker", base(`{"status":"blocked","work_package":"W","files_changed":[],"tests_run":"none","evidence":[],"blockers":[{}],"next_action":"x"}`), nil, 0},
		{"blocked false blocker", base(`{"status":"blocked","work_package":"W","files_changed":[],"tests_run":"none","evidence":[],"blockers":[false],"next_action":"x"}`), nil, 0},
		{"partial no blockers", base(`{"status":"partial","work_package":"W","files_changed":[],"tests_run":"none","evidence":[],"next_action":"x"}`), nil, 0},
		{"partial string blockers", base(`{"status":"partial","work_package":"W","files_changed":[],"tests_run":"none","evidence":[],"blockers":"API key","next_action":"x"}`),
			[]string{"forge.blockers_type: blockers must be an array when present"}, 0},
		{"partial null blockers", base(`{"status":"partial","work_package":"W","files_changed":[],"tests_run":"none","evidence":[],"blockers":null,"next_action":"x"}`),
			[]string{"forge.blockers_type: blockers must be an array when present"}, 0},
		{"tests_run number", base(`{"status":"failed","work_package":"W","files_changed":[],"tests_run":42,"evidence":[],"next_action":"x"}`),
			[]string{`forge.tests_run: tests_run must be a string or an array — use "none" if nothing was run (be honest)`}, 0},
		{"tests_run mixed array", base(`{"status":"failed","work_package":"W","files_changed":[],"tests_run":["go test ./...",3],"evidence":[],"next_action":"x"}`), nil, 0},
		{"tests_run empty string", base(`{"status":"failed","work_package":"W","files_changed":[],"tests_run":"","evidence":[],"next_action":"x"}`), nil, 0},
		{"blank wp and next_action", base(`{"status":"failed","work_package":"","files_changed":[],"tests_run":"none","evidence":[],"next_action":"  "}`),
			[]string{"forge.work_package: work_package must be a non-empty string", "forge.next_action: next_action must be a non-empty string"}, 0},
		{"files_changed object", base(`{"status":"failed","work_package":"W","files_changed":{},"tests_run":"none","evidence":[],"next_action":"x"}`),
			[]string{"forge.files_changed: files_changed must be an array (use [] when no files changed)"}, 0},
		{"result_caveat array", base(`{"status":"failed","work_package":"W","files_changed":[],"tests_run":"none","evidence":[],"next_action":"x","result_caveat":["a"]}`),
			[]string{`forge.result_caveat: result_caveat must be a non-empty string when present — it answers "under what circumstances does this result NOT hold"; omit the field entirely rather than filling it with whitespace`}, 0},
		{"result_caveat blank", base(`{"status":"completed","work_package":"W","files_changed":[],"tests_run":"none","evidence":["e"],"next_action":"x","result_caveat":"\t"}`),
			[]string{`forge.result_caveat: result_caveat must be a non-empty string when present — it answers "under what circumstances does this result NOT hold"; omit the field entirely rather than filling it with whitespace`}, 0},
		{"unknown keys carried", base(`{"status":"failed","work_package":"W","files_changed":[],"tests_run":"none","evidence":[],"next_action":"x","extra":{"k":1}}`), nil, 0},
		{"backticks in string cannot end block", base(`{"status":"failed","work_package":"W","files_changed":[],"tests_run":"run ` + fence + `go test` + fence + `","evidence":[],"next_action":"x"}`), nil, 0},
		{"draft then final", base(`{"status":"failed","work_package":"WP-DRAFT"}`) + base(validCompleted), nil, 1},
		{"BOM input", "\uFEFF" + base(validCompleted), nil, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Check([]byte(tt.in))
			if diff := cmp.Diff(tt.want, errsOf(r)); diff != "" {
				t.Fatalf("errors (-want +got):\n%s", diff)
			}
			if len(r.Notes) != tt.notes {
				t.Fatalf("notes = %q, want %d", r.Notes, tt.notes)
			}
			if r.Valid() != (len(tt.want) == 0) {
				t.Fatalf("Valid() = %v", r.Valid())
			}
			for _, e := range r.Errors {
				if e.Rule != RuleNoBlock && e.Line == 0 {
					t.Errorf("error %s has no line", e.Rule)
				}
			}
		})
	}
	if r := Check([]byte(base(`{"status":"failed","work_package":"WP-DRAFT"}`) + base(validCompleted))); r.WorkPackage != "WP-1" || r.Status != "completed" {
		t.Fatalf("last block not used: %+v", r)
	}
	if r := Check([]byte("x\n\n" + base(validCompleted))); r.Line != 3 {
		t.Fatalf("line = %d, want 3", r.Line)
	}
	if r := Check([]byte(base(`{"status":"completed","work_package":"W","files_changed":[],"tests_run":"none","evidence":["e"],"next_action":"x","result_caveat":"only on linux"}`))); len(r.Notes) != 0 || !strings.HasPrefix(NoteNoResultCaveat, "no result_caveat given") {
		t.Fatal("caveat note")
	}
}
