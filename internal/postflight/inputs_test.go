package postflight

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mastermind-controller/mastermind/internal/gitscope"
)

// TestPostflightInputChangedIsBroken: an executor that hides an out-of-scope edit behind a rule
// written into .git/info/attributes after pre-flight (the ident attribute makes "$Id: <code> $"
// hash as "$Id$") gets broken with git_attributes_changed; the same task without the attack is
// held (trust-model.md I1).
func TestPostflightInputChangedIsBroken(t *testing.T) {
	work := func(t *testing.T, root string) {
		writeFile(t, root, "internal/cache/cache.go", "package cache\n\nvar c = newLRU()\n")
		writeFile(t, root, "internal/cache/lru.go", "package cache\n\nfunc newLRU() int { return 0 }\n")
		writeFile(t, root, "docs/cache.md", "# Cache\n\nLRU.\n")
		writeFile(t, root, reportRel, reportText([]string{"internal/cache/cache.go", "internal/cache/lru.go", "docs/cache.md"}, ""))
	}
	for _, attack := range []bool{false, true} {
		t.Run(map[bool]string{false: "control", true: "info_attributes_ident"}[attack], func(t *testing.T) {
			root, opts := newTaskRepoWith(t, map[string]string{"main.go": "// $Id$\npackage main\n"})
			work(t, root)
			if attack {
				writeFile(t, root, ".git/info/attributes", "main.go ident\n")
				writeFile(t, root, "main.go", "// $Id: func init() { steal() } $\npackage main\n")
			}
			res := run(t, opts, ModePostOnly)
			want := OutcomePostHeld
			if attack {
				want = OutcomePostBroken
			}
			if res.Outcome != want {
				t.Fatalf("outcome %s, want %s\n%s", res.Outcome, want, outcomeText(res))
			}
			audit, err := os.ReadFile(filepath.Join(root, ".mastermind/tasks/020-cache/audit.md"))
			if err != nil {
				t.Fatal(err)
			}
			has := strings.Contains(string(audit), "git_attributes_changed") &&
				strings.Contains(string(audit), "the repository's attribute rules changed since pre-flight: .git/info/attributes")
			if has != attack {
				t.Errorf("audit.md names the attribute change: %v, want %v\n%s", has, attack, audit)
			}
		})
	}
}

// TestPostflightGitBinaryUserWritable: a git the current user could have replaced (a symbolic
// link in a directory it owns, found first) is the warning git_binary_user_writable, naming it.
func TestPostflightGitBinaryUserWritable(t *testing.T) {
	root, opts := newTaskRepo(t)
	writeFile(t, root, "internal/cache/cache.go", "package cache\n\nvar c = newLRU()\n")
	writeFile(t, root, "internal/cache/lru.go", "package cache\n\nfunc newLRU() int { return 0 }\n")
	writeFile(t, root, "docs/cache.md", "# Cache\n\nLRU.\n")
	writeFile(t, root, reportRel, reportText([]string{"internal/cache/cache.go", "internal/cache/lru.go", "docs/cache.md"}, ""))
	real, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	planted := filepath.Join(dir, "git")
	if err := os.Symlink(real, planted); err != nil {
		t.Fatal(err)
	}
	uid := os.Getuid()
	if uid == 0 {
		uid = 4242
		if err := os.Chown(dir, uid, -1); err != nil {
			t.Fatal(err)
		}
	}
	repo, err := gitscope.OpenWith(root, gitscope.Options{
		LookPath: func(string) (string, error) { return planted, nil }, Geteuid: func() int { return uid }})
	if err != nil {
		t.Fatal(err)
	}
	opts.Git = repo
	res := run(t, opts, ModePostOnly)
	if res.Outcome != OutcomePostDrift {
		t.Fatalf("outcome %s, want drift\n%s", res.Outcome, outcomeText(res))
	}
	audit, _ := os.ReadFile(filepath.Join(root, ".mastermind/tasks/020-cache/audit.md"))
	if !strings.Contains(string(audit), "git_binary_user_writable: the git binary "+planted) {
		t.Errorf("audit.md:\n%s", audit)
	}
}

// TestRePreflightKeepsTheSnapshot: a re-pre-flight keeps the baseline and its snapshot. An
// executor that set an assume-unchanged bit on an out-of-scope file during the first iteration
// and then asks for a re-pre-flight still has that file audited.
func TestRePreflightKeepsTheSnapshot(t *testing.T) {
	root, opts := newTaskRepoWith(t, map[string]string{"main.go": "package main\n"})
	git(t, root, "update-index", "--assume-unchanged", "main.go")
	writeFile(t, root, "main.go", "package main\n\nfunc init() { steal() }\n")
	if res := run(t, opts, ModePreOnly); res.Outcome != OutcomePreReady {
		t.Fatalf("re-pre-flight: %s\n%s", res.Outcome, outcomeText(res))
	}
	writeFile(t, root, "internal/cache/cache.go", "package cache\n\nvar c = newLRU()\n")
	writeFile(t, root, "internal/cache/lru.go", "package cache\n\nfunc newLRU() int { return 0 }\n")
	writeFile(t, root, "docs/cache.md", "# Cache\n\nLRU.\n")
	writeFile(t, root, reportRel, reportText([]string{"internal/cache/cache.go", "internal/cache/lru.go", "docs/cache.md"}, ""))
	res := run(t, opts, ModePostOnly)
	if res.Outcome != OutcomePostBroken || !strings.Contains(outcomeText(res), "main.go") {
		t.Fatalf("outcome %s, want broken naming main.go\n%s", res.Outcome, outcomeText(res))
	}
}

// outcomeText is the outcome's message and findings, one per line, for failure messages and
// for checking which paths a finding names.
func outcomeText(o *Outcome) string {
	var b strings.Builder
	b.WriteString(o.Message + "\n")
	for f := range o.AllFindings() {
		b.WriteString(f.String() + "\n")
	}
	return b.String()
}

// TestPostflightGitBinaryNotSystem (#26 item 8): running as root, a git planted earlier on PATH
// outside the system's binary folders is the warning git_binary_not_system, naming it; root
// used to be exempt from the check, so the audit said held.
func TestPostflightGitBinaryNotSystem(t *testing.T) {
	root, opts := newTaskRepo(t)
	writeFile(t, root, "internal/cache/cache.go", "package cache\n\nvar c = newLRU()\n")
	writeFile(t, root, "internal/cache/lru.go", "package cache\n\nfunc newLRU() int { return 0 }\n")
	writeFile(t, root, "docs/cache.md", "# Cache\n\nLRU.\n")
	writeFile(t, root, reportRel, reportText([]string{"internal/cache/cache.go", "internal/cache/lru.go", "docs/cache.md"}, ""))
	real, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	planted := filepath.Join(t.TempDir(), "git")
	if err := os.Symlink(real, planted); err != nil {
		t.Fatal(err)
	}
	repo, err := gitscope.OpenWith(root, gitscope.Options{
		LookPath: func(string) (string, error) { return planted, nil }, Geteuid: func() int { return 0 }})
	if err != nil {
		t.Fatal(err)
	}
	opts.Git = repo
	res := run(t, opts, ModePostOnly)
	if res.Outcome != OutcomePostDrift {
		t.Fatalf("outcome %s, want drift\n%s", res.Outcome, outcomeText(res))
	}
	audit, _ := os.ReadFile(filepath.Join(root, ".mastermind/tasks/020-cache/audit.md"))
	if !strings.Contains(string(audit), "git_binary_not_system: mastermind runs as root and the git binary "+planted+" is outside the system's binary folders") {
		t.Errorf("audit.md:\n%s", audit)
	}
}
