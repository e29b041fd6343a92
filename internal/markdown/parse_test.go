package markdown

import "testing"

func TestPositions(t *testing.T) {
	d := Parse([]byte("ab\r\nçd\n\nlast"))
	if got := d.LineCount(); got != 4 {
		t.Fatalf("LineCount = %d", got)
	}
	if got := string(d.LineText(1)); got != "ab" {
		t.Fatalf("LineText(1) = %q", got)
	}
	if l, c := d.Position(6); l != 2 || c != 2 { // "ç" is 2 bytes: offset 6 is 'd'
		t.Fatalf("Position(6) = %d:%d", l, c)
	}
	if l, c := d.Position(9); l != 4 || c != 1 {
		t.Fatalf("Position(9) = %d:%d", l, c)
	}
	if got := Parse([]byte("x\n")).LineCount(); got != 1 {
		t.Fatalf("trailing newline LineCount = %d", got)
	}
}
