package render

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/textsafe"
)

// writeJSONOneShot is WriteJSON as it was before it streamed: the whole value encoded into one
// buffer, escaped as a whole, then written. The streaming WriteJSON must write the same bytes.
func writeJSONOneShot(w io.Writer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(textsafe.EscapeJSON(b.Bytes()))
	return err
}

// Envelopes shaped like the run-task and gate ones: an embedded Header, omitempty keys, a
// pointer, nested task objects each with a findings array, and an optional top-level array.
type streamTask struct {
	Task     string            `json:"task"`
	Verdict  *string           `json:"verdict"`
	Findings Array             `json:"findings"`
	Report   []finding.Finding `json:"report_violations"`
	Extra    int               `json:"extra,omitempty"`
	hidden   int
}

type streamEnvelope struct {
	Header
	Outcome  string         `json:"outcome"`
	Repeated bool           `json:"repeated,omitempty"`
	Skip     string         `json:"-"`
	Untagged string         //nolint:revive // encoding/json uses the field name
	State    map[string]any `json:"state"`
	Tasks    []streamTask   `json:"tasks"`
	Empty    []streamTask   `json:"empty"`
	Nil      []streamTask   `json:"nil"`
	Findings *Array         `json:"findings,omitempty"`
	Absent   *Array         `json:"absent,omitempty"`
	Null     *Array         `json:"null"`
	Any      any            `json:"any"`
	Nested   Array          `json:"nested"`
}

// The same envelope with slices: what the bytes of an Array must equal.
type sliceTask struct {
	Task     string            `json:"task"`
	Verdict  *string           `json:"verdict"`
	Findings []finding.Audit   `json:"findings"`
	Report   []finding.Finding `json:"report_violations"`
	Extra    int               `json:"extra,omitempty"`
}

type sliceEnvelope struct {
	Header
	Outcome  string           `json:"outcome"`
	Repeated bool             `json:"repeated,omitempty"`
	Untagged string           //nolint:revive
	State    map[string]any   `json:"state"`
	Tasks    []sliceTask      `json:"tasks"`
	Empty    []sliceTask      `json:"empty"`
	Nil      []sliceTask      `json:"nil"`
	Findings *[]finding.Audit `json:"findings,omitempty"`
	Null     *[]finding.Audit `json:"null"`
	Any      any              `json:"any"`
	Nested   [][]string       `json:"nested"`
}

// hostile holds every escape class: C0, DEL, C1, bidi, a tag character beyond U+FFFF, line
// separators, HTML characters (kept raw), quotes and backslashes, invalid UTF-8.
const hostile = "a\x1b[31m\x7f\u0085\u202Eb\u2066\U000E0041\u2028<&>\"\\\xff\u200Bé"

func streamFindings(n int) []finding.Finding {
	fs := make([]finding.Finding, n)
	for i := range fs {
		p := fmt.Sprintf("dir%d/file%d.go", i%97, i)
		if i%7 == 0 {
			p += hostile
		}
		fs[i] = finding.PathFinding(finding.KindUnexpectedFile, []finding.Field{{Key: "file", Value: p}})
		if i%5 == 0 {
			fs[i] = finding.Finding{Rule: "diff_" + fmt.Sprint(i), Class: finding.ClassError, Message: "msg " + hostile,
				Fields: []finding.Field{{Key: "file", Value: p}, {Key: "n", Value: i}, {Key: "list", Value: []string{"x", hostile}}}}
		}
	}
	return fs
}

func audits(fs []finding.Finding) []finding.Audit {
	out := make([]finding.Audit, len(fs))
	for i, f := range fs {
		out[i] = finding.Audit(f)
	}
	return out
}

func toAudit(f finding.Finding) finding.Audit { return finding.Audit(f) }

// indexed is the Array of n elements, element i being at(i).
func indexed(n int, at func(int) any) Array {
	return NewArray(func(yield func(any) bool) {
		for i := range n {
			if !yield(at(i)) {
				return
			}
		}
	})
}

