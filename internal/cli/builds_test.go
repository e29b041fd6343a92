package cli

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mastermind-controller/mastermind/internal/buildinfo"
	"github.com/mastermind-controller/mastermind/internal/testenv"
	"github.com/rogpeppe/go-internal/testscript"
)

// builds holds the two real mastermind binaries that scenarios compare with `mmb`: the standard
// build (cgo, every claims backend) and the pure-Go build (CGO_ENABLED=0). The standard build is
// this package's test binary (testenv.Main) when it was built with cgo, as `go test` does with a C
// compiler; the pure-Go build, a second configuration of every package, is built once on first use
// into dir with `go build`.
type builds struct {
	dir  string
	once sync.Once
	bins map[string]string // "cgo", "purego" -> binary path
	skip string            // why they cannot be built here (no go tool, no C compiler, -short)
	err  error
}

func (b *builds) build() {
	b.once.Do(func() {
		if testing.Short() {
			b.skip = "-short: builds mastermind twice"
			return
		}
		gotool, err := exec.LookPath("go")
		if err != nil {
			b.skip = "no go tool on PATH"
			return
		}
		cc, err := exec.Command(gotool, "env", "CC").Output()
		if f := strings.Fields(string(cc)); err != nil || len(f) == 0 {
			b.skip = fmt.Sprintf("go env CC: %v", err)
			return
		} else if _, err := exec.LookPath(f[0]); err != nil {
			b.skip = "no C compiler (" + f[0] + "): the standard build needs one"
			return
		}
		b.bins = map[string]string{}
		if bin := testenv.Binary(); bin != "" && buildinfo.Get().CGO {
			b.bins["cgo"] = bin
		}
		for _, bd := range []struct{ name, cgo string }{{"cgo", "1"}, {"purego", "0"}} {
			if b.bins[bd.name] != "" {
				continue
			}
			bin := filepath.Join(b.dir, "mastermind-"+bd.name)
			cmd := exec.Command(gotool, "build", "-o", bin, "github.com/mastermind-controller/mastermind/cmd/mastermind")
			cmd.Env = append(os.Environ(), "CGO_ENABLED="+bd.cgo)
			if out, err := cmd.CombinedOutput(); err != nil {
				b.err = fmt.Errorf("CGO_ENABLED=%s go build: %v\n%s", bd.cgo, err, out)
				return
			}
			b.bins[bd.name] = bin
		}
	})
}

// condition implements the script condition [builds]: both binaries are available.
func (b *builds) condition(cond string) (bool, error) {
	if cond != "builds" {
		return false, fmt.Errorf("unknown condition %q", cond)
	}
	b.build()
	return b.err == nil && b.skip == "", b.err
}

// cmdMMB implements `mmb BUILD CODE ARGS...` for scenarios guarded by [builds]: it runs the
// mastermind binary of BUILD (cgo or purego) with ARGS, keeps its stdout and stderr for the
// following stdout/stderr/cmp commands, and fails unless the exit status is exactly CODE. With
// both builds, a scenario shows that for the same inputs they give the same verdict, or the
// pure-Go build exits 3 — never a different verdict (lifecycle-v2.md §8).
func (b *builds) cmdMMB(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("mmb does not support negation; give the expected exit code")
	}
	if len(args) < 2 {
		ts.Fatalf("usage: mmb cgo|purego CODE [args...]")
	}
	b.build()
	if b.err != nil || b.skip != "" {
		ts.Fatalf("mmb without both builds (guard the scenario with [!builds] skip): %v%s", b.err, b.skip)
	}
	bin, ok := b.bins[args[0]]
	if !ok {
		ts.Fatalf("mmb: unknown build %q (cgo or purego)", args[0])
	}
	want, err := strconv.Atoi(args[1])
	if err != nil {
		ts.Fatalf("mmb: exit code %q is not a number", args[1])
	}
	got := 0
	if err := ts.Exec(bin, args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("mmb: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("mastermind (%s build) %v exited %d, want %d", args[0], args[2:], got, want)
	}
}
