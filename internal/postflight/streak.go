package postflight

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"slices"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/audit"
	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/fsx"
)

// StreakLimit is the number of identical blocking post-flights that returns a task to design (§6).
const StreakLimit = 3

const streakSuffix = "; the same blocking condition has repeated in 3 consecutive post-flights — revise the spec (return to design) or ask the user"

// ReturnToDesignLine is the audit.md line (and so the printed text) of a post-flight that
// returns its task to design (§6).
const ReturnToDesignLine = "  next: return to design — the same blocking condition has repeated in 3 consecutive post-flights — revise the spec (return to design) or ask the user"

const returnedSuffix = "; returned to design after 3 identical post-flights"

// fingerprintLines returns the "<kind>\x1f<identity>" lines of §6 for a drift or broken audit:
// error findings only for broken, every finding for drift. The identity fields of each kind are
// finding.Kind.Identity.
func fingerprintLines(fs []finding.Finding, verdict Verdict) []string {
	var lines []string
	for _, f := range fs {
		if l, ok := fingerprintLine(f, verdict); ok {
			lines = append(lines, l)
		}
	}
	return lines
}

// fingerprintLine is f's line of fingerprintLines, ok false when the verdict leaves f out.
func fingerprintLine(f finding.Finding, verdict Verdict) (string, bool) {
	if verdict == VerdictBroken && f.Class != finding.ClassError {
		return "", false
	}
	ids := []string{f.Rule}
	kind, _ := finding.KindOf(f.Rule)
	for _, k := range kind.Identity {
		ids = append(ids, f.FieldString(k))
	}
	return strings.Join(ids, "\x1f"), true
}

// fingerprintAll is Fingerprint(fingerprintLines(every finding of fs and runs, verdict)) without
// holding a line per finding of a run: a run's lines ("<kind>\x1f<path>") are already sorted, so
// the sorted explicit lines and each run's are merged while hashing (gitscope.md §8.1 scenario B).
func fingerprintAll(fs []finding.Finding, runs []finding.PathRun, verdict Verdict) string {
	explicit := fingerprintLines(fs, verdict)
	slices.Sort(explicit)
	type source struct {
		run  finding.PathRun
		next int
	}
	var srcs []*source
	for _, r := range runs {
		if r.Len() == 0 {
			continue
		}
		if _, ok := fingerprintLine(r.At(0), verdict); !ok {
			continue
		}
		srcs = append(srcs, &source{run: r})
	}
	lineOf := func(s *source) string { l, _ := fingerprintLine(s.run.At(s.next), verdict); return l }
	h := sha256.New()
	io.WriteString(h, blockingHeader)
	last, first := "", true
	emit := func(l string) {
		if first || l != last {
			io.WriteString(h, l)
			io.WriteString(h, "\n")
		}
		last, first = l, false
	}
	i := 0
	for {
		best, bestSrc := "", -2
		if i < len(explicit) {
			best, bestSrc = explicit[i], -1
		}
		for k, s := range srcs {
			if s.next >= s.run.Len() {
				continue
			}
			if l := lineOf(s); bestSrc == -2 || l < best {
				best, bestSrc = l, k
			}
		}
		switch bestSrc {
		case -2:
			return hex.EncodeToString(h.Sum(nil))
		case -1:
			i++
		default:
			if s := srcs[bestSrc]; s.next+1 < s.run.Len() && lineOf(&source{run: s.run, next: s.next + 1}) < best {
				// A run out of path order (never built so): hash from every line instead.
				return Fingerprint(fingerprintLines(slices.Collect(audit.All(fs, runs)), verdict))
			}
			srcs[bestSrc].next++
		}
		emit(best)
	}
}

// rejectedLines returns the §6 fingerprint lines of a rejected report whose audit findings are
// fs: the rejection's own lines followed by those of the feedback round's error findings
// (lifecycle-v2.md §6). others are fs without the rejection finding.
func rejectedLines(r audit.Rejection, fs []finding.Finding) (lines []string, others []finding.Finding) {
	others = make([]finding.Finding, 0, len(fs))
	skipped := false
	for _, f := range fs {
		if !skipped && f.Rule == r.Finding.Rule && f.Text() == r.Finding.Text() && f.FieldString("reason") == r.Finding.FieldString("reason") {
			skipped = true
			continue
		}
		others = append(others, f)
	}
	return append(slices.Clone(r.Lines), fingerprintLines(others, VerdictBroken)...), others
}

// blockingHeader is the first line of the text a blocking fingerprint hashes (§6); Fingerprint and
// fingerprintAll must hash the same text.
const blockingHeader = "mastermind-blocking v1\n"

// Fingerprint is the §6 blocking fingerprint of lines: the SHA-256 of "mastermind-blocking v1\n"
// followed by the sorted, deduplicated lines, each with a trailing newline.
func Fingerprint(lines []string) string {
	ls := slices.Clone(lines)
	slices.Sort(ls)
	ls = slices.Compact(ls)
	var b strings.Builder
	b.WriteString(blockingHeader)
	for _, l := range ls {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return fsx.SHA256Hex([]byte(b.String()))
}

// nextStreak applies §6 to a copy of st's streak fields for a blocking post-flight with the given
// fingerprint lines: it returns the new streak, the fingerprint to store, and whether the streak
// reached StreakLimit (next_step return_to_design). It changes nothing, so audit.md can say
// "return to design" before state is written.
func nextStreak(st *State, lines []string, reaudit bool) (streak int, fingerprint string, returned bool) {
	return nextStreakFP(st, Fingerprint(lines), reaudit)
}

// nextStreakFP is nextStreak for an already computed fingerprint fp. A re-audit of the inputs the
// last post-flight audited does not count again, since the rule counts post-flights with distinct
// inputs (lifecycle-v2.md §5).
func nextStreakFP(st *State, fp string, reaudit bool) (streak int, fingerprint string, returned bool) {
	streak = 1
	if st.BlockingStreak > 0 && st.BlockingFingerprint == fp {
		streak = st.BlockingStreak + 1
		if reaudit {
			streak = st.BlockingStreak
		}
	}
	return streak, fp, streak >= StreakLimit
}

// applyStreak stores a result of nextStreak in st.
func applyStreak(st *State, streak int, fingerprint string) {
	st.BlockingStreak, st.BlockingFingerprint = streak, fingerprint
}