func streamPair(n int) (streamEnvelope, sliceEnvelope) {
	fs := streamFindings(n)
	held := "held"
	viol := []finding.Finding{{Rule: "schema.type", Class: finding.ClassError, File: "r.md", Line: 3, Column: 1, Pointer: "/x", Message: hostile}}
	nested := [][]string{{"a", hostile}, {}, nil}
	s := streamEnvelope{Header: NewHeader("gate"), Outcome: "fail" + hostile, Skip: "never", Untagged: "u",
		State: map[string]any{"z": 1, "a": []any{hostile, 2.5}},
		Tasks: []streamTask{
			{Task: "t1", Verdict: &held, Findings: ArrayOf(fs, toAudit), Report: viol, hidden: 1},
			{Task: "t2", Findings: Array{}, Report: []finding.Finding{}, Extra: 4},
		},
		Empty: []streamTask{},
		Any:   map[string]any{"in": ArrayOf(fs[:min(3, n)], toAudit)},
		Nested: indexed(len(nested), func(i int) any {
			return indexed(len(nested[i]), func(j int) any { return nested[i][j] })
		}),
	}
	top := ArrayOf(fs, toAudit)
	s.Findings = &top
	all := audits(fs)
	var fallback any = map[string]any{"in": audits(fs[:min(3, n)])}
	o := sliceEnvelope{Header: s.Header, Outcome: s.Outcome, Untagged: "u", State: s.State,
		Tasks: []sliceTask{
			{Task: "t1", Verdict: &held, Findings: all, Report: viol},
			{Task: "t2", Findings: []finding.Audit{}, Report: []finding.Finding{}, Extra: 4},
		},
		Empty: []sliceTask{}, Findings: &all, Any: fallback, Nested: nested}
	o.Nested[2] = []string{} // an Array is never null
	return s, o
}

func encodeWith(t testing.TB, write func(io.Writer, any) error, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := write(&b, v); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestWriteJSONStreamsSameBytes: the streaming WriteJSON writes the bytes of the one-shot
// encoding, for envelopes with Arrays (streamed), the same envelopes with slices, and values
// without Arrays; every escape class is in the data.
func TestWriteJSONStreamsSameBytes(t *testing.T) {
	for _, n := range []int{0, 1, 2, 50, 5000} {
		s, o := streamPair(n)
		got := encodeWith(t, WriteJSON, s)
		if want := encodeWith(t, writeJSONOneShot, s); !bytes.Equal(got, want) {
			t.Fatalf("n=%d: streamed output differs from the one-shot encoding of the same value:\n%s", n, firstDiff(got, want))
		}
		if want := encodeWith(t, writeJSONOneShot, o); !bytes.Equal(got, want) {
			t.Fatalf("n=%d: Arrays do not encode as the slices they stand for:\n%s", n, firstDiff(got, want))
		}
		if n == 50 && (!bytes.Contains(got, []byte(`\u202E`)) || !bytes.Contains(got, []byte(`\uDB40\uDC41`)) ||
			!bytes.Contains(got, []byte(`<&>`)) || bytes.Contains(got, []byte("\u202E"))) {
			t.Fatalf("escapes missing from the output:\n%s", got)
		}
	}
	for _, v := range []any{nil, 3, "x" + hostile, []int{}, map[string]int{"b": 1, "a": 2}, NewHeader("x"), &struct{ A Array }{},
		testEnvelope{Header: NewHeader("c"), Outcome: "o", Note: hostile}} {
		if got, want := encodeWith(t, WriteJSON, v), encodeWith(t, writeJSONOneShot, v); !bytes.Equal(got, want) {
			t.Fatalf("%#v: got\n%s\nwant\n%s", v, got, want)
		}
	}
}

// TestWriteJSONFieldNamedDash: encoding/json names a field tagged `json:"-,"` "-" (only "-"
// alone leaves it out), and the streaming WriteJSON writes it under that name. The type is built
// with reflect.StructOf because staticcheck (SA5008) rightly reports that tag as ambiguous in
// source: encoding/json/v2 spells the name '-'.
func TestWriteJSONFieldNamedDash(t *testing.T) {
	str := reflect.TypeFor[string]()
	typ := reflect.StructOf([]reflect.StructField{
		{Name: "Skip", Type: str, Tag: `json:"-"`},
		{Name: "Dash", Type: str, Tag: `json:"-,"`},
		{Name: "Items", Type: reflect.TypeFor[Array](), Tag: `json:"items"`},
	})
	v := reflect.New(typ).Elem()
	v.Field(0).SetString("never")
	v.Field(1).SetString("dash")
	v.Field(2).Set(reflect.ValueOf(ArrayOf([]string{"a"}, func(s string) string { return s })))
	want := "{\n  \"-\": \"dash\",\n  \"items\": [\n    \"a\"\n  ]\n}\n"
	if got := encodeWith(t, writeJSONOneShot, v.Interface()); string(got) != want {
		t.Fatalf("encoding/json wrote %q, want %q", got, want)
	}
	if got := encodeWith(t, WriteJSON, v.Interface()); string(got) != want {
		t.Errorf("WriteJSON wrote %q, want %q", got, want)
	}
}

func firstDiff(got, want []byte) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	lo := max(0, i-80)
	return fmt.Sprintf("at byte %d:\n got …%q\nwant …%q", i, got[lo:min(len(got), i+80)], want[lo:min(len(want), i+80)])
}

