//go:build !cgo

package claims

import "testing"

// Without cgo the tree-sitter languages are unsupported: explicit files, candidates that may hold
// the symbol, and integration targets all report language_unsupported; Go still works.
func TestNoCgoLanguagesUnsupported(t *testing.T) {
	r := repo{
		base: map[string]string{},
		cur: map[string]string{"app/x.py": "def f():\n    g()\n\ndef g():\n    pass\n",
			"web/a.ts": "export function h() {}\n", "main.go": "package main\n\nfunc main() {}\n"},
	}
	for _, tt := range []tsCase{
		{"explicit python file", fa("f", "file=app/x.py"), "unresolved language_unsupported"},
		{"python candidate", fa("f"), "unresolved language_unsupported"},
		{"typescript target", ig("main", "h"), "unresolved language_unsupported"},
		{"python from_file", ig("f", "main", "from_file=app/x.py"), "unresolved language_unsupported"},
		{"go still checked", fa("main"), "verified added_declaration main.go:3 b0"},
	} {
		if got := verifyOne(t, r, tt.claim); got != tt.want {
			t.Errorf("%s: got %s, want %s", tt.name, got, tt.want)
		}
	}
	if TreeSitter {
		t.Error("TreeSitter is true in a build without cgo")
	}
}
