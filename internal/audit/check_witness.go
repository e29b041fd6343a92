package audit

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/contracts/forge"
	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/textsafe"
	"github.com/mastermind-controller/mastermind/internal/transcript"
	"github.com/mastermind-controller/mastermind/internal/verification"
	"github.com/mastermind-controller/mastermind/internal/verifyrun"
)

// TranscriptInputs are the harness transcript of one audit (docs/design/transcripts.md):
// the session read from it, or why it was not read.
type TranscriptInputs struct {
	// Path is the transcript as given; Harness its format.
	Path    string
	Harness transcript.Harness
	// Session is the transcript as read; nil when Refusal says why it was not.
	Session *transcript.Session
	Refusal error
}

// WitnessEvidence is the evidence witness object: what the transcript was and what it shows
// beyond the findings (edited-and-reverted paths, git-rewriting commands). Nothing of the
// transcript but command strings (secrets redacted), their status and file paths is kept.
type WitnessEvidence struct {
	Transcript string  `json:"transcript"`
	Harness    string  `json:"harness"`
	Read       bool    `json:"read"`
	Reason     *string `json:"reason"`
	Version    *string `json:"version"`
	Entries    int     `json:"entries"`
	Before     int     `json:"entries_before_preflight"`
	Unknown    int     `json:"unknown_shapes_skipped"`
	Commands   int     `json:"commands_witnessed"`
	Truncated  bool    `json:"truncated"`
	// Reverted are the paths an edit tool wrote after pre-flight that are in neither the
	// changed set nor files_modified (edited and reverted).
	Reverted []string `json:"edited_and_reverted"`
	// Rewrites are the git commands that rewrite what git shows, with their status.
	Rewrites []WitnessCommand `json:"git_rewrites"`
	// Lines are audit.md's info lines (not yet escaped for a terminal); not part of the JSON.
	Lines []string `json:"-"`
}

// WitnessCommand is one witnessed command in the evidence.
type WitnessCommand struct {
	Cmd    string `json:"cmd"`
	Status string `json:"status"`
}

// checkWitness applies the witness rules of docs/design/transcripts.md §3–§4 when the audit has
// a transcript: a row claimed pass whose last witnessed run failed
// (verification_witness_contradicted), a row no run witnesses (verification_not_witnessed), an
// edit outside the repository (tool_edit_outside_repository), and the info evidence. A
// transcript that was not read is an info line only: the findings are those without it.
func checkWitness(r *run) ([]finding.Finding, error) {
	ti := r.in.Transcript
	if ti == nil {
		return nil, nil
	}
	ev := &WitnessEvidence{Transcript: redact(ti.Path), Harness: string(ti.Harness), Reverted: []string{}, Rewrites: []WitnessCommand{}}
	r.ev.Witness = ev
	s := ti.Session
	if s == nil {
		reason := transcript.ReasonOf(ti.Refusal)
		if reason == "" {
			reason = transcript.ReasonUnreadable
		}
		ev.Reason = &reason
		msg := "not read"
		if ti.Refusal != nil {
			msg = ti.Refusal.Error()
		}
		ev.Lines = append(ev.Lines, "witness: transcript not used ("+redact(msg)+"); the verdict is the one without it")
		return nil, nil
	}
	ev.Read, ev.Entries, ev.Before, ev.Unknown, ev.Commands, ev.Truncated = true, s.Entries, s.Before, s.Unknown, s.Commands(), s.Truncated
	if s.Version != "" {
		v := s.Version
		ev.Version = &v
	}
	ev.Lines = append(ev.Lines, fmt.Sprintf("witness: %s transcript %s: %d entries (%d at or before pre-flight, %d of unknown shape skipped), %d commands witnessed",
		harnessName(ti.Harness, s.Version), ev.Transcript, s.Entries, s.Before, s.Unknown, s.Commands()))
	var fs []finding.Finding
	if r.rep != nil && r.ev.Verification != nil {
		for i := range r.ev.Verification.Rows {
			row := &r.ev.Verification.Rows[i]
			w := s.Lookup(row.Cmd)
			cmd := redact(row.Cmd)
			var desc string
			switch {
			case w == nil:
				desc = "not witnessed"
				if !s.Truncated && !s.Partial() {
					fs = append(fs, findNotWitnessed(cmd, row.Index, redact(s.Closest(row.Cmd))))
				}
			default:
				desc = w.Describe()
				if w.Runs > 1 {
					desc += fmt.Sprintf(", last of %d runs", w.Runs)
				}
				if w.Subagent {
					desc += ", by a subagent"
				}
				if k := w.LastKnown; k != nil && k.Status == transcript.StatusFailed {
					// Unknown never contradicts, but the failure it follows stays in view.
					desc += fmt.Sprintf("; the last run with an exit code ended with exit %d", k.ExitCode)
				}
				if row.Result == "pass" && w.Status == transcript.StatusFailed {
					fs = append(fs, findWitnessContradicted(cmd, row.Index, w))
				}
			}
			row.Witnessed = &desc
		}
	}
	for _, e := range s.Outside {
		fs = append(fs, findEditOutside(redact(e.Path), e.Tool))
	}
	listed := map[string]bool{}
	if r.rep != nil {
		for _, f := range r.rep.FilesModified {
			listed[f.Path] = true
		}
	}
	for _, p := range s.Inside {
		if _, changed := r.status(p); !changed && !listed[p] {
			ev.Reverted = append(ev.Reverted, redact(p))
			ev.Lines = append(ev.Lines, "witness: edited and reverted (written by an edit tool after pre-flight, unchanged now and not in files_modified): "+redact(p))
		}
	}
	for _, w := range s.Rewrites {
		c := WitnessCommand{Cmd: redact(w.Cmd), Status: w.Describe()}
		ev.Rewrites = append(ev.Rewrites, c)
		ev.Lines = append(ev.Lines, fmt.Sprintf("witness: a command that rewrites what git shows ran: \"%s\" (%s); the changed set is computed against pre-flight snapshots and is not affected", c.Cmd, c.Status))
	}
	if s.Truncated {
		ev.Lines = append(ev.Lines, fmt.Sprintf("witness: more than %d distinct commands; no row is reported as never witnessed", transcript.MaxCommands))
	}
	if n := s.SymlinkedSubagents + s.UnreadSubagents; n > 0 {
		ev.Lines = append(ev.Lines, fmt.Sprintf("witness: %d subagent file(s) of the session not read (a symbolic link, unreadable, or inside the work tree); no row is reported as never witnessed", n))
	}
	slices.Sort(ev.Reverted)
	return fs, nil
}

