package postflight

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/audit"
	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/textsafe"
)

// AuditSchemaVersion is the schema_version of the audit evidence JSON (§7.2).
const AuditSchemaVersion = 1

// Audit is everything audit.md shows (spec-and-lifecycle.md §7): the evidence of an audit.Result
// with its verdict, counts and findings, and the lifecycle's return to design.
type Audit struct {
	audit.Evidence
	Verdict Verdict
	Counts  Counts
	// Findings are the audit findings, sorted by audit.Sort, and PathRuns the per-path ones
	// held out of them (audit.Inputs.PathRuns); All yields both in order.
	Findings []finding.Finding
	PathRuns []finding.PathRun
	// ReturnToDesign is true when this blocking post-flight is the third in a row with the same
	// fingerprint (§6): audit.md then says that the task returns to design.
	ReturnToDesign bool
}

// newAudit is the audit.md content of an audit result.
func newAudit(r *audit.Result) *Audit {
	e, w := r.Counts()
	return &Audit{Evidence: r.Evidence, Verdict: r.Verdict, Counts: Counts{e, w}, Findings: r.Findings, PathRuns: r.PathRuns}
}

// All yields every finding of the audit in order (audit.All).
func (a *Audit) All() iter.Seq[finding.Finding] { return audit.All(a.Findings, a.PathRuns) }

// AuditFinding is the JSON shape of an audit finding: {kind, class, message, …kind fields}
// (§7.2, §13.2).
type AuditFinding = finding.Audit

// AuditFindings converts findings to their JSON shape.
func AuditFindings(fs []finding.Finding) []AuditFinding {
	out := make([]AuditFinding, len(fs))
	for i, f := range fs {
		out[i] = AuditFinding(f)
	}
	return out
}

type evidenceJSON struct {
	SchemaVersion  int                         `json:"schema_version"`
	Spec           string                      `json:"spec"`
	GitRef         string                      `json:"git_ref"`
	Head           *string                     `json:"head"`
	Verdict        Verdict                     `json:"verdict"`
	Counts         Counts                      `json:"counts"`
	ChangedSet     *audit.ChangedSetEvidence   `json:"changed_set"`
	Scope          *audit.ScopeEvidence        `json:"scope"`
	ExecutorReport *audit.ReportEvidence       `json:"executor_report"`
	Verification   *audit.VerificationEvidence `json:"verification"`
	Witness        *audit.WitnessEvidence      `json:"witness,omitempty"`
	ClaimChecks    any                         `json:"claim_checks"`
	Findings       []AuditFinding              `json:"findings"`
}

// verdictTitle is "<icon> <Verdict>" (§7.1); anything but held or drift is broken (fail closed).
func verdictTitle(v Verdict) string {
	switch v {
	case VerdictHeld:
		return "✅ Held"
	case VerdictDrift:
		return "⚠️ Drift"
	case VerdictBroken:
		return "❌ Broken"
	}
	return "❌ Broken"
}

