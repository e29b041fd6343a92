// Command verifyoverhead measures what running a declared command through internal/verifyrun
// costs over running it directly (verification-receipts.md §2; target: median through
// verifyrun ≤ 1.05 × median direct + 50 ms).
//
// It writes a small Go module (one package, a handful of tests) into a temporary directory, warms
// the build cache, then runs PAIRS pairs of `go test -count=1 .`: directly (sh -c, output to a
// file, as a user's shell would) and through verifyrun.Run (output streamed to a file in the
// same directory), alternating which of the two goes first. It prints each pair, the medians, the
// median ratio and whether the target holds; the exit status is 1 when it does not.
//
// Usage: go run ./scripts/perf/verifyoverhead [-pairs N]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"github.com/mastermind-controller/mastermind/internal/spec"
	"github.com/mastermind-controller/mastermind/internal/verifyrun"
)

const cmdLine = "go test -count=1 ."

// fixedLine isolates the runner's fixed cost: a command that does almost nothing.
const fixedLine = "echo ok"

func main() {
	pairs := flag.Int("pairs", 15, "number of paired runs (at least 7)")
	flag.Parse()
	if *pairs < 7 {
		fmt.Fprintln(os.Stderr, "-pairs must be at least 7")
		os.Exit(2)
	}
	dir, err := os.MkdirTemp("", "mm-verify-overhead-")
	check(err)
	defer os.RemoveAll(dir)
	files := map[string]string{
		"go.mod": "module example.com/bench\n\ngo 1.26\n",
		"lru.go": "package bench\n\n// Sum adds.\nfunc Sum(xs ...int) int {\n\ts := 0\n\tfor _, x := range xs {\n\t\ts += x\n\t}\n\treturn s\n}\n",
		"lru_test.go": "package bench\n\nimport \"testing\"\n\n" +
			"func TestSum(t *testing.T) {\n\tif Sum(1, 2, 3) != 6 {\n\t\tt.Fatal(\"sum\")\n\t}\n}\n" +
			"func TestEmpty(t *testing.T) {\n\tif Sum() != 0 {\n\t\tt.Fatal(\"empty\")\n\t}\n}\n" +
			"func TestTable(t *testing.T) {\n\tfor i := 0; i < 50; i++ {\n\t\tt.Run(\"x\", func(t *testing.T) {\n\t\t\tif Sum(i) != i {\n\t\t\t\tt.Fatal(i)\n\t\t\t}\n\t\t})\n\t}\n}\n",
	}
	for p, c := range files {
		check(os.WriteFile(filepath.Join(dir, p), []byte(c), 0o644))
	}
	out := filepath.Join(dir, "out.log")
	direct := func(line string) time.Duration {
		f, err := os.Create(out)
		check(err)
		defer f.Close()
		c := exec.Command("/bin/sh", "-c", line)
		c.Dir, c.Stdout, c.Stderr = dir, f, f
		t := time.Now()
		check(c.Run())
		return time.Since(t)
	}
	through := func(line string) time.Duration {
		f, err := os.Create(out)
		check(err)
		defer f.Close()
		t := time.Now()
		r, err := verifyrun.Run(context.Background(), spec.DeclaredCommand{Cmd: line, Timeout: time.Minute},
			verifyrun.Options{Dir: dir, Output: f})
		d := time.Since(t)
		check(err)
		if !r.Passed() {
			check(fmt.Errorf("run failed: %s\n%s", r.Outcome(), r.OutputTail))
		}
		return d
	}
	direct(cmdLine) // warm the build cache
	through(cmdLine)
	measure := func(line string, pairs int, verbose bool) (md, mv, mr float64) {
		var ds, vs, ratios []float64
		if verbose {
			fmt.Printf("%-5s %12s %12s %8s\n", "pair", "direct_ms", "verifyrun_ms", "ratio")
		}
		for i := 0; i < pairs; i++ {
			var d, v time.Duration
			if i%2 == 0 {
				d, v = direct(line), through(line)
			} else {
				v, d = through(line), direct(line)
			}
			dm, vm := ms(d), ms(v)
			ds, vs, ratios = append(ds, dm), append(vs, vm), append(ratios, vm/dm)
			if verbose {
				fmt.Printf("%-5d %12.1f %12.1f %8.3f\n", i+1, dm, vm, vm/dm)
			}
		}
		return median(ds), median(vs), median(ratios)
	}
	fd, fv, _ := measure(fixedLine, 51, false)
	fmt.Printf("fixed cost (%q, 51 pairs): median direct %.2f ms, through verifyrun %.2f ms, difference %+.2f ms\n", fixedLine, fd, fv, fv-fd)
	md, mv, mr := measure(cmdLine, *pairs, true)
	limit := 1.05*md + 50
	ok := mv <= limit
	fmt.Printf("%q: median direct %.1f ms, through verifyrun %.1f ms, median pair ratio %.3f, overhead %+.1f ms; target <= %.1f ms: %s\n",
		cmdLine, md, mv, mr, mv-md, limit, map[bool]string{true: "met", false: "NOT met"}[ok])
	if !ok {
		os.Exit(1)
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "verifyoverhead:", err)
		os.Exit(1)
	}
}
