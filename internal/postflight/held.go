package postflight

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/fsx"
	"github.com/mastermind-controller/mastermind/internal/gitscope"
	"github.com/mastermind-controller/mastermind/internal/repopath"
	"github.com/mastermind-controller/mastermind/internal/spec"
	"github.com/mastermind-controller/mastermind/internal/store"
	"github.com/mastermind-controller/mastermind/internal/textsafe"
)

// Snapshot limits (§8.2).
const (
	MaxSnapshotFileBytes  = 16 << 20
	MaxSnapshotTotalBytes = 256 << 20
)

// held runs §4 step 11 after a held audit.md was written.
func (c *controller) held(st *State, d []gitscope.Entry, diffStat func() (string, error), specRaw []byte, auditSHA, summary string) (*Outcome, error) {
	res := c.res
	sp, _ := spec.Parse(specRaw, c.task.Spec)
	notes, err := c.releaseNotes(sp, d, diffStat, "Audit: ✅ Held")
	if err != nil {
		return res, err
	}
	reportRaw, err := c.readTaskFile("executor-report.md", c.task.ReportRel(), MaxSnapshotFileBytes)
	var snap string
	if err == nil {
		snap, err = HistorySnapshot(c.task.Root, SnapshotInput{Baseline: st.BaselineRef, Iteration: st.Iteration,
			Spec: specRaw, Report: reportRaw, AuditSHA256: auditSHA, Release: notes, Changed: d})
	}
	st.BlockingStreak, st.BlockingFingerprint = 0, ""
	if err != nil {
		if werr := c.writeReleaseNotes(notes); werr != nil {
			return res, werr
		}
		res.Artifacts.ReleaseNotes = c.task.ReleaseNotesRel()
		st.Status, st.NextStep, st.OutcomeRisk, st.LastArtifact = StatusBlocked, NextPlannerReview, RiskMedium, ArtifactAudit
		st.BlockingReason = "audit inputs unavailable: " + err.Error()
		st.InputsFingerprint = ""
		if werr := c.writeState(st); werr != nil {
			return res, werr
		}
		return c.refuse(PhasePostflight, OutcomePostRefused, st.BlockingReason), nil
	}
	complete, err := c.writeHistoryReview(st, snap, notes)
	if err != nil {
		return res, err
	}
	res.Artifacts.ReleaseNotes = c.task.ReleaseNotesRel()
	st.Status, st.NextStep, st.OutcomeRisk, st.LastArtifact = StatusHistoryReviewRequired, NextReviewHistory, RiskLow, ArtifactHistoryReview
	st.BlockingReason, st.HistorySnapshotSHA256 = "", snap
	res.Artifacts.HistoryReview = c.task.HistoryReviewRel()
	res.AuditSummary, res.Verdict = summary, VerdictHeld
	if complete {
		// Step 11.5: a complete review for this very snapshot already exists.
		return c.learn(st)
	}
	if err := c.writeState(st); err != nil {
		return res, err
	}
	res.Outcome = OutcomePostHeld
	res.Message, res.VerdictLine = verdictSentence(VerdictHeld, Counts{}, ""), true
	res.Next = Next{Step: NextReviewHistory, Edit: c.task.HistoryReviewRel(), Run: "mastermind run-task " + c.task.Spec}
	return res, nil
}

// startDiffStat starts the release notes' diff stat (§8.1) in the background, so that git's work
// overlaps the audit's writes, and returns the function that waits for it.
func (c *controller) startDiffStat(ctx context.Context, cs *gitscope.ChangedSet) func() (string, error) {
	if cs.Degraded {
		return func() (string, error) { return "diff stat unavailable (degraded)\n", nil }
	}
	type result struct {
		stat string
		err  error
	}
	done := make(chan result, 1)
	go func() {
		s, err := c.src.DiffStat(ctx)
		if s != "" && !strings.HasSuffix(s, "\n") {
			s += "\n"
		}
		done <- result{s, err}
	}()
	return func() (string, error) {
		r := <-done
		return r.stat, r.err
	}
}

