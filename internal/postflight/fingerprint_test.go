package postflight

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"testing"

	"github.com/mastermind-controller/mastermind/internal/gitscope"
)

// TestInputsFingerprintFormat: the fingerprint is the SHA-256 of the documented lines
// (lifecycle-v2.md §5), paths and commands Go-quoted.
func TestInputsFingerprintFormat(t *testing.T) {
	in := FingerprintInput{Baseline: "b", SpecHash: "s", Report: "-missing", Verify: []string{`go test "./..."`},
		Changed: []gitscope.Entry{
			{Path: []byte("a b.go"), Status: gitscope.StatusModified},
			{Path: []byte("x\n\"y\"\xff"), Status: gitscope.StatusUntracked},
		},
		ContentIDs: []string{"abc", "-"}}
	text := "mastermind-inputs v1\nbaseline b\nspec s\nreport -missing\n" + "verify " + strconv.Quote(in.Verify[0]) + "\n"
	for i, e := range in.Changed {
		text += fmt.Sprintf("file %s %s %s\n", e.Status, in.ContentIDs[i], strconv.Quote(string(e.Path)))
	}
	sum := sha256.Sum256([]byte(text))
	if got, want := InputsFingerprint(in), hex.EncodeToString(sum[:]); got != want {
		t.Errorf("fingerprint %s, want %s of\n%s", got, want, text)
	}
}
