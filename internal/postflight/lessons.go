package postflight

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/fsx"
	"github.com/mastermind-controller/mastermind/internal/markdown"
	"github.com/mastermind-controller/mastermind/internal/store"
	"github.com/mastermind-controller/mastermind/internal/textsafe"
)

// Lesson kinds (§11).
const (
	LessonAuditContractFailure = "audit_contract_failure"
	LessonIterationBudget      = "iteration_budget_exhausted"
)

// MaxLessonsBytes caps _lessons.md (§11: 1 MiB).
const MaxLessonsBytes = 1 << 20

// lessonsLockWait is how long a lessons write waits for the lessons lock (§11: 10 s). A variable
// only so that tests can shorten it.
var lessonsLockWait = 10 * time.Second

const lessonsHeader = "# mastermind lessons\n\n<!-- Candidates are written by mastermind. Change Status to active, resolved or superseded by hand; mastermind never rewrites an entry whose Status is not candidate. -->\n"

type lessonEvent struct {
	Kind     string
	Observed string
}

// LessonID is "lesson-" plus the first 16 hex characters of SHA-256("<task>\n<kind>") (§11).
func LessonID(task, kind string) string {
	h := sha256.Sum256([]byte(task + "\n" + kind))
	return "lesson-" + hex.EncodeToString(h[:])[:16]
}

// observedText is the §11 Observed text of an audit failure.
func observedText(verdict Verdict, fs []finding.Finding, runs []finding.PathRun, returned bool) string {
	s := fmt.Sprintf("contract %s; %s", verdict, strings.Join(kindCounts(fs, runs...), ", "))
	if returned {
		s += returnedSuffix
	}
	return s
}

// kindCounts returns "<n>× <kind with underscores as spaces>" for each kind in fs and runs, in
// §9.1 order.
func kindCounts(fs []finding.Finding, runs ...finding.PathRun) []string {
	counts := map[string]int{}
	for _, f := range fs {
		counts[f.Rule]++
	}
	for _, r := range runs {
		counts[r.Kind] += r.Len()
	}
	var parts []string
	for _, k := range finding.Kinds {
		if n := counts[k.ID]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d× %s", n, strings.ReplaceAll(k.ID, "_", " ")))
		}
	}
	return parts
}

// observedKinds is the suffix that the feedback round of a rejected report adds to its
// "Observed" text: ", " and the kind counts of fs (§11), or "" when fs is empty.
func observedKinds(fs []finding.Finding) string {
	if len(fs) == 0 {
		return ""
	}
	return ", " + strings.Join(kindCounts(fs), ", ")
}

// upsertLesson applies the §11 upsert. Failures are warnings and never change the outcome.
func (c *controller) upsertLesson(ev lessonEvent) {
	if err := c.doUpsertLesson(ev); err != nil {
		c.warnf("lesson not recorded in %s: %v", c.task.LessonsRel(), err)
	}
}

func (c *controller) doUpsertLesson(ev lessonEvent) error {
	// The tasks folder is opened without following links and every access below it goes
	// through the handle (trust-model.md I4).
	td, err := c.files.openControlDir(TasksDir)
	if err != nil {
		return err
	}
	defer td.Close()
	// The lock is flock(2) on the tasks folder itself: no lock file for an executor to fill.
	lock, err := td.LockDirWait(lessonsLockWait)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	old, err := td.ReadFile(lessonsName, MaxLessonsBytes)
	if err != nil && fsx.ReasonOf(err) != fsx.ReasonMissing {
		return err
	}
	date := c.now().UTC().Format("2006-01-02")
	updated, err := UpsertLessonText(old, c.task, ev.Kind, ev.Observed, date)
	if err != nil || updated == nil {
		return err
	}
	if len(updated) > MaxLessonsBytes {
		return fmt.Errorf("the file would exceed %d bytes", MaxLessonsBytes)
	}
	if bytes.Equal(updated, old) {
		return nil
	}
	// The store records the hash first, so the changed set knows these bytes are the
	// controller's (trust-model.md I3).
	if err := c.files.record(store.FileWrite{Rel: c.task.LessonsRel(), Data: updated}); err != nil {
		return err
	}
	return td.WriteFileAtomic(lessonsName, updated, 0o644)
}