// redact removes secrets from transcript text as forge-report ingest does, before anything of it
// reaches an artifact.
func redact(s string) string { return forge.RedactString(s) }

func harnessName(h transcript.Harness, version string) string {
	n := "Claude Code"
	if h == transcript.Codex {
		n = "Codex"
	}
	if version != "" {
		n += " " + version
	}
	return n
}

func findWitnessContradicted(cmd string, index int, w *transcript.Run) finding.Finding {
	at := w.Order.At.UTC().Format("2006-01-02T15:04:05.000Z")
	return newFinding(finding.KindVerificationWitnessContradicted,
		fmt.Sprintf("verifications[%d] claims \"%s\" passed, but its last run in the harness transcript (%s) ended with %s; fix the failure and run it again, or report result: fail",
			index, textsafe.Escape(cmd), at, w.Describe()),
		"cmd", cmd, "index", index, "witnessed", w.Describe(), "at", at)
}

func findNotWitnessed(cmd string, index int, closest string) finding.Finding {
	msg := fmt.Sprintf("verifications[%d] reports \"%s\" as run, but the harness transcript shows no run of it in the repository root after pre-flight", index, textsafe.Escape(cmd))
	kv := []any{"cmd", cmd, "index", index}
	if closest != "" {
		msg += fmt.Sprintf("; the closest command run is \"%s\"", textsafe.Escape(closest))
		kv = append(kv, "closest", closest)
	}
	return newFinding(finding.KindVerificationNotWitnessed, msg+"; run the command itself and report that run", kv...)
}

func findEditOutside(path, tool string) finding.Finding {
	return newFinding(finding.KindToolEditOutsideRepository,
		fmt.Sprintf("the %s tool wrote %s, outside the repository, the harness's folders and the temporary directory; the audit cannot see that change: make it inside the repository, or tell the planner why it was needed", tool, textsafe.Escape(path)),
		"path", path, "tool", tool)
}

// witnessedRuns decides, for every planned run: witnessed command, whether its witnessed run
// stands in for mastermind's (docs/design/transcripts.md §6): the transcript's conditions
// (transcript.Session.Stand), then every changed path last changed before the run's call. It
// returns the accepted runs by MatchKey and adds a line to the witness evidence for each
// command that runs after all, saying why.
func (r *run) witnessedRuns(all bool) map[string]*transcript.Run {
	var planned []string
	for _, d := range verifyrun.Plan(r.in.Spec, all) {
		if d.Witnessed {
			planned = append(planned, d.Cmd)
		}
	}
	ti, ev := r.in.Transcript, r.ev.Witness
	if len(planned) == 0 || ti == nil || ev == nil {
		return nil
	}
	out := map[string]*transcript.Run{}
	for i, c := range planned {
		others := slices.Delete(slices.Clone(planned), i, i+1)
		w, why := ti.Session.Stand(c, others)
		if w != nil {
			if p, changed := transcript.ChangedAfter(r.in.Root, r.paths, w.Order.At); changed {
				w, why = nil, redact(p)+" changed after its last run"
			}
		}
		if w == nil {
			ev.Lines = append(ev.Lines, fmt.Sprintf("witness: \"%s\" (run: witnessed) is run by mastermind: %s", redact(c), redact(why)))
			continue
		}
		out[verification.MatchKey(c)] = w
	}
	return out
}

// witnessedLines replaces the verification lines and row bases of the commands whose witnessed
// run stood in for mastermind's.
func witnessedLines(ev *VerificationEvidence, stood map[string]*transcript.Run) {
	if len(stood) == 0 {
		return
	}
	lines := ev.Lines[:0:0]
	for _, l := range ev.Lines {
		skip := false
		for _, d := range ev.Declared {
			if stood[verification.MatchKey(d)] != nil && strings.HasPrefix(l, "verification: \""+textsafe.Escape(d)+"\" ") {
				skip = true
			}
		}
		if !skip {
			lines = append(lines, l)
		}
	}
	for _, d := range ev.Declared {
		if w := stood[verification.MatchKey(d)]; w != nil {
			lines = append(lines, fmt.Sprintf("verification: \"%s\" witnessed passing in the transcript at %s (run: witnessed; not run again)",
				textsafe.Escape(d), w.Order.At.UTC().Format("2006-01-02T15:04:05.000Z")))
		}
	}
	ev.Lines = lines
	for i := range ev.Rows {
		if stood[verification.MatchKey(ev.Rows[i].Cmd)] != nil {
			ev.Rows[i].Basis, ev.Rows[i].Classification = verifyrun.BasisWitnessed, verifyrun.ClassWitnessed
		}
	}
}
