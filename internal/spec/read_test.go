package spec

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestReadRefusals(t *testing.T) {
	root := t.TempDir()
	const rel = ".mastermind/tasks/001-x/spec.md"
	writeFile(t, filepath.Join(root, rel), "---\nmode: lite\n---\n## Goals\ng\n")
	writeFile(t, filepath.Join(root, "real/spec.md"), "## Goals\n")
	if err := os.Symlink("real", filepath.Join(root, "linkdir")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("spec.md", filepath.Join(root, "real/link.md")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "fifo.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	big := make([]byte, MaxBytes+1)
	for i := range big {
		big[i] = 'a'
	}
	writeFile(t, filepath.Join(root, "big.md"), string(big))

	s, fs, err := Read(root, rel)
	if err != nil || len(fs) != 0 || s == nil || s.Frontmatter.Mode != ModeLite {
		t.Fatalf("valid spec: %v %v %+v", err, fs, s)
	}
	for _, tc := range []struct{ rel, reason string }{
		{"missing.md", "missing"},
		{"linkdir/spec.md", "symlinked_ancestor"},
		{"real/link.md", "symlink"},
		{"fifo.md", "not_regular"},
		{"real", "not_regular"},
		{"big.md", "too_large"},
	} {
		s, fs, err := Read(root, tc.rel)
		if err != nil || s != nil || len(fs) != 1 {
			t.Fatalf("%s: got %v %v %v", tc.rel, s, fs, err)
		}
		f := fs[0]
		if f.Rule != RuleUnreadable || f.File != tc.rel || f.FieldString("reason") != tc.reason {
			t.Errorf("%s: got %v reason=%s", tc.rel, f, f.FieldString("reason"))
		}
		if !strings.Contains(f.Message, "spec "+tc.rel+" ") {
			t.Errorf("%s: the message does not name the file: %q", tc.rel, f.Message)
		}
	}
}

func TestHashIsOfRawBytes(t *testing.T) {
	// sha256("\xef\xbb\xbf## Goals\n") differs from sha256("## Goals\n"): the BOM is hashed.
	with, _ := Parse([]byte("\xef\xbb\xbf## Goals\n"), "s")
	without, _ := Parse([]byte("## Goals\n"), "s")
	if with.Hash == without.Hash {
		t.Fatal("BOM not part of the hash")
	}
	sum := sha256.Sum256([]byte("\xef\xbb\xbf## Goals\n"))
	if with.Hash != hex.EncodeToString(sum[:]) {
		t.Fatalf("hash %s is not the SHA-256 of the raw bytes", with.Hash)
	}
}

func TestCheckDeclaredFiles(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "ok.go"), "package x\n")
	writeFile(t, filepath.Join(root, "real/doc.md"), "x\n")
	writeFile(t, filepath.Join(root, "plain"), "x\n")
	writeFile(t, filepath.Join(root, "README.md"), "x\n")
	writeFile(t, filepath.Join(root, "src/app.go"), "x\n")
	if err := os.MkdirAll(filepath.Join(root, "adir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("ok.go", filepath.Join(root, "alias.go")); err != nil {
		t.Fatal(err)
	}
	src := `---
mode: lite
touches:
  - file: ok.go
  - file: gone.go
  - file: adir
  - file: alias.go
  - file: ok.go
  - READMEE.md
  - scr/app.go
expected_docs:
  - link/doc.md
  - Real/Doc.md
  - linkk/doc.md
  - real/doc.md
  - plain/child.md
creates:
  - new.go
---
## Goals
g
`
	s, fs := Parse([]byte(src), "spec.md")
	if len(fs) != 0 {
		t.Fatalf("parse findings: %v", fs)
	}
	var got []string
	for _, f := range CheckDeclaredFiles(root, s) {
		if f.Rule != RuleDeclaredFileUnavailable || f.File != "spec.md" {
			t.Errorf("bad finding %v", f)
		}
		got = append(got, f.FieldString("file")+" "+f.FieldString("reason")+" | "+f.Message)
		if c := f.FieldString("closest"); c != "" && !strings.Contains(f.Message, "did you mean "+c+"?") {
			t.Errorf("field closest %q is not the suggestion in %q", c, f.Message)
		}
	}
	want := []string{
		"gone.go target_missing | declared file gone.go is unavailable (target_missing): it does not exist; if the task creates it, list it under creates instead of touches",
		"adir target_not_regular | declared file adir is unavailable (target_not_regular)",
		"alias.go target_not_regular | declared file alias.go is unavailable (target_not_regular)",
		"READMEE.md target_missing | declared file READMEE.md is unavailable (target_missing): it does not exist; did you mean README.md? If the task creates READMEE.md, list it under creates instead of touches",
		"scr/app.go target_missing | declared file scr/app.go is unavailable (target_missing): it does not exist; did you mean src/app.go? If the task creates scr/app.go, list it under creates instead of touches",
		"link/doc.md target_not_regular | declared file link/doc.md is unavailable (target_not_regular)",
		"Real/Doc.md target_missing | declared file Real/Doc.md is unavailable (target_missing): it does not exist; did you mean real/doc.md? If the task creates Real/Doc.md, list it under creates instead of expected_docs",
		// The symbolic link "link" is never followed for a suggestion.
		"linkk/doc.md target_missing | declared file linkk/doc.md is unavailable (target_missing): it does not exist; if the task creates it, list it under creates instead of expected_docs",
		"plain/child.md target_not_regular | declared file plain/child.md is unavailable (target_not_regular)",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got)\n%s", d)
	}
}

