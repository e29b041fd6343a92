package jsonstrict

import (
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// generic converts v to encoding/json's generic form with json.Number numbers.
func generic(v *Value) any {
	switch v.Kind {
	case KindBool:
		return v.Bool
	case KindNumber:
		return json.Number(v.Number)
	case KindString:
		return v.String
	case KindArray:
		out := []any{}
		for _, it := range v.Items {
			out = append(out, generic(it))
		}
		return out
	case KindObject:
		out := map[string]any{}
		for _, m := range v.Members {
			out[m.Name] = generic(m.Value)
		}
		return out
	}
	return nil
}

func TestDecodeTree(t *testing.T) {
	src := "{\n  \"z\": [1.0, -0, 1e400, true, null],\n  \"a b\": {\"~/\": \"x\\u0041\"},\n  \"\": {}\n}"
	v, err := Decode([]byte(src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range v.Members {
		names = append(names, m.Name)
		if src[m.Offset] != '"' {
			t.Errorf("member %q offset %d is not its opening quote", m.Name, m.Offset)
		}
	}
	if diff := cmp.Diff([]string{"z", "a b", ""}, names); diff != "" {
		t.Errorf("member order (-want +got):\n%s", diff)
	}
	z, _ := v.Get("z")
	var lits []string
	for _, it := range z.Items[:3] {
		lits = append(lits, it.Number)
	}
	if diff := cmp.Diff([]string{"1.0", "-0", "1e400"}, lits); diff != "" {
		t.Errorf("number literals (-want +got):\n%s", diff)
	}
	if z.Offset != int64(strings.Index(src, "[")) || z.Items[3].Offset != int64(strings.Index(src, "true")) {
		t.Errorf("offsets: array %d, true %d", z.Offset, z.Items[3].Offset)
	}
	ab, _ := v.Get("a b")
	if s, _ := ab.Get("~/"); s == nil || s.String != "xA" {
		t.Errorf(`"a b"."~/" = %+v`, s)
	}
	if _, ok := v.Get("missing"); ok {
		t.Error("Get(missing) found a member")
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		opts      Options
		check     func(error) string // "" when err is what the case wants
	}{
		{"duplicate", `{"a": 1, "b": 2, "a": 3}`, Options{}, dup("a", "/a", 17, 1)},
		{"duplicate by escape", `{"x": {"ab": 1, "a\u0062": 2}}`, Options{}, dup("ab", "/x/ab", 16, 7)},
		{"duplicate with odd name", `[{"a/b~": 1, "a/b~": 2}]`, Options{}, dup("a/b~", "/0/a~1b~0", 13, 2)},
		{"duplicate in a later sibling", `{"a": {"k": 1}, "b": {"k": 1, "k": 2}}`, Options{}, dup("k", "/b/k", 30, 22)},
		{"depth", `{"a": [[1]]}`, Options{MaxDepth: 2}, depthAt("/a/0", 7)},
		{"depth at the limit is fine", `{"a": [1]}`, Options{MaxDepth: 2}, nil},
		{"trailing value", `{} {}`, Options{}, syntaxAt(3)},
		{"trailing garbage", "{}\n x", Options{}, syntaxAt(4)},
		{"truncated", `{"a": `, Options{}, syntaxEOF},
		{"empty", ``, Options{}, syntaxEOF},
		{"missing colon", `{"a" 1}`, Options{}, syntaxAt(5)},
		{"invalid UTF-8", "\"\xff\"", Options{}, syntaxAt(1)},
		{"lone surrogate", `"\ud800"`, Options{}, syntaxAt(1)},
		{"invalid UTF-8 allowed", "\"\xff\"", Options{AllowInvalidUTF8: true}, nil},
		{"lone surrogate allowed", `"\ud800"`, Options{AllowInvalidUTF8: true}, nil},
		{"byte-order mark", "\ufeff{}", Options{}, syntaxAt(0)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode([]byte(tc.src), tc.opts)
			if tc.check == nil {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("accepted")
			}
			if msg := tc.check(err); msg != "" {
				t.Fatalf("%v: %s", err, msg)
			}
		})
	}
}

func dup(name, ptr string, off, first int64) func(error) string {
	return func(err error) string {
		var de *DuplicateKeyError
		if !errors.As(err, &de) {
			return "not a *DuplicateKeyError"
		}
		if de.Name != name || de.Pointer != ptr || de.Offset != off || de.FirstOffset != first {
			return "got " + strings.TrimSpace(strings.ReplaceAll(cmp.Diff(DuplicateKeyError{name, ptr, off, first}, *de), "\n", " "))
		}
		return ""
	}
}

func depthAt(ptr string, off int64) func(error) string {
	return func(err error) string {
		var de *DepthError
		if !errors.As(err, &de) || de.Pointer != ptr || de.Offset != off {
			return "want a *DepthError at " + ptr
		}
		return ""
	}
}

func syntaxAt(off int64) func(error) string {
	return func(err error) string {
		var se *SyntaxError
		if !errors.As(err, &se) || se.Offset != off {
			return "want a *SyntaxError at that offset"
		}
		return ""
	}
}

func syntaxEOF(err error) string {
	var se *SyntaxError
	if !errors.As(err, &se) || !errors.Is(err, io.ErrUnexpectedEOF) {
		return "want a *SyntaxError wrapping io.ErrUnexpectedEOF"
	}
	return ""
}

// FuzzDecode checks Decode against encoding/json on any input: with invalid UTF-8 allowed (as
// encoding/json allows it), a text is accepted exactly when encoding/json accepts it and no object
// repeats a name, and the tree holds what encoding/json decodes. A repeated name is reported
// at its opening quote, after the first occurrence.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5,"x"],"b":{"c":null}}`, `{"a":1,"a":2}`, `[]`, `"\ud800"`,
		"\"\xff\"", `{"a":{"a":{}}}`, ` 1 `, `{} x`, `[[[[[]]]]]`, `{"\u0061":1,"a":2}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Decode(data, Options{AllowInvalidUTF8: true})
		var de *DuplicateKeyError
		valid := json.Valid(data)
		switch {
		case err == nil:
			if !valid {
				t.Fatalf("accepted what encoding/json rejects: %q", data)
			}
			var want any
			dec := json.NewDecoder(strings.NewReader(string(data)))
			dec.UseNumber()
			if err := dec.Decode(&want); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, generic(v)); diff != "" {
				t.Fatalf("tree differs from encoding/json (-want +got):\n%s", diff)
			}
		case errors.As(err, &de):
			// The first problem in source order wins, so invalid text after a repeat is fine.
			if data[de.Offset] != '"' || data[de.FirstOffset] != '"' || de.FirstOffset >= de.Offset {
				t.Fatalf("bad duplicate offsets %+v in %q", de, data)
			}
		default:
			if valid {
				t.Fatalf("rejected what encoding/json accepts: %q: %v", data, err)
			}
		}
	})
}

// TestStream: a sequence of values is decoded one at a time with Decode's rules, and ends with
// io.EOF; a duplicate key or broken text in a later value is an error there.
func TestStream(t *testing.T) {
	s := NewStream(strings.NewReader("{\"a\": 1}\n\"x\"\n[true, null]\n"), Options{})
	var got []string
	for {
		v, err := s.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, v.Compact())
	}
	if want := []string{`{"a":1}`, `"x"`, `[true,null]`}; !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	for _, bad := range []string{"1\n{\"a\":1,\"a\":2}\n", "1\n{\"a\":\n", "1 ]"} {
		s := NewStream(strings.NewReader(bad), Options{})
		if _, err := s.Next(); err != nil {
			t.Fatalf("%q: first value: %v", bad, err)
		}
		if _, err := s.Next(); err == nil || err == io.EOF {
			t.Errorf("%q: second value accepted (%v)", bad, err)
		}
	}
}
