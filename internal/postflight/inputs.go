package postflight

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/mastermind-controller/mastermind/internal/audit"
	"github.com/mastermind-controller/mastermind/internal/fsx"
	"github.com/mastermind-controller/mastermind/internal/gitscope"
	"github.com/mastermind-controller/mastermind/internal/report"
	"github.com/mastermind-controller/mastermind/internal/spec"
	"github.com/mastermind-controller/mastermind/internal/verifyrun"
)

// inputs are what one post-flight audits (lifecycle-v2.md §5), read once: the spec (already
// parsed, for auditTask), the changed set C, and their inputs fingerprint. Fingerprint is ""
// when the spec no longer hashes to the approved spec_hash (the audit refuses then, and there
// is nothing to repeat).
type inputs struct {
	Spec        *specInput
	Changed     *gitscope.ChangedSet
	Fingerprint string
	// Unresolved is the first path of D whose id is fsx.ContentRepoUnresolved: a repository whose
	// commit the id does not name, so equal fingerprints do not show equal inputs.
	Unresolved string
	// byRunAll are the fingerprints without and with --run-verify; the one this run does not use
	// is computed on its first call (it may list the ignored inputs, ignoredInputs).
	byRunAll [2]func() string
}

// fingerprintFor is the inputs fingerprint with or without --run-verify ("" when the spec
// changed).
func (in *inputs) fingerprintFor(runAll bool) string {
	i := 0
	if runAll {
		i = 1
	}
	if in.byRunAll[i] == nil {
		return ""
	}
	return in.byRunAll[i]()
}

