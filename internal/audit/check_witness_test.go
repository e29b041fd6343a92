package audit

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mastermind-controller/mastermind/internal/contracts/forge"
	"github.com/mastermind-controller/mastermind/internal/report"
	"github.com/mastermind-controller/mastermind/internal/transcript"
)

// placeTranscript copies a real fixture of internal/transcript/testdata outside the work tree
// root, with its recorded work tree replaced by root, and reads it.
func placeTranscript(t *testing.T, h transcript.Harness, fixture, recorded, root string) *TranscriptInputs {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "transcript", "testdata", fixture))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), filepath.Base(fixture))
	if err := os.WriteFile(p, []byte(strings.ReplaceAll(string(b), recorded, root)), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := transcript.Read(context.Background(), transcript.Options{Harness: h, Path: p, Root: root, After: time.Time{}})
	return &TranscriptInputs{Path: p, Harness: h, Session: s, Refusal: err}
}

// TestCheckWitness: the rules of docs/design/transcripts.md §3–§4 on real transcripts.
func TestCheckWitness(t *testing.T) {
	const gqc = "/home/USER/projects/spotter-worktrees/spotter-gqc"
	const ctf = "/tmp/tmpw6sk2trg"
	test := "mix test test/spotter_web/live/project_review_live_test.exs"
	cases := []struct {
		name, fixture, recorded string
		rows                    []report.Verification
		want                    []string
		witnessed               []string
		reverted, lines         int
	}{
		{"last run failed", "claude/spotter-gqc-failing.jsonl", gqc,
			[]report.Verification{{Cmd: test, Result: "pass"}, {Cmd: "git status", Result: "pass"}, {Cmd: "mix credo --strict", Result: "pass"}},
			[]string{"verification_witness_contradicted " + test, "verification_not_witnessed mix credo --strict"},
			[]string{"exit 2, last of 2 runs", "exit 0", "not witnessed"}, 1, 2},
		{"failed then passed", "claude/spotter-gqc.jsonl", gqc,
			[]report.Verification{{Cmd: test + " 2>&1", Result: "pass"}, {Cmd: "mix credo --strict", Result: "pass"}, {Cmd: "git push", Result: "fail"}},
			nil, []string{"exit 0, last of 3 runs", "exit 0", "exit 128"}, 1, 2},
		{"a claimed pass never run", "claude/spotter-gqc.jsonl", gqc,
			[]report.Verification{{Cmd: "mix tests", Result: "pass"}},
			[]string{"verification_not_witnessed mix tests"}, []string{"not witnessed"}, 1, 2},
		{"edit outside, git rewrite, edited and reverted", "claude/coverage-test-fix-outside.jsonl", ctf,
			[]report.Verification{{Cmd: "pytest tests/test_math_utils.py -v", Result: "pass"}},
			[]string{"tool_edit_outside_repository"}, []string{"exit 0"}, 2, 4},
		{"unknown version: no finding", "claude/coverage-test-fix-v9.jsonl", ctf,
			[]report.Verification{{Cmd: "make check", Result: "pass"}}, nil, []string{""}, 0, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, "", map[string]string{"a.go": "package a\n"}, map[string]string{"a.go": "package a // x\n"})
			rep := completeReport("a.go")
			for i, v := range tc.rows {
				v.Index = i
				rep.Verifications = append(rep.Verifications, v)
			}
			r, _ := f.run(t, rep)
			r.in.Transcript = placeTranscript(t, transcript.Claude, tc.fixture, tc.recorded, f.root)
			if _, err := checkVerification(r); err != nil {
				t.Fatal(err)
			}
			fs, err := checkWitness(r)
			if err != nil {
				t.Fatal(err)
			}
			wantKinds(t, fs, tc.want...)
			var got []string
			for _, row := range r.ev.Verification.Rows {
				w := ""
				if row.Witnessed != nil {
					w = *row.Witnessed
				}
				got = append(got, w)
			}
			if !slices.Equal(got, tc.witnessed) {
				t.Errorf("witnessed %q, want %q", got, tc.witnessed)
			}
			if ev := r.ev.Witness; ev == nil || len(ev.Reverted) != tc.reverted || len(ev.Lines) != tc.lines {
				t.Errorf("witness evidence %+v", ev)
			}
		})
	}
}

