package postflight

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/verifyrun"
)

// MaxAuditBytes bounds the audit.md a repeated post-flight reads back (lifecycle-v2.md §5).
const MaxAuditBytes = 1 << 30

// repeated rebuilds the recorded outcome of state st from the state and its audit.md, for a
// post-flight whose inputs fingerprint equals st.InputsFingerprint (lifecycle-v2.md §5): the same
// outcome, verdict, findings, next step and exit code, with Outcome.Repeated set and nothing
// written. ok is false when the record cannot be rebuilt — audit.md missing, unreadable or not
// the audit the state records (its verdict or counts differ), or a state no post-flight leaves —
// and the caller then audits as usual.
func (c *controller) repeated(st *State) (out *Outcome, ok bool) {
	if st.Verdict == "" || st.Findings == nil || st.InputsFingerprint == "" {
		return nil, false
	}
	if c.files == nil || c.files.rec == nil {
		return nil, false
	}
	// Through the task folder's handle: load has already restored a forged audit.md from the
	// store's copy. It is read by streaming and hashed as it is read, and must still be the
	// audit.md the record names.
	ev, err := c.files.readAudit()
	if err != nil || ev.Verdict != st.Verdict || ev.Counts != *st.Findings {
		return nil, false
	}
	if m, ok := c.files.rec.Mirrors[mirrorAudit]; ok && m.SHA256 != ev.sha256 {
		return nil, false
	}
	// controller_record_tampered is reported once (trust-model.md): an audit that reported it is
	// not repeated, the next post-flight audits again.
	for _, f := range ev.findings {
		if f.Rule == finding.KindControllerRecordTampered {
			return nil, false
		}
	}
	// Built on a copy: c.res is replaced only when the record is rebuilt.
	r := *c.res
	res := &r
	res.Phase, res.Repeated, res.Verdict = PhasePostflight, true, st.Verdict
	res.Findings, res.PathRuns, res.ReportViolations = ev.findings, ev.runs.runs, ev.violations
	if ev.Verification != nil && len(ev.Verification.Receipts) > 0 {
		// The receipts of the recorded audit, as it recorded them (reused or run then). An
		// audit that planned no command recorded [] and returned none (null in --json).
		res.Receipts = ev.Verification.Receipts
	}
	res.AuditSummary = ev.summary
	res.Artifacts.Audit = c.task.AuditRel()
	res.Message = st.BlockingReason
	res.Next = Next{Step: st.NextStep}
	switch {
	case st.Status == StatusDrift && st.Verdict == VerdictDrift:
		res.Outcome, res.VerdictLine = OutcomePostDrift, true
	case (st.Status == StatusBroken || st.Status == StatusBlocked) && st.Verdict == VerdictBroken:
		// A blocked broken task is a rejected report: its message is the rejection's.
		res.Outcome, res.VerdictLine = OutcomePostBroken, st.Status == StatusBroken
	case st.Status == StatusHistoryReviewRequired && (st.Verdict == VerdictHeld || st.Accepted()):
		res.Outcome, res.VerdictLine = OutcomePostHeld, true
		res.Message = verdictSentence(VerdictHeld, Counts{}, "")
		if st.Accepted() {
			res.Outcome, res.Accepted = OutcomePostDrift, true
			res.Message = verdictSentence(VerdictDrift, *st.Findings, st.AcceptedReason)
		}
		res.Artifacts.ReleaseNotes = c.task.ReleaseNotesRel()
		res.Artifacts.HistoryReview = c.task.HistoryReviewRel()
		res.Next = Next{Step: NextReviewHistory, Edit: c.task.HistoryReviewRel(), Run: "mastermind run-task " + c.task.Spec}
	case st.Status == StatusLearned:
		res.Outcome = OutcomeCompleted
		res.Message = fmt.Sprintf("task %s is learned; its inputs are unchanged since the audit that closed it", c.task.Name)
		res.Artifacts.ReleaseNotes = c.task.ReleaseNotesRel()
		res.Artifacts.HistoryReview = c.task.HistoryReviewRel()
		res.Next = Next{Step: NextClose}
	default:
		return nil, false
	}
	*c.res = r
	c.recordedAudit = ev.sha256
	return c.res, true
}

