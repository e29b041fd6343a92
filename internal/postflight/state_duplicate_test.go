package postflight

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestParseStateDuplicateOffsets: a repeated field is named with the byte offsets of both
// occurrences, top level or nested.
func TestParseStateDuplicateOffsets(t *testing.T) {
	valid, err := os.ReadFile(filepath.Join("testdata", "state", "valid-approved.json"))
	if err != nil {
		t.Fatal(err)
	}
	src := strings.Replace(string(valid), `"risk": "low",`, `"risk": "low", "risk": "high",`, 1)
	first := strings.Index(src, `"risk"`)
	second := first + strings.Index(src[first+1:], `"risk"`) + 1
	_, err = ParseState([]byte(src))
	want := "duplicate field risk (byte offset " + strconv.Itoa(second) + "; first at byte offset " + strconv.Itoa(first) + ")"
	if err == nil || err.Error() != want {
		t.Fatalf("ParseState = %v, want %q", err, want)
	}
}
