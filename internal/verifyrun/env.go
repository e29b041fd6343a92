package verifyrun

import "strings"

// removedPrefixes are the environment variable prefixes a run never sees
// (verification-receipts.md §2): GIT_* would point the command's git at another repository,
// index or object store (GIT_DIR, GIT_INDEX_FILE, GIT_OBJECT_DIRECTORY); MASTERMIND_* would
// reach mastermind's own configuration and store.
var removedPrefixes = []string{"GIT_", "MASTERMIND_"}

// Environ returns base without any GIT_* or MASTERMIND_* variable, with PWD set to dir. Names are
// compared without case, since Windows environment names are case-insensitive; entries without
// "=" are dropped.
func Environ(base []string, dir string) []string {
	out := make([]string, 0, len(base)+1)
	for _, kv := range base {
		name, _, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		up := strings.ToUpper(name)
		if up == "PWD" || hasRemovedPrefix(up) {
			continue
		}
		out = append(out, kv)
	}
	return append(out, "PWD="+dir)
}

func hasRemovedPrefix(upperName string) bool {
	for _, p := range removedPrefixes {
		if strings.HasPrefix(upperName, p) {
			return true
		}
	}
	return false
}