// auditRecord is the part of audit.md a repeated post-flight needs: from the evidence JSON the
// verdict, counts, findings, report violations and receipts; the capped summary of the human
// part; the file's SHA-256.
type auditRecord struct {
	Verdict        Verdict `json:"verdict"`
	Counts         Counts  `json:"counts"`
	ExecutorReport *struct {
		Violations []json.RawMessage `json:"violations"`
	} `json:"executor_report"`
	Verification *struct {
		Receipts []verifyrun.ReceiptEvidence `json:"receipts"`
	} `json:"verification"`

	findings, violations []finding.Finding
	runs                 runBuilder
	summary, sha256      string
	dec                  findingDecoder
}

// readAudit reads the task folder's audit.md by streaming (at most MaxAuditBytes, with the checks
// of fsx.Dir.ReadFile) and hashes it as it reads.
func (tf *taskFiles) readAudit() (*auditRecord, error) {
	f, err := tf.dir.OpenStable(mirrorAudit, MaxAuditBytes)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := sha256.New()
	r, err := parseAudit(io.TeeReader(f, h))
	if err != nil {
		return nil, err
	}
	r.sha256 = hex.EncodeToString(h.Sum(nil))
	return r, nil
}

// evidenceHeader starts the line of audit.md after which the evidence JSON follows.
const evidenceHeader = "Structured audit evidence"

// parseAudit reads an audit.md written by writeAudit from r to its end: the human part up to the
// line starting with "Structured audit evidence" (kept as its capped summary), then the evidence
// JSON, every line indented by four spaces, decoded element by element so that only the
// findings (made compact again, finding.Compact) and the few fields a repeated post-flight needs
// are kept (gitscope.md §8.1 scenario B). Anything after the JSON but whitespace is an error.
func parseAudit(r io.Reader) (*auditRecord, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	sum := newSummaryCap(MaxSummaryFindings)
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// A line longer than the buffer is never the header line: feed it in pieces.
			sum.Write(line)
			for err == bufio.ErrBufferFull {
				line, err = br.ReadSlice('\n')
				sum.Write(line)
			}
			if err != nil {
				return nil, errors.New("no evidence block")
			}
			continue
		}
		if err != nil {
			return nil, errors.New("no evidence block")
		}
		if bytes.HasPrefix(line, []byte(evidenceHeader)) {
			break
		}
		sum.Write(line)
	}
	rec := &auditRecord{summary: sum.String()}
	if err := rec.decodeEvidence(newEvScanner(&indentedReader{r: br})); err != nil {
		return nil, err
	}
	return rec, nil
}

// decodeEvidence decodes the evidence object from sc, then requires the end of the input.
func (r *auditRecord) decodeEvidence(sc *evScanner) error {
	if err := sc.expect('{'); err != nil {
		return err
	}
	for first := true; ; first = false {
		more, err := sc.more('}', first)
		if err != nil {
			return err
		}
		if !more {
			break
		}
		k, err := sc.key()
		if err != nil {
			return err
		}
		var target any
		switch k {
		case "verdict":
			target = &r.Verdict
		case "counts":
			target = &r.Counts
		case "executor_report":
			target = &r.ExecutorReport
		case "verification":
			target = &r.Verification
		case "findings":
			if err := r.decodeFindings(sc); err != nil {
				return err
			}
			continue
		default:
			if _, err := sc.value(false); err != nil {
				return err
			}
			continue
		}
		v, err := sc.value(true)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(v, target); err != nil {
			return fmt.Errorf("evidence %s: %w", k, err)
		}
	}
	if err := sc.finish(); err != nil {
		return err
	}
	if r.ExecutorReport != nil {
		for _, raw := range r.ExecutorReport.Violations {
			f, err := r.dec.decode(raw, true)
			if err != nil {
				return err
			}
			r.violations = append(r.violations, f)
		}
	}
	return nil
}

// decodeFindings decodes the findings array (or null) one finding at a time: the per-path
// findings (finding.Compact) into runs of one kind (finding.PathRun), as the audit held them, the
// others into findings; audit.All yields them again in the file's order.
func (r *auditRecord) decodeFindings(sc *evScanner) error {
	r.findings, r.runs = nil, runBuilder{}
	if c, ok := sc.next(); ok && c != '[' {
		v, err := sc.value(true)
		if err != nil {
			return err
		}
		if !isNull(v) {
			return errors.New("findings is not an array")
		}
		return nil
	}
	if err := sc.expect('['); err != nil {
		return err
	}
	for first := true; ; first = false {
		more, err := sc.more(']', first)
		if err != nil {
			return err
		}
		if !more {
			return nil
		}
		raw, err := sc.value(true)
		if err != nil {
			return err
		}
		f, err := r.dec.decode(raw, false)
		if err != nil {
			return err
		}
		f = finding.Compact(f)
		if p, ok := pathOf(&f); ok {
			r.runs.add(f.Rule, p, f.Fields[0])
			continue
		}
		r.findings = append(r.findings, f)
	}
}

