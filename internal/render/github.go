package render

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/textsafe"
)

// GitHubMaxPerLevel is the number of error and of warning annotations GitHub Actions shows per
// step; further annotations are dropped by GitHub, so mastermind omits them and says how many.
const GitHubMaxPerLevel = 10

// githubRenderer writes the annotations as GitHub Actions workflow commands, then the text
// without colour (the step log).
type githubRenderer struct{}

func (githubRenderer) Render(s Streams, v View) error {
	if err := WriteGitHubAnnotations(s.Out, v.Findings().Annotations()); err != nil {
		return err
	}
	return textRenderer{}.Render(s, v)
}

// Annotation is one result as a GitHub annotation: File, Line and Column are where it is shown
// (zero when unknown), Rule its rule id, Class its level and Message its text; Title overrides
// the rule id as the displayed title (for results that are not findings, "mastermind gate").
type Annotation struct {
	finding.Finding
	Title string
}

// TitleOrRule is the annotation's title: Title, or the rule id.
func (a Annotation) TitleOrRule() string {
	if a.Title != "" {
		return a.Title
	}
	return a.Rule
}

// Annotations are the results as GitHub annotations, in output order: at Locate's location,
// titled by the rule id or, for a result that is not a finding, by fs.Command, the message
// starting with the task's name when fs.NameTasks.
func (fs Findings) Annotations() []Annotation {
	idx := ruleIndex(KindRules())
	var out []Annotation
	for _, s := range fs.Sets {
		prefix := ""
		if fs.NameTasks && s.Task != "" {
			prefix = s.Task + ": "
		}
		for _, f := range s.Findings {
			loc := s.Locate(f, idx)
			a := Annotation{Finding: finding.Finding{Rule: f.Rule, Class: f.Class, File: loc.Path, Line: loc.Line, Column: loc.Column,
				Message: prefix + f.Text()}}
			if _, ok := outcomeRules[f.Rule]; ok {
				a.Title = fs.Command
			}
			out = append(out, a)
		}
	}
	return out
}

// ghCommand is one workflow command: ::error, ::warning or ::notice with file/line/col/title
// properties. Empty properties and zero positions are omitted.
type ghCommand struct {
	Level   string
	File    string
	Line    int
	Col     int
	Title   string
	Message string
}

// ghEscapeData escapes a workflow command's message: % as %25, CR as %0D, LF as %0A.
func ghEscapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// ghEscapeProperty escapes a workflow command property value: the data escapes plus : as %3A
// and , as %2C.
func ghEscapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// String renders the workflow command line (without a trailing newline).
func (a ghCommand) String() string {
	var props []string
	if a.File != "" {
		props = append(props, "file="+ghEscapeProperty(a.File))
	}
	if a.Line > 0 {
		props = append(props, "line="+strconv.Itoa(a.Line))
		if a.Col > 0 {
			props = append(props, "col="+strconv.Itoa(a.Col))
		}
	}
	if a.Title != "" {
		props = append(props, "title="+ghEscapeProperty(a.Title))
	}
	s := "::" + a.Level
	if len(props) > 0 {
		s += " " + strings.Join(props, ",")
	}
	return s + "::" + ghEscapeData(a.Message)
}

// ghLevel maps a finding class to an annotation level.
func ghLevel(c finding.Class) string {
	if c == finding.ClassWarning {
		return "warning"
	}
	return "error"
}

// WriteGitHubAnnotations writes the annotations in order, at most GitHubMaxPerLevel errors and
// GitHubMaxPerLevel warnings; when some are omitted, a ::notice line says how many. Messages and
// properties are textsafe-escaped first, then escaped per the workflow-command rules.
func WriteGitHubAnnotations(w io.Writer, anns []Annotation) error {
	shown := map[string]int{}
	omitted := map[string]int{}
	var b strings.Builder
	for _, a := range anns {
		c := ghCommand{Level: ghLevel(a.Class), File: a.File, Line: a.Line, Col: a.Column, Title: a.TitleOrRule(), Message: a.Text()}
		if shown[c.Level] >= GitHubMaxPerLevel {
			omitted[c.Level]++
			continue
		}
		shown[c.Level]++
		c.File, c.Title, c.Message = textsafe.Escape(c.File), textsafe.Escape(c.Title), textsafe.Escape(c.Message)
		b.WriteString(c.String())
		b.WriteByte('\n')
	}
	if omitted["error"]+omitted["warning"] > 0 {
		n := ghCommand{Level: "notice", Title: "mastermind",
			Message: fmt.Sprintf("%d error and %d warning annotations omitted (GitHub shows at most %d of each per step); see the full log",
				omitted["error"], omitted["warning"], GitHubMaxPerLevel)}
		b.WriteString(n.String())
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}