// readInputs reads the spec, the report and the changed set the task's audit of state st sees,
// sets c.src, and computes the inputs fingerprint every door shares. runAll is --run-verify,
// which changes what the audit checks and so is part of the fingerprint. An error is
// operational: git failing, or an I/O error other than a refused file.
func (c *controller) readInputs(ctx context.Context, st *State, runAll bool) (*inputs, error) {
	t := c.task
	raw, err := c.readTaskFile("spec.md", t.Spec, spec.MaxBytes)
	if err != nil && fsx.ReasonOf(err) == "" {
		return nil, fmt.Errorf("read %s: %w", t.Spec, err)
	}
	in := &inputs{Spec: &specInput{Raw: raw, Err: err}}
	if err != nil || fsx.SHA256Hex(raw) != st.SpecHash {
		return in, nil
	}
	in.Spec.Spec, in.Spec.Findings = spec.Parse(raw, t.Spec)
	src, err := c.source(ctx, st)
	if err != nil {
		return nil, err
	}
	// The audit's git work starts here, all of it at once: the changed set, the baseline lookup
	// of the declared creations and HEAD (auditTask uses them; gitscope.md §8.4). With a recorded
	// fingerprint the run is likely a repeat, which audits nothing: the lookup then waits for
	// auditTask (gitscope.md §8.5).
	ag := auditGit{src: src, baseline: st.BaselineRef}
	pf := audit.StartChangedSet(ctx, ag, st.BaselineRef)
	if st.InputsFingerprint == "" {
		pf.LookupBaseline(ctx, ag, st.BaselineRef, in.Spec.Spec.Scope.Creates)
	}
	headCh := make(chan headResult, 1)
	go func() {
		oid, unborn, err := src.Head(ctx)
		headCh <- headResult{oid, unborn, err}
	}()
	head := sync.OnceValue(func() headResult { return <-headCh })
	in.Spec.Prefetch = pf
	in.Spec.head = func() (string, bool, error) { h := head(); return h.oid, h.unborn, h.err }
	if in.Changed, err = pf.ChangedSet(); err != nil {
		in.Spec.close()
		return nil, err
	}
	rep, err := c.readTaskFile("executor-report.md", t.ReportRel(), report.MaxBytes+1)
	reportID := "-" + string(fsx.ReasonOf(err))
	switch {
	case err == nil:
		reportID = fsx.SHA256Hex(rep)
	case fsx.ReasonOf(err) == "":
		in.Spec.close()
		return nil, fmt.Errorf("read %s: %w", t.ReportRel(), err)
	}
	rule, err := c.control(st)
	if err != nil {
		in.Spec.close()
		return nil, err
	}
	// The D the audit charges (audit.TaskD): a file the controller's own run created is no input.
	d, _ := audit.TaskD(t.Root, in.Changed, rule, c.files.controllerWrites(st.BaselineRef))
	ids, err := fsx.ContentIDs(t.Root, entryPaths(d))
	if err != nil {
		in.Spec.close()
		return nil, err
	}
	if i := slices.Index(ids, fsx.ContentRepoUnresolved); i >= 0 {
		in.Unresolved = string(d[i].Path)
	}
	base := FingerprintInput{Baseline: st.BaselineRef, SpecHash: st.SpecHash, Report: reportID, Changed: d, ContentIDs: ids}
	if c.opts.Transcript != nil {
		if in.Spec.Transcript, err = c.readTranscript(ctx, st); err != nil {
			in.Spec.close()
			return nil, err
		}
		base.Transcript = transcriptID(in.Spec.Transcript)
	}
	// Another task's records are audited (trust-model.md I3) but are not in D: their content
	// is part of the inputs too, as auditTask decides whether they are checked.
	if c.files != nil && c.files.rec != nil && c.files.rec.Foreign != nil && c.files.rec.Foreign.Baseline == st.BaselineRef {
		for _, p := range audit.ForeignRecords(t.Spec, c.files.rec.Foreign.Records, in.Changed) {
			base.Foreign = append(base.Foreign, ForeignRecord{Path: p, Hash: audit.ForeignRecordID(t.Root, p, c.files.controllerWrote)})
		}
	}
	// The ignored inputs a planned run could read (verification_ignored_input) are inputs of
	// its verdict: listed once, and only for a variant that plans a command.
	ignored := sync.OnceValues(func() ([]string, error) { return c.ignoredInputs(ctx, st, in.Changed) })
	var ignoredErr error
	for i, all := range []bool{false, true} {
		in.byRunAll[i] = sync.OnceValue(func() string {
			b := base
			b.Verify = verifyLines(in.Spec.Spec, all)
			if len(verifyrun.Plan(in.Spec.Spec, all)) > 0 {
				lines, err := ignored()
				if err != nil {
					ignoredErr = err
					return ""
				}
				b.Ignored = lines
			}
			return InputsFingerprint(b)
		})
	}
	in.Fingerprint = in.fingerprintFor(runAll)
	if ignoredErr != nil {
		in.Spec.close()
		return nil, ignoredErr
	}
	return in, nil
}

// ignoredInputs are the fingerprint lines of the files a planned run could read that the audit
// does not see (gitscope.IgnoredSince: ignored, or in a left-out tool cache, written since
// pre-flight), without the controller's own recorded writes: "<quoted content id> <quoted path>". A
// new one, or one changed, makes the next post-flight a new audit, which names it. Without the
// task's store record there is nothing to list.
func (c *controller) ignoredInputs(ctx context.Context, st *State, cs *gitscope.ChangedSet) ([]string, error) {
	if c.files == nil || c.files.st == nil || c.git == nil {
		return nil, nil
	}
	paths, err := c.git.IgnoredSince(ctx, st.BaselineRef, c.files.st, cs.ToolCaches, 0)
	if err != nil {
		return nil, err
	}
	writes := c.files.controllerWrites(st.BaselineRef)
	var out []string
	for _, p := range paths {
		id := verifyrun.WorktreeContent(c.task.Root, p)
		if w, ok := writes[p]; ok && w == id {
			continue
		}
		out = append(out, strconv.Quote(id)+" "+strconv.Quote(p))
	}
	return out, nil
}

type headResult struct {
	oid    string
	unborn bool
	err    error
}