func TestSectionLookupAndBacktickScope(t *testing.T) {
	src := "---\nmode: lite\ntouchs: [a]\n---\n## Tests Plan *(MANDATORY)*\nrun `pkg/x_test.go`\n\n## Goals\ng\n"
	s, fs := Parse([]byte(src), "spec.md")
	if len(fs) != 1 || fs[0].Rule != RuleFrontmatterUnknownKey {
		t.Fatalf("findings %v", fs)
	}
	sec, ok := s.Section("tests   PLAN (mandatory)")
	if !ok || sec.Line != 5 || sec.Body != "run `pkg/x_test.go`\n\n" {
		t.Fatalf("Section: %v %+v", ok, sec)
	}
	if _, ok := s.Section("Risk Register"); ok {
		t.Fatal("found a missing section")
	}
	if s.Scope.Source != SourceNone {
		t.Fatalf("invalid frontmatter fell back: %+v", s.Scope)
	}
	fb := s.BacktickScope()
	if fb.Source != SourceBackticks || !cmp.Equal(fb.Declared, []string{"pkg/x_test.go"}) {
		t.Fatalf("BacktickScope %+v", fb)
	}
}

func TestVerifyValue(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{" go test ./... ", "go test ./...", true},
		{"`go test ./...`", "go test ./...", true},
		{"`` a ` b ``", "a ` b", true},
		{"``` x `` y ``` rest", "x `` y", true},
		{"`` x ``` y ``", "x ``` y", true},
		{"`open", "", false},
		{"``open`", "", false},
		{"", "", true},
		{"` `", "", true},
	} {
		got, ok := VerifyValue(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("VerifyValue(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestNormalizeSectionName(t *testing.T) {
	for in, want := range map[string]string{
		"Tests Plan (MANDATORY)":   "Tests Plan",
		"  Goals  ":                "Goals",
		"Risk  Register (a) (b)":   "Risk Register (a)",
		"Acceptance (see (notes))": "Acceptance",
		"Odd)":                     "Odd)",
		"(only)":                   "",
		"Rollback / Migration":     "Rollback / Migration",
	} {
		if got := NormalizeSectionName(in); got != want {
			t.Errorf("NormalizeSectionName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestYAMLLinesMappedToSpec(t *testing.T) {
	src := "---\nmode: lite\nid: a\nid: b\n---\n## Goals\ng\n"
	_, fs := Parse([]byte(src), "spec.md")
	if len(fs) != 1 || fs[0].Line != 4 || fs[0].Message != "frontmatter: key id appears twice in the same mapping (lines 3 and 4); remove one" {
		t.Fatalf("%v", fs)
	}
	if got := shiftDecoderLine("YAML syntax error: line 7: mapping values are not allowed"); got != "YAML syntax error: line 8: mapping values are not allowed" {
		t.Fatalf("%q", got)
	}
}

// TestCheckCreates covers the pre-flight refusal of creates paths that could never end held
// (lifecycle-v2.md §7) and the paths that stay acceptable.
func TestCheckCreates(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "real/x.go"), "package x\n")
	writeFile(t, filepath.Join(root, "plain"), "x\n")
	writeFile(t, filepath.Join(root, "drafted.go"), "package x\n")
	if err := os.MkdirAll(filepath.Join(root, "adir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real/x.go", filepath.Join(root, "alias.go")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("missing-target", filepath.Join(root, "dangling.go")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "pipe.go"), 0o644); err != nil {
		t.Fatal(err)
	}
	src := "---\nmode: lite\ncreates:\n  - new.go\n  - newdir/new.go\n  - drafted.go\n  - alias.go\n  - dangling.go\n  - link/new.go\n  - pipe.go\n  - adir\n  - plain/child.go\n---\n## Goals\ng\n"
	s, fs := Parse([]byte(src), "spec.md")
	if len(fs) != 0 {
		t.Fatalf("parse findings: %v", fs)
	}
	var got []string
	for _, f := range CheckCreates(root, s) {
		if f.Rule != RuleCreationNotRegular || f.File != "spec.md" || f.Class != "error" {
			t.Errorf("bad finding %v", f)
		}
		got = append(got, f.FieldString("file")+" "+f.FieldString("reason")+" | "+f.FieldString("found"))
	}
	want := []string{
		"alias.go target_not_regular | a symbolic link",
		"dangling.go target_not_regular | a symbolic link",
		"link/new.go target_not_regular | below the symbolic link link",
		"pipe.go target_not_regular | a FIFO",
		"adir target_not_regular | a directory",
		"plain/child.go target_not_regular | below a non-directory ancestor plain",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got)\n%s", d)
	}
	f := CheckCreates(root, s)[0]
	if f.Message != "creates path alias.go is a symbolic link, so the executor can never add it as a regular file; remove it from the work tree, or declare the real path the task creates" {
		t.Errorf("message %q", f.Message)
	}
}
