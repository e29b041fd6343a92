package spec

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// runSpec wraps a frontmatter verify block in a minimal lite spec.
func runSpec(verify string) []byte {
	return []byte("---\nmode: lite\nverify:\n" + verify + "---\n# T\n\n## Goals\n\nG.\n")
}

func TestVerifyRunAndTimeout(t *testing.T) {
	s, fs := Parse(runSpec(
		"  - cmd: go test ./...\n    run: true\n    timeout: 90s\n"+
			"  - cmd: npm run e2e\n"+
			"  - cmd: go vet ./...\n    run: false\n    timeout: 1h30m\n"+
			"  - a label\n"), "spec.md")
	if len(fs) != 0 {
		t.Fatalf("findings: %v", fs)
	}
	want := []DeclaredCommand{
		{Cmd: "go test ./...", Run: true, Timeout: 90 * time.Second, Line: 4},
		{Cmd: "npm run e2e", Timeout: DefaultVerifyTimeout, Line: 7},
		{Cmd: "go vet ./...", Timeout: 90 * time.Minute, Line: 8},
	}
	if d := cmp.Diff(want, s.VerifyDeclared); d != "" {
		t.Errorf("VerifyDeclared (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"go test ./...", "npm run e2e", "go vet ./..."}, s.VerifyCommands); d != "" {
		t.Errorf("VerifyCommands (-want +got):\n%s", d)
	}
	if !s.Frontmatter.Verify[0].Run || s.Frontmatter.Verify[0].Timeout != 90*time.Second {
		t.Errorf("frontmatter item 0 = %+v", s.Frontmatter.Verify[0])
	}
}

func TestVerifyBodyLinesAreDeclaredNotRun(t *testing.T) {
	src := "---\nmode: lite\nverify:\n  - cmd: go test ./...\n    run: true\n---\n# T\n\n## Goals\n\nG.\n\n" +
		"VERIFY: `go test ./...`\nVERIFY: `make lint`\n"
	s, fs := Parse([]byte(src), "spec.md")
	if len(fs) != 0 {
		t.Fatalf("findings: %v", fs)
	}
	want := []DeclaredCommand{
		{Cmd: "go test ./...", Run: true, Timeout: DefaultVerifyTimeout, Line: 4},
		{Cmd: "make lint", Timeout: DefaultVerifyTimeout, Line: 14},
	}
	if d := cmp.Diff(want, s.VerifyDeclared); d != "" {
		t.Errorf("VerifyDeclared (-want +got):\n%s", d)
	}
}

func TestVerifyRunTimeoutErrors(t *testing.T) {
	cases := []struct {
		name, verify string
		line, col    int
		pointer      string
		msg          string
	}{
		{"run string", "  - cmd: x\n    run: yes\n", 5, 10, "/verify/0/run",
			"verify[0].run must be true, false or witnessed; got string yes"},
		{"run quoted", "  - cmd: x\n    run: \"true\"\n", 5, 10, "/verify/0/run",
			"verify[0].run must be true, false or witnessed; got string true — remove the quotes"},
		{"timeout integer", "  - cmd: x\n    timeout: 600\n", 5, 14, "/verify/0/timeout",
			"verify[0].timeout must be a duration such as 90s, 10m or 1h30m; got int 600 — add a unit, for example 600s"},
		{"timeout unparsable", "  - cmd: x\n    timeout: ten minutes\n", 5, 14, "/verify/0/timeout",
			`verify[0].timeout must be a duration such as 90s, 10m or 1h30m (units ms, s, m, h); got "ten minutes"`},
		{"timeout too long", "  - cmd: x\n    timeout: 3h\n", 5, 14, "/verify/0/timeout",
			"verify[0].timeout must be more than 0 and at most 2h; got 3h"},
		{"timeout zero", "  - cmd: x\n    timeout: 0s\n", 5, 14, "/verify/0/timeout",
			"verify[0].timeout must be more than 0 and at most 2h; got 0s"},
		{"timeout negative", "  - cmd: x\n    timeout: -1m\n", 5, 14, "/verify/0/timeout",
			"verify[0].timeout must be more than 0 and at most 2h; got -1m"},
		{"unknown key", "  - cmd: x\n    retries: 2\n", 5, 5, "/verify/0/retries",
			"unknown field retries in verify[0]; allowed fields: cmd, run, timeout"},
		{"conflicting duplicate", "  - cmd: x\n    run: true\n  - cmd: x\n", 6, 10, "/verify/1/cmd",
			"verify[1].cmd repeats the command declared on line 4 with a different run or timeout; declare each command once"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, fs := Parse(runSpec(tc.verify), "spec.md")
			if len(fs) != 1 {
				t.Fatalf("want one finding, got %v", fs)
			}
			f := fs[0]
			if f.Rule != RuleFrontmatterInvalid || f.Line != tc.line || f.Column != tc.col || f.Pointer != tc.pointer || f.Message != tc.msg {
				t.Errorf("got %s:%d:%d %s %q\nwant %d:%d %s %q", f.Rule, f.Line, f.Column, f.Pointer, f.Message, tc.line, tc.col, tc.pointer, tc.msg)
			}
			// A bad option never removes the obligation.
			if len(s.VerifyCommands) != 1 || s.VerifyCommands[0] != "x" {
				t.Errorf("VerifyCommands = %q", s.VerifyCommands)
			}
		})
	}
}

func TestVerifyIdenticalDuplicateIsNotAnError(t *testing.T) {
	s, fs := Parse(runSpec("  - cmd: x\n    run: true\n  - cmd: x\n    run: true\n"), "spec.md")
	if len(fs) != 0 || len(s.VerifyDeclared) != 1 || !s.VerifyDeclared[0].Run {
		t.Fatalf("findings %v, declared %+v", fs, s.VerifyDeclared)
	}
}

// TestVerifyOptionsAreHashBound: run and timeout live in the raw bytes that spec_hash covers, so
// turning a run on or lengthening a timeout after approval is a spec change (§4 step 2).
func TestVerifyOptionsAreHashBound(t *testing.T) {
	base, _ := Parse(runSpec("  - cmd: go test ./...\n"), "spec.md")
	for _, v := range []string{
		"  - cmd: go test ./...\n    run: true\n",
		"  - cmd: go test ./...\n    timeout: 2h\n",
	} {
		s, fs := Parse(runSpec(v), "spec.md")
		if len(fs) != 0 || s.Hash == base.Hash {
			t.Errorf("%q: findings %v, hash unchanged %v", v, fs, s.Hash == base.Hash)
		}
	}
	if strings.Count(base.Hash, "") != 65 {
		t.Errorf("hash %q", base.Hash)
	}
}
