package gitscope

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"

	git "github.com/go-git/go-git/v5"
)

// Options tune a Repo. The zero value is the production configuration.
type Options struct {
	// LookPath finds the git binary by name; nil means exec.LookPath. Tests return an error to
	// force the degraded fallback (gitscope.md §6) without touching the process's PATH.
	LookPath func(file string) (string, error)
	// Geteuid is the effective user id for GitBinaryUserWritable; nil means os.Geteuid. Tests
	// set it to check the warning as a non-root user would get it.
	Geteuid func() int
}

// gitEnvVar names the git binary to use instead of the first git on PATH (trust-model.md §6).
const gitEnvVar = "MASTERMIND_GIT"

// Repo is one git work tree: its top-level directory, a go-git handle opened lazily once, and
// the git binary found on PATH (looked up once). A Repo is safe for concurrent use.
type Repo struct {
	root string
	opts Options

	gitOnce sync.Once
	gitPath string // "" when no git binary was found
	gitErr  error

	pinOnce sync.Once
	pins    []string // pinArgs

	ggOnce sync.Once
	ggMu   sync.Mutex // held while reading through gg (see goGit)
	gg     *git.Repository
	ggErr  error // wraps ErrUnsupportedRepository / ErrSHA256Repository / ErrNotRepository
}

// Discover finds the work-tree top level containing start: the nearest directory upward that
// holds a .git entry, or what `git rev-parse --show-toplevel` says when go-git cannot open the
// layout. A bare repository or none is ErrNotRepository; a SHA-256 one is ErrSHA256Repository.
func Discover(start string) (*Repo, error) { return DiscoverWith(start, Options{}) }

// DiscoverWith is Discover with explicit Options.
func DiscoverWith(start string, opts Options) (*Repo, error) {
	abs, err := filepath.Abs(start)
	if err != nil {
		return nil, err
	}
	// Refuse FIFOs and devices where git or go-git would read a file, before either reads it.
	top, ok := findTopLevel(abs)
	if !ok {
		if bare, ok := findBare(abs); ok {
			if err := checkGitDirFiles(bare, bare); err != nil {
				return nil, err
			}
			return nil, bareError(bare)
		}
		return nil, ErrNoRepository
	}
	if dotgit := filepath.Join(top, ".git"); abs == dotgit || strings.HasPrefix(abs, dotgit+string(filepath.Separator)) {
		// From inside a git directory git finds no work tree, or a submodule's, never the
		// enclosing one.
		return nil, fmt.Errorf("%s is inside the git directory %s; run mastermind in the work tree: %w", abs, dotgit, ErrNotRepository)
	}
	if err := checkGitFiles(top); err != nil {
		return nil, err
	}
	// go-git is opened through openGoGit as Open does, never with go-git's own PlainOpen,
	// which would bypass its refusals.
	r := &Repo{root: top, opts: opts}
	_, release, err := r.goGit()
	release()
	switch {
	case err == nil:
		r.askVersion()
		return r, nil
	case errors.Is(err, ErrNotRepository), errors.Is(err, ErrSHA256Repository):
		return nil, err
	}
	// go-git cannot open this layout: git finds the top level when it is usable.
	if r.gitUsable() {
		out, gerr := r.runSimple(context.Background(), abs, "rev-parse", "--show-toplevel")
		if gerr != nil {
			var dub *ErrDubiousOwnership
			if errors.As(gerr, &dub) {
				return nil, gerr
			}
			return nil, ErrNotRepository
		}
		r.root = filepath.Clean(strings.TrimSuffix(string(out), "\n"))
	}
	return r, nil
}

// Open uses root (from --root) as the work-tree top level: root must contain a .git directory or
// file, otherwise ErrNotRepository. go-git is opened lazily on first need.
func Open(root string) (*Repo, error) { return OpenWith(root, Options{}) }

// OpenWith is Open with explicit Options.
func OpenWith(root string, opts Options) (*Repo, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	if _, err := os.Lstat(filepath.Join(abs, ".git")); err != nil {
		if bare, ok := findBare(abs); ok && bare == filepath.Clean(abs) {
			return nil, bareError(bare)
		}
		return nil, fmt.Errorf("%s: %w", abs, ErrNotRepository)
	}
	if err := checkGitFiles(abs); err != nil {
		return nil, err
	}
	r := &Repo{root: filepath.Clean(abs), opts: opts}
	_, release, err := r.goGit()
	release()
	if errors.Is(err, ErrSHA256Repository) {
		return nil, err
	}
	r.askVersion()
	return r, nil
}

// askVersion starts the question of git's version, which most runs' first git commands wait
// for, so that it overlaps the caller's own start (lock, store, state). The answer is kept per
// binary (gitVersion).
func (r *Repo) askVersion() { go r.gitVersion(context.Background()) }

// Root returns the work-tree top level: absolute and clean.
func (r *Repo) Root() string { return r.root }

