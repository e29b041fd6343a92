package filter

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// halt builds a needs_input return from the valid base with fields overridden (nil deletes).
func halt(t *testing.T, over map[string]any) string {
	t.Helper()
	base := []Member{
		{Name: "status", Value: &Value{Kind: KindString, String: "needs_input"}},
		{Name: "blocking_step", Value: &Value{Kind: KindString, String: "Step 3: migrate the users table"}},
		{Name: "ambiguity_type", Value: &Value{Kind: KindString, String: "spec-ambiguity"}},
		{Name: "tried", Value: &Value{Kind: KindString, String: "Read the brief's schema section; it names two tables."}},
		{Name: "question", Value: &Value{Kind: KindString, String: "Which table should the migration target?"}},
		{Name: "options", Value: mustValue(t, `[{"label": "A", "summary": "users"}, {"label": "B", "summary": "accounts"}]`)},
		{Name: "recommendation", Value: &Value{Kind: KindString, String: "A"}},
		{Name: "rolled_back", Value: &Value{Kind: KindBool, Bool: false}},
	}
	obj := &Value{Kind: KindObject}
	for _, m := range base {
		if v, ok := over[m.Name]; ok {
			if v == nil {
				continue
			}
			b, _ := json.Marshal(v)
			m.Value = mustValue(t, string(b))
		}
		obj.Members = append(obj.Members, m)
	}
	for k, v := range over {
		if _, known := obj.Get(k); known || v == nil {
			continue
		}
		isBase := false
		for _, m := range base {
			isBase = isBase || m.Name == k
		}
		if !isBase {
			b, _ := json.Marshal(v)
			obj.Members = append(obj.Members, Member{Name: k, Value: mustValue(t, string(b))})
		}
	}
	return "Halting.\n" + fence(obj.Compact())
}

