package buildinfo

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

func TestResolve(t *testing.T) {
	vcs := func(mainVersion string, kv ...string) *debug.BuildInfo {
		bi := &debug.BuildInfo{Main: debug.Module{Path: "github.com/mastermind-controller/mastermind", Version: mainVersion}}
		for i := 0; i+1 < len(kv); i += 2 {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return bi
	}
	rev := "0123456789abcdef0123456789abcdef01234567"
	clean := []string{"vcs.revision", rev, "vcs.time", "2026-01-02T15:04:05Z", "vcs.modified", "false"}
	dirty := []string{"vcs.revision", rev, "vcs.time", "2026-01-02T15:04:05Z", "vcs.modified", "true"}
	for _, c := range []struct {
		name                  string
		bi                    *debug.BuildInfo
		ldV, ldC, ldD         string
		version, commit, date string
	}{
		{"go install @version", vcs("v1.2.3"), "", "", "", "v1.2.3", "unknown", "unknown"},
		{"go build with VCS (Go ≥ 1.24)", vcs("v0.0.0-20260102150405-0123456789ab", clean...), "", "", "",
			"v0.0.0-20260102150405-0123456789ab", rev, "2026-01-02T15:04:05Z"},
		{"go build with VCS, main version not stamped", vcs("(devel)", clean...), "", "", "",
			"v0.0.0-20260102150405-0123456789ab", rev, "2026-01-02T15:04:05Z"},
		{"modified tree", vcs("(devel)", dirty...), "", "", "",
			"v0.0.0-20260102150405-0123456789ab+dirty", rev + "-dirty", "2026-01-02T15:04:05Z"},
		{"-buildvcs=false", vcs("(devel)"), "", "", "", "unknown", "unknown", "unknown"},
		{"no build info", nil, "", "", "", "unknown", "unknown", "unknown"},
		{"ldflags win", vcs("v0.0.0-20260102150405-0123456789ab", dirty...), "v2.0.0", "abc", "2026-02-02", "v2.0.0", "abc", "2026-02-02"},
		{"ldflags commit only (a pinned Action)", vcs("(devel)"), "", rev, "", "v0.0.0-0123456789ab", rev, "unknown"},
	} {
		got := resolve(c.bi, c.ldV, c.ldC, c.ldD)
		if got.Version != c.version || got.Commit != c.commit || got.Date != c.date || got.SchemaVersion != 1 {
			t.Errorf("%s: %+v, want version %s commit %s date %s", c.name, got, c.version, c.commit, c.date)
		}
	}
}

// A real build of the probe command (testdata/probe prints Get()) with and without VCS stamping,
// whatever GOFLAGS the machine sets (this one sets -buildvcs=false), and with -ldflags.
func TestGetFromRealBuilds(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: not building")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	probe := func(t *testing.T, flags ...string) Info {
		t.Helper()
		out := filepath.Join(t.TempDir(), "probe")
		cmd := exec.Command(goBin, append(append([]string{"build", "-o", out}, flags...), "./testdata/probe")...)
		cmd.Env = append(os.Environ(), "GOFLAGS=")
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build %v: %v\n%s", flags, err, msg)
		}
		data, err := exec.Command(out).Output()
		if err != nil {
			t.Fatal(err)
		}
		var info Info
		if err := json.Unmarshal(data, &info); err != nil {
			t.Fatalf("%v: %s", err, data)
		}
		return info
	}
	t.Run("buildvcs=false", func(t *testing.T) {
		if got := probe(t, "-buildvcs=false"); got.Version != "unknown" || got.Commit != "unknown" || got.Date != "unknown" {
			t.Errorf("%+v", got)
		}
	})
	t.Run("ldflags", func(t *testing.T) {
		pkg := "github.com/mastermind-controller/mastermind/internal/buildinfo"
		got := probe(t, "-buildvcs=false", "-ldflags", "-X "+pkg+".version=v9.8.7 -X "+pkg+".commit=feed")
		if got.Version != "v9.8.7" || got.Commit != "feed" {
			t.Errorf("%+v", got)
		}
	})
	// VCS stamping needs a .git directory (go build does not stamp a git worktree), so the
	// probe is built in a fresh repository holding this package and the module files.
	t.Run("buildvcs=true", func(t *testing.T) {
		if _, err := exec.LookPath("git"); err != nil {
			t.Skip("no git command")
		}
		repo := t.TempDir()
		for _, f := range []string{"go.mod", "go.sum", "internal/buildinfo/buildinfo.go", "internal/buildinfo/cgo.go",
			"internal/buildinfo/nocgo.go", "internal/buildinfo/testdata/probe/main.go"} {
			data, err := os.ReadFile(filepath.Join("..", "..", f))
			if err != nil {
				t.Fatal(err)
			}
			dst := filepath.Join(repo, f)
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(dst, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		git := func(args ...string) string {
			cmd := exec.Command("git", args...)
			cmd.Dir = repo
			cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t",
				"GIT_COMMITTER_EMAIL=t@example.com", "GIT_COMMITTER_DATE=2026-01-02T15:04:05Z", "GIT_AUTHOR_DATE=2026-01-02T15:04:05Z")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("git %v: %v\n%s", args, err, out)
			}
			return strings.TrimSpace(string(out))
		}
		git("init", "-q")
		git("add", "-A")
		git("commit", "-q", "-m", "probe")
		rev := git("rev-parse", "HEAD")
		build := func() Info {
			out := filepath.Join(t.TempDir(), "probe")
			cmd := exec.Command(goBin, "build", "-buildvcs=true", "-o", out, "./internal/buildinfo/testdata/probe")
			cmd.Dir = repo
			cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off")
			if msg, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("go build: %v\n%s", err, msg)
			}
			data, err := exec.Command(out).Output()
			if err != nil {
				t.Fatal(err)
			}
			var info Info
			if err := json.Unmarshal(data, &info); err != nil {
				t.Fatalf("%v: %s", err, data)
			}
			return info
		}
		want := "v0.0.0-20260102150405-" + rev[:12]
		if got := build(); got.Version != want || got.Commit != rev || got.Date != "2026-01-02T15:04:05Z" {
			t.Errorf("clean tree: %+v, want version %s, commit %s", got, want, rev)
		}
		if err := os.WriteFile(filepath.Join(repo, "extra.txt"), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := build(); got.Version != want+"+dirty" || got.Commit != rev+"-dirty" {
			t.Errorf("modified tree: %+v", got)
		}
	})
}