// TestWitnessRedacts: a secret in a witnessed command reaches no artifact (the forge-report
// ingest redaction, docs/design/transcripts.md §5).
func TestWitnessRedacts(t *testing.T) {
	const ctf = "/tmp/tmpw6sk2trg"
	f := newFixture(t, "", map[string]string{"a.go": "package a\n"}, map[string]string{"a.go": "package a // x\n"})
	rep := completeReport("a.go")
	r, _ := f.run(t, rep)
	ti := placeTranscript(t, transcript.Claude, "claude/coverage-test-fix-outside.jsonl", ctf, f.root)
	b, _ := os.ReadFile(ti.Path)
	secret := "ghp_0123456789abcdefghijABCDEFGHIJ012345"
	os.WriteFile(ti.Path, []byte(strings.ReplaceAll(string(b), "git commit --amend --no-edit", "git commit --amend -m "+secret)), 0o644)
	ti = placeTranscriptAt(t, ti.Path, f.root)
	r.in.Transcript = ti
	if _, err := checkVerification(r); err != nil {
		t.Fatal(err)
	}
	if _, err := checkWitness(r); err != nil {
		t.Fatal(err)
	}
	all := strings.Join(r.ev.Witness.Lines, "\n")
	for _, c := range r.ev.Witness.Rewrites {
		all += c.Cmd
	}
	if strings.Contains(all, secret) || !strings.Contains(all, forge.Marker) {
		t.Errorf("secret not redacted: %s", all)
	}
}

func placeTranscriptAt(t *testing.T, p, root string) *TranscriptInputs {
	s, err := transcript.Read(context.Background(), transcript.Options{Harness: transcript.Claude, Path: p, Root: root})
	return &TranscriptInputs{Path: p, Harness: transcript.Claude, Session: s, Refusal: err}
}

// TestWitnessPartialAndMasked: a session with a subagent file that was not read reports no row
// as never witnessed (the run may be in it: docs/hardening.md R37), and a failure followed by
// the same command with no exit code stays in the witnessed column (R38).
func TestWitnessPartialAndMasked(t *testing.T) {
	const gqc = "/home/USER/projects/spotter-worktrees/spotter-gqc"
	test := "mix test test/spotter_web/live/project_review_live_test.exs"
	f := newFixture(t, "", map[string]string{"a.go": "package a\n"}, map[string]string{"a.go": "package a // x\n"})
	rep := completeReport("a.go")
	rep.Verifications = []report.Verification{{Cmd: "mix format --check-formatted", Result: "pass"}, {Cmd: test, Result: "pass", Index: 1}}
	r, _ := f.run(t, rep)
	ti := placeTranscript(t, transcript.Claude, "claude/spotter-gqc-failing.jsonl", gqc, f.root)
	// The same test run once more through a pipeline: its status is unknown.
	b, _ := os.ReadFile(ti.Path)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	var extra []string
	for _, l := range lines {
		// The last test run's call and its result (exit 2), an hour later.
		if strings.Contains(l, "toolu_01PLQ59nPMTjqx8bjStFVShk") {
			l = strings.ReplaceAll(l, "2026-02-11T21:07:", "2026-02-11T22:07:")
			l = strings.ReplaceAll(l, test+" 2>&1", test+" 2>&1 | tail -20")
			l = strings.ReplaceAll(l, "toolu_01PLQ59nPMTjqx8bjStFVShk", "toolu_01PLQ59nPMTjqx8bjStFVShz")
			extra = append(extra, l)
		}
	}
	if len(extra) != 2 {
		t.Fatalf("%d lines to repeat", len(extra))
	}
	os.WriteFile(ti.Path, []byte(strings.Join(append(lines, extra...), "\n")+"\n"), 0o644)
	sub := filepath.Join(strings.TrimSuffix(ti.Path, ".jsonl"), "subagents")
	os.MkdirAll(sub, 0o755)
	os.Symlink("/nonexistent", filepath.Join(sub, "agent-a.jsonl"))
	r.in.Transcript = placeTranscriptAt(t, ti.Path, f.root)
	if _, err := checkVerification(r); err != nil {
		t.Fatal(err)
	}
	fs, err := checkWitness(r)
	if err != nil {
		t.Fatal(err)
	}
	wantKinds(t, fs)
	w := r.ev.Verification.Rows[1].Witnessed
	if w == nil || *w != "status unknown (pipeline), last of 3 runs; the last run with an exit code ended with exit 2" {
		t.Errorf("witnessed %v", *w)
	}
	if all := strings.Join(r.ev.Witness.Lines, "\n"); !strings.Contains(all, "1 subagent file(s) of the session not read") {
		t.Errorf("lines %s", all)
	}
}
