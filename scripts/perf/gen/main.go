//go:build perf

// Command gen builds the deterministic 100k benchmark repository of gitscope.md §8.1 and applies
// its scenarios. It runs git with a fixed identity and dates, so every run yields the same
// commits. Usage (see gen-repo.sh):
//
//	go run -tags perf ./scripts/perf/gen base DIR        # 100,001 tracked + 50,100 ignored files, one commit, git gc
//	go run -tags perf ./scripts/perf/gen scenario-a DIR  # apply scenario A; writes DIR.expected (95 lines)
//	go run -tags perf ./scripts/perf/gen scenario-b DIR  # append one byte to every tracked .txt file
//
// GEN_FILES=1000000 builds the 1M fixture of the same shape instead (100 files per directory,
// 501,000 ignored files).
package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: gen base|scenario-a|scenario-b DIR")
		os.Exit(2)
	}
	dir := os.Args[2]
	var err error
	switch os.Args[1] {
	case "base":
		err = base(dir)
	case "scenario-a":
		err = scenarioA(dir)
	case "scenario-b":
		err = scenarioB(dir)
	default:
		err = fmt.Errorf("unknown mode %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

// files is the number of tracked .txt files: 100,000, or GEN_FILES (a multiple of 100 up to
// 1,000,000: the 1M fixture of the same shape, 100 files per directory).
var files = func() int {
	n, err := strconv.Atoi(os.Getenv("GEN_FILES"))
	if err != nil || n <= 0 || n%100 != 0 || n > 1000000 {
		return 100000
	}
	return n
}()

// srcPath is the i-th tracked file (0 <= i < files): src/dAA/dBB/dCC/fNNN.txt, 100 per leaf
// directory, ten leaves per dBB and ten dBB per dAA.
func srcPath(i int) string {
	leaf := i / 100
	return fmt.Sprintf("src/d%02d/d%02d/d%02d/f%03d.txt", leaf/100, leaf/10%10, leaf%10, i%100)
}

func content(p string) []byte { return []byte(fmt.Sprintf("%s\ncontent derived from %s\n", p, p)) }

func write(dir, rel string, data []byte) error {
	abs := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return err
	}
	return os.WriteFile(abs, data, 0o644)
}

var date = "2026-01-01T00:00:00Z"

func git(dir string, args ...string) error {
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "gc.auto=0", "-c", "maintenance.auto=false"}, args...)...)
	cmd.Env = append(os.Environ(),
		"GIT_AUTHOR_NAME=Perf", "GIT_AUTHOR_EMAIL=perf@example.com", "GIT_AUTHOR_DATE="+date,
		"GIT_COMMITTER_NAME=Perf", "GIT_COMMITTER_EMAIL=perf@example.com", "GIT_COMMITTER_DATE="+date,
		"GIT_CONFIG_NOSYSTEM=1")
	cmd.Stdout = os.Stderr
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
	}
	return nil
}

func base(dir string) error {
	if _, err := os.Stat(dir); err == nil {
		return fmt.Errorf("%s exists", dir)
	}
	for i := 0; i < files; i++ {
		if err := write(dir, srcPath(i), content(srcPath(i))); err != nil {
			return err
		}
	}
	if err := write(dir, ".gitignore", []byte("node_modules/\n")); err != nil {
		return err
	}
	for i := 0; i < files/100000*50100; i++ {
		p := fmt.Sprintf("node_modules/pkg%03d/lib/file%03d.js", i/300, i%300)
		if err := write(dir, p, content(p)); err != nil {
			return err
		}
	}
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"add", "-A"},
		{"commit", "-q", "-m", "baseline"},
		{"gc", "-q"},
	} {
		if err := git(dir, args...); err != nil {
			return err
		}
	}
	return nil
}

