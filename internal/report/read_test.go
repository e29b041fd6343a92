package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// validBody is a complete sentinel-form report; tests pad it with prose to reach exact sizes.
const validBody = "<!-- mastermind:report-begin -->\n```yaml\nschema_version: 1\nspec: .mastermind/tasks/020-cache/spec.md\nstatus: complete\nphases: []\nfiles_modified: [internal/cache/lru.go]\nclaims: []\ndefects: []\nverifications: []\n```\n<!-- mastermind:report-end -->\n"

// padded returns validBody preceded by prose lines so the file is exactly n bytes.
func padded(t testing.TB, n int) []byte {
	t.Helper()
	var b bytes.Buffer
	line := strings.Repeat("prose ", 13) + "\n" // 79 bytes
	for b.Len()+len(line)+2+len(validBody) <= n {
		b.WriteString(line)
	}
	for b.Len()+2+len(validBody) < n {
		b.WriteByte('x')
	}
	b.WriteString("\n\n")
	b.WriteString(validBody)
	if b.Len() != n {
		t.Fatalf("padded to %d bytes, want %d", b.Len(), n)
	}
	return b.Bytes()
}

func rules(r Result) []string {
	var out []string
	for _, f := range r.Findings {
		out = append(out, f.Rule)
	}
	return out
}

func oneRule(t *testing.T, r Result, err error, rule, msgPart string) {
	t.Helper()
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
	if len(r.Findings) != 1 || r.Findings[0].Rule != rule {
		t.Fatalf("findings %v, want exactly one %s", rules(r), rule)
	}
	f := r.Findings[0]
	if f.Line != 0 || f.Column != 0 || f.Pointer != "" {
		t.Errorf("transport finding has a position: %d:%d %q", f.Line, f.Column, f.Pointer)
	}
	if !strings.Contains(f.Message, msgPart) {
		t.Errorf("message %q does not contain %q", f.Message, msgPart)
	}
	if r.Report != nil || r.Form != "" {
		t.Errorf("refused report returned Report/Form")
	}
}

func TestSizeLimit(t *testing.T) {
	root := t.TempDir()
	task := filepath.Join(root, ".mastermind", "tasks", "020-cache")
	if err := os.MkdirAll(task, 0o755); err != nil {
		t.Fatal(err)
	}
	rel := ".mastermind/tasks/020-cache/executor-report.md"
	// Exactly 1 MiB (valid report padded with prose) passes (§8.4).
	if err := os.WriteFile(filepath.Join(root, rel), padded(t, MaxBytes), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := ReadInRepo(root, rel)
	if err != nil || len(res.Findings) != 0 || res.Report == nil || res.Form != FormSentinel {
		t.Fatalf("1 MiB report: err %v findings %v", err, rules(res))
	}
	// One byte more is report.too_large, before any decoding (T8).
	if err := os.WriteFile(filepath.Join(root, rel), padded(t, MaxBytes+1), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err = ReadInRepo(root, rel)
	oneRule(t, res, err, RuleTooLarge, "executor report is 1048577 bytes; the limit is 1048576 bytes (1 MiB)")
	res, err = ReadPath(filepath.Join(root, rel), "r.md")
	oneRule(t, res, err, RuleTooLarge, "1048577 bytes")
	res, err = ReadFrom(bytes.NewReader(padded(t, MaxBytes+1)), "<stdin>")
	oneRule(t, res, err, RuleTooLarge, "1048577 bytes")
	res, err = ReadFrom(bytes.NewReader(padded(t, MaxBytes)), "<stdin>")
	if err != nil || len(res.Findings) != 0 {
		t.Fatalf("stdin 1 MiB: %v %v", err, rules(res))
	}
}

func TestTransportRefusals(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(root, "task"), 0o755))
	must(os.WriteFile(filepath.Join(root, "task", "real.md"), []byte(validBody), 0o644))
	must(os.WriteFile(filepath.Join(outside, "x.md"), []byte(validBody), 0o644))
	// symlink pointing inside the repository
	must(os.Symlink("real.md", filepath.Join(root, "task", "link.md")))
	// symlinked ancestor
	must(os.Symlink("task", filepath.Join(root, "alias")))
	// FIFO
	must(syscall.Mkfifo(filepath.Join(root, "task", "fifo.md"), 0o644))
	must(os.Mkdir(filepath.Join(root, "task", "dir.md"), 0o755))

	res, err := ReadInRepo(root, "task/real.md")
	if err != nil || len(res.Findings) != 0 {
		t.Fatalf("regular file: %v %v", err, rules(res))
	}
	res, err = ReadInRepo(root, "task/missing.md")
	oneRule(t, res, err, RuleMissing, "executor report task/missing.md does not exist")
	res, err = ReadInRepo(root, "task/link.md")
	oneRule(t, res, err, RuleNotRegular, "(found symlink)")
	res, err = ReadInRepo(root, "alias/real.md")
	oneRule(t, res, err, RuleNotRegular, "(found symlinked ancestor alias)")
	res, err = ReadInRepo(root, "../"+filepath.Base(outside)+"/x.md")
	oneRule(t, res, err, RuleNotRegular, "(found path outside the repository)")
	res, err = ReadInRepo(root, filepath.Join(outside, "x.md"))
	oneRule(t, res, err, RuleNotRegular, "(found path outside the repository)")
	res, err = ReadInRepo(root, "task/dir.md")
	oneRule(t, res, err, RuleNotRegular, "(found directory)")

	// A FIFO is refused without blocking (§8.4).
	done := make(chan struct{})
	go func() {
		defer close(done)
		res, err = ReadInRepo(root, "task/fifo.md")
	}()
	select {
	case <-done:
		oneRule(t, res, err, RuleNotRegular, "(found FIFO)")
	case <-time.After(10 * time.Second):
		t.Fatal("reading a FIFO blocked")
	}
	res, err = ReadPath(filepath.Join(root, "task", "fifo.md"), "fifo.md")
	oneRule(t, res, err, RuleNotRegular, "executor report fifo.md must be a regular file inside the repository (found FIFO)")
	res, err = ReadPath(filepath.Join(root, "task", "link.md"), "link.md")
	oneRule(t, res, err, RuleNotRegular, "(found symlink)")
	res, err = ReadPath(filepath.Join(root, "nope.md"), "nope.md")
	oneRule(t, res, err, RuleMissing, "nope.md does not exist")
}

func TestPermissionDeniedIsAnError(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads files regardless of mode")
	}
	root := t.TempDir()
	p := filepath.Join(root, "r.md")
	if err := os.WriteFile(p, []byte(validBody), 0o000); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadInRepo(root, "r.md"); err == nil {
		t.Fatal("permission denied must be an operational error, not a finding")
	}
}

func TestEncoding(t *testing.T) {
	tests := []struct {
		in        string
		rule      string
		line, col int
	}{
		{"\xff\xfe", RuleNotUTF8, 1, 1},
		{"ok\nçé\xc3(", RuleNotUTF8, 2, 3},
		{"\xef\xbb\xbf\xff", RuleNotUTF8, 1, 1}, // positions count after the stripped BOM
		{"", RuleEmpty, 0, 0},
		{"\xef\xbb\xbf \r\n\t", RuleEmpty, 0, 0},
	}
	for _, tt := range tests {
		r := Validate([]byte(tt.in), "r.md")
		if len(r.Findings) != 1 || r.Findings[0].Rule != tt.rule || r.Findings[0].Line != tt.line || r.Findings[0].Column != tt.col {
			t.Errorf("%q: got %v", tt.in, r.Findings)
		}
	}
}
