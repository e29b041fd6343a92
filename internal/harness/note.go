package harness

// WithNote adds note (already escaped, "" for none) to a decision: to a block's reason, or to an
// allow's systemMessage, so the hook's output says what it left out (a transcript inside the work
// tree, docs/design/transcripts.md §1).
func WithNote(d Decision, note string) Decision {
	switch {
	case note == "":
	case d.Block:
		d.Reason += "\n" + note
	case d.SystemMessage != "":
		d.SystemMessage += " " + note
	default:
		d.SystemMessage = note
	}
	return d
}
