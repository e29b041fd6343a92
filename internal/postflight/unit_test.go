package postflight

import (
	"github.com/mastermind-controller/mastermind/internal/fsx"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mastermind-controller/mastermind/internal/audit"
	"github.com/mastermind-controller/mastermind/internal/finding"
)

func TestParseStateDuplicateAndNull(t *testing.T) {
	valid, err := os.ReadFile(filepath.Join("testdata", "state", "valid-approved.json"))
	if err != nil {
		t.Fatal(err)
	}
	for name, mutate := range map[string]func(string) string{
		"duplicate key": func(s string) string {
			return strings.Replace(s, `"risk": "low",`, `"risk": "low", "risk": "high",`, 1)
		},
		"null":     func(s string) string { return strings.Replace(s, `"risk": "low"`, `"risk": null`, 1) },
		"trailing": func(s string) string { return s + "{}" },
		"array":    func(string) string { return "[]" },
		"empty reason": func(s string) string {
			return strings.Replace(s, `"risk": "low",`, `"risk": "low", "blocking_reason": "",`, 1)
		},
	} {
		if _, err := ParseState([]byte(mutate(string(valid)))); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := ParseState(valid); err != nil {
		t.Fatal(err)
	}
}

func TestLoadStateRefusals(t *testing.T) {
	dir := t.TempDir()
	valid, _ := os.ReadFile(filepath.Join("testdata", "state", "valid-approved.json"))
	p := filepath.Join(dir, "state.json")
	if s, err := LoadState(p, "state.json", ".mastermind/tasks/020-cache/spec.md"); s != nil || err != nil {
		t.Fatalf("missing state: %v %v", s, err)
	}
	os.WriteFile(p, valid, 0o644)
	if _, err := LoadState(p, "state.json", ".mastermind/tasks/021-x/spec.md"); err == nil || !strings.Contains(err.Error(), "spec_path") {
		t.Fatalf("spec_path mismatch: %v", err)
	}
	os.Remove(p)
	os.Symlink(filepath.Join(dir, "target.json"), p)
	_, err := LoadState(p, "state.json", ".mastermind/tasks/020-cache/spec.md")
	want := "state file state.json is unreadable (it is a symbolic link); restore it, for example from git history, before retrying, to keep the task baseline and iteration budget"
	if err == nil || err.Error() != want {
		t.Fatalf("dangling symlink: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "target.json")); !os.IsNotExist(err) {
		t.Fatal("symlink target created")
	}
}

func TestResolveTask(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, ".mastermind/tasks/014-retry-helper"), 0o755)
	os.MkdirAll(filepath.Join(root, "elsewhere/015-x"), 0o755)
	os.Symlink(filepath.Join(root, "elsewhere/015-x"), filepath.Join(root, ".mastermind/tasks/015-x"))
	t.Chdir(root)
	tk, err := ResolveTask(root, "./.mastermind/tasks/014-retry-helper/spec.md")
	if err != nil || tk.Name != "014-retry-helper" || tk.Spec != ".mastermind/tasks/014-retry-helper/spec.md" {
		t.Fatalf("%+v %v", tk, err)
	}
	// The task folder (from the current directory, with or without a trailing slash) and the
	// folder name resolve to the same task (§0).
	for _, arg := range []string{"014-retry-helper", ".mastermind/tasks/014-retry-helper", "./.mastermind/tasks/014-retry-helper/", filepath.Join(root, ".mastermind/tasks/014-retry-helper")} {
		if got, err := ResolveTask(root, arg); err != nil || got != tk {
			t.Errorf("%q: %+v %v", arg, got, err)
		}
	}
	for _, bad := range []string{
		"spec.md", ".mastermind/tasks/14-x/spec.md", "014-missing", "015-x", ".mastermind/tasks", ".mastermind/tasks/14-x", ".mastermind/tasks/014-x/notspec.md",
		".mastermind/tasks/014-a..b/spec.md", ".mastermind/tasks/014-x\\y/spec.md", "../spec.md",
		".mastermind/tasks/015-x/spec.md", ".mastermind/tasks/016-missing/spec.md",
		".mastermind/tasks/014-retry-helper/../014-retry-helper/spec.md/x",
	} {
		if _, err := ResolveTask(root, bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestFingerprintIgnoresOrderAndPositions(t *testing.T) {
	a := fingerprintLines([]finding.Finding{fileFinding(finding.KindUnexpectedFile, "a"), fileFinding(finding.KindReportMissingChangedFile, "b")}, VerdictDrift)
	b := fingerprintLines([]finding.Finding{fileFinding(finding.KindReportMissingChangedFile, "b"), fileFinding(finding.KindUnexpectedFile, "a"), fileFinding(finding.KindUnexpectedFile, "a")}, VerdictDrift)
	if Fingerprint(a) != Fingerprint(b) {
		t.Fatal("fingerprint depends on order or duplicates")
	}
	// broken counts only errors
	c := fingerprintLines([]finding.Finding{fileFinding(finding.KindReportMissingChangedFile, "b")}, VerdictBroken)
	d := fingerprintLines([]finding.Finding{fileFinding(finding.KindReportMissingChangedFile, "b"), fileFinding(finding.KindUnexpectedFile, "x")}, VerdictBroken)
	if Fingerprint(c) != Fingerprint(d) {
		t.Fatal("broken fingerprint counted a warning")
	}
	if Fingerprint(a) == Fingerprint(c) {
		t.Fatal("different conditions share a fingerprint")
	}
}

func TestUpsertLesson(t *testing.T) {
	tk := Task{Name: "020-cache", Dir: ".mastermind/tasks/020-cache", Spec: ".mastermind/tasks/020-cache/spec.md"}
	first := UpsertLesson(nil, tk, LessonAuditContractFailure, "contract drift; 1× unexpected file", "2026-11-29")
	second := UpsertLesson(first, tk, LessonAuditContractFailure, "contract broken; 2× unexpected file", "2026-11-30")
	s := string(second)
	for _, want := range []string{"## " + LessonID("020-cache", LessonAuditContractFailure), "- **Created:** 2026-11-29",
		"- **Last seen:** 2026-11-30", "- **Occurrences:** 2", "- **Observed:** contract broken; 2× unexpected file"} {
		if !strings.Contains(s, want) {
			t.Errorf("missing %q in\n%s", want, s)
		}
	}
	if !strings.HasPrefix(s, "# mastermind lessons\n") {
		t.Error("header")
	}
	active := strings.Replace(s, "- **Status:** candidate", "- **Status:** active", 1)
	if UpsertLesson([]byte(active), tk, LessonAuditContractFailure, "x", "2026-12-01") != nil {
		t.Error("an active entry was rewritten")
	}
	third := UpsertLesson(second, tk, LessonIterationBudget, "pre-flight refused", "2026-12-01")
	if strings.Count(string(third), "## lesson-") != 2 {
		t.Errorf("second kind not appended:\n%s", third)
	}
	if LessonID("020-cache", "audit_contract_failure") != "lesson-"+fsx.SHA256Hex([]byte("020-cache\naudit_contract_failure"))[:16] {
		t.Error("lesson id")
	}
}

func TestRenderAuditNoFindingsAndEscapes(t *testing.T) {
	a := &Audit{Evidence: audit.Evidence{Spec: "s\x1b.md", Baseline: strings.Repeat("a", 40),
		ChangedSet: &audit.ChangedSetEvidence{Source: "go-git", Degraded: true, Files: []audit.ChangedFileJSON{{Path: "x\u0085y", Status: "added"}}}},
		Verdict: VerdictHeld}
	out, err := RenderAudit(a)
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	if !strings.HasPrefix(s, "✅ Held — s\\u001B.md (vs git ref `"+strings.Repeat("a", 40)+"`)\n  findings: 0 (errors: 0, warnings: 0)\n  changed files: 1 (source: go-git, DEGRADED — computed without the git CLI)\n\nStructured audit evidence") {
		t.Errorf("header:\n%s", s)
	}
	if strings.ContainsRune(s, 0x85) || !strings.Contains(s, `x\u0085y`) {
		t.Errorf("C1 control not escaped in JSON:\n%s", s)
	}
	if !strings.Contains(s, "\n    {\n        \"schema_version\": 1,\n") || !strings.Contains(s, "\n        \"claim_checks\": null,\n") {
		t.Errorf("evidence indentation:\n%s", s)
	}
}

// FuzzParseState: the strict reader never panics, and whatever it accepts re-validates and
// round-trips through MarshalState.
func FuzzParseState(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "state", "*.json"))
	for _, p := range files {
		b, _ := os.ReadFile(p)
		f.Add(b)
	}
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseState(data)
		if err != nil {
			return
		}
		if r := s.Validate(); r != "" {
			t.Fatalf("accepted invalid state: %s", r)
		}
		out, err := MarshalState(s)
		if err != nil {
			t.Fatal(err)
		}
		s2, err := ParseState(out)
		if err != nil {
			t.Fatalf("round trip: %v\n%s", err, out)
		}
		if d := cmp.Diff(s, s2); d != "" {
			t.Fatal(d)
		}
	})
}

// testFinding builds an audit finding of kind with its table class and the given fields.
func testFinding(kind, message string, kv ...any) finding.Finding {
	f := finding.Finding{Rule: kind, Class: finding.KindClass(kind), Message: message}
	for i := 0; i+1 < len(kv); i += 2 {
		f.Fields = append(f.Fields, finding.Field{Key: kv[i].(string), Value: kv[i+1]})
	}
	return f
}

func fileFinding(kind, file string) finding.Finding {
	return testFinding(kind, kind+" "+file, "file", file)
}