// verifyLines are the declared verify commands as the fingerprint sees them, in order, then a
// marker line when --run-verify runs them all (run: true and timeouts are in the spec's bytes,
// which the spec hash covers).
func verifyLines(sp *spec.Spec, runAll bool) []string {
	out := append(make([]string, 0, len(sp.VerifyCommands)+1), sp.VerifyCommands...)
	if runAll {
		out = append(out, "\x00run-verify")
	}
	return out
}

// FingerprintInput is the input of InputsFingerprint.
type FingerprintInput struct {
	Baseline string
	SpecHash string
	// Report is the SHA-256 of the executor report's bytes, or "-<reason>" when it cannot be read
	// (missing, a symlink, too large).
	Report string
	// Changed is D (the changed set without .mastermind/), sorted by path bytes; ContentIDs[i]
	// is the content id of Changed[i] (fsx.ContentID).
	Changed    []gitscope.Entry
	ContentIDs []string
	// Verify are the spec's declared verify commands, in order.
	Verify []string
	// Foreign are the other tasks' records the audit compares with their pre-flight hashes
	// (audit.ForeignRecords), in path order.
	Foreign []ForeignRecord
	// Transcript is the harness transcript's id (transcriptID), "" without one.
	Transcript string
	// Ignored are the ignored inputs of a planned run (ignoredInputs), in path order.
	Ignored []string
}

// ForeignRecord is another task's record and its content now: audit.ForeignRecordID (a SHA-256,
// "" when missing, audit.ForeignUnreadable when it cannot be read, audit.ForeignControllerWritten
// for a version that task's controller wrote).
type ForeignRecord struct {
	Path, Hash string
}

// InputsFingerprint is the inputs fingerprint of lifecycle-v2.md §5: the lowercase hex SHA-256 of
//
//	mastermind-inputs v1\n
//	baseline <oid>\n
//	spec <spec sha256>\n
//	report <report sha256 | -reason>\n
//	verify <quoted command>\n          (one line per declared command, in order)
//	file <status> <content id> <quoted path>\n   (one line per path of D, in path order)
//	foreign <sha256 | - | unreadable | controller> <quoted path>\n   (one line per Foreign record, in order)
//	transcript <harness> <digest | -reason>\n   (only with a harness transcript)
//	ignored <quoted content id> <quoted path>\n   (one line per ignored input of a planned run, in order)
//
// Paths and commands are Go-quoted, so no byte of them can forge a line.
func InputsFingerprint(in FingerprintInput) string {
	h := sha256.New()
	fmt.Fprintf(h, "mastermind-inputs v1\nbaseline %s\nspec %s\nreport %s\n", in.Baseline, in.SpecHash, in.Report)
	for _, c := range in.Verify {
		fmt.Fprintf(h, "verify %s\n", strconv.Quote(c))
	}
	// One reused line buffer: the same bytes as Fprintf("file %s %s %s\n", …, Quote(path))
	// without two allocations per changed path.
	var line []byte
	for i, e := range in.Changed {
		line = append(append(append(append(append(line[:0], "file "...), e.Status...), ' '), in.ContentIDs[i]...), ' ')
		line = append(strconv.AppendQuote(line, string(e.Path)), '\n')
		h.Write(line)
	}
	for _, r := range in.Foreign {
		id := r.Hash
		if id == "" {
			id = "-"
		}
		fmt.Fprintf(h, "foreign %s %s\n", id, strconv.Quote(r.Path))
	}
	if in.Transcript != "" {
		fmt.Fprintf(h, "transcript %s\n", in.Transcript)
	}
	for _, l := range in.Ignored {
		fmt.Fprintf(h, "ignored %s\n", l)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// entryPaths are the paths of d, in order.
func entryPaths(d []gitscope.Entry) []string {
	out := make([]string, len(d))
	for i, e := range d {
		out[i] = string(e.Path)
	}
	return out
}
