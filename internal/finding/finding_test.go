package finding

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestString(t *testing.T) {
	tests := []struct {
		f    Finding
		want string
	}{
		{Finding{Rule: "schema.type", File: "r.md", Line: 5, Column: 9, Message: "phases[0].id must be a string"},
			"r.md:5:9: phases[0].id must be a string [schema.type]"},
		{Finding{Rule: "report.too_large", File: "r.md", Message: "too big"}, "r.md: too big [report.too_large]"},
		{Finding{Rule: "x", Message: "m"}, "m [x]"},
	}
	for _, tt := range tests {
		if got := tt.f.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
}

func TestSortByPosition(t *testing.T) {
	fs := []Finding{
		{Rule: "b", Line: 2, Column: 1},
		{Rule: "a", Line: 2, Column: 1},
		{Rule: "z", Line: 0},
		{Rule: "a", Line: 1, Column: 5},
	}
	SortByPosition(fs)
	var got []string
	for _, f := range fs {
		got = append(got, f.Rule)
	}
	if diff := cmp.Diff([]string{"z", "a", "a", "b"}, got); diff != "" {
		t.Fatalf("order (-want +got):\n%s", diff)
	}
	if fs[1].Line != 1 {
		t.Fatalf("line 1 must sort before line 2: %+v", fs)
	}
}

func TestMarshalJSON(t *testing.T) {
	f := Finding{Rule: "unexpected_file", Class: ClassWarning, File: "a<b>.go", Message: "m",
		Fields: []Field{{"reason", "x"}}}
	var buf strings.Builder
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(f); err != nil {
		t.Fatal(err)
	}
	b := strings.TrimSpace(buf.String())
	want := `{"rule":"unexpected_file","class":"warning","file":"a<b>.go","line":0,"column":0,"pointer":"","message":"m","reason":"x"}`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
	if e, w := Count([]Finding{f, {Class: ClassError}}); e != 1 || w != 1 {
		t.Fatalf("Count = %d, %d", e, w)
	}
}

// TestCompact: a per-path finding written out in full becomes the PathFinding form again; one
// whose message, fields or position differ from the template's is left as it is.
func TestCompact(t *testing.T) {
	file := []Field{{Key: "file", Value: "a.go"}}
	full := PathFinding(KindUnexpectedFile, file).Expand()
	c := Compact(full)
	if c.Message != "" || c.Text() != full.Message || c.Rule != KindUnexpectedFile || c.Class != full.Class {
		t.Fatalf("Compact = %+v", c)
	}
	for name, f := range map[string]Finding{
		"other message": {Rule: KindUnexpectedFile, Class: ClassWarning, Message: "changed outside the declared scope: b.go", Fields: file},
		"extra field":   {Rule: KindUnexpectedFile, Class: ClassWarning, Message: full.Message, Fields: []Field{file[0], {Key: "x", Value: "y"}}},
		"not a string":  {Rule: KindUnexpectedFile, Class: ClassWarning, Message: full.Message, Fields: []Field{{Key: "file", Value: 1}}},
		"position":      {Rule: KindUnexpectedFile, Class: ClassWarning, Message: full.Message, Fields: file, Line: 1},
		"no template":   {Rule: KindVerificationFailed, Class: ClassError, Message: "a.go", Fields: file},
	} {
		if got := Compact(f); got.Message != f.Message {
			t.Errorf("%s: message dropped", name)
		}
	}
}

// FuzzAppendValue: the direct encoding of plain strings and integers is MarshalValue's.
func FuzzAppendValue(f *testing.F) {
	for _, s := range []string{"", "a b", "<&>", "\"", "\\", "\x7f", "\u2028", "é", "\xff", "\x00"} {
		f.Add(s, 0)
	}
	f.Add("x", -12345)
	f.Fuzz(func(t *testing.T, s string, n int) {
		for _, v := range []any{s, Class(s), n} {
			want, err := MarshalValue(v)
			if err != nil {
				t.Fatal(err)
			}
			got, err := appendValue(nil, v)
			if err != nil || string(got) != string(want) {
				t.Errorf("appendValue(%#v) = %s, %v; want %s", v, got, err, want)
			}
		}
	})
}
