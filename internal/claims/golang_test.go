package claims

import (
	"strings"
	"testing"
)

const goClientBase = `package client

import "context"

type Client struct{}

type Response struct{}

// Get fetches url.
func (c *Client) Get(ctx context.Context, url string) (*Response, error) {
	return nil, nil
}
`

const goClientCur = `package client

import "context"

type Client struct{}

type Response struct{}

type Pool struct{}

// Get fetches url.
func (c *Client) Get(ctx context.Context, url string) (*Response, error) {
	return c.do(ctx, url)
}

func (c *Client) do(ctx context.Context,
	url string,
) (*Response, error) {
	return nil, nil
}

func (p Pool) Get(ctx context.Context, url string) (*Response, error) { return nil, nil }

func Open(addr string) *Client { return &Client{} }

func (client) Open() {}

type client struct{}

func Map[K comparable, V any](m map[K]V) []K { return nil }

func (l *List[T]) Push(v T) {}

type List[T any] struct{}
`

func TestFunctionAddedGo(t *testing.T) {
	r := repo{
		base: map[string]string{"client/client.go": goClientBase, "old/util.go": "package old\n\nfunc Helper() int { return 1 }\n",
			"redef/r.go": "package redef\n\ntype T struct{}\n\nfunc (T) M() {}\n\nfunc (T) M() {}\n",
			"bad/b.go":   "package bad\n\nfunc Broken( {\n", "gone/g.go": "package gone\n\nfunc X() {}\n"},
		cur: map[string]string{
			"client/client.go": goClientCur,
			"newpkg/new.go":    "package newpkg\n\n// Fresh is new.\nfunc Fresh() {}\n\nvar Limit = 3\n",
			"util/util.go":     "package old\n\nfunc Helper() int { return 1 }\n", // renamed from old/util.go
			"redef/r.go":       "package redef\n\ntype T struct{}\n\nfunc (T) M() { println() }\n",
			"bad/b.go":         "package bad\n\nfunc Fixed() {}\n",
			"broken/x.go":      "package broken\n\nfunc Half(\n",
			"scratch/s.go":     "package scratch\n\nfunc Scratch() {}\n",
			"lib/Main.kt":      "class Main { fun run() {} }\n",
			"docs/readme.md":   "# Fresh\n",
		},
		untracked: []string{"scratch/s.go"},
	}
	tests := []struct {
		name  string
		claim Claim
		want  string
	}{
		{"added file", fa("Fresh"), "verified added_declaration newpkg/new.go:4 b0"},
		{"added file explicit", fa("newpkg.Fresh", "file=./newpkg/new.go"), "verified added_declaration newpkg/new.go:4 b0"},
		{"untracked file", fa("Scratch"), "verified added_declaration scratch/s.go:3 b0"},
		{"edited, not added", fa("Client.Get", "file=client/client.go"),
			"failed claimed_symbol_not_added: claimed function Client.Get already exists at the baseline; it was not added by this task"},
		{"added method in modified file", fa("(*Client).do"), "verified added_declaration client/client.go:16 b0"},
		{"value receiver spelling", fa("(Pool).Get"), "verified added_declaration client/client.go:22 b0"},
		{"same-name methods are ambiguous", fa("Get"), "unresolved ambiguous 2"},
		{"Type.Name picks one", fa("Pool.Get"), "verified added_declaration client/client.go:22 b0"},
		{"pkg reading", fa("client.Open"), "unresolved ambiguous 2"}, // func Open and (client).Open
		{"bare name with function and method", fa("Open"), "unresolved ambiguous 2"},
		{"generic function", fa("Map", "signature=func Map[K comparable, V any](m map[K]V) []K"), "verified added_declaration client/client.go:30 b0"},
		{"generic receiver", fa("(*List[T]).Push"), "verified added_declaration client/client.go:32 b0"},
		{"generic receiver bare type", fa("List.Push"), "verified added_declaration client/client.go:32 b0"},
		{"signature matches after whitespace collapse", fa("Client.do", "signature=func (c *Client)   do(ctx context.Context, url string) (*Response, error)"),
			"verified added_declaration client/client.go:16 b0"},
		{"signature mismatch", fa("Pool.Get", "signature=func (p Pool) Get(url string) error"),
			`failed claimed_signature_mismatch: claimed signature "func (p Pool) Get(url string) error" of Pool.Get differs from the source: "func (p Pool) Get(ctx context.Context, url string) (*Response, error)"`},
		{"kind mismatch: variable", fa("Limit"), "unresolved claim_kind_mismatch"},
		{"kind mismatch: type", fa("newpkg.Limit"), "unresolved claim_kind_mismatch"},
		{"unparsable candidate hides a missing symbol", fa("newpkg.Nope"), "unresolved current_parse_failed"},
		{"missing in file", fa("Nope", "file=newpkg/new.go"), "failed claimed_symbol_missing: claimed function Nope not found in newpkg/new.go"},
		{"renamed file counts as new", fa("Helper"), "verified added_declaration util/util.go:3 b0"},
		{"redefinition at baseline", fa("T.M"), "unresolved addition_ambiguous"},
		{"current parse error", fa("Half", "file=broken/x.go"), "unresolved current_parse_failed"},
		{"unparsable baseline", fa("Fixed"), "unresolved baseline_parse_failed"},
		{"explicit unsupported language", fa("run", "file=lib/Main.kt"), "unresolved language_unsupported"},
		{"explicit non-source file", fa("run", "file=docs/readme.md"), "unresolved language_unsupported"},
		{"missing file", fa("X", "file=gone/g.go"), "unresolved current_file_unavailable"},
		{"invalid path", fa("X", "file=../x.go"), "unresolved current_file_unavailable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := verifyOne(t, r, tt.claim); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestFunctionAddedGoMissingAndBaseline(t *testing.T) {
	r := repo{
		base: map[string]string{"a/a.go": "package a\n\nfunc Old() {}\n"},
		cur:  map[string]string{"a/a.go": "package a\n\nfunc Old() {}\n\nfunc New() {}\n"},
	}
	if got, want := verifyOne(t, r, fa("Nope")), "failed claimed_symbol_missing: claimed function Nope not found"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	src, ch := r.source()
	src.baseErr["a/a.go"] = true
	out := verifyAll(t, t.Context(), []Claim{fa("New")}, ch, src, "b0")
	if got := outcome(out[0]); got != "unresolved baseline_unavailable" {
		t.Errorf("baseline read failure: got %s", got)
	}
	// A changed file in a language without a backend may hold the symbol.
	r.cur["lib/Main.kt"] = "class Main {}\n"
	if got := verifyOne(t, r, fa("Nope")); got != "unresolved language_unsupported" {
		t.Errorf("unsupported candidate: got %s", got)
	}
	if got := verifyOne(t, r, fa("New")); got != "verified added_declaration a/a.go:5 b0" {
		t.Errorf("match beside unsupported candidate: got %s", got)
	}
	delete(r.cur, "lib/Main.kt")
	// An unparsable changed file hides the symbol: the search cannot say it is missing.
	r.cur["b/b.go"] = "package b\nfunc (\n"
	if got := verifyOne(t, r, fa("Nope")); got != "unresolved current_parse_failed" {
		t.Errorf("unparsable candidate: got %s", got)
	}
	// ...but a match elsewhere still decides.
	if got := verifyOne(t, r, fa("New")); got != "verified added_declaration a/a.go:5 b0" {
		t.Errorf("match beside unparsable candidate: got %s", got)
	}
}

func TestGoSignatureRendering(t *testing.T) {
	src := "package p\n\n// Doc.\nfunc (c *Client) Get(\n\tctx context.Context, // the context\n\turl string,\n) (resp *Response, err error) {\n\treturn\n}\n\nfunc F[T any, U ~int](xs ...T) (func(int) error, chan<- U) { return nil, nil }\n"
	u, err := parseGo("p.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"func (c *Client) Get(ctx context.Context, url string) (resp *Response, err error)",
		"func F[T any, U ~int](xs ...T) (func(int) error, chan<- U)",
	}
	var got []string
	for _, d := range u.decls {
		got = append(got, d.signature())
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("signatures:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