// runBuilder collects per-path findings, in the audit's order, into runs. The findings are
// sorted by kind, then by path within a kind (§9.3), so a run ends where the kind changes (or,
// in an audit.md not written so, where the paths stop ascending). Each run's paths are matched
// against the previous run's by one forward walk, so that the two findings of a path share one
// field (one path string) as the audit built them: 200,000 changed paths then cost one field per
// finding, not one finding (gitscope.md §8.1 scenario B).
type runBuilder struct {
	runs []finding.PathRun
	ref  []finding.Field // the previous run's fields
	j    int             // the walk's position in ref
	last string          // the current run's last path
}

// add appends the finding of kind for path, whose field is fl.
func (b *runBuilder) add(kind, path string, fl finding.Field) {
	n := len(b.runs)
	if n == 0 || b.runs[n-1].Kind != kind || path <= b.last {
		if n > 0 {
			b.ref, b.j = b.runs[n-1].Files, 0
		}
		b.runs = append(b.runs, finding.PathRun{Kind: kind})
		n++
	}
	b.last = path
	for ; b.j < len(b.ref); b.j++ {
		q, _ := b.ref[b.j].Value.(string)
		if q < path {
			continue
		}
		if q == path {
			fl = b.ref[b.j]
		}
		break
	}
	b.runs[n-1].Files = append(b.runs[n-1].Files, fl)
}

// pathOf is the path of a compact per-path finding (finding.Compact).
func pathOf(f *finding.Finding) (string, bool) {
	if f.Message != "" || len(f.Fields) != 1 || f.Fields[0].Key != "file" {
		return "", false
	}
	p, ok := f.Fields[0].Value.(string)
	return p, ok
}

// indentedReader passes the evidence JSON through, failing at the first line that does not start
// with the four-space indentation writeAudit gives every line (an empty input, or a final line
// after the last newline, is checked like any other line).
type indentedReader struct {
	r *bufio.Reader
	// col is the offset in the current line, counted up to len(evPrefix).
	col  int
	seen bool
}

func (ir *indentedReader) Read(p []byte) (int, error) {
	n, err := ir.r.Read(p)
	if n > 0 {
		ir.seen = true
	}
	for i := 0; i < n; {
		if ir.col < len(evPrefix) {
			if p[i] != ' ' {
				return 0, errors.New("evidence line not indented")
			}
			ir.col++
			i++
			continue
		}
		j := bytes.IndexByte(p[i:n], '\n')
		if j < 0 {
			break
		}
		i += j + 1
		ir.col = 0
	}
	if err == io.EOF && (!ir.seen || ir.col > 0 && ir.col < len(evPrefix)) {
		return n, errors.New("evidence line not indented")
	}
	return n, err
}

// findingDecoder decodes finding objects (decode), keeping scratch space and one copy of each
// kind, class and key name across the findings of one audit.md.
type findingDecoder struct {
	pairs [][2][]byte
	names map[string]string
}

// name returns b as a string, one copy per distinct value.
func (d *findingDecoder) name(b []byte) string {
	if s, ok := d.names[string(b)]; ok {
		return s
	}
	if d.names == nil {
		d.names = map[string]string{}
	}
	s := string(b)
	d.names[s] = s
	return s
}

