package fsx

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
)

// GitDirOf resolves root/.git, a directory or a "gitdir: <path>" file, and returns the git
// directory and the common directory that holds config, refs and objects. It reads files only.
func GitDirOf(root string) (gitDir, commonDir string, ok bool) {
	dotgit := filepath.Join(root, ".git")
	fi, err := os.Lstat(dotgit)
	if err != nil {
		return "", "", false
	}
	gitDir = dotgit
	if fi.Mode().IsRegular() {
		b, err := ReadFollow(dotgit, 64<<10)
		if err != nil {
			return "", "", false
		}
		// As git's read_gitfile_gently does: the exact prefix "gitdir: ", then the rest of the
		// file verbatim without its trailing CR and LF characters. Reading it any other way would
		// let git and go-git open different directories.
		rest, found := bytes.CutPrefix(b, []byte("gitdir: "))
		p := strings.TrimRight(string(rest), "\r\n")
		if !found || p == "" || strings.IndexByte(p, 0) >= 0 {
			return "", "", false
		}
		if gitDir, ok = realPath(root, p); !ok {
			return "", "", false
		}
	} else if !fi.IsDir() {
		return "", "", false
	}
	commonDir = gitDir
	if b, err := ReadFollow(filepath.Join(gitDir, "commondir"), 64<<10); err == nil {
		// git's get_common_dir_noenv: trailing CR and LF removed, nothing else.
		if commonDir, ok = realPath(gitDir, strings.TrimRight(string(b), "\r\n")); !ok {
			return "", "", false
		}
	}
	return gitDir, commonDir, true
}

// realPath resolves p, relative to dir unless absolute, on disk as git's real_pathdup does: a
// symbolic link is followed before a ".." after it applies, where a lexical Clean would open a
// different directory than git. ok is false when the path does not resolve.
func realPath(dir, p string) (string, bool) {
	if !filepath.IsAbs(p) {
		p = dir + string(filepath.Separator) + p
	}
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", false
	}
	return r, true
}

// The content ids of a directory holding a .git entry: a submodule or a nested repository.
const (
	// ContentRepoPrefix starts the id "repo:<commit>".
	ContentRepoPrefix = "repo:"
	// ContentRepoUnresolved is the id of such a directory whose HEAD commit cannot be read
	// (an unusable .git, an unborn branch, a ref format this reader does not know).
	ContentRepoUnresolved = ContentRepoPrefix + "unresolved"
)

// maxRefBytes bounds HEAD, a loose ref and packed-refs as the head reader reads them.
const (
	maxRefBytes    = 4 << 10
	maxPackedBytes = 64 << 20
)

// dirID is the content id of the directory abs: "repo:<commit>" naming the commit its HEAD
// points at when it holds a .git entry (a submodule or a nested repository), ContentDir
// otherwise. Nothing is run: HEAD is resolved through loose refs and packed-refs as git reads
// them, so an id never depends on a command a repository's configuration names.
func dirID(abs string) string {
	if _, err := os.Lstat(filepath.Join(abs, ".git")); err != nil {
		return ContentDir
	}
	gitDir, common, ok := GitDirOf(abs)
	if !ok {
		return ContentRepoUnresolved
	}
	if oid, ok := resolveHead(gitDir, common); ok {
		return ContentRepoPrefix + oid
	}
	return ContentRepoUnresolved
}

// resolveHead follows HEAD in gitDir through symbolic refs (at most five) to a commit id. Only a
// missing loose ref is looked up in packed-refs: any other loose ref this reader cannot read
// (a symbolic link git would follow) leaves HEAD unresolved, never a packed entry's commit.
func resolveHead(gitDir, common string) (string, bool) {
	b, err := ReadFile(filepath.Join(gitDir, "HEAD"), maxRefBytes)
	if err != nil {
		return "", false
	}
	for range 5 {
		oid, name, ok := parseRef(b)
		switch {
		case !ok:
			return "", false
		case oid != "":
			return oid, true
		}
		dir := common
		if perWorktreeRef(name) {
			dir = gitDir
		}
		b, err = ReadFile(filepath.Join(dir, filepath.FromSlash(name)), maxRefBytes)
		if ReasonOf(err) == ReasonMissing {
			return packedRef(common, name)
		}
		if err != nil {
			return "", false
		}
	}
	return "", false
}

// parseRef reads a HEAD or loose ref file as git's parse_loose_ref_contents does: trailing
// whitespace removed, then "ref:" and optional whitespace before a symbolic ref's name, or an
// object id that ends the text or is followed by whitespace. Reading it any other way would let
// git check out one commit while the id names another, or none.
func parseRef(b []byte) (oid, name string, ok bool) {
	v := strings.TrimRightFunc(string(b), isGitSpace)
	if rest, found := strings.CutPrefix(v, "ref:"); found {
		name = strings.TrimLeftFunc(rest, isGitSpace)
		return "", name, validRefName(name)
	}
	n := 0
	for n < len(v) && isHex(v[n]) {
		n++
	}
	if n < len(v) && !isGitSpace(rune(v[n])) {
		return "", "", false
	}
	oid = strings.ToLower(v[:n])
	return oid, "", isOID(oid)
}

// isGitSpace is git's isspace (sane_ctype): space, tab, LF and CR.
func isGitSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\r'
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// packedRef looks name up in common/packed-refs.
func packedRef(common, name string) (string, bool) {
	b, err := ReadFile(filepath.Join(common, "packed-refs"), maxPackedBytes)
	if err != nil {
		return "", false
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		oid, ref, ok := strings.Cut(strings.TrimRight(line, "\r"), " ")
		if ok && ref == name && isOID(oid) {
			return oid, true
		}
	}
	return "", false
}

// validRefName accepts a ref below refs/ that names no path outside the ref folders.
func validRefName(name string) bool {
	if !strings.HasPrefix(name, "refs/") || strings.ContainsAny(name, "\x00\\") {
		return false
	}
	for part := range strings.SplitSeq(name, "/") {
		if part == "" || part == "." || part == ".." {
			return false
		}
	}
	return true
}

// perWorktreeRef reports whether git keeps ref name in a linked worktree's own git directory
// rather than the common one.
func perWorktreeRef(name string) bool {
	for _, p := range []string{"refs/bisect/", "refs/worktree/", "refs/rewritten/"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// isOID reports whether s is a full SHA-1 or SHA-256 object id in lowercase hex.
func isOID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for i := range len(s) {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
