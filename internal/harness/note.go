package harness

// WithNote adds the escaped note to a block's reason or an allow's systemMessage, so the hook's
// output says what it left out (transcripts.md §1). "" adds nothing.
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
