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

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/fsx"
)

// Lesson kinds (§11).
const (
	LessonAuditContractFailure = "audit_contract_failure"
	LessonIterationBudget      = "iteration_budget_exhausted"
)

// MaxLessonsBytes caps _lessons.md (§11: 1 MiB).
const MaxLessonsBytes = 1 << 20

// lessonsLockWait is how long a lessons write waits for the lessons lock (§11: 10 s).
const lessonsLockWait = 10 * time.Second

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
func observedText(verdict string, fs []finding.Finding, returned bool) string {
	counts := map[string]int{}
	for _, f := range fs {
		counts[f.Rule]++
	}
	var parts []string
	for _, k := range KindOrder {
		if n := counts[k]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d× %s", n, strings.ReplaceAll(k, "_", " ")))
		}
	}
	s := fmt.Sprintf("contract %s; %s", verdict, strings.Join(parts, ", "))
	if returned {
		s += returnedSuffix
	}
	return s
}

// upsertLesson applies the §11 upsert. Failures are warnings and never change the outcome.
func (c *controller) upsertLesson(ev lessonEvent) {
	if err := c.doUpsertLesson(ev); err != nil {
		c.warnf("lesson not recorded in %s: %v", c.task.LessonsRel(), err)
	}
}

func (c *controller) doUpsertLesson(ev lessonEvent) error {
	path := c.task.Abs(c.task.LessonsRel())
	lock, err := fsx.LockWait(path+".lock", lessonsLockWait)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	old, err := fsx.ReadFile(path, MaxLessonsBytes)
	if err != nil && fsx.ReasonOf(err) != fsx.ReasonMissing {
		return err
	}
	date := c.now().UTC().Format("2006-01-02")
	updated := UpsertLesson(old, c.task, ev.Kind, ev.Observed, date)
	if updated == nil {
		return nil
	}
	if len(updated) > MaxLessonsBytes {
		return fmt.Errorf("the file would exceed %d bytes", MaxLessonsBytes)
	}
	if bytes.Equal(updated, old) {
		return nil
	}
	return fsx.WriteFileAtomic(path, updated, 0o644)
}

var (
	fieldLine = regexp.MustCompile(`^- \*\*([A-Za-z ]+):\*\* (.*)$`)
)

// UpsertLesson returns the lessons file content after upserting the entry (task, kind) with the
// given Observed text and date (YYYY-MM-DD), or nil when the entry exists with a Status other
// than candidate (left untouched). old may be empty (a new file).
func UpsertLesson(old []byte, t Task, kind, observed, date string) []byte {
	id := LessonID(t.Name, kind)
	text := strings.ReplaceAll(string(old), "\r\n", "\n")
	if text == "" {
		text = lessonsHeader
	}
	lines := strings.Split(text, "\n")
	start := -1
	for i, l := range lines {
		if strings.TrimRight(l, " \t") == "## "+id {
			start = i
			break
		}
	}
	evidence := t.AuditRel()
	if kind == LessonIterationBudget {
		evidence = t.Spec
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
`, id, date, date, t.Name, kind, observed, evidence, evidence, t.ReportRel())
		return []byte(text)
	}
	end := len(lines)
	for i := start + 1; i < len(lines); i++ {
		if strings.HasPrefix(lines[i], "## ") || strings.HasPrefix(lines[i], "# ") {
			end = i
			break
		}
	}
	status := ""
	for i := start + 1; i < end; i++ {
		if m := fieldLine.FindStringSubmatch(lines[i]); m != nil && m[1] == "Status" {
			status = strings.TrimSpace(m[2])
		}
	}
	if status != "candidate" {
		return nil
	}
	for i := start + 1; i < end; i++ {
		m := fieldLine.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		switch m[1] {
		case "Occurrences":
			n, _ := strconv.Atoi(strings.TrimSpace(m[2]))
			lines[i] = fmt.Sprintf("- **Occurrences:** %d", n+1)
		case "Last seen":
			lines[i] = "- **Last seen:** " + date
		case "Observed":
			lines[i] = "- **Observed:** " + observed
		case "Latest event evidence":
			lines[i] = "- **Latest event evidence:** " + evidence
		}
	}
	return []byte(strings.Join(lines, "\n"))
}