// findTopLevel walks up from dir to the first directory holding a .git entry.
func findTopLevel(dir string) (string, bool) {
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// goGit returns the lazily opened go-git handle, or an error wrapping ErrUnsupportedRepository,
// ErrSHA256Repository or ErrNotRepository. It holds the go-git lock until the caller calls
// release, also after an error, because go-git's storage is not safe for concurrent use; no
// method holding it calls another that takes it.
func (r *Repo) goGit() (gg *git.Repository, release func(), err error) {
	r.ggMu.Lock()
	r.ggOnce.Do(func() {
		gg, err := openGoGit(r.root)
		if err != nil {
			if errors.Is(err, git.ErrRepositoryNotExists) {
				r.ggErr = ErrNotRepository
				return
			}
			r.ggErr = r.classifyOpenError(err)
			return
		}
		r.gg = gg
	})
	return r.gg, r.ggMu.Unlock, r.ggErr
}

// classifyOpenError turns a go-git open failure into ErrSHA256Repository (objectFormat=sha256)
// or an error wrapping ErrUnsupportedRepository with go-git's reason.
func (r *Repo) classifyOpenError(err error) error {
	if isSHA256(r.root) {
		return ErrSHA256Repository
	}
	return fmt.Errorf("%w (%v)", ErrUnsupportedRepository, err)
}

// gitBinary returns the git binary's path, looked up once per Repo.
func (r *Repo) gitBinary() (string, error) {
	r.gitOnce.Do(func() {
		look := r.opts.LookPath
		if look == nil {
			look = exec.LookPath
			if p, ok := os.LookupEnv(gitEnvVar); ok {
				look = func(string) (string, error) { return explicitGit(p) }
			}
		}
		r.gitPath, r.gitErr = look("git")
		if r.gitErr == nil && r.gitPath == "" {
			r.gitErr = exec.ErrNotFound
		}
	})
	return r.gitPath, r.gitErr
}

// explicitGit checks $MASTERMIND_GIT: an absolute path to an executable regular file.
func explicitGit(p string) (string, error) {
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("%s=%q is not an absolute path", gitEnvVar, p)
	}
	fi, err := os.Stat(p)
	if err != nil {
		return "", fmt.Errorf("%s: %w", gitEnvVar, err)
	}
	if !fi.Mode().IsRegular() || fi.Mode()&0o111 == 0 {
		return "", fmt.Errorf("%s=%s is not an executable file", gitEnvVar, p)
	}
	return p, nil
}

// GitBinaryRisk says why the git binary this Repo runs may not be the system's own
// (trust-model.md §6); "" when nothing was seen.
type GitBinaryRisk string

// Git binary risks: an ordinary user can write the binary or a folder holding it; or, when
// mastermind runs as root, the binary lies outside the system's binary folders, or it or a
// folder holding it is not owned by root or is writable by group or others.
const (
	GitRiskUserWritable GitBinaryRisk = "user_writable"
	GitRiskNotSystem    GitBinaryRisk = "outside_system_folders"
	GitRiskNotRootOwned GitBinaryRisk = "not_root_owned"
)

// SystemBinDirs are the folders whose git a root mastermind takes for the system's own
// (trust-model.md §6). A git chosen with $MASTERMIND_GIT is only checked for ownership.
var SystemBinDirs = []string{"/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/local/bin", "/usr/local/sbin", "/usr/libexec/git-core"}

// GitBinary returns the git binary this Repo runs, its version, "" without a usable git, and
// why it may not be the system's own, by the rules of trust-model.md §6.
func (r *Repo) GitBinary(ctx context.Context) (path, version string, risk GitBinaryRisk) {
	path, err := r.gitBinary()
	if err != nil {
		return "", "", ""
	}
	_, version, _ = r.gitVersion(ctx)
	euid := os.Geteuid
	if r.opts.Geteuid != nil {
		euid = r.opts.Geteuid
	}
	cands := []string{path, filepath.Dir(path)}
	if real, err := filepath.EvalSymlinks(path); err == nil && real != path {
		cands = append(cands, real, filepath.Dir(real))
	}
	uid := euid()
	if uid == 0 {
		return path, version, rootGitRisk(cands, r.explicit())
	}
	gids, _ := os.Getgroups()
	gids = append(gids, os.Getegid())
	for _, c := range cands {
		if fi, err := os.Stat(c); err == nil && writableBy(fi, uid, gids) {
			return path, version, GitRiskUserWritable
		}
	}
	return path, version, ""
}

// explicit reports whether the git binary was chosen with $MASTERMIND_GIT.
func (r *Repo) explicit() bool {
	_, ok := os.LookupEnv(gitEnvVar)
	return ok && r.opts.LookPath == nil
}

// rootGitRisk is GitBinary's check for root: cands are the binary, its folder and, for a
// symbolic link, the resolved file and its folder (in that order).
func rootGitRisk(cands []string, explicit bool) GitBinaryRisk {
	if !explicit {
		for i := 1; i < len(cands); i += 2 {
			if !slices.Contains(SystemBinDirs, filepath.Clean(cands[i])) {
				return GitRiskNotSystem
			}
		}
	}
	for _, c := range cands {
		fi, err := os.Stat(c)
		if err != nil {
			return GitRiskNotRootOwned
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok || st.Uid != 0 || fi.Mode().Perm()&0o022 != 0 {
			return GitRiskNotRootOwned
		}
	}
	return ""
}

// writableBy reports whether the permission bits of fi let uid (with the groups gids) write
// it. ACLs are not consulted.
func writableBy(fi os.FileInfo, uid int, gids []int) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return false
	}
	m := fi.Mode().Perm()
	switch {
	case int(st.Uid) == uid:
		return m&0o200 != 0
	case slices.Contains(gids, int(st.Gid)):
		return m&0o020 != 0
	}
	return m&0o002 != 0
}
