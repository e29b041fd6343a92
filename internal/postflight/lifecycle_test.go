package postflight

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mastermind-controller/mastermind/internal/gitscope"
	"github.com/mastermind-controller/mastermind/internal/golden"
	"github.com/mastermind-controller/mastermind/schemas"
)

// fixedNow is the injected clock: started_at and lesson dates are stable in goldens.
func fixedNow() time.Time { return time.Unix(1796040000, 0) }

const taskSpec = ".mastermind/tasks/020-cache/spec.md"

const specText = `---
id: '020'
touches:
  - file: internal/cache/cache.go
creates:
  - internal/cache/lru.go
expected_docs:
  - docs/cache.md
---
# LRU cache

## Goals

Add an LRU cache.

## Alternatives Considered

A map with no eviction.

## Tests Plan

Unit tests for eviction.

## Documentation Plan

docs/cache.md explains the cache.

## Observability Plan

None.

## Performance Considerations

O(1) operations.
`

// gitEnv isolates git from the host configuration and fixes dates so commit OIDs are stable.
func gitEnv(t *testing.T) {
	t.Helper()
	home := t.TempDir()
	for k, v := range map[string]string{
		"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"), "GIT_CONFIG_NOSYSTEM": "1",
		"GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "test@example.com", "GIT_COMMITTER_NAME": "Test",
		"GIT_COMMITTER_EMAIL": "test@example.com", "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
		"GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
	} {
		t.Setenv(k, v)
	}
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func writeFile(t *testing.T, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// newTaskRepo builds a repository with the cache task and a baseline commit, and runs pre-flight.
func newTaskRepo(t *testing.T) (string, Options) {
	t.Helper()
	return newTaskRepoWith(t, nil)
}

// newTaskRepoWith is newTaskRepo with extra files in the baseline commit.
func newTaskRepoWith(t *testing.T, extra map[string]string) (string, Options) {
	t.Helper()
	return newTaskRepoBefore(t, func(root string) {
		for rel, c := range extra {
			writeFile(t, root, rel, c)
		}
	})
}

// newTaskRepoBefore is newTaskRepo with before run on the root ahead of the baseline commit.
func newTaskRepoBefore(t *testing.T, before func(root string)) (string, Options) {
	t.Helper()
	gitEnv(t)
	root := t.TempDir()
	before(root)
	writeFile(t, root, "internal/cache/cache.go", "package cache\n")
	writeFile(t, root, "docs/cache.md", "# Cache\n")
	writeFile(t, root, taskSpec, specText)
	git(t, root, "init", "-q")
	git(t, root, "add", "-A")
	git(t, root, "commit", "-q", "-m", "baseline")
	repo, err := gitscope.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
	opts := Options{Git: repo, SpecArg: taskSpec, MaxIterations: DefaultMaxIterations, Now: fixedNow}
	res := run(t, opts, ModePreOnly)
	if res.Outcome != OutcomePreReady {
		t.Fatalf("pre-flight: %s\n%s", res.Outcome, res.Message)
	}
	return root, opts
}

func run(t *testing.T, opts Options, mode Mode) *Outcome {
	t.Helper()
	opts.Mode = mode
	res, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res
}

func reportText(files []string, extra string) string {
	var b strings.Builder
	b.WriteString("<!-- mastermind:report-begin -->\n```yaml\nschema_version: 1\nspec: " + taskSpec +
		"\nstatus: complete\nphases:\n  - id: plan-1\n    status: done\nfiles_modified:\n")
	for _, f := range files {
		b.WriteString("  - " + f + "\n")
	}
	b.WriteString("claims: []\ndefects: []\nverifications:\n  - cmd: go test ./internal/cache/\n    result: pass\n    observed:\n      exit_code: 0\n      tests_run: 3\n")
	b.WriteString(extra)
	b.WriteString("```\n<!-- mastermind:report-end -->\n")
	return b.String()
}

const reportRel = ".mastermind/tasks/020-cache/executor-report.md"

// TestGoldenVerdicts runs representative post-flights and compares audit.md and state.json with
// the golden files (go test -update rewrites them).
func TestGoldenVerdicts(t *testing.T) {
	cases := []struct {
		name    string
		setup   func(t *testing.T, root string)
		outcome OutcomeKind
	}{
		{"held", func(t *testing.T, root string) {
			writeFile(t, root, "internal/cache/cache.go", "package cache\n\nvar c = newLRU()\n")
			writeFile(t, root, "internal/cache/lru.go", "package cache\n\nfunc newLRU() int { return 0 }\n")
			writeFile(t, root, "docs/cache.md", "# Cache\n\nLRU.\n")
			git(t, root, "add", "internal/cache/cache.go")
			git(t, root, "commit", "-q", "-m", "work")
			writeFile(t, root, reportRel, reportText([]string{"internal/cache/cache.go", "internal/cache/lru.go", "docs/cache.md"}, ""))
		}, OutcomePostHeld},
		{"drift", func(t *testing.T, root string) {
			writeFile(t, root, "internal/cache/cache.go", "package cache\n\nvar c = newLRU()\n")
			writeFile(t, root, "internal/cache/lru.go", "package cache\n\nfunc newLRU() int { return 0 }\n")
			writeFile(t, root, "internal/cache/shard.go", "package cache\n")
			writeFile(t, root, reportRel, reportText([]string{"internal/cache/cache.go", "internal/cache/lru.go", "internal/cache/shard.go"}, ""))
		}, OutcomePostDrift},
		{"broken", func(t *testing.T, root string) {
			writeFile(t, root, "internal/cache/cache.go", "package cache\n\nvar c = 1\n")
			writeFile(t, root, "notes/\u202eevil.txt", "x\n")
			writeFile(t, root, reportRel, reportText([]string{"internal/cache/cache.go", "docs/cache.md"}, ""))
		}, OutcomePostBroken},
		{"rejected", func(t *testing.T, root string) {
			writeFile(t, root, "internal/cache/cache.go", "package cache\n\nvar c = 1\n")
			writeFile(t, root, reportRel, "<!-- mastermind:report-begin -->\n```yaml\nschema_version: 1\nspec: "+taskSpec+
				"\nstatus: done\nphases: []\nfiles_modified: [a.go, ./a.go]\nclaims: []\ndefects: []\nverifications: []\n```\n<!-- mastermind:report-end -->\n")
		}, OutcomePostBroken},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root, opts := newTaskRepo(t)
			tc.setup(t, root)
			res := run(t, opts, ModePostOnly)
			wantVerdict := Verdict(tc.name)
			if tc.name == "rejected" {
				wantVerdict = VerdictBroken
			}
			if res.Outcome != tc.outcome || res.Verdict != wantVerdict {
				t.Fatalf("outcome %s verdict %s, want %s %s: %s", res.Outcome, res.Verdict, tc.outcome, wantVerdict, res.Message)
			}
			for _, art := range []struct{ rel, golden string }{
				{".mastermind/tasks/020-cache/audit.md", tc.name + ".audit.md"},
				{".mastermind/tasks/020-cache/state.json", tc.name + ".state.json"},
			} {
				got, err := os.ReadFile(filepath.Join(root, art.rel))
				if err != nil {
					t.Fatal(err)
				}
				golden.Check(t, filepath.Join(origWD, "testdata", "golden", art.golden), got)
			}
		})
	}
}