// scenarioA applies gitscope.md §8.1 scenario A and writes DIR.expected: the 95 expected
// "status<TAB>path" lines of D, sorted.
func scenarioA(dir string) error {
	exp := map[string]string{}
	pick := func(k int) string { return srcPath(k * 997 % files) } // spread over the tree
	k := 0
	next := func() string { k++; return pick(k) }
	edit := func(p string) error {
		return os.WriteFile(filepath.Join(dir, p), append(content(p), "edited\n"...), 0o644)
	}
	commit := func(msg string) error { return git(dir, "commit", "-q", "-m", msg) }

	// 50 modified: 15 committed, 10 staged, 25 unstaged.
	var committed, staged []string
	for i := 0; i < 50; i++ {
		p := next()
		if err := edit(p); err != nil {
			return err
		}
		exp[p] = "modified"
		switch {
		case i < 15:
			committed = append(committed, p)
		case i < 25:
			staged = append(staged, p)
		}
	}
	if err := git(dir, append([]string{"add", "--"}, committed...)...); err != nil {
		return err
	}
	if err := commit("modify 15"); err != nil {
		return err
	}
	// 5 renamed: 3 committed (one also edited), 2 staged.
	for i := 0; i < 5; i++ {
		from := next()
		to := strings.TrimSuffix(from, ".txt") + "-renamed.txt"
		if err := git(dir, "mv", from, to); err != nil {
			return err
		}
		if i == 0 {
			if err := edit(to); err != nil {
				return err
			}
			if err := git(dir, "add", "--", to); err != nil {
				return err
			}
		}
		if i == 2 {
			if err := commit("rename 3"); err != nil {
				return err
			}
		}
		exp[from] = "deleted"
		exp[to] = "added"
	}
	// 10 deleted: 5 committed, 5 unstaged.
	for i := 0; i < 10; i++ {
		p := next()
		exp[p] = "deleted"
		if i < 5 {
			if err := git(dir, "rm", "-q", "--", p); err != nil {
				return err
			}
			continue
		}
		if err := os.Remove(filepath.Join(dir, p)); err != nil {
			return err
		}
	}
	if err := commit("delete 5"); err != nil {
		return err
	}
	// 5 added, committed.
	var added []string
	for i := 0; i < 5; i++ {
		p := fmt.Sprintf("src/new/added%d.go", i)
		if err := write(dir, p, []byte(fmt.Sprintf("package new\n\nfunc Added%d() {}\n", i))); err != nil {
			return err
		}
		added = append(added, p)
		exp[p] = "added"
	}
	if err := git(dir, append([]string{"add", "--"}, added...)...); err != nil {
		return err
	}
	if err := commit("add 5"); err != nil {
		return err
	}
	// staged modifications after the commits.
	if err := git(dir, append([]string{"add", "--"}, staged...)...); err != nil {
		return err
	}
	// 20 untracked.
	for i := 0; i < 20; i++ {
		p := fmt.Sprintf("src/untracked/u%02d.txt", i)
		if err := write(dir, p, content(p)); err != nil {
			return err
		}
		exp[p] = "untracked"
	}
	// ignored churn under node_modules/.
	for i := 0; i < 500; i++ {
		p := fmt.Sprintf("node_modules/churn/c%03d.js", i)
		if err := write(dir, p, content(p)); err != nil {
			return err
		}
		q := fmt.Sprintf("node_modules/pkg%03d/lib/file%03d.js", i%167, i%300)
		if err := write(dir, q, append(content(q), '!')); err != nil {
			return err
		}
	}
	lines := make([]string, 0, len(exp))
	for p, s := range exp {
		lines = append(lines, s+"\t"+p)
	}
	sort.Slice(lines, func(i, j int) bool {
		return strings.SplitN(lines[i], "\t", 2)[1] < strings.SplitN(lines[j], "\t", 2)[1]
	})
	if len(lines) != 95 {
		return fmt.Errorf("scenario A expects 95 paths, built %d", len(lines))
	}
	return os.WriteFile(filepath.Clean(dir)+".expected", []byte(strings.Join(lines, "\n")+"\n"), 0o644)
}

// scenarioB appends one byte to every tracked .txt file (100,000 modified paths).
func scenarioB(dir string) error {
	for i := 0; i < files; i++ {
		p := filepath.Join(dir, filepath.FromSlash(srcPath(i)))
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			return err
		}
		_, err = f.Write([]byte{'+'})
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	return nil
}