func mustValue(t *testing.T, s string) *Value {
	t.Helper()
	v, err := ParseJSON([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestNeedsInput(t *testing.T) {
	d := loadBrief(t, "brief.md")
	if !d.Union {
		t.Fatal("the brief's NEEDS_INPUT heading must turn the union on")
	}
	const (
		triedItem = "tried (required, string) — tried required: state what you attempted to resolve from the brief alone — 'n/a' is not a valid answer"
		optItem   = "options (required, array of object) — options must offer at least 2 choices, each with a non-empty label and summary"
		recItem   = "recommendation (required, string) — recommendation must name one of the option labels or be exactly 'none — no clear preference'"
		discItem  = "status (required, string) — status discriminator missing or invalid: declare 'complete' or 'needs_input'"
	)
	twoOpts := []map[string]string{{"label": "A", "summary": "users"}, {"label": "B", "summary": "accounts"}}
	tests := []struct {
		name string
		over map[string]any
		want []string
	}{
		{"valid halt", nil, nil},
		{"rolled_back true", map[string]any{"rolled_back": true}, nil},
		{"task fields", map[string]any{"task_number": 3, "task_title": "Migrate"}, nil},
		{"blocking_step blank", map[string]any{"blocking_step": " \t "}, []string{
			"blocking_step (required, string) — blocking_step required: quote the verbatim plan step you halted at"}},
		{"blocking_step absent", map[string]any{"blocking_step": nil}, []string{
			"blocking_step (required, string) — blocking_step required: quote the verbatim plan step you halted at"}},
		{"ambiguity_type other", map[string]any{"ambiguity_type": "Spec-Ambiguity"}, []string{
			"ambiguity_type (required, string) — ambiguity_type must be exactly spec-ambiguity or missing-context"}},
		{"ambiguity_type missing-context", map[string]any{"ambiguity_type": "missing-context"}, nil},
		{"tried N/A", map[string]any{"tried": "N/A"}, []string{triedItem}},
		{"tried padded none", map[string]any{"tried": "  none "}, []string{triedItem}},
		{"tried TBD", map[string]any{"tried": "TBD"}, []string{triedItem}},
		{"tried Nothing", map[string]any{"tried": "\tNothing\n"}, []string{triedItem}},
		{"tried empty", map[string]any{"tried": ""}, []string{triedItem}},
		{"tried n/a. passes the anchored regex", map[string]any{"tried": "n/a."}, nil},
		{"question without ?", map[string]any{"question": "Which database"}, []string{
			"question (required, string) — question required: a NEEDS_INPUT halt must ask one question ending with '?'"}},
		{"question with trailing space", map[string]any{"question": "Which database?  \n"}, nil},
		{"single option", map[string]any{"options": twoOpts[:1]}, []string{optItem}},
		{"option without summary", map[string]any{"options": []map[string]string{{"label": "A", "summary": "x"}, {"label": "B", "summary": " "}}}, []string{optItem}},
		{"options not a list", map[string]any{"options": "A or B"}, []string{optItem, recItem}},
		{"duplicate labels", map[string]any{"options": []map[string]string{{"label": "A", "summary": "x"}, {"label": " A ", "summary": "y"}}}, []string{
			"options (required, array of object) — options[1].label repeats options[0].label"}},
		{"recommendation none", map[string]any{"recommendation": "none"}, []string{recItem}},
		{"recommendation no preference", map[string]any{"recommendation": "no preference"}, []string{recItem}},
		{"recommendation exact none form", map[string]any{"recommendation": "none — no clear preference"}, nil},
		{"recommendation label with reason", map[string]any{"recommendation": "B — keeps the API stable"}, nil},
		{"recommendation label then letter", map[string]any{"recommendation": "Beta"}, []string{recItem}},
		{"recommendation matches no label", map[string]any{"recommendation": "C"}, []string{recItem}},
		{"rolled_back string false", map[string]any{"rolled_back": "false"}, []string{
			"rolled_back (required, boolean) — rolled_back must be a boolean, not a string"}},
		{"rolled_back absent", map[string]any{"rolled_back": nil}, []string{"rolled_back (required, boolean) — absent"}},
		{"task_number as a string", map[string]any{"task_number": "3"}, []string{"task_number (optional, integer) — wrong type: got a string"}},
		{"extra key", map[string]any{"notes": "x"}, []string{"notes (not allowed, any) — not part of the needs_input shape"}},
		{"status done", map[string]any{"status": "done"}, []string{discItem}},
		{"status null", map[string]any{"status": struct{}{}}, []string{discItem}},
		{"status Complete", map[string]any{"status": "Complete"}, []string{discItem}},
		{"all at once, in field order", map[string]any{"rolled_back": "no", "tried": "n/a", "blocking_step": "", "extra": 1}, []string{
			"blocking_step (required, string) — blocking_step required: quote the verbatim plan step you halted at",
			triedItem,
			"rolled_back (required, boolean) — rolled_back must be a boolean, not a string",
			"extra (not allowed, any) — not part of the needs_input shape"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, got := run(t, d, halt(t, tt.over))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Fatalf("items (-want +got):\n%s", diff)
			}
			if tt.want == nil && res.Variant != VariantNeedsInput {
				t.Fatalf("variant %q", res.Variant)
			}
		})
	}
}

func TestUnionRouting(t *testing.T) {
	d := loadBrief(t, "brief.md")
	res, got := run(t, d, validJSON)
	if got != nil || res.Variant != VariantComplete || len(res.Notes) != 1 || res.Notes[0] != NoteStatusAbsent {
		t.Fatalf("status absent: items %v, variant %q, notes %v", got, res.Variant, res.Notes)
	}
	res, got = run(t, d, with("status", `"complete"`))
	if got != nil || len(res.Notes) != 0 {
		t.Fatalf("status complete: %v %v", got, res.Notes)
	}
	_, got = run(t, d, with("status", `null`))
	if diff := cmp.Diff([]string{"status (required, string) — status discriminator missing or invalid: declare 'complete' or 'needs_input'"}, got); diff != "" {
		t.Fatal(diff)
	}
	// variant A under the union still uses the brief's schema
	_, got = run(t, d, `{"status": "complete", "x": 1}`)
	if len(got) != 6 || got[5] != "x (not allowed, any) — not declared in the OUTPUT schema" {
		t.Fatalf("variant A under the union: %q", got)
	}
}