// Types the walk leaves to encoding/json: their Arrays go through Array.MarshalJSON, with the
// same bytes.
type withMarshaler struct{ A Array }

func (w withMarshaler) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]any{"wrapped": w.A})
}

type withOption struct {
	A Array `json:"a"`
	N int   `json:"n,string"`
}

type Inner struct {
	A Array `json:"a"`
}

type conflict struct {
	Inner
	A Array `json:"a"`
}

type recursive struct {
	A    Array      `json:"a"`
	Next *recursive `json:"next"`
}

func TestWriteJSONFallbackTypes(t *testing.T) {
	fs := streamFindings(20)
	a := ArrayOf(fs, toAudit)
	for _, v := range []any{
		withMarshaler{a}, withOption{A: a, N: 3}, conflict{Inner: Inner{A: a}, A: indexed(1, func(int) any { return "outer" })},
		recursive{A: a, Next: &recursive{A: a}}, []any{a, a}, map[string]Array{"k": a}, struct {
			Inner
			B Array `json:"b"`
		}{Inner{a}, a},
	} {
		got, want := encodeWith(t, WriteJSON, v), encodeWith(t, writeJSONOneShot, v)
		if !bytes.Equal(got, want) {
			t.Fatalf("%T:\n%s", v, firstDiff(got, want))
		}
	}
	// json.Marshal (HTML escaping on) also sees an Array as the slice.
	got, _ := json.Marshal(struct{ A Array }{a})
	want, _ := json.Marshal(struct{ A []finding.Audit }{audits(fs)})
	if !bytes.Equal(got, want) {
		t.Fatalf("json.Marshal:\n%s", firstDiff(got, want))
	}
}

type failingWriter struct{ left int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.left < len(p) {
		return 0, errors.New("broken pipe")
	}
	w.left -= len(p)
	return len(p), nil
}

type badElem struct{}

func (badElem) MarshalJSON() ([]byte, error) { return nil, errors.New("bad element") }

func TestWriteJSONErrors(t *testing.T) {
	s, _ := streamPair(5000)
	if err := WriteJSON(&failingWriter{left: 100 << 10}, s); err == nil || !strings.Contains(err.Error(), "broken pipe") {
		t.Fatalf("WriteJSON to a failing writer = %v, want its error", err)
	}
	v := struct{ A Array }{indexed(3, func(i int) any {
		if i == 2 {
			return badElem{}
		}
		return i
	})}
	if err := WriteJSON(io.Discard, v); err == nil || !strings.Contains(err.Error(), "bad element") {
		t.Fatalf("WriteJSON with a failing element = %v, want its error", err)
	}
}

