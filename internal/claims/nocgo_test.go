//go:build !cgo

package claims

import (
	"context"
	"errors"
	"testing"
)

// Without cgo the tree-sitter languages have no backend. A claim that needs a file in one of them
// (an explicit file, a candidate that may hold the symbol, an integration target or caller) ends
// Verify with a BackendUnavailableError naming the language, the claim and the file, and no
// outcome: a cgo build might decide the claim differently (lifecycle-v2.md §8). A language without
// any backend stays language_unsupported; Go alone is still checked.
func TestNoCgoBackendUnavailable(t *testing.T) {
	r := repo{
		base: map[string]string{},
		cur: map[string]string{"app/x.py": "def f():\n    g()\n\ndef g():\n    pass\n",
			"web/a.ts": "export function h() {}\n", "main.go": "package main\n\nfunc main() {}\n",
			"lib/Main.kt": "class Main { fun run() {} }\n", "lib/App.java": "class App { void start() { } }\n"},
	}
	for _, tt := range []struct {
		name       string
		claim      Claim
		lang, file string
	}{
		{"explicit python file", fa("f", "file=app/x.py"), "Python", "app/x.py"},
		{"python and kotlin candidates", fa("f"), "Python", "app/x.py"},
		{"go claim with python candidates", fa("main"), "Python", "app/x.py"},
		{"integration target searched in every listed file", ig("main", "h"), "Python", "app/x.py"},
		{"explicit typescript file", fa("h", "file=web/a.ts"), "TypeScript", "web/a.ts"},
		{"python from_file", ig("main", "main", "from_file=app/x.py"), "Python", "app/x.py"},
		{"explicit java file", fa("App.start", "file=lib/App.java"), "Java", "lib/App.java"},
		{"go to java target", ig("main", "App.start", "to_file=lib/App.java"), "Java", "lib/App.java"},
		{"tsx to_file", ig("main", "h", "to_file=web/v.tsx"), "", ""}, // missing file: an outcome
	} {
		t.Run(tt.name, func(t *testing.T) {
			src, ch := r.source()
			c := tt.claim
			c.Index = 3
			out, err := Verify(context.Background(), []Claim{fa("main", "file=main.go"), c}, ch, src, "b0")
			if tt.lang == "" {
				if err != nil || len(out) != 2 {
					t.Fatalf("Verify: %d checks, error %v; want 2 checks", len(out), err)
				}
				return
			}
			var be *BackendUnavailableError
			if !errors.As(err, &be) || !errors.Is(err, ErrBackendUnavailable) || out != nil {
				t.Fatalf("Verify: %d checks, error %v; want no checks and a BackendUnavailableError", len(out), err)
			}
			if be.Language != tt.lang || be.File != tt.file || be.ClaimIndex != 3 {
				t.Errorf("error %+v, want %s %s claim 3", be, tt.lang, tt.file)
			}
			want := "this mastermind build cannot check " + tt.lang + " claims (built without cgo); use a build with tree-sitter"
			if msg := err.Error(); len(msg) < len(want) || msg[:len(want)] != want {
				t.Errorf("message %q, want it to start with %q", msg, want)
			}
		})
	}
	// A missing explicit file is current_file_unavailable whatever its language, as in a cgo build.
	if got := verifyOne(t, r, fa("f", "file=app/gone.py")); got != "unresolved current_file_unavailable" {
		t.Errorf("missing python file: got %s", got)
	}
	// Without any §10.6 language among the candidates, Go claims are checked and a language with
	// no backend in any build stays language_unsupported.
	r.cur = map[string]string{"main.go": "package main\n\nfunc main() {}\n", "lib/Main.kt": "class Main { fun run() {} }\n"}
	if got := verifyOne(t, r, fa("run")); got != "unresolved language_unsupported" {
		t.Errorf("kotlin candidate: got %s", got)
	}
	if got := verifyOne(t, r, fa("main")); got != "verified added_declaration main.go:3 b0" {
		t.Errorf("go claim: got %s", got)
	}
	if TreeSitter {
		t.Error("TreeSitter is true in a build without cgo")
	}
}
