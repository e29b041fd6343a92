package postflight

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const testSnap = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func completeReview(snap string) string {
	return "# History review — 020-cache\n\nIntro.\n\n- **Audit snapshot:** " + snap +
		"\n- **Context:** updated\n- **Lesson:** Not Applicable\n- **Reason:** Docs were updated; nothing reusable.\n" +
		"- **Evidence:** a; b; c\n"
}

func problemStrings(ps []ReviewProblem) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Format("r.md"))
	}
	return out
}

func TestCheckReview(t *testing.T) {
	tk := Task{Name: "020-cache", Dir: ".mastermind/tasks/020-cache", Spec: ".mastermind/tasks/020-cache/spec.md"}
	cases := []struct {
		name string
		src  string
		want []string
	}{
		{"complete", completeReview(testSnap), nil},
		{"complete CRLF and BOM", "\ufeff" + strings.ReplaceAll(completeReview(testSnap), "\n", "\r\n"), nil},
		{"template is pending", string(HistoryReviewTemplate(tk, testSnap)), []string{
			`r.md:9: field "Context" is "pending"; expected "updated" or "not applicable"`,
			`r.md:10: field "Lesson" is "pending"; expected "updated" or "not applicable"`,
			`r.md:11: field "Reason" is still "semantic review required"; replace it with one sentence explaining both choices`,
		}},
		{"wrong snapshot", completeReview(strings.Repeat("f", 64)), []string{
			`r.md:5: field "Audit snapshot" is "` + strings.Repeat("f", 64) + `"; expected ` + testSnap + `, the snapshot of the held audit`,
		}},
		{"reason default in other case, empty context", strings.Replace(strings.Replace(completeReview(testSnap),
			"Docs were updated; nothing reusable.", "Semantic Review Required", 1), "**Context:** updated", "**Context:**", 1), []string{
			`r.md:6: field "Context" is ""; expected "updated" or "not applicable"`,
			`r.md:8: field "Reason" is still "semantic review required"; replace it with one sentence explaining both choices`,
		}},
		{"empty reason", strings.Replace(completeReview(testSnap), " Docs were updated; nothing reusable.", "", 1), []string{
			`r.md:8: field "Reason" is empty; expected one sentence explaining both choices`,
		}},
		{"duplicate field", completeReview(testSnap) + "\n- **Lesson:** updated\n", []string{
			`r.md:11: field "Lesson" appears 2 times (lines 7, 11); it must appear exactly once`,
		}},
		{"fields only inside a backtick fence", "# R\n\n```\n- **Audit snapshot:** " + testSnap +
			"\n- **Context:** updated\n- **Lesson:** updated\n- **Reason:** ok\n- **Evidence:** x\n```\n", []string{
			`r.md: field "Audit snapshot" is missing; add one line "- **Audit snapshot:** ` + testSnap + `"`,
			`r.md: field "Context" is missing; add one line "- **Context:** updated"`,
			`r.md: field "Lesson" is missing; add one line "- **Lesson:** updated"`,
			`r.md: field "Reason" is missing; add one line "- **Reason:** <one sentence>"`,
			`r.md: field "Evidence" is missing; add one line "- **Evidence:** <evidence paths>"`,
		}},
		{"a complete copy in a tilde fence does not hide the pending fields", string(HistoryReviewTemplate(tk, testSnap)) +
			"\n~~~markdown\n" + completeReview(testSnap) + "~~~\n", []string{
			`r.md:9: field "Context" is "pending"; expected "updated" or "not applicable"`,
			`r.md:10: field "Lesson" is "pending"; expected "updated" or "not applicable"`,
			`r.md:11: field "Reason" is still "semantic review required"; replace it with one sentence explaining both choices`,
		}},
		{"fields in an HTML comment, a block quote and indented code do not count",
			"# R\n\n    - **Evidence:** x\n\n<!--\n- **Context:** updated\n-->\n\n> - **Lesson:** updated\n> - **Reason:** quoted\n" +
				"lazy continuation\n\n- **Audit snapshot:** " + testSnap + "\n", []string{
				`r.md: field "Context" is missing; add one line "- **Context:** updated"`,
				`r.md: field "Lesson" is missing; add one line "- **Lesson:** updated"`,
				`r.md: field "Reason" is missing; add one line "- **Reason:** <one sentence>"`,
				`r.md: field "Evidence" is missing; add one line "- **Evidence:** <evidence paths>"`,
			}},
		{"control characters are escaped", strings.Replace(completeReview(testSnap), "**Context:** updated", "**Context:** up\x1b[2Jdated", 1), []string{
			`r.md:6: field "Context" is "up\\u001B[2Jdated"; expected "updated" or "not applicable"`,
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := problemStrings(CheckReview([]byte(tc.src), testSnap))
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got)\n%s", d)
			}
		})
	}
}

func TestReviewSnapshot(t *testing.T) {
	if got := reviewSnapshot([]byte(completeReview(testSnap))); got != testSnap {
		t.Errorf("snapshot %q", got)
	}
	// A snapshot quoted in a code block, or given twice, is not usable for the archive name.
	for _, src := range []string{"```\n- **Audit snapshot:** " + testSnap + "\n```\n",
		completeReview(testSnap) + "- **Audit snapshot:** " + testSnap + "\n", completeReview("XYZ")} {
		if got := reviewSnapshot([]byte(src)); got != "" {
			t.Errorf("snapshot %q from %q", got, src)
		}
	}
}

// FuzzCheckReview: review parsing never panics, reports lines inside the document, and a complete
// review stays complete whatever non-field prose is appended.
func FuzzCheckReview(f *testing.F) {
	tk := Task{Name: "020-cache", Dir: ".mastermind/tasks/020-cache", Spec: ".mastermind/tasks/020-cache/spec.md"}
	f.Add(HistoryReviewTemplate(tk, testSnap))
	f.Add([]byte(completeReview(testSnap)))
	f.Add([]byte("> ```\n- **Context:** updated\n<!--\n~~~\n    - **Lesson:**\r\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		ps := CheckReview(src, testSnap)
		lines := strings.Count(string(src), "\n") + 1
		for _, p := range ps {
			if p.Line < 0 || p.Line > lines {
				t.Fatalf("line %d outside 1..%d", p.Line, lines)
			}
		}
		_ = reviewSnapshot(src)
	})
}