var origWD, _ = os.Getwd()

// TestGoldenStatesMatchSchema validates every golden state against the published JSON Schema and
// the strict reader.
func TestGoldenStatesMatchSchema(t *testing.T) {
	sch, err := schemas.Compile("state-v1")
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(origWD, "testdata", "golden", "*.state.json"))
	files2, _ := filepath.Glob(filepath.Join(origWD, "testdata", "state", "valid-*.json"))
	files = append(files, files2...)
	if len(files) < 4 {
		t.Fatalf("expected golden states, found %d", len(files))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(v); err != nil {
			t.Errorf("%s: schema: %v", filepath.Base(f), err)
		}
		s, err := ParseState(data)
		if err != nil {
			t.Errorf("%s: ParseState: %v", filepath.Base(f), err)
			continue
		}
		again, _ := MarshalState(s)
		if !bytes.Equal(again, data) {
			t.Errorf("%s: not in canonical form:\n%s", filepath.Base(f), again)
		}
	}
	// Every invalid state is rejected by both the schema and the reader.
	bad, _ := filepath.Glob(filepath.Join(origWD, "testdata", "state", "invalid-*.json"))
	for _, f := range bad {
		data, _ := os.ReadFile(f)
		if _, err := ParseState(data); err == nil {
			t.Errorf("%s: ParseState accepted an invalid state", filepath.Base(f))
		}
		var v any
		if json.Unmarshal(data, &v) == nil {
			if err := sch.Validate(v); err == nil && !strings.Contains(f, "reader-only") {
				t.Errorf("%s: the schema accepted an invalid state", filepath.Base(f))
			}
		}
	}
}

