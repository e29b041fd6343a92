package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mastermind-controller/mastermind/internal/testenv"
)

// reviewdogVersion is the reviewdog release the rdjson goldens are checked with.
const reviewdogVersion = "v0.21.0"

// TestRDJSONGoldensReadByReviewdog feeds every rdjson golden to the real reviewdog
// (`reviewdog -f=rdjson -reporter=local -filter-mode=nofilter`, built from the Go module proxy)
// and asserts that it prints every diagnostic: its message, its code and its path, and on the
// non-ASCII lines of positions.rdjson the column reviewdog's Position defines (UTF-8 bytes: the
// byte offset of the value in the line, not its code-point column). It runs with
// MASTERMIND_TEST_FULL=1 and is skipped, with the reason, only when reviewdog cannot be built here
// (no go command or no module proxy), and fails then under MASTERMIND_TEST_REQUIRE_CLIENTS=1.
func TestRDJSONGoldensReadByReviewdog(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: not building reviewdog")
	}
	testenv.Full(t, "builds reviewdog")
	goBin, err := exec.LookPath("go")
	if err != nil {
		testenv.MissingClient(t, "no go command on PATH to build reviewdog: %v", err)
	}
	bin := t.TempDir()
	install := exec.Command(goBin, "install", "github.com/reviewdog/reviewdog/cmd/reviewdog@"+reviewdogVersion)
	install.Env = append(os.Environ(), "GOBIN="+bin, "GOFLAGS=-mod=mod")
	if out, err := install.CombinedOutput(); err != nil {
		testenv.MissingClient(t, "cannot build reviewdog %s (module proxy unreachable?): %v\n%s", reviewdogVersion, err, out)
	}
	goldens, err := filepath.Glob(filepath.Join("testdata", "rdjson", "*.rdjson"))
	if err != nil || len(goldens) != len(rdjsonGoldens) {
		t.Fatalf("rdjson goldens %v (%v), want the %d of rdjsonGoldens", goldens, err, len(rdjsonGoldens))
	}
	// The byte columns reviewdog must report on the non-ASCII lines of positions.rdjson: where
	// "bad" starts in each line, counted in UTF-8 bytes from 1.
	byteColumns := map[int]int{10: strings.Index(positionsLine10, "bad") + 1, 17: strings.Index(positionsLine17, "bad") + 1}
	if byteColumns[10] != 30 || byteColumns[17] != 26 {
		t.Fatalf("byte columns %v", byteColumns)
	}
	for _, g := range goldens {
		t.Run(filepath.Base(g), func(t *testing.T) {
			data, err := os.ReadFile(g)
			if err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Diagnostics []struct {
					Message  string
					Location struct {
						Path  string
						Range *struct{ Start struct{ Line, Column int } }
					}
					Code struct{ Value string }
				}
			}
			if err := json.Unmarshal(data, &doc); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(filepath.Join(bin, "reviewdog"), "-f=rdjson", "-reporter=local", "-filter-mode=nofilter")
			cmd.Dir = t.TempDir()
			cmd.Stdin = bytes.NewReader(data)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("reviewdog failed: %v\nstderr: %s", err, stderr.String())
			}
			out := stdout.String()
			t.Logf("reviewdog printed:\n%s", out)
			if got := strings.Count(out, "source:{name:\"mastermind\""); got != len(doc.Diagnostics) {
				t.Errorf("reviewdog printed %d diagnostics, the golden has %d", got, len(doc.Diagnostics))
			}
			for _, d := range doc.Diagnostics {
				// reviewdog prints the proto text form: strings are Go-quoted.
				msg, _ := json.Marshal(d.Message)
				for _, want := range []string{"code:{value:\"" + d.Code.Value + "\"}", "path:\"" + d.Location.Path + "\""} {
					if !strings.Contains(out, want) {
						t.Errorf("reviewdog output lacks %s", want)
					}
				}
				if !strings.Contains(out, strings.Trim(string(msg), `"`)[:20]) {
					t.Errorf("reviewdog output lacks the message %s", msg)
				}
			}
			if filepath.Base(g) == "positions.rdjson" {
				for line, col := range byteColumns {
					want := fmt.Sprintf("range:{start:{line:%d  column:%d}}", line, col)
					if !strings.Contains(out, want) {
						t.Errorf("reviewdog did not report %s (the UTF-8 column of line %d)", want, line)
					}
				}
			}
		})
	}
}