// BenchmarkWriteJSON writes a run-task-shaped envelope with 200,000 audit findings
// (gitscope.md §8.1 scenario B) as run-task --json does now (an Array, streamed) and as it did
// before (each finding encoded into a json.RawMessage, then the envelope encoded in one buffer and
// escaped in another); compare B/op. The findings slice exists before either runs, as in run-task.
func BenchmarkWriteJSON(b *testing.B) {
	type envelope struct {
		Header
		Outcome  string `json:"outcome"`
		Findings Array  `json:"findings"`
	}
	type oldEnvelope struct {
		Header
		Outcome  string            `json:"outcome"`
		Findings []json.RawMessage `json:"findings"`
	}
	fs := streamFindings(200_000)
	b.Run("stream", func(b *testing.B) {
		b.ReportAllocs()
		defer reportPeakHeap(b)()
		for b.Loop() {
			e := envelope{Header: NewHeader("run-task"), Outcome: "post_broken", Findings: ArrayOf(fs, toAudit)}
			if err := WriteJSON(io.Discard, e); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("oneshot", func(b *testing.B) {
		b.ReportAllocs()
		defer reportPeakHeap(b)()
		for b.Loop() {
			raw := []json.RawMessage{}
			for _, f := range fs {
				if m, err := finding.MarshalValue(finding.Audit(f)); err == nil {
					raw = append(raw, m)
				}
			}
			e := oldEnvelope{Header: NewHeader("run-task"), Outcome: "post_broken", Findings: raw}
			if err := writeJSONOneShot(io.Discard, e); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// reportPeakHeap samples the heap every millisecond until the returned function is called, which
// reports the highest sample above the heap at the start as peak-heap-B. The garbage collector
// runs at GOGC=5 meanwhile, so the figure is close to what the benchmarked code held at once
// rather than to the garbage it left.
func reportPeakHeap(b *testing.B) func() {
	gc := debug.SetGCPercent(5)
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	base, peak := sample[0].Value.Uint64(), uint64(0)
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		s := []metrics.Sample{{Name: sample[0].Name}}
		for {
			metrics.Read(s)
			peak = max(peak, s[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	return func() {
		close(done)
		<-stopped
		debug.SetGCPercent(gc)
		b.ReportMetric(float64(peak-min(peak, base)), "peak-heap-B")
	}
}

type countingWriter struct{ n int }

func (w *countingWriter) Write(p []byte) (int, error) { w.n += len(p); return len(p), nil }

// TestWriteJSONStreamsArrays: the Arrays of the test envelope are walked, not left to
// encoding/json: output has left before their last elements are made.
func TestWriteJSONStreamsArrays(t *testing.T) {
	s, _ := streamPair(5000)
	w := &countingWriter{}
	var at []int
	probe := func(a Array) Array {
		k := len(at)
		at = append(at, 0)
		return NewArray(func(yield func(any) bool) {
			for x := range a.All() {
				at[k] = w.n // the bytes written when the last element was made
				if !yield(x) {
					return
				}
			}
		})
	}
	s.Tasks[0].Findings = probe(s.Tasks[0].Findings)
	top := probe(*s.Findings)
	s.Findings = &top
	if err := WriteJSON(w, s); err != nil {
		t.Fatal(err)
	}
	if len(at) != 2 || at[0] < 500<<10 || at[1] < 2*(500<<10) {
		t.Fatalf("bytes written when the last elements were made: %v of %d", at, w.n)
	}
}

// FuzzWriteJSON: any text in the keys' values and any number of elements, streamed, gives the
// one-shot encoding's bytes.
func FuzzWriteJSON(f *testing.F) {
	f.Add(hostile, "x", uint8(3))
	f.Add("\xe2\x80", "\u2028\U000E0041", uint8(0))
	f.Fuzz(func(t *testing.T, a, b string, n uint8) {
		fs := make([]finding.Finding, n)
		for i := range fs {
			fs[i] = finding.PathFinding(finding.KindReportMissingChangedFile, []finding.Field{{Key: "file", Value: a + fmt.Sprint(i) + b}})
			switch i % 4 {
			case 1:
				fs[i] = finding.Finding{Rule: b, Class: finding.ClassWarning, Message: a, Fields: []finding.Field{{Key: a, Value: b}}}
			case 2:
				fs[i] = finding.Finding{Rule: a, Class: finding.ClassError, Message: b, Fields: []finding.Field{{Key: "index", Value: int(n) - 128}, {Key: "cmd", Value: a}}}
			}
		}
		top := ArrayOf(fs, toAudit)
		v := streamEnvelope{Header: NewHeader(a), Outcome: b, Untagged: a + b,
			Tasks:    []streamTask{{Task: a, Verdict: &b, Findings: ArrayOf(fs, func(f finding.Finding) finding.Finding { return f })}},
			Findings: &top, Nested: indexed(int(n%4), func(i int) any { return indexed(i, func(int) any { return a }) })}
		got, want := encodeWith(t, WriteJSON, v), encodeWith(t, writeJSONOneShot, v)
		if !bytes.Equal(got, want) {
			t.Fatalf("streamed output differs:\n%s", firstDiff(got, want))
		}
	})
}