// TestRealGoRepository builds a repository from github.com/google/go-cmp in the module cache (no
// network) and audits a multi-file change, committed and uncommitted, that ends held.
func TestRealGoRepository(t *testing.T) {
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Skip("go env GOMODCACHE:", err)
	}
	src := filepath.Join(strings.TrimSpace(string(out)), "github.com", "google", "go-cmp@v0.7.0")
	if _, err := os.Stat(src); err != nil {
		t.Skip("go-cmp v0.7.0 is not in the module cache")
	}
	gitEnv(t)
	root := t.TempDir()
	if out, err := exec.Command("cp", "-R", src+"/.", root).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	if out, err := exec.Command("chmod", "-R", "u+w", root).CombinedOutput(); err != nil {
		t.Fatalf("chmod: %v %s", err, out)
	}
	git(t, root, "init", "-q")
	git(t, root, "add", "-A")
	git(t, root, "commit", "-q", "-m", "go-cmp v0.7.0")
	const spec = ".mastermind/tasks/001-cmp-doc/spec.md"
	writeFile(t, root, spec, `---
touches:
  - file: cmp/compare.go
  - file: cmp/options.go
creates:
  - cmp/extra.go
verify:
  - cmd: go test ./cmp/
---
# Document the comparison entry points

## Goals

Improve the package documentation.

## Alternatives Considered

None.

## Tests Plan

Run the cmp tests.

## Documentation Plan

This is documentation.

## Observability Plan

None.

## Performance Considerations

None.
`)
	repo, err := gitscope.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
	opts := Options{Git: repo, SpecArg: spec, MaxIterations: 3, Now: fixedNow}
	if res := run(t, opts, ModePreOnly); res.Outcome != OutcomePreReady {
		t.Fatalf("pre-flight: %s", res.Message)
	}
	appendTo := func(rel, text string) {
		f, err := os.OpenFile(filepath.Join(root, rel), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(text)
		f.Close()
	}
	appendTo("cmp/compare.go", "\n// Extra documentation line.\n")
	appendTo("cmp/options.go", "\n// Options documentation line.\n")
	writeFile(t, root, "cmp/extra.go", "package cmp\n\n// extraDoc is documentation only.\nconst extraDoc = \"extra\"\n")
	git(t, root, "add", "cmp/compare.go")
	git(t, root, "commit", "-q", "-m", "document compare")
	writeFile(t, root, ".mastermind/tasks/001-cmp-doc/executor-report.md", "<!-- mastermind:report-begin -->\n```yaml\n"+
		"schema_version: 1\nspec: "+spec+"\nstatus: complete\nphases: []\nfiles_modified:\n  - cmp/compare.go\n  - cmp/options.go\n  - cmp/extra.go\n"+
		"claims: []\ndefects: []\nverifications:\n  - cmd: go test ./cmp/\n    result: pass\n    observed:\n      exit_code: 0\n      tests_run: 212\n"+
		"```\n<!-- mastermind:report-end -->\n")
	res := run(t, opts, ModePostOnly)
	if res.Outcome != OutcomePostHeld {
		t.Fatalf("outcome %s, want post_held\n%s", res.Outcome, res.Message)
	}
	notes, err := os.ReadFile(filepath.Join(root, ".mastermind/releases/001-cmp-doc.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"cmp/compare.go", "cmp/options.go", "2 files changed", "Untracked files:\n  cmp/extra.go\n"} {
		if !strings.Contains(string(notes), want) {
			t.Errorf("release notes lack %q:\n%s", want, notes)
		}
	}
	if res.State.Status != StatusHistoryReviewRequired || res.State.HistorySnapshotSHA256 == "" {
		t.Errorf("state %+v", res.State)
	}
}