// decode decodes one finding object, keeping its key order: the audit shape
// {kind, class, message, …fields}, or with positional the report shape {rule, class, file, line,
// column, pointer, message, …fields}. String values stay strings, numbers become json.Number and
// anything else stays raw JSON, so the finding marshals back to the same bytes. An object of
// plain strings only (every per-path finding) is parsed directly, anything else by encoding/json.
func (d *findingDecoder) decode(raw json.RawMessage, positional bool) (finding.Finding, error) {
	var f finding.Finding
	pairs, ok := plainPairs(raw, d.pairs[:0])
	if !ok {
		return decodeFinding(raw, positional)
	}
	d.pairs = pairs
	for _, p := range pairs {
		key, v := p[0], p[1]
		switch k := string(key); {
		case k == "kind" && !positional, k == "rule" && positional:
			f.Rule = d.name(v)
		case k == "class":
			f.Class = finding.Class(d.name(v))
		case k == "message":
			f.Message = string(v)
		case positional && k == "file":
			f.File = string(v)
		case positional && k == "pointer":
			f.Pointer = string(v)
		case positional && k == "line":
			f.Line = 0
		case positional && k == "column":
			f.Column = 0
		default:
			f.Fields = append(f.Fields, finding.Field{Key: d.name(key), Value: string(v)})
		}
	}
	if f.Rule == "" || strings.TrimSpace(string(f.Class)) == "" {
		return f, errors.New("finding without kind or class")
	}
	return f, nil
}

// plainPairs parses raw as a JSON object whose keys and values are all plain strings (printable
// ASCII without '"' or '\\', so that the bytes are the string), appending its pairs to pairs; ok
// is false for anything else (which encoding/json then decodes).
func plainPairs(raw []byte, pairs [][2][]byte) (_ [][2][]byte, ok bool) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return nil, false
	}
	for i++; ; {
		k, j, ok := plainString(raw, skipSpace(raw, i))
		if !ok {
			return nil, false
		}
		i = skipSpace(raw, j)
		if i >= len(raw) || raw[i] != ':' {
			return nil, false
		}
		v, j, ok := plainString(raw, skipSpace(raw, i+1))
		if !ok {
			return nil, false
		}
		pairs = append(pairs, [2][]byte{k, v})
		i = skipSpace(raw, j)
		if i < len(raw) && raw[i] == ',' {
			i++
			continue
		}
		if i < len(raw) && raw[i] == '}' {
			return pairs, skipSpace(raw, i+1) == len(raw)
		}
		return nil, false
	}
}

// plainString reads a plain JSON string at raw[i:], returning its content and the offset after
// its closing quote.
func plainString(raw []byte, i int) ([]byte, int, bool) {
	if i >= len(raw) || raw[i] != '"' {
		return nil, 0, false
	}
	for j := i + 1; j < len(raw); j++ {
		switch c := raw[j]; {
		case c == '"':
			return raw[i+1 : j], j + 1, true
		case c < 0x20 || c > 0x7e || c == '\\':
			return nil, 0, false
		}
	}
	return nil, 0, false
}

// skipSpace skips JSON whitespace from raw[i:].
func skipSpace(raw []byte, i int) int {
	for i < len(raw) && (raw[i] == ' ' || raw[i] == '\n' || raw[i] == '\t' || raw[i] == '\r') {
		i++
	}
	return i
}

// decodeFinding decodes one finding object with encoding/json, keeping its key order: the audit shape
// {kind, class, message, …fields}, or with positional the report shape {rule, class, file, line,
// column, pointer, message, …fields}. String values stay strings, numbers become json.Number and
// anything else stays raw JSON, so the finding marshals back to the same bytes.
func decodeFinding(raw json.RawMessage, positional bool) (finding.Finding, error) {
	var f finding.Finding
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return f, errors.New("finding is not an object")
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return f, err
		}
		key, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return f, err
		}
		var val any = v
		var s string
		var n json.Number
		if json.Unmarshal(v, &s) == nil {
			val = s
		} else if isNumber(v) {
			n = json.Number(bytes.TrimSpace(v))
			val = n
		}
		switch {
		case key == "kind" && !positional, key == "rule" && positional:
			f.Rule = s
		case key == "class":
			f.Class = finding.Class(s)
		case key == "message":
			f.Message = s
		case positional && key == "file":
			f.File = s
		case positional && key == "pointer":
			f.Pointer = s
		case positional && (key == "line" || key == "column"):
			x, _ := n.Int64()
			if key == "line" {
				f.Line = int(x)
			} else {
				f.Column = int(x)
			}
		default:
			f.Fields = append(f.Fields, finding.Field{Key: key, Value: val})
		}
	}
	if f.Rule == "" || strings.TrimSpace(string(f.Class)) == "" {
		return f, errors.New("finding without kind or class")
	}
	return f, nil
}

// isNumber reports whether v is a JSON number.
func isNumber(v json.RawMessage) bool {
	v = bytes.TrimSpace(v)
	return len(v) > 0 && (v[0] == '-' || v[0] >= '0' && v[0] <= '9')
}
