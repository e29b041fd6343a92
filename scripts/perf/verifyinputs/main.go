//go:build perf

// Command verifyinputs measures the two ways of #26 item 7 (verification-receipts.md §2.1) on
// the 100k fixture's scenario A, alternating in one process: W, naming the ignored files written
// since pre-flight (gitscope.IgnoredSince: one `ls-files --others --ignored` under the pre-flight
// rules plus an lstat per ignored file), against the git CLI's own `ls-files --others --ignored
// --exclude-standard`; and C, a clean tree for the run (HEAD written out by gitscope.Materialize
// plus a copy of every path of D), against `git checkout-index -a --prefix`. It prints medians and
// min-max in ms.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mastermind-controller/mastermind/internal/gitscope"
)

func main() {
	dir := flag.String("repo", "/tmp/mm-perf/a", "scenario A work tree")
	runs := flag.Int("runs", 9, "alternating runs of each")
	flag.Parse()
	ctx := context.Background()
	r, err := gitscope.Open(*dir)
	check(err)
	baseline := strings.TrimSpace(run(*dir, "git", "rev-parse", "HEAD"))
	st, err := r.GitDirStore("verifyinputs-bench")
	check(err)
	check(r.TakeSnapshot(ctx, baseline, st))
	cs, err := r.ChangedSetSince(ctx, baseline, st)
	check(err)
	var w, wGit, c, cGit []float64
	var nIgnored, cFailed int
	for i := 0; i < *runs; i++ {
		t := time.Now()
		paths, err := r.IgnoredSince(ctx, baseline, st, cs.ToolCaches, 1)
		check(err)
		w = append(w, ms(t))
		nIgnored = len(paths)

		t = time.Now()
		run(*dir, "git", "ls-files", "-z", "--others", "--ignored", "--exclude-standard")
		wGit = append(wGit, ms(t))

		tmp, err := os.MkdirTemp("", "mm-clean-")
		check(err)
		t = time.Now()
		if _, err = r.Materialize(ctx, baseline, tmp); err != nil {
			// gitscope bounds each git command by 60 s; on a loaded machine writing 100,000
			// files out can exceed it.
			cFailed++
			fmt.Fprintf(os.Stderr, "C run %d failed after %.0f ms: %v\n", i+1, ms(t), err)
		} else {
			for _, e := range cs.Entries {
				copyFile(filepath.Join(*dir, string(e.Path)), filepath.Join(tmp, string(e.Path)))
			}
			c = append(c, ms(t))
		}
		os.RemoveAll(tmp)

		tmp, err = os.MkdirTemp("", "mm-clean-git-")
		check(err)
		t = time.Now()
		run(*dir, "git", "checkout-index", "-a", "--prefix="+tmp+"/")
		cGit = append(cGit, ms(t))
		os.RemoveAll(tmp)
	}
	fmt.Printf("scenario A: %d changed paths, %d ignored files listed (all, since=1)\n", len(cs.Entries), nIgnored)
	fmt.Printf("W gitscope.IgnoredSince        %s\n", stat(w))
	fmt.Printf("W git ls-files -o -i           %s\n", stat(wGit))
	fmt.Printf("C Materialize + copy D         %s, %d of %d runs over git's 60 s limit\n", stat(c), cFailed, *runs)
	fmt.Printf("C git checkout-index -a        %s\n", stat(cGit))
}

func ms(t time.Time) float64 { return float64(time.Since(t).Microseconds()) / 1000 }

func stat(xs []float64) string {
	if len(xs) == 0 {
		return "no run finished"
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return fmt.Sprintf("median %8.1f ms  (min %.1f, max %.1f, n=%d)", s[len(s)/2], s[0], s[len(s)-1], len(s))
}

func run(dir string, name string, args ...string) string {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	check(err)
	return string(out)
}

func copyFile(from, to string) {
	fi, err := os.Lstat(from)
	if err != nil || !fi.Mode().IsRegular() {
		return
	}
	check(os.MkdirAll(filepath.Dir(to), 0o755))
	in, err := os.Open(from)
	check(err)
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, fi.Mode().Perm())
	check(err)
	_, err = io.Copy(out, in)
	check(err)
	check(out.Close())
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
