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
		// Inline floods: extraction parses blocks only (41 s and 196 s with goldmark's inline
		// parsers).
		"unclosed link destinations": strings.Repeat("[a](", 100000) + "\n\n",
		"mixed emphasis":             strings.Repeat("_a*", 130000) + "\n\n",
	} {
		b, ok := Extract([]byte(bomb + block))
		if !ok || !bytes.Equal(b.Content, []byte("{\"status\": \"completed\"}\n")) {
			t.Errorf("%s: block %q found %v", name, b.Content, ok)
		}
	}
}

// Many blocks: each block's line is counted on from the previous one (a count from the start of
// the file per block made 200,000 blocks take 10.8 s).
func TestBlocksLineNumbersMany(t *testing.T) {
	const n = 200000
	src := strings.Repeat("```forge-report\n{}\n```\n", n)
	bs := Blocks([]byte(src))
	if len(bs) != n {
		t.Fatalf("%d blocks, want %d", len(bs), n)
	}
	for _, i := range []int{0, 1, n / 2, n - 1} {
		if bs[i].Line != 3*i+1 {
			t.Errorf("block %d at line %d, want %d", i, bs[i].Line, 3*i+1)
		}
	}
}