// lessonsName is the lessons file's name inside TasksDir (§11).
const lessonsName = "_lessons.md"

// lessonField matches an entry field line "- **Name:** value" (§11 entry shape).
var lessonField = regexp.MustCompile(`^- \*\*([A-Za-z ]+):\*\*(.*)$`)

// PendingLesson is an entry of the lessons file whose Reusable lesson is still pending.
type PendingLesson struct {
	ID   string // "lesson-<16 hex>", the entry's heading
	Line int    // 1-based line of its Reusable lesson field
}

// PendingLessons returns, in file order, the entries of the lessons file content data whose Task
// is task and whose Reusable lesson still starts with "pending" (any case), as mastermind writes
// it ("pending semantic review"). Only prose lines count, as for the upsert.
func PendingLessons(data []byte, task string) []PendingLesson {
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	d := markdown.Parse([]byte(text))
	prose := ProseLines(d)
	var out []PendingLesson
	var id, owner, lesson string
	line := 0
	flush := func() {
		if id != "" && owner == task && strings.HasPrefix(strings.ToLower(lesson), "pending") {
			out = append(out, PendingLesson{ID: id, Line: line})
		}
		id, owner, lesson, line = "", "", "", 0
	}
	for i, l := range strings.Split(text, "\n") {
		if i+1 >= len(prose) || !prose[i+1] {
			continue
		}
		if strings.HasPrefix(l, "#") {
			flush()
			if h, ok := strings.CutPrefix(strings.TrimRight(l, " \t"), "## "); ok && strings.HasPrefix(h, "lesson-") {
				id = h
			}
			continue
		}
		m := lessonField.FindStringSubmatch(l)
		if id == "" || m == nil {
			continue
		}
		switch v := strings.TrimSpace(m[2]); m[1] {
		case "Task":
			if owner == "" {
				owner = v
			}
		case "Reusable lesson":
			if line == 0 {
				lesson, line = v, i+1
			}
		}
	}
	flush()
	return out
}

// UpsertLesson returns the lessons file content after upserting the entry (task, kind) with the
// given Observed text and YYYY-MM-DD date, or nil when UpsertLessonText may write nothing.
func UpsertLesson(old []byte, t Task, kind, observed, date string) []byte {
	out, err := UpsertLessonText(old, t, kind, observed, date)
	if err != nil {
		return nil
	}
	return out
}

