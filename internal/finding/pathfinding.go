package finding

// pathMessages are the §9.3 message templates of the kinds that a large changed set produces once
// per changed path: the message is the template followed by the path. A finding of such a kind
// built by PathFinding stores no message of its own (Text derives it), so that 200,000 changed
// paths do not hold 200,000 message strings per kind (gitscope.md §8.1 scenario B).
var pathMessages = map[string]string{
	KindUnexpectedFile:           "changed outside the declared scope: ",
	KindReportMissingChangedFile: "changed since the baseline but not listed in files_modified: ",
}

// PathFinding returns the finding of kind for one changed path, whose one {"file", path} field
// callers share across findings. Its Message is empty when Text can derive it from the kind's
// template, and built at once otherwise.
func PathFinding(kind string, file []Field) Finding {
	f := Finding{Rule: kind, Class: KindClass(kind), Fields: file}
	if _, ok := pathMessages[kind]; !ok {
		f.Message = f.Text()
	}
	return f
}

// Text returns the finding's message: Message, or for a finding built by PathFinding the kind's
// template followed by its "file" field. Everything that shows a finding's message reads Text,
// never Message directly.
func (f Finding) Text() string {
	if f.Message != "" {
		return f.Message
	}
	if t, ok := pathMessages[f.Rule]; ok {
		return t + f.FieldString("file")
	}
	return f.FieldString("file")
}

// Expand returns f with Message set to Text, for code that stores or compares the message text.
func (f Finding) Expand() Finding {
	f.Message = f.Text()
	return f
}

// PathRun is a sequence of per-path findings of one kind over Files, one per element or, with
// Index, one per Files[Index[i]]. It stores no finding, so 200,000 changed paths cost one shared
// slice of fields instead of a finding each.
type PathRun struct {
	Kind  string
	Files []Field
	Index []int32
}

// Len is the number of findings in the run.
func (r PathRun) Len() int {
	if r.Index != nil {
		return len(r.Index)
	}
	return len(r.Files)
}

// At returns the run's i-th finding, PathFinding(Kind, [its field]), for 0 <= i < Len.
func (r PathRun) At(i int) Finding {
	if r.Index != nil {
		i = int(r.Index[i])
	}
	return PathFinding(r.Kind, r.Files[i:i+1:i+1])
}

// Class is the class of every finding of the run.
func (r PathRun) Class() Class { return KindClass(r.Kind) }

// CountRuns returns the number of error-class and warning-class findings in runs (Count for runs).
func CountRuns(runs []PathRun) (errors, warnings int) {
	for _, r := range runs {
		switch r.Class() {
		case ClassError:
			errors += r.Len()
		case ClassWarning:
			warnings += r.Len()
		}
	}
	return errors, warnings
}

// Compact returns f in the form PathFinding builds when f is such a finding written out in full,
// so that 200,000 decoded findings do not keep 200,000 message strings. Any other finding is
// returned unchanged.
func Compact(f Finding) Finding {
	t, ok := pathMessages[f.Rule]
	if !ok || f.Message == "" || len(f.Fields) != 1 || f.Fields[0].Key != "file" ||
		f.File != "" || f.Line != 0 || f.Column != 0 || f.Pointer != "" {
		return f
	}
	file, ok := f.Fields[0].Value.(string)
	if !ok || len(f.Message) != len(t)+len(file) || f.Message[:len(t)] != t || f.Message[len(t):] != file {
		return f
	}
	f.Message = ""
	return f
}
