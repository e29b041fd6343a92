package postflight

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/jsonstrict"
	"github.com/mastermind-controller/mastermind/internal/verifyrun"
)

// MaxAuditBytes bounds the audit.md a post-flight hashes or reads (lifecycle-v2.md §5).
const MaxAuditBytes = 1 << 30

// resultVersion is the result_version of the stored audit result.
const resultVersion = 1

// resultHeader is the first value of a stored audit result (lifecycle-v2.md §5): what a repeated
// post-flight returns besides the findings, and how many findings and run paths follow it.
type resultHeader struct {
	Version    int                         `json:"result_version"`
	Verdict    Verdict                     `json:"verdict"`
	Counts     Counts                      `json:"counts"`
	Summary    string                      `json:"summary"`
	Receipts   []verifyrun.ReceiptEvidence `json:"receipts"`
	Violations []finding.Finding           `json:"violations"`
	Findings   int                         `json:"findings"`
	Runs       []resultRun                 `json:"runs"`
}

// resultHeaderKeys are the JSON names of resultHeader's fields, each required in a stored result.
var resultHeaderKeys = []string{"result_version", "verdict", "counts", "summary", "receipts", "violations", "findings", "runs"}

// resultRun is one per-path run of a stored result: its kind and how many paths follow.
type resultRun struct {
	Kind  string `json:"kind"`
	Files int    `json:"files"`
}

// auditResult is a stored audit result read back (readResult).
type auditResult struct {
	Verdict    Verdict
	Counts     Counts
	Summary    string
	Receipts   []verifyrun.ReceiptEvidence
	Violations []finding.Finding
	Findings   []finding.Finding
	Runs       []finding.PathRun
}

// writeResult writes the stored result of audit a, whose audit.md's capped human part is summary,
// as JSON Lines: the header, each finding in its audit shape, then each run's paths as strings.
// Nothing that grows with the changed set is built whole.
func writeResult(w io.Writer, a *Audit, summary string) error {
	h := resultHeader{Version: resultVersion, Verdict: a.Verdict, Counts: a.Counts, Summary: summary,
		Violations: []finding.Finding{}, Findings: len(a.Findings), Runs: []resultRun{}}
	if a.Verification != nil && len(a.Verification.Receipts) > 0 {
		h.Receipts = a.Verification.Receipts
	}
	if a.Report != nil && len(a.Report.Violations) > 0 {
		h.Violations = a.Report.Violations
	}
	for _, r := range a.PathRuns {
		h.Runs = append(h.Runs, resultRun{Kind: r.Kind, Files: r.Len()})
	}
	ew := &errWriter{w: w}
	enc := json.NewEncoder(ew)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(h); err != nil {
		return err
	}
	for _, f := range a.Findings {
		line, err := finding.Audit(f).MarshalJSON()
		if err != nil {
			return err
		}
		ew.Write(append(line, '\n'))
	}
	var line []byte
	for _, r := range a.PathRuns {
		for i := range r.Len() {
			p := r.At(i).FieldString("file")
			if finding.PlainJSONString(p) {
				line = append(append(append(line[:0], '"'), p...), "\"\n"...)
			} else {
				js, err := finding.MarshalValue(p)
				if err != nil {
					return err
				}
				line = append(append(line[:0], js...), '\n')
			}
			ew.Write(line)
		}
		if ew.err != nil {
			return ew.err
		}
	}
	return ew.err
}

// readResult decodes a stored result from r (writeResult), strictly: every header key once and no
// other, the announced number of findings and paths, nothing after them. Per-path findings are
// made compact again (finding.Compact), and a run's path shares the previous run's field when
// both name the same path, as the audit built them (gitscope.md §8.1 scenario B).
func readResult(r io.Reader) (*auditResult, error) {
	s := jsonstrict.NewStream(r, jsonstrict.Options{MaxDepth: 64})
	hv, err := s.Next()
	if err != nil {
		return nil, fmt.Errorf("result header: %w", err)
	}
	var d resultDecoder
	res, runs, n, err := d.header(hv)
	if err != nil {
		return nil, err
	}
	for i := range n {
		v, err := s.Next()
		if err != nil {
			return nil, fmt.Errorf("result finding %d: %w", i, err)
		}
		f, err := d.finding(v, false)
		if err != nil {
			return nil, fmt.Errorf("result finding %d: %w", i, err)
		}
		res.Findings = append(res.Findings, finding.Compact(f))
	}
	var prev []finding.Field
	for _, rr := range runs {
		files := make([]finding.Field, 0, rr.Files)
		j := 0
		for range rr.Files {
			v, err := s.Next()
			if err != nil {
				return nil, fmt.Errorf("result run %s: %w", rr.Kind, err)
			}
			if v.Kind != jsonstrict.KindString {
				return nil, fmt.Errorf("result run %s: a path is not a string", rr.Kind)
			}
			fl := finding.Field{Key: "file", Value: v.String}
			for ; j < len(prev); j++ {
				if q := prev[j].Value.(string); q >= v.String {
					if q == v.String {
						fl = prev[j]
					}
					break
				}
			}
			files = append(files, fl)
		}
		res.Runs = append(res.Runs, finding.PathRun{Kind: d.name(rr.Kind), Files: files})
		prev = files
	}
	if _, err := s.Next(); err != io.EOF {
		if err == nil {
			err = errors.New("data after the last path")
		}
		return nil, fmt.Errorf("result end: %w", err)
	}
	return res, nil
}

