package gitscope

import (
	"context"
	"slices"
	"testing"
	"time"
)

// TestIgnoredSince: the files ignored under the pre-flight rules and written since pre-flight
// are listed, with a left-out tool cache's files; an ignored file from before pre-flight, and a
// rule the executor adds to .gitignore since, change nothing.
func TestIgnoredSince(t *testing.T) {
	f := newFixture(t)
	baseline := f.base(map[string]string{".gitignore": "*.log\nvendor/\n", "a": "a\n"})
	f.write("old.log", "before pre-flight\n")
	f.write("vendor/old/x.go", "package old\n")
	r, err := OpenWith(f.dir, Options{})
	must(t, err)
	st, err := r.GitDirStore("task")
	must(t, err)
	ctx := context.Background()
	time.Sleep(20 * time.Millisecond)
	must(t, r.TakeSnapshot(ctx, baseline, st))
	f.write("new.log", "x\n")
	f.write("vendor/dep/dep.go", "package dep\n")
	f.write(".gitignore", "*.log\nvendor/\nsrc/\n") // a live rule: not a pre-flight rule
	f.write("src/zz.go", "package src\n")
	f.write(".pytest_cache/.gitignore", "*\n")
	f.write(".pytest_cache/v/cache/nodeids", "[]\n")
	cs, err := r.ChangedSetSince(ctx, baseline, st)
	must(t, err)
	got, err := r.IgnoredSince(ctx, baseline, st, cs.ToolCaches, 0)
	must(t, err)
	want := []string{".pytest_cache/.gitignore", ".pytest_cache/v/cache/nodeids", "new.log", "vendor/dep/dep.go"}
	if !slices.Equal(got, want) {
		t.Errorf("IgnoredSince = %q, want %q", got, want)
	}
	now, err := r.FileSystemNow()
	must(t, err)
	time.Sleep(20 * time.Millisecond)
	f.write("later.log", "y\n")
	got, err = r.IgnoredSince(ctx, baseline, st, nil, now)
	must(t, err)
	if !slices.Equal(got, []string{"later.log"}) {
		t.Errorf("since now: %q", got)
	}
}