// releaseNotes renders §8.1 with the diff stat diffStat waits for; trailer is the last line
// ("Audit: ✅ Held", or the accepted drift of lifecycle-v2.md §3).
func (c *controller) releaseNotes(sp *spec.Spec, d []gitscope.Entry, diffStat func() (string, error), trailer string) ([]byte, error) {
	title := sp.Title
	if title == "" {
		title = sp.Frontmatter.Title
	}
	if title == "" {
		title = c.task.Name
	}
	section := func(name, missing string) string {
		if s, ok := sp.Section(name); ok && strings.TrimSpace(s.Body) != "" {
			return strings.Trim(strings.ReplaceAll(s.Body, "\r\n", "\n"), "\n")
		}
		return missing
	}
	stat, err := diffStat()
	if err != nil {
		return nil, err
	}
	var untracked []string
	for _, e := range d {
		if e.Status == gitscope.StatusUntracked {
			untracked = append(untracked, string(e.Path))
		}
	}
	slices.Sort(untracked)
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s\n\n## Summary\n\n%s\n\n## Tests\n\n%s\n\n## Diff\n\n```text\n", textsafe.Escape(title),
		section("Goals", "_The spec has no Goals section._"), section("Tests Plan", "_The spec has no Tests Plan section._"))
	b.WriteString(stat)
	if len(untracked) > 0 {
		b.WriteString("Untracked files:\n")
		for _, p := range untracked {
			fmt.Fprintf(&b, "  %s\n", textsafe.Escape(p))
		}
	}
	b.WriteString("```\n\n---\n" + textsafe.Escape(trailer) + "\n")
	return b.Bytes(), nil
}

// The first lines of the §8.2 canonical texts: v2 names a submodule's commit, v1 did not.
const (
	snapshotV1 = "mastermind-history-snapshot v1\n"
	snapshotV2 = "mastermind-history-snapshot v2\n"
)

// SnapshotInput is the input of HistorySnapshot (§8.2).
type SnapshotInput struct {
	Baseline  string
	Iteration int
	Spec      []byte
	Report    []byte
	// AuditSHA256 is the lowercase hex SHA-256 of audit.md (hashed as it was written or read).
	AuditSHA256 string
	Release     []byte
	Changed     []gitscope.Entry // D, sorted by path bytes
	// Recorded, when set, is the snapshot a state records for these inputs. A v1 snapshot, which
	// an earlier version recorded when a submodule's digest was "dir", is returned while its v1
	// text is the same, so a task closed or accepted before the upgrade stays so; a v2 record
	// never matches a v1 text (hardening.md A-C14, A-C16).
	Recorded string
}

// HistorySnapshot computes the §8.2 history snapshot: the SHA-256 of the canonical text over the
// baseline, iteration, spec, report, audit and release notes digests and one content digest per
// changed path. A file over 16 MiB, or more than 256 MiB in total, is an error.
func HistorySnapshot(root string, in SnapshotInput) (string, error) {
	var head bytes.Buffer
	fmt.Fprintf(&head, "baseline %s\niteration %d\nspec %s\nreport %s\naudit %s\nrelease %s\n",
		in.Baseline, in.Iteration, fsx.SHA256Hex(in.Spec), fsx.SHA256Hex(in.Report), in.AuditSHA256, fsx.SHA256Hex(in.Release))
	paths := make([][]byte, len(in.Changed))
	for i, e := range in.Changed {
		paths[i] = e.Path
	}
	slices.SortFunc(paths, bytes.Compare)
	// The text is hashed as it is written. The v1 text an earlier version hashed, where every
	// directory's digest was "dir", is hashed too only when there is a recorded snapshot to match;
	// the header keeps a v2 text from ever equalling it.
	b := sha256.New()
	io.WriteString(b, snapshotV2+head.String())
	var legacy hash.Hash
	if in.Recorded != "" {
		legacy = sha256.New()
		io.WriteString(legacy, snapshotV1+head.String())
	}
	var total int64
	for _, p := range paths {
		digest, n, err := contentDigest(root, string(p))
		if err != nil {
			return "", err
		}
		total += n
		if total > MaxSnapshotTotalBytes {
			return "", fmt.Errorf("changed files exceed %d bytes in total", MaxSnapshotTotalBytes)
		}
		fmt.Fprintf(b, "file %s %s\n", digest, p)
		if legacy != nil {
			if strings.HasPrefix(digest, fsx.ContentRepoPrefix) {
				digest = fsx.ContentDir
			}
			fmt.Fprintf(legacy, "file %s %s\n", digest, p)
		}
	}
	snap := hex.EncodeToString(b.Sum(nil))
	if legacy != nil && snap != in.Recorded && hex.EncodeToString(legacy.Sum(nil)) == in.Recorded {
		return in.Recorded, nil
	}
	return snap, nil
}

