package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDifferencesDocumented: every deliberate difference that --help lists is a line of
// docs/agent-contracts.md (quotes and code spans aside), and the doc lists no other.
func TestDifferencesDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "agent-contracts.md"))
	if err != nil {
		t.Fatal(err)
	}
	norm := func(s string) string { return strings.NewReplacer("`", "", `"`, "").Replace(strings.TrimSpace(s)) }
	inDoc := map[string]bool{}
	for _, l := range strings.Split(string(doc), "\n") {
		if strings.HasPrefix(l, "- ") {
			inDoc[norm(l)] = true
		}
	}
	n := 0
	for _, help := range []string{forgeDifferencesHelp, outputFormatDifferencesHelp} {
		for _, l := range strings.Split(help, "\n")[1:] {
			n++
			if !inDoc[norm(l)] {
				t.Errorf("--help lists a difference docs/agent-contracts.md lacks:\n%s", l)
			}
		}
	}
	if n != len(inDoc) {
		t.Errorf("--help lists %d differences, docs/agent-contracts.md %d", n, len(inDoc))
	}
}
