package claims

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"testing"
)

// TestClaimsOutsideTheChangedSet: a claim's explicit file outside D never verifies
// (spec-and-lifecycle.md §10.6: the caller must be a changed caller; a function is added only by a
// changed file). The repository is real: an unchanged tracked file that already calls the target,
// an ignored generated file, a tracked file edited under skip-worktree (git reports it unchanged)
// and a directory.
func TestClaimsOutsideTheChangedSet(t *testing.T) {
	dir, git := gitRepo(t)
	write(t, dir, "go.mod", "module example.com/m\n\ngo 1.22\n")
	write(t, dir, ".gitignore", "build/\n")
	write(t, dir, "src/x.go", "package src\n\nfunc X() {}\n")
	write(t, dir, "src/old.go", "package src\n\nfunc Old() { X() }\n")
	write(t, dir, "src/hidden.go", "package src\n\nfunc Hidden() {}\n")
	write(t, dir, "src/new.go", "package src\n\nfunc Base() {}\n")
	git("add", "-A")
	git("commit", "-q", "-m", "base")
	base := strings.TrimSpace(git("rev-parse", "HEAD"))

	// The task's real change: src/new.go gains New, which calls X.
	write(t, dir, "src/new.go", "package src\n\nfunc Base() {}\n\nfunc New() { X() }\n")
	// An ignored generated file that is absent at the baseline and never part of D.
	write(t, dir, "build/gen.go", "package build\n\nfunc Gen() { Old() }\n\nfunc Old() {}\n")
	// A tracked file edited while git is told to skip it: git reports it unchanged.
	git("update-index", "--skip-worktree", "src/hidden.go")
	write(t, dir, "src/hidden.go", "package src\n\nfunc Hidden() {}\n\nfunc Sneaky() { X() }\n")
	if st := git("status", "--porcelain"); st != " M src/new.go\n" {
		t.Fatalf("git status: %q", st)
	}
	changed := []ChangedFile{{"src/new.go", StatusModified}}

	src := RootSource{
		Root: dir,
		Baseline: func(p string) ([]byte, bool, error) {
			cmd := exec.Command("git", "cat-file", "blob", base+":"+p)
			cmd.Dir = dir
			var out bytes.Buffer
			cmd.Stdout = &out
			if err := cmd.Run(); err != nil {
				return nil, false, nil
			}
			return out.Bytes(), true, nil
		},
		List: func() ([]string, error) {
			out := git("ls-files", "-z", "--cached", "--others", "--exclude-standard")
			return strings.Split(strings.TrimSuffix(out, "\x00"), "\x00"), nil
		},
	}.Source()
	tests := []struct {
		claim Claim
		want  string
	}{
		// The changed caller verifies; the same call in an unchanged file does not.
		{ig("New", "X", "from_file=src/new.go"), "verified compatible_call_candidate src/new.go:5 -> src/x.go:3 same_package"},
		{ig("Old", "X", "from_file=src/old.go"), "unresolved from_missing"},
		{ig("Old", "X"), "unresolved from_missing"},
		{ig("Gen", "Old", "from_file=build/gen.go", "to_file=build/gen.go"), "unresolved from_missing"},
		{ig("Sneaky", "X", "from_file=src/hidden.go"), "unresolved from_missing"},
		{ig("New", "X", "from_file=src"), "unresolved current_file_unavailable"},
		{ig("New", "X", "from_file=src/nope.go"), "unresolved current_file_unavailable"},
		// function_added with an explicit file outside D.
		{fa("New", "file=src/new.go"), "verified added_declaration src/new.go:5 " + base},
		{fa("Old", "file=src/old.go"), "failed claimed_symbol_not_added: claimed function Old already exists at the baseline; it was not added by this task"},
		{fa("Nope", "file=src/old.go"), "failed claimed_symbol_missing: claimed function Nope not found in src/old.go"},
		{fa("Gen", "file=build/gen.go"), "unresolved current_file_unavailable"},
		{fa("Sneaky", "file=src/hidden.go"), "unresolved current_file_unavailable"},
		{fa("Sneaky"), "failed claimed_symbol_missing: claimed function Sneaky not found"},
		{fa("New", "file=src"), "unresolved current_file_unavailable"},
	}
	for i, tt := range tests {
		out := verifyAll(t, context.Background(), []Claim{tt.claim}, changed, src, base)
		checkShape(t, out[0])
		if got := outcome(out[0]); got != tt.want {
			t.Errorf("case %d: got  %s\nwant %s", i, got, tt.want)
		}
	}
}

// TestParseFailureHidesAmbiguity: a candidate that fails to parse and mentions the claimed name
// could hold a second match, so a unique match elsewhere is not trusted (current_parse_failed). A
// failed candidate that never mentions the name cannot hold it and does not matter. The outcome
// does not depend on the order in which files are given.
func TestParseFailureHidesAmbiguity(t *testing.T) {
	r := repo{
		base: map[string]string{"lib/t.go": "package lib\n\nfunc T() {}\n"},
		cur: map[string]string{
			"lib/t.go":       "package lib\n\nfunc T() {}\n",
			"a/a.go":         "package a\n\nimport \"x/lib\"\n\nfunc Dup() { lib.T() }\n",
			"b/b.go":         "package b\n\nfunc Dup() { Tx() \n",     // unterminated: a second Dup
			"c/c.go":         "package c\n\nfunc Other( { Dupe() }\n", // broken, no Dup (or T) identifier in it
			"d/d.go":         "package d\n\nfunc Target() {}\n",
			"e/e.go":         "package e\n\nfunc Target( {\n",
			"f/f.go":         "package f\n\nfunc Caller() { d.Target() }\n",
			"lib/callers.go": "package lib\n\nfunc UseT() { T() }\n",
		},
	}
	tests := []struct {
		claim Claim
		want  string
	}{
		{fa("Dup"), "unresolved current_parse_failed"},
		{fa("a.Dup"), "unresolved current_parse_failed"},
		{fa("UseT"), "verified added_declaration lib/callers.go:3 b0"},
		{ig("Dup", "T"), "unresolved current_parse_failed"},
		{ig("Dup", "T", "from_file=a/a.go"), "verified compatible_call_candidate a/a.go:5 -> lib/t.go:3 import"},
		{ig("Caller", "Target"), "unresolved current_parse_failed"},
		{ig("Caller", "Target", "to_file=d/d.go"), "unresolved missing_call_edge"},
	}
	for i, tt := range tests {
		got := verifyOne(t, r, tt.claim)
		if tt.want == "unresolved missing_call_edge" {
			tt.want = "failed missing_call_edge: no call from Caller to Target was found"
		}
		if got != tt.want {
			t.Errorf("case %d: got  %s\nwant %s", i, got, tt.want)
		}
	}
	// Determinism: the changed set in reverse order gives the same outcomes.
	src, ch := r.source()
	for i, j := 0, len(ch)-1; i < j; i, j = i+1, j-1 {
		ch[i], ch[j] = ch[j], ch[i]
	}
	out := verifyAll(t, context.Background(), []Claim{fa("Dup")}, ch, src, "b0")
	if got := outcome(out[0]); got != "unresolved current_parse_failed" {
		t.Errorf("reversed changed set: %s", got)
	}
}