// contentDigest is the per-path digest of §8.2 and the number of bytes read.
func contentDigest(root, rel string) (string, int64, error) {
	abs := filepath.Join(root, filepath.FromSlash(rel))
	if err := fsx.CheckNoSymlink(root, parentOf(rel)); err != nil && parentOf(rel) != "" {
		if fsx.ReasonOf(err) == fsx.ReasonMissing {
			return "-", 0, nil
		}
		return "", 0, fmt.Errorf("%s: %w", rel, err)
	}
	fi, err := os.Lstat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "-", 0, nil
	case err != nil:
		return "", 0, err
	case fi.Mode()&fs.ModeSymlink != 0:
		t, err := os.Readlink(abs)
		if err != nil {
			return "", 0, err
		}
		return "link:" + fsx.SHA256Hex([]byte(t)), 0, nil
	case fi.IsDir():
		// A submodule or nested repository names its HEAD commit, as in the inputs fingerprint;
		// one whose commit cannot be read could move unseen, so the snapshot is unavailable.
		id, err := fsx.ContentID(root, rel)
		if err == nil && id == fsx.ContentRepoUnresolved {
			return "", 0, fmt.Errorf("%s: the HEAD commit of this submodule or nested repository cannot be read without running git (its .git, HEAD or ref is in a form mastermind does not read); check out a commit there (git -C %s checkout --detach) and rerun", rel, rel)
		}
		return id, 0, err
	case !fi.Mode().IsRegular():
		return "", 0, fmt.Errorf("%s is not a regular file", rel)
	}
	data, err := fsx.ReadFile(abs, MaxSnapshotFileBytes)
	if err != nil {
		return "", 0, fmt.Errorf("%s: %w", rel, err)
	}
	return fsx.ExecMarked(fi.Mode(), fsx.SHA256Hex(data)), int64(len(data)), nil
}

func parentOf(rel string) string {
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		return rel[:i]
	}
	return ""
}

// HistoryReviewTemplate renders the pending history-review.md of §8.2.
func HistoryReviewTemplate(t Task, snapshot string) []byte {
	return []byte(fmt.Sprintf(`# History review — %s

Record what this task taught before it is closed. Replace each "pending" value.
Context: "updated" or "not applicable" — were project context documents updated?
Lesson: "updated" or "not applicable" — was a reusable lesson recorded?
Reason: one sentence explaining both choices.

- **Audit snapshot:** %s
- **Context:** pending
- **Lesson:** pending
- **Reason:** semantic review required
- **Evidence:** %s; %s; %s
`, t.Name, snapshot, t.Spec, t.AuditRel(), t.ReleaseNotesRel()))
}

// writeHistoryReview writes the release notes and creates or refreshes history-review.md (§4 step
// 11.3, §8.2) after one registry update naming every file it writes, and reports whether the
// review already present is complete for snap (step 11.5). A review it cannot read is refused
// before anything is written.
func (c *controller) writeHistoryReview(st *State, snap string, notes []byte) (complete bool, err error) {
	rel := c.task.HistoryReviewRel()
	records := []store.FileWrite{c.releaseNotesWrite(notes)}
	var archive string
	keep := false
	old, err := c.files.readFile("history-review.md", MaxReviewBytes)
	switch {
	case err == nil:
		oldSnap := reviewSnapshot(old)
		if oldSnap == snap {
			keep, complete = true, len(c.checkReview(old, snap)) == 0
			break
		}
		rule, err := c.control(st)
		if err != nil {
			return false, err
		}
		if oldSnap == "" {
			oldSnap = fsx.SHA256Hex(old)
		}
		archive = fmt.Sprintf("history-review.%s.md", oldSnap)
		// Only a review the changed set left out is archived as the controller's bytes: any
		// other history-review.md is kept, but as a changed path (hardening.md A-N3).
		if repopath.LeftOut(rel, rule) {
			records = append(records, store.FileWrite{Rel: c.task.Dir + "/" + archive, Data: old})
		}
	case fsx.ReasonOf(err) == fsx.ReasonTooLarge:
		return false, fmt.Errorf("%s is larger than %d bytes (1 MiB) and cannot be archived; move it away and rerun post-flight", rel, MaxReviewBytes)
	case fsx.ReasonOf(err) != fsx.ReasonMissing:
		return false, fmt.Errorf("%s is refused: %w", rel, err)
	}
	tmpl := HistoryReviewTemplate(c.task, snap)
	if !keep {
		records = append(records, store.FileWrite{Rel: rel, Data: tmpl})
	}
	// Paths the writes would be refused at are refused before the record names them.
	rd, err := c.openReleases()
	if err != nil {
		return false, err
	}
	defer rd.Close()
	if archive != "" {
		if err := c.files.checkWritable(archive); err != nil {
			return false, fmt.Errorf("archive %s as %s: %w", rel, c.task.Dir+"/"+archive, err)
		}
	}
	if err := c.files.record(records...); err != nil {
		return false, err
	}
	if err := c.putReleaseNotes(rd, notes); err != nil {
		return false, err
	}
	if keep {
		return complete, nil
	}
	if archive != "" {
		if err := c.files.writeFile(archive, old); err != nil {
			return false, fmt.Errorf("archive %s as %s: %w", rel, c.task.Dir+"/"+archive, err)
		}
	}
	if err := c.files.writeFile("history-review.md", tmpl); err != nil {
		return false, fmt.Errorf("write %s: %w", rel, err)
	}
	return false, nil
}