// UpsertLessonText applies the §11 upsert rules to the lessons file content old, empty for a new
// file. It returns nil and no error for an entry it must leave untouched, and an error saying why
// for a malformed one.
func UpsertLessonText(old []byte, t Task, kind, observed, date string) ([]byte, error) {
	id := LessonID(t.Name, kind)
	text := strings.ReplaceAll(string(old), "\r\n", "\n")
	if text == "" {
		text = lessonsHeader
	}
	evidence, evidence2 := t.AuditRel(), t.ReportRel()
	if kind == LessonIterationBudget {
		evidence, evidence2 = t.Spec, t.StateRel()
	}
	d := markdown.Parse([]byte(text))
	prose := ProseLines(d)
	lines := strings.Split(text, "\n")
	isProse := func(i int) bool { return i+1 < len(prose) && prose[i+1] }
	start := -1
	for i, l := range lines {
		if isProse(i) && strings.TrimRight(l, " \t") == "## "+id {
			start = i
			break
		}
	}
	if start < 0 {
		if !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		text += fmt.Sprintf(`
## %s

- **Created:** %s
- **Last seen:** %s
- **Occurrences:** 1
- **Status:** candidate
- **Task:** %s
- **Kind:** %s
- **Observed:** %s
- **Latest event evidence:** %s
- **Provenance:** mastermind controller
- **Evidence:** %s; %s
- **Supersedes:** none
- **Reusable lesson:** pending semantic review
`, id, date, date, t.Name, kind, observed, evidence, evidence, evidence2)
		return []byte(text), nil
	}
	end := len(lines)
	for i := start + 1; i < len(lines); i++ {
		if isProse(i) && (strings.HasPrefix(lines[i], "## ") || strings.HasPrefix(lines[i], "# ") || lines[i] == "#" || lines[i] == "##") {
			end = i
			break
		}
	}
	at := map[string][]int{}
	for i := start + 1; i < end; i++ {
		if !isProse(i) {
			continue
		}
		if m := lessonField.FindStringSubmatch(lines[i]); m != nil {
			at[m[1]] = append(at[m[1]], i)
		}
	}
	value := func(name string) string {
		m := lessonField.FindStringSubmatch(lines[at[name][0]])
		return strings.TrimSpace(m[2])
	}
	if n := len(at["Status"]); n != 1 {
		return nil, fmt.Errorf("entry %s has %d Status fields (expected exactly one); it was left untouched", id, n)
	}
	if value("Status") != "candidate" {
		return nil, nil
	}
	for _, name := range []string{"Occurrences", "Last seen", "Observed", "Latest event evidence"} {
		if n := len(at[name]); n != 1 {
			return nil, fmt.Errorf("entry %s has %d %s fields (expected exactly one); it was left untouched", id, n, name)
		}
	}
	n, err := strconv.Atoi(value("Occurrences"))
	if err != nil || n < 1 {
		return nil, fmt.Errorf("entry %s has Occurrences \"%s\" (expected a positive integer); it was left untouched", id, textsafe.Escape(value("Occurrences")))
	}
	lines[at["Occurrences"][0]] = fmt.Sprintf("- **Occurrences:** %d", n+1)
	lines[at["Last seen"][0]] = "- **Last seen:** " + date
	lines[at["Observed"][0]] = "- **Observed:** " + observed
	lines[at["Latest event evidence"][0]] = "- **Latest event evidence:** " + evidence
	return []byte(strings.Join(lines, "\n")), nil
}

// lessonFields are the field names of a lessons entry (§11).
var lessonFields = map[string]bool{"Created": true, "Last seen": true, "Occurrences": true, "Status": true, "Task": true,
	"Kind": true, "Observed": true, "Latest event evidence": true, "Provenance": true, "Evidence": true,
	"Supersedes": true, "Reusable lesson": true}

// lessonHeading is an entry's heading line.
var lessonHeading = regexp.MustCompile(`^## lesson-[0-9a-f]{16}$`)

// IsLessonsShaped reports whether data has the shape of the lessons file (§11) and nothing
// else: its header first, then only blank lines, one-line HTML comments, entry headings and
// `- **<field>:** <value>` lines of the §11 fields, valid UTF-8 within MaxLessonsBytes. The
// planner writes lessons by hand into such a file during a history review, so a lessons file of
// this shape is its contract content rather than a changed path (trust-model.md I3); a script or
// any other text is not.
func IsLessonsShaped(data []byte) bool {
	if len(data) > MaxLessonsBytes || !utf8.Valid(data) {
		return false
	}
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	head := lessonsHeader[:strings.IndexByte(lessonsHeader, '\n')+1]
	if !strings.HasPrefix(text, head) {
		return false
	}
	for _, l := range strings.Split(strings.TrimPrefix(text, head), "\n") {
		l = strings.TrimRight(l, " \t")
		switch {
		case l == "", lessonHeading.MatchString(l):
		case strings.HasPrefix(l, "<!--") && strings.HasSuffix(l, "-->") && !strings.Contains(l[4:len(l)-3], "-->"):
		default:
			m := lessonField.FindStringSubmatch(l)
			if m == nil || !lessonFields[m[1]] {
				return false
			}
		}
	}
	return true
}
