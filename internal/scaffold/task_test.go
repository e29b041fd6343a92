package scaffold

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mastermind-controller/mastermind/internal/fsx"
	"github.com/mastermind-controller/mastermind/internal/spec"
)

func mkdirs(t *testing.T, root string, rels ...string) {
	t.Helper()
	for _, r := range rels {
		if err := os.MkdirAll(filepath.Join(root, filepath.FromSlash(r)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestNextNumber(t *testing.T) {
	dir := t.TempDir()
	if n, err := NextNumber(filepath.Join(dir, "missing")); n != 1 || err != nil {
		t.Fatalf("missing dir: %d, %v", n, err)
	}
	if n, _ := NextNumber(dir); n != 1 {
		t.Fatalf("empty dir: %d, want 1", n)
	}
	mkdirs(t, dir, "001-a", "007-b", "_lessons.md", "abc-7", "0123456789012-too-big")
	writeFile(t, filepath.Join(dir, "_lessons.md.lock"), "")
	if n, _ := NextNumber(dir); n != 8 {
		t.Fatalf("after 007: %d, want 8", n)
	}
	writeFile(t, filepath.Join(dir, "010-stray-file"), "")
	mkdirs(t, dir, "9-short")
	if n, _ := NextNumber(dir); n != 11 {
		t.Fatalf("a stray file numbered 010 reserves its number: %d, want 11", n)
	}
	mkdirs(t, dir, "1000-big")
	if n, _ := NextNumber(dir); n != 1001 {
		t.Fatalf("after 1000: %d, want 1001", n)
	}
}

func TestCreateTaskNumbering(t *testing.T) {
	root := t.TempDir()
	var names []string
	for _, title := range []string{"Add retry helper", "Add retry helper", "Fix: the parser!"} {
		task, err := CreateTask(root, CreateOptions{Title: title})
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, task.Name)
		if task.Spec != ".mastermind/tasks/"+task.Name+"/spec.md" || task.Dir != ".mastermind/tasks/"+task.Name {
			t.Errorf("paths = %+v", task)
		}
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(task.Spec)))
		if err != nil {
			t.Fatal(err)
		}
		s, _ := spec.Parse(data, task.Spec)
		if s.Frontmatter.Mode != spec.ModeStandard || s.Frontmatter.ID != task.Name[:3] {
			t.Errorf("%s: mode %q id %q", task.Spec, s.Frontmatter.Mode, s.Frontmatter.ID)
		}
	}
	want := []string{"001-add-retry-helper", "002-add-retry-helper", "003-fix-the-parser"}
	if d := cmp.Diff(want, names); d != "" {
		t.Errorf("names (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{
		".mastermind/tasks/001-add-retry-helper/spec.md",
		".mastermind/tasks/002-add-retry-helper/spec.md",
		".mastermind/tasks/003-fix-the-parser/spec.md",
	}, TaskSpecs(root)); d != "" {
		t.Errorf("TaskSpecs (-want +got):\n%s", d)
	}
}

// TestCreateTaskConcurrent runs many new-spec calls with the same title at once: every call gets
// its own folder (EEXIST retries to the next number), none is overwritten, all numbers are used
// once.
func TestCreateTaskConcurrent(t *testing.T) {
	root := t.TempDir()
	const n = 12
	var wg sync.WaitGroup
	names := make([]string, n)
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			task, err := CreateTask(root, CreateOptions{Title: "Same title", Mode: spec.ModeLite})
			names[i], errs[i] = task.Name, err
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	for i := range n {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if seen[names[i]] {
			t.Fatalf("folder %s handed out twice", names[i])
		}
		seen[names[i]] = true
	}
	for i := 1; i <= n; i++ {
		if name := fmt.Sprintf("%03d-same-title", i); !seen[name] {
			t.Errorf("%s was not created; got %v", name, names)
		}
	}
	if got := len(TaskSpecs(root)); got != n {
		t.Errorf("TaskSpecs: %d specs, want %d", got, n)
	}
}

func TestCreateTaskNeverOverwrites(t *testing.T) {
	root := t.TempDir()
	existing := filepath.Join(root, ".mastermind", "tasks", "001-add-retry-helper", "spec.md")
	writeFile(t, existing, "planner's work\n")
	task, err := CreateTask(root, CreateOptions{Title: "Add retry helper"})
	if err != nil || task.Name != "002-add-retry-helper" {
		t.Fatalf("got %+v, %v", task, err)
	}
	if b, _ := os.ReadFile(existing); string(b) != "planner's work\n" {
		t.Fatalf("existing spec changed: %q", b)
	}
}

func TestCreateTaskRefusesSymlinks(t *testing.T) {
	for _, tc := range []struct {
		name   string
		setup  func(t *testing.T, root, elsewhere string)
		reason fsx.Reason
	}{
		{"mastermind is a link", func(t *testing.T, root, elsewhere string) {
			must(t, os.Symlink(elsewhere, filepath.Join(root, ".mastermind")))
		}, fsx.ReasonSymlink},
		{"tasks is a link", func(t *testing.T, root, elsewhere string) {
			mkdirs(t, root, ".mastermind")
			must(t, os.Symlink(elsewhere, filepath.Join(root, ".mastermind", "tasks")))
		}, fsx.ReasonSymlink},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, elsewhere := t.TempDir(), t.TempDir()
			tc.setup(t, root, elsewhere)
			_, err := CreateTask(root, CreateOptions{Title: "x"})
			if got := fsx.ReasonOf(err); got != tc.reason {
				t.Fatalf("err = %v (reason %q), want reason %q", err, got, tc.reason)
			}
			if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
				t.Fatalf("wrote through the link: %v", entries)
			}
		})
	}
	root := t.TempDir()
	writeFile(t, filepath.Join(root, ".mastermind", "tasks"), "a file")
	if _, err := CreateTask(root, CreateOptions{Title: "x"}); err == nil {
		t.Fatal("a file at .mastermind/tasks was accepted")
	}
}