// RenderAudit renders audit.md (§7.1) into memory, as writeAudit streams it. The output is
// deterministic: no timestamps, keys in documented order, control and bidi characters escaped in
// text lines and JSON.
func RenderAudit(a *Audit) ([]byte, error) {
	var b bytes.Buffer
	if err := writeAudit(&b, a, nil); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// writeAudit writes audit.md (§7.1) to w, and its human part (everything before the evidence
// header) also to human when it is not nil. Nothing that grows with the changed set is built
// whole, so a large audit is streamed (gitscope.md §8.1 scenario B).
// w should be buffered.
func writeAudit(w io.Writer, a *Audit, human io.Writer) error {
	hw := w
	if human != nil {
		hw = io.MultiWriter(w, human)
	}
	if err := writeAuditText(hw, a); err != nil {
		return err
	}
	if _, err := io.WriteString(w, "Structured audit evidence (JSON; null means not evaluated):\n"); err != nil {
		return err
	}
	return writeEvidence(w, a)
}

// writeAuditText writes the human part of audit.md.
func writeAuditText(b io.Writer, a *Audit) error {
	ew := &errWriter{w: b}
	fmt.Fprintf(ew, "%s — %s (vs git ref `%s`)\n", verdictTitle(a.Verdict), textsafe.Escape(a.Spec), a.Baseline)
	fmt.Fprintf(ew, "  findings: %d (errors: %d, warnings: %d)\n", a.Counts.Errors+a.Counts.Warnings, a.Counts.Errors, a.Counts.Warnings)
	switch {
	case a.ChangedSet == nil:
		ew.str("  changed files: not computed (executor report rejected)\n")
	case a.ChangedSet.Degraded:
		fmt.Fprintf(ew, "  changed files: %d (source: %s, DEGRADED — computed without the git CLI)\n", len(a.ChangedSet.Files), a.ChangedSet.Source)
	default:
		fmt.Fprintf(ew, "  changed files: %d (source: %s)\n", len(a.ChangedSet.Files), a.ChangedSet.Source)
	}
	if a.ChangedSet != nil {
		for _, tc := range a.ChangedSet.ToolCaches {
			fmt.Fprintf(ew, "  ignored tool cache created since the baseline: %s, %d files (%s)\n", tc.Dir, tc.Files, textsafe.Escape(tc.Tool))
		}
		if cw := a.ChangedSet.ControllerWrites; len(cw) > 0 {
			shown := cw[:min(len(cw), 5)]
			more := ""
			if len(cw) > len(shown) {
				more = fmt.Sprintf(", and %d more", len(cw)-len(shown))
			}
			fmt.Fprintf(ew, "  written by mastermind's verification runs, left out while unchanged: %d files (%s%s)\n", len(cw), strings.Join(shown, ", "), more)
		}
	}
	for _, rn := range a.Renames {
		fmt.Fprintf(ew, "  renamed %s → %s (%d%% similar)\n", textsafe.Escape(rn.From), textsafe.Escape(rn.To), rn.Similarity)
	}
	if a.Verification != nil {
		// One line per declared command once mastermind ran any (verification-receipts.md §4),
		// already escaped.
		for _, l := range a.Verification.Lines {
			ew.str("  " + l + "\n")
		}
	}
	writeWitnessText(ew, a)
	ew.str("\n")
	if audit.Len(a.Findings, a.PathRuns) > 0 {
		for f := range a.All() {
			icon := "❌ "
			if f.Class == finding.ClassWarning {
				icon = "⚠️ "
			}
			ew.str("  ", icon, f.Rule, ": ", textsafe.Escape(f.Text()), "\n")
			if f.Rule == finding.KindExecutorReportRejected && f.FieldString("reason") == audit.ReasonReportInvalid {
				for _, v := range a.Violations {
					ew.str("      ", textsafe.Escape(v.String()), "\n")
				}
			}
			if ew.err != nil {
				return ew.err
			}
		}
		ew.str("\n")
	}
	if a.ReturnToDesign {
		ew.str(ReturnToDesignLine + "\n\n")
	}
	return ew.err
}

// errWriter keeps the first write error, so that a run of writes is checked once.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

// str writes the strings in order.
func (e *errWriter) str(ss ...string) {
	for _, s := range ss {
		if e.err == nil {
			_, e.err = io.WriteString(e.w, s)
		}
	}
}

// Indentation of the evidence JSON: every line has the four-space prefix, and each level adds
// four spaces (§7.1).
const (
	evPrefix = "    "
	evIndent = "    "
)

// writeEvidence writes the evidence JSON of a, each line indented by four spaces, exactly as
// one json.Encoder with SetIndent(evPrefix, evIndent) and HTML escaping off writes evidenceJSON,
// followed by textsafe.EscapeJSON. The two arrays that grow with the changed set,
// changed_set.files and findings, are encoded element by element: the rest is encoded with them
// left out (null), and each null is then replaced by its array. The nulls are found by their
// whole line, which only a key of that object at that depth can produce (a JSON string holds no
// raw newline).
func writeEvidence(w io.Writer, a *Audit) error {
	ev := evidenceJSON{
		SchemaVersion: AuditSchemaVersion, Spec: a.Spec, GitRef: a.Baseline, Head: a.Head,
		Verdict: a.Verdict, Counts: a.Counts, ChangedSet: a.ChangedSet, Scope: a.Scope,
		ExecutorReport: a.Report, Verification: a.Verification, Witness: a.Witness, ClaimChecks: a.ClaimChecks,
		Findings: []AuditFinding{},
	}
	var files []audit.ChangedFileJSON
	if a.ChangedSet != nil && len(a.ChangedSet.Files) > 0 {
		cs := *a.ChangedSet
		files, cs.Files = cs.Files, nil
		ev.ChangedSet = &cs
	}
	nFindings := audit.Len(a.Findings, a.PathRuns)
	if nFindings > 0 {
		ev.Findings = nil
	}
	var head bytes.Buffer
	head.WriteString(evPrefix)
	enc := json.NewEncoder(&head)
	enc.SetEscapeHTML(false)
	enc.SetIndent(evPrefix, evIndent)
	if err := enc.Encode(ev); err != nil {
		return err
	}
	js := head.Bytes()
	// The splices, in the order they occur: changed_set comes before findings.
	type splice struct {
		at    int // offset of the null
		write func() error
	}
	var splices []splice
	ind := func(depth int) string { return evPrefix + strings.Repeat(evIndent, depth) }
	if files != nil {
		open := []byte("\n" + ind(1) + `"changed_set": {`)
		key := []byte("\n" + ind(2) + `"files": null`)
		i := bytes.Index(js, open)
		j := -1
		if i >= 0 {
			j = bytes.Index(js[i:], key)
		}
		if j < 0 {
			return errors.New("internal error: evidence changed_set.files not found")
		}
		at := i + j + len(key) - len("null")
		splices = append(splices, splice{at, func() error {
			return writeArray(w, ind(3), func(yield func(func(*elemEncoder) error) bool) {
				for k := range files {
					f := &files[k]
					if !yield(func(el *elemEncoder) error {
						if el.object(finding.Field{Key: "path", Value: f.Path}, finding.Field{Key: "status", Value: f.Status}) {
							return nil
						}
						return el.encode(f)
					}) {
						return
					}
				}
			})
		}})
	}
	if nFindings > 0 {
		key := []byte("\n" + ind(1) + `"findings": null`)
		i := bytes.Index(js, key)
		if i < 0 {
			return errors.New("internal error: evidence findings not found")
		}
		splices = append(splices, splice{i + len(key) - len("null"), func() error {
			return writeArray(w, ind(2), func(yield func(func(*elemEncoder) error) bool) {
				for f := range a.All() {
					if !yield(func(el *elemEncoder) error {
						el.fields = append(append(el.fields[:0], finding.Field{Key: "kind", Value: f.Rule}, finding.Field{Key: "class", Value: f.Class},
							finding.Field{Key: "message", Value: f.Text()}), f.Fields...)
						if el.object(el.fields...) {
							return nil
						}
						return el.encode(AuditFinding(f))
					}) {
						return
					}
				}
			})
		}})
	}
	from := 0
	for _, sp := range splices {
		if _, err := w.Write(textsafe.EscapeJSON(js[from:sp.at])); err != nil {
			return err
		}
		if err := sp.write(); err != nil {
			return err
		}
		from = sp.at + len("null")
	}
	_, err := w.Write(textsafe.EscapeJSON(js[from:]))
	return err
}

// writeArray writes a JSON array of the elements of elems (at least one) whose lines are indented
// by ind (the closing bracket by ind less one level), as json.Encoder's indentation writes it;
// each element is a function that writes it with el.
func writeArray(w io.Writer, ind string, elems iter.Seq[func(el *elemEncoder) error]) error {
	el := &elemEncoder{ind: ind}
	el.enc = json.NewEncoder(&el.buf)
	el.enc.SetEscapeHTML(false)
	el.enc.SetIndent(ind, evIndent)
	sep := "[\n" + ind
	var err error
	for encode := range elems {
		el.buf.Reset()
		el.buf.WriteString(sep)
		if err = encode(el); err != nil {
			break
		}
		if _, err = w.Write(el.buf.Bytes()); err != nil {
			break
		}
		sep = ",\n" + ind
	}
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, "\n"+ind[:len(ind)-len(evIndent)]+"]")
	return err
}

