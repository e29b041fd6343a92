package claims

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestClaimLimit(t *testing.T) {
	r := repo{base: map[string]string{}, cur: map[string]string{"a.go": "package a\n\nfunc A() {}\n"}}
	mk := func(n int) []Claim {
		cs := make([]Claim, n)
		for i := range cs {
			cs[i] = fa("A")
			cs[i].Index = i
		}
		return cs
	}
	src, ch := r.source()
	out := verifyAll(t, context.Background(), mk(MaxClaims+1), ch, src, "b0")
	if len(out) != MaxClaims+1 {
		t.Fatalf("%d checks for %d claims", len(out), MaxClaims+1)
	}
	for i, c := range out {
		checkShape(t, c)
		if c.ClaimIndex != i || outcome(c) != "unresolved claim_limit" {
			t.Fatalf("check %d: index %d outcome %s", i, c.ClaimIndex, outcome(c))
		}
	}
	if want := "claim 256 could not be checked (claim_limit)"; out[256].Finding.Message != want {
		t.Errorf("message %q, want %q", out[256].Finding.Message, want)
	}
	if src.reads != 0 {
		t.Errorf("claim_limit read %d files; nothing may be checked", src.reads)
	}
	// Exactly the limit is checked, and the file is read once for all claims (parse cache).
	src, ch = r.source()
	out = verifyAll(t, context.Background(), mk(MaxClaims), ch, src, "b0")
	for i, c := range out {
		if got := outcome(c); got != "verified added_declaration a.go:3 b0" {
			t.Fatalf("check %d: %s", i, got)
		}
	}
	if src.reads != 1 {
		t.Errorf("read a.go %d times for %d claims, want 1", src.reads, MaxClaims)
	}
}

func TestSearchBudgetFiles(t *testing.T) {
	cur := map[string]string{"main.go": "package main\n\nfunc main() { run() }\n\nfunc run() {}\n"}
	for i := range MaxFilesParsed {
		cur[fmt.Sprintf("gen/p%05d/f.go", i)] = "package p\n"
	}
	src := &memSource{cur: cur, base: map[string]string{}}
	ch := []ChangedFile{{"main.go", StatusAdded}}
	claims := []Claim{ig("main", "run", "to_file=main.go"), ig("main", "nowhere"), fa("main"), ig("main", "run")}
	for i := range claims {
		claims[i].Index = i
	}
	out := verifyAll(t, context.Background(), claims, ch, src, "b0")
	want := []string{
		"verified compatible_call_candidate main.go:3 -> main.go:5 same_package",
		"unresolved search_budget_exhausted", "unresolved search_budget_exhausted", "unresolved search_budget_exhausted",
	}
	for i, c := range out {
		checkShape(t, c)
		if got := outcome(c); got != want[i] {
			t.Errorf("claim %d: got %s, want %s", i, got, want[i])
		}
	}
}

func TestSearchBudgetBytes(t *testing.T) {
	// 17 files of 4 MiB of comment text exceed 64 MiB; the first claims fit.
	big := "package p\n//" + strings.Repeat("x", MaxFileBytes-16) + "\n"
	cur := map[string]string{}
	var claims []Claim
	var changed []ChangedFile
	for i := range 17 {
		p := fmt.Sprintf("p%02d/big.go", i)
		cur[p] = big
		changed = append(changed, ChangedFile{p, StatusAdded})
		c := fa("F", "file="+p)
		c.Index = i
		claims = append(claims, c)
	}
	src := &memSource{cur: cur, base: map[string]string{}}
	out := verifyAll(t, context.Background(), claims, changed, src, "b0")
	for i, c := range out {
		want := "failed claimed_symbol_missing: claimed function F not found in " + fmt.Sprintf("p%02d/big.go", i)
		if i == 16 {
			want = "unresolved search_budget_exhausted"
		}
		if got := outcome(c); got != want {
			t.Errorf("claim %d: got %s, want %s", i, got, want)
		}
	}
	// A single oversized file is source_too_large.
	src.cur["huge.go"] = big + strings.Repeat("y", 32)
	out = verifyAll(t, context.Background(), []Claim{fa("F", "file=huge.go")}, []ChangedFile{{"huge.go", StatusAdded}}, src, "b0")
	if got := outcome(out[0]); got != "unresolved source_too_large" {
		t.Errorf("oversized file: %s", got)
	}
}

func TestCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	src := &memSource{cur: map[string]string{"a.go": "package a\nfunc A() {}\n"}}
	out := verifyAll(t, ctx, []Claim{fa("A")}, []ChangedFile{{"a.go", StatusAdded}}, src, "b0")
	if got := outcome(out[0]); got != "unresolved search_budget_exhausted" {
		t.Errorf("cancelled: %s", got)
	}
}

func TestCheckJSON(t *testing.T) {
	r := repo{base: map[string]string{}, cur: map[string]string{"a.go": "package a\n\nfunc A() {}\n"}}
	src, ch := r.source()
	claims := []Claim{fa("A", "file=a.go"), ig("A", "B", "relation=uses"), fa("<Nope>")}
	for i := range claims {
		claims[i].Index = i
	}
	out := verifyAll(t, context.Background(), claims, ch, src, "b0")
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		t.Fatal(err)
	}
	got := strings.TrimSuffix(buf.String(), "\n")
	want := `[{"claim_index":0,"claim":{"kind":"function_added","symbol":"A","file":"a.go"},"status":"verified","evidence":{"kind":"added_declaration","file":"a.go","line":3,"baseline_oid":"b0"}},` +
		`{"claim_index":1,"claim":{"kind":"integration","from":"A","to":"B","relation":"uses"},"status":"unresolved","finding":{"kind":"executor_claim_unresolved","class":"error","message":"claim 1 could not be checked (relation_unsupported)","claim_index":1,"reason":"relation_unsupported"}},` +
		`{"claim_index":2,"claim":{"kind":"function_added","symbol":"<Nope>"},"status":"failed","finding":{"kind":"claimed_symbol_missing","class":"error","message":"claimed function <Nope> not found","symbol":"<Nope>"}}]`
	if got != want {
		t.Errorf("JSON:\n%s\nwant:\n%s", got, want)
	}
}
