//go:build !cgo

package claims

import "testing"

// Without cgo the tree-sitter languages are unavailable (language_unavailable: a cgo build could
// check them): explicit files, candidates that may hold the symbol, and integration targets. A
// language without any backend stays language_unsupported; Go still works.
func TestNoCgoLanguagesUnavailable(t *testing.T) {
	r := repo{
		base: map[string]string{},
		cur: map[string]string{"app/x.py": "def f():\n    g()\n\ndef g():\n    pass\n",
			"web/a.ts": "export function h() {}\n", "main.go": "package main\n\nfunc main() {}\n",
			"lib/Main.kt": "class Main { fun run() {} }\n", "lib/App.java": "class App { void start() { } }\n"},
	}
	for _, tt := range []tsCase{
		{"explicit python file", fa("f", "file=app/x.py"), "unresolved language_unavailable"},
		{"python and kotlin candidates: unavailable wins", fa("f"), "unresolved language_unavailable"},
		{"typescript target", ig("main", "h"), "unresolved language_unavailable"},
		{"python from_file", ig("f", "main", "from_file=app/x.py"), "unresolved language_unavailable"},
		{"explicit java file", fa("App.start", "file=lib/App.java"), "unresolved language_unavailable"},
		{"go to java target", ig("main", "App.start", "to_file=lib/App.java"), "unresolved language_unavailable"},
		{"explicit kotlin file", fa("run", "file=lib/Main.kt"), "unresolved language_unsupported"},
		{"missing python file", fa("f", "file=app/gone.py"), "unresolved current_file_unavailable"},
		{"go still checked", fa("main"), "verified added_declaration main.go:3 b0"},
	} {
		if got := verifyOne(t, r, tt.claim); got != tt.want {
			t.Errorf("%s: got %s, want %s", tt.name, got, tt.want)
		}
	}
	// Only a language without any backend among the candidates: language_unsupported.
	r.cur = map[string]string{"main.go": "package main\n\nfunc main() {}\n", "lib/Main.kt": "class Main { fun run() {} }\n"}
	if got := verifyOne(t, r, fa("run")); got != "unresolved language_unsupported" {
		t.Errorf("kotlin candidate: got %s", got)
	}
	if TreeSitter {
		t.Error("TreeSitter is true in a build without cgo")
	}
}