func TestCreateTaskInputErrors(t *testing.T) {
	root := t.TempDir()
	for _, o := range []CreateOptions{{Title: "x", Mode: "paranoid"}, {Title: "  "}, {Title: "日本語"}} {
		_, err := CreateTask(root, o)
		var ie *InputError
		if !errors.As(err, &ie) {
			t.Errorf("%+v: err = %v, want *InputError", o, err)
		}
	}
	if _, err := os.Lstat(filepath.Join(root, ".mastermind")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an input error created .mastermind: %v", err)
	}
}

func TestTaskSpecsSkips(t *testing.T) {
	root := t.TempDir()
	tasks := filepath.Join(root, ".mastermind", "tasks")
	writeFile(t, filepath.Join(tasks, "001-ok", "spec.md"), "x")
	writeFile(t, filepath.Join(tasks, "01-short", "spec.md"), "x")
	writeFile(t, filepath.Join(tasks, "002-no-spec", "notes.md"), "x")
	mkdirs(t, tasks, "003-dir-spec/spec.md")
	writeFile(t, filepath.Join(root, "outside.md"), "x")
	mkdirs(t, tasks, "004-link")
	must(t, os.Symlink(filepath.Join(root, "outside.md"), filepath.Join(tasks, "004-link", "spec.md")))
	must(t, os.Symlink(filepath.Join(tasks, "001-ok"), filepath.Join(tasks, "005-linked-dir")))
	if d := cmp.Diff([]string{".mastermind/tasks/001-ok/spec.md"}, TaskSpecs(root)); d != "" {
		t.Errorf("TaskSpecs (-want +got):\n%s", d)
	}
	if got := TaskSpecs(t.TempDir()); got != nil {
		t.Errorf("no tasks folder: %v", got)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
