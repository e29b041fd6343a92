package forge

import (
	"bytes"
	"strings"
	"testing"
)

// Extraction runs goldmark over the container limits of internal/markdown: unguarded, 1 MiB of
// blank lines under 100 nested list items took 42 s and 14 GB, one line of 200,000 block quotes
// 21 s. The block after the bomb is still found, as CommonMark finds it (the column-0 fence
// closes the list).
func TestExtractAfterMarkdownBombs(t *testing.T) {
	block := "```forge-report\n{\"status\": \"completed\"}\n```\n"
	for name, bomb := range map[string]string{
		"blank lines under nested items": strings.Repeat("- ", 100) + "a\n" + strings.Repeat("\n", 1<<20),
		"block quotes on one line":       strings.Repeat("> ", 200000) + "x\n\n",
	} {
		b, ok := Extract([]byte(bomb + block))
		if !ok || !bytes.Equal(b.Content, []byte("{\"status\": \"completed\"}\n")) {
			t.Errorf("%s: block %q found %v", name, b.Content, ok)
		}
	}
}
