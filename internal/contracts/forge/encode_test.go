package forge

import (
	"testing"
)

func mustObject(t *testing.T, s string) *Object {
	t.Helper()
	v, err := ParseJSON([]byte(s))
	if err != nil {
		t.Fatalf("ParseJSON(%s): %v", s, err)
	}
	o, ok := v.(*Object)
	if !ok {
		t.Fatalf("%s is not an object", s)
	}
	return o
}

// TestEntryHashVectors checks the §1.9 test vectors, which an ECMAScript engine reproduces.
func TestEntryHashVectors(t *testing.T) {
	a := mustObject(t, `{"run_id":"run-42","event_type":"agent_evidence_added","agent":"Build Boss","evidence":"go test ./... ok; tag <v1> — café","timestamp":"2026-11-29T10:00:00.000Z","event_id":"00000000-0000-4000-8000-000000000001","prev_hash":"genesis:run-42","seq":1}`)
	wantCanon := `{"agent":"Build Boss","event_id":"00000000-0000-4000-8000-000000000001","event_type":"agent_evidence_added","evidence":"go test ./... ok; tag <v1> — café","run_id":"run-42","seq":1,"timestamp":"2026-11-29T10:00:00.000Z"}`
	if got := string(Canonical(a)); got != wantCanon {
		t.Fatalf("canonical A:\n got %s\nwant %s", got, wantCanon)
	}
	ha := EntryHash(a, "genesis:run-42")
	if ha != "b33a1251f4b884dc3690213a85b2a821d4f6ee34b886687766b8597e5b6ef5ce" {
		t.Fatalf("entry_hash A = %s", ha)
	}
	b := NewObject()
	b.Set("run_id", "run-42")
	b.Set("event_type", "agent_output")
	b.Set("agent", "Build Boss")
	b.Set("output", "completed · WP-7 · 1 file(s) · tests: go test ./...")
	b.Set("report", mustObject(t, `{"status":"completed","work_package":"WP-7","files_changed":["a.go"],"tests_run":"go test ./...","evidence":["ok"],"next_action":"merge"}`))
	b.Set("timestamp", "2026-11-29T10:00:00.000Z")
	b.Set("event_id", "00000000-0000-4000-8000-000000000002")
	b.Set("prev_hash", ha)
	b.Set("seq", 2.0)
	if hb := EntryHash(b, ha); hb != "532ddb76cd75cc21060ccb677b7c6269ae2372c5c84e7b1233bd2d53dc2d7474" {
		t.Fatalf("entry_hash B = %s", hb)
	}
}

func TestStringifyVectors(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"b":1,"10":2,"a":3,"2":4}`, `{"2":4,"10":2,"b":1,"a":3}`},
		{`[1e21, 1e-7, 123456789, -0, 0.30000000000000004, 1.5e300, 0.000001, 4294967295]`, `[1e+21,1e-7,123456789,0,0.30000000000000004,1.5e+300,0.000001,4294967295]`},
		{`"\u2028<&>\b\f\u0001/"`, "\"\u2028<&>\\b\\f\\u0001/\""},
		{`{"a":1,"a":2,"b":3}`, `{"a":2,"b":3}`},                           // duplicate: last value, first position
		{`{"4294967295":1,"1":2,"01":3}`, `{"1":2,"4294967295":1,"01":3}`}, // 2^32-1 and 01 are not indices
		{`1e400`, `null`},
		{`{"x":[null,true,false,"\"\\\t\n\r"]}`, `{"x":[null,true,false,"\"\\\t\n\r"]}`},
		// Lone surrogates stay what JSON.parse leaves and JSON.stringify writes back (lowercase);
		// an escaped pair is one character, written raw.
		{`["a\ud800b","\uDFFF","\ud83d\ude00","\ud83d\ud83d\ude00","\ude00\ud83d"]`, "[\"a\\ud800b\",\"\\udfff\",\"\U0001F600\",\"\\ud83d\U0001F600\",\"\\ude00\\ud83d\"]"},
		{`{"\udc00":1,"\uffff":2,"\ud800":3}`, "{\"\\udc00\":1,\"\uffff\":2,\"\\ud800\":3}"}, // nested keys keep their order
		{"\"raw \xff byte\"", "\"raw \uFFFD byte\""},
	}
	for _, tt := range tests {
		v, err := ParseJSON([]byte(tt.in))
		if err != nil {
			t.Fatalf("ParseJSON(%s): %v", tt.in, err)
		}
		if got := string(Stringify(nil, v)); got != tt.want {
			t.Errorf("Stringify(%s)\n got %s\nwant %s", tt.in, got, tt.want)
		}
	}
}

func TestCanonicalTopLevelOrder(t *testing.T) {
	o := mustObject(t, `{"b":1,"10":2,"\uff01":0,"\ud83d\ude00":5,"a":3,"2":4,"entry_hash":"x","prev_hash":"y"}`)
	// Index keys first numerically; then UTF-16 order: U+1F600 (surrogate D83D) sorts before U+FF01.
	want := "{\"2\":4,\"10\":2,\"a\":3,\"b\":1,\"\U0001F600\":5,\"\uff01\":0}"
	if got := string(Canonical(o)); got != want {
		t.Fatalf("got %s\nwant %s", got, want)
	}
}

func TestJSString(t *testing.T) {
	tests := []struct{ in, want string }{
		{`null`, "null"}, {`[null, 1, [2, null, "x"], {"a":1}]`, ",1,2,,x,[object Object]"},
		{`true`, "true"}, {`0.1`, "0.1"}, {`[]`, ""}, {`[" "]`, " "},
	}
	for _, tt := range tests {
		v, _ := ParseJSON([]byte(tt.in))
		if got := jsString(v); got != tt.want {
			t.Errorf("jsString(%s) = %q, want %q", tt.in, got, tt.want)
		}
	}
	v, _ := ParseJSON([]byte(`["go test", null, 3, {"a":1}, true]`))
	if got := testsSummary(v); got != "go test |  | 3 | [object Object] | true" {
		t.Errorf("testsSummary = %q", got)
	}
}

// TestCanonicalLoneSurrogateOrder: top-level keys sort by UTF-16 code units, where a lone
// surrogate (D800) sorts below U+FFFF and above U+D7FF, as ECMAScript's sort does.
func TestCanonicalLoneSurrogateOrder(t *testing.T) {
	o := mustObject(t, `{"\uffff":1,"\ud800":2,"\ud7ff":3,"\ud83d\ude00":4}`)
	want := "{\"\ud7ff\":3,\"\\ud800\":2,\"\U0001F600\":4,\"\uffff\":1}"
	if got := string(Canonical(o)); got != want {
		t.Fatalf("Canonical = %s, want %s", got, want)
	}
}

// TestStringifyJoinsHalves: two halves concatenated by a join are one character again, as when
// ECMAScript concatenates the strings.
func TestStringifyJoinsHalves(t *testing.T) {
	v, err := ParseJSON([]byte(`["\ud83d","\ude00"]`))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(Stringify(nil, joinJS(v.([]any), "", 0))); got != "\"\U0001F600\"" {
		t.Fatalf("joined = %s", got)
	}
}