// resultDecoder turns decoded values into findings, keeping one copy of each kind, class and key
// name across the findings of one result.
type resultDecoder struct {
	names map[string]string
}

// name returns s, one copy per distinct value.
func (d *resultDecoder) name(s string) string {
	if n, ok := d.names[s]; ok {
		return n
	}
	if d.names == nil {
		d.names = map[string]string{}
	}
	d.names[s] = s
	return s
}

// header decodes the header value hv: the result without its findings, the runs that follow
// and the number of findings before them.
func (d *resultDecoder) header(hv *jsonstrict.Value) (*auditResult, []resultRun, int, error) {
	if hv.Kind != jsonstrict.KindObject {
		return nil, nil, 0, errors.New("result header is not an object")
	}
	res := &auditResult{}
	var runs []resultRun
	var n int
	seen := map[string]bool{}
	for _, m := range hv.Members {
		v := m.Value
		var err error
		switch m.Name {
		case "result_version":
			var ver int
			if err = strictInto(v, &ver); err == nil && ver != resultVersion {
				err = fmt.Errorf("version %d; this mastermind reads %d", ver, resultVersion)
			}
		case "verdict":
			err = strictInto(v, &res.Verdict)
		case "counts":
			err = strictInto(v, &res.Counts)
		case "summary":
			err = strictInto(v, &res.Summary)
		case "receipts":
			err = strictInto(v, &res.Receipts)
		case "findings":
			if err = strictInto(v, &n); err == nil && n < 0 {
				err = errors.New("negative")
			}
		case "runs":
			err = strictInto(v, &runs)
			for _, r := range runs {
				if r.Kind == "" || r.Files < 0 {
					err = errors.New("a run without a kind or with a negative count")
				}
			}
		case "violations":
			if v.Kind != jsonstrict.KindArray {
				err = errors.New("not an array")
			}
			for _, it := range v.Items {
				var f finding.Finding
				if f, err = d.finding(it, true); err != nil {
					break
				}
				res.Violations = append(res.Violations, f)
			}
		default:
			err = errors.New("unknown key")
		}
		if err != nil {
			return nil, nil, 0, fmt.Errorf("result header %s: %w", m.Name, err)
		}
		seen[m.Name] = true
	}
	for _, k := range resultHeaderKeys {
		if !seen[k] {
			return nil, nil, 0, fmt.Errorf("result header: key %s is missing", k)
		}
	}
	return res, runs, n, nil
}

// strictInto decodes v into target with encoding/json, refusing unknown fields.
func strictInto(v *jsonstrict.Value, target any) error {
	raw, _ := v.MarshalJSON()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(target)
}

// finding decodes one finding object, keeping its key order: the audit shape {kind, class,
// message, …fields}, or with positional the report shape {rule, class, file, line, column,
// pointer, message, …fields}. Kind fields become strings, json.Number, bools, nil or raw JSON,
// so that the finding marshals back to the same bytes.
func (d *resultDecoder) finding(v *jsonstrict.Value, positional bool) (finding.Finding, error) {
	var f finding.Finding
	if v.Kind != jsonstrict.KindObject {
		return f, errors.New("a finding is not an object")
	}
	for _, m := range v.Members {
		mv := m.Value
		k := m.Name
		if stringMember(k, positional) && mv.Kind != jsonstrict.KindString {
			return f, fmt.Errorf("finding %s: not a string", k)
		}
		switch {
		case k == "kind" && !positional, k == "rule" && positional:
			f.Rule = d.name(mv.String)
		case k == "class":
			f.Class = finding.Class(d.name(mv.String))
		case k == "message":
			f.Message = mv.String
		case positional && k == "file":
			f.File = mv.String
		case positional && k == "pointer":
			f.Pointer = mv.String
		case positional && (k == "line" || k == "column"):
			var x int
			if err := strictInto(mv, &x); err != nil {
				return f, fmt.Errorf("finding %s: %w", k, err)
			}
			if k == "line" {
				f.Line = x
			} else {
				f.Column = x
			}
		default:
			f.Fields = append(f.Fields, finding.Field{Key: d.name(k), Value: fieldValue(mv)})
		}
	}
	if f.Rule == "" || (f.Class != finding.ClassError && f.Class != finding.ClassWarning) {
		return f, errors.New("a finding without a kind or class")
	}
	return f, nil
}

// stringMember reports whether the finding member k is one of Finding's string fields in the
// audit shape or, with positional, the report shape.
func stringMember(k string, positional bool) bool {
	switch k {
	case "class", "message":
		return true
	case "kind":
		return !positional
	case "rule", "file", "pointer":
		return positional
	}
	return false
}

// fieldValue is the Go value of a finding's kind field.
func fieldValue(v *jsonstrict.Value) any {
	switch v.Kind {
	case jsonstrict.KindString:
		return v.String
	case jsonstrict.KindNumber:
		return json.Number(v.Number)
	case jsonstrict.KindBool:
		return v.Bool
	case jsonstrict.KindNull:
		return nil
	}
	raw, _ := v.MarshalJSON()
	return json.RawMessage(raw)
}
