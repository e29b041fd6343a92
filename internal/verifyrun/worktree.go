package verifyrun

import "github.com/mastermind-controller/mastermind/internal/fsx"

// WorktreeContent is the content id of the slash path rel under root (fsx.ContentID), or
// "error:<text>" when it cannot be read. The receipts keep going past an unreadable path (an
// ignored file, a run's own output): its id is not fsx.ContentStable, so nothing is reused or
// recorded for it.
func WorktreeContent(root, rel string) string {
	id, err := fsx.ContentID(root, rel)
	if err != nil {
		return "error:" + err.Error()
	}
	return id
}

// StateMap turns path states into the map ModifiedPaths compares ("<status> <content>").
func StateMap(ps []PathState) map[string]string {
	m := make(map[string]string, len(ps))
	for _, p := range ps {
		m[p.Path] = p.Status + " " + p.Content
	}
	return m
}