// elemEncoder encodes one array element of the evidence into buf, indented for its depth.
type elemEncoder struct {
	ind string
	buf bytes.Buffer
	enc *json.Encoder
	// fields is scratch space for the caller's object.
	fields []finding.Field
}

// encode appends v as json.Encoder with the element's indentation writes it, escaped by
// textsafe.EscapeJSON.
func (el *elemEncoder) encode(v any) error {
	start := el.buf.Len()
	if err := el.enc.Encode(v); err != nil {
		return err
	}
	// The encoder ends each value with a newline, which the array's layout replaces.
	el.buf.Truncate(el.buf.Len() - 1)
	// Escaping only lengthens the text.
	js := el.buf.Bytes()[start:]
	if esc := textsafe.EscapeJSON(js); len(esc) != len(js) {
		el.buf.Truncate(start)
		el.buf.Write(esc)
	}
	return nil
}

// object appends the object of fields, in order, when every key and value is a plain string
// (finding.PlainJSONString), and reports whether it did; otherwise it appends nothing. Such an object's
// indented encoding is the same bytes whichever way it is written, and needs no EscapeJSON:
// this is the fast path for the changed files and findings of a large audit.
func (el *elemEncoder) object(fields ...finding.Field) bool {
	for _, f := range fields {
		if !finding.PlainJSONString(f.Key) {
			return false
		}
		switch v := f.Value.(type) {
		case string:
			if !finding.PlainJSONString(v) {
				return false
			}
		case finding.Class:
			if !finding.PlainJSONString(string(v)) {
				return false
			}
		default:
			return false
		}
	}
	b := &el.buf
	b.WriteByte('{')
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n" + el.ind + evIndent + `"`)
		b.WriteString(f.Key)
		b.WriteString(`": "`)
		switch v := f.Value.(type) {
		case string:
			b.WriteString(v)
		case finding.Class:
			b.WriteString(string(v))
		}
		b.WriteByte('"')
	}
	b.WriteString("\n" + el.ind + "}")
	return true
}
