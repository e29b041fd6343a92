package gitscope

import (
	"bytes"
	"slices"

	"github.com/mastermind-controller/mastermind/internal/repopath"
)

// EmptyTreeOID is git's empty tree (SHA-1). It is the baseline of a repository with no commits
// (gitscope.md §1); ValidateBaseline checks it as a tree, every other baseline as a commit.
const EmptyTreeOID = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

// Status is a changed-set entry's status (gitscope.md §1 status mapping).
type Status string

// The four statuses. git diff letters map A → added, D → deleted, every other letter
// (M, T, U, X) → modified; ls-files --others gives untracked.
const (
	StatusAdded     Status = "added"
	StatusModified  Status = "modified"
	StatusDeleted   Status = "deleted"
	StatusUntracked Status = "untracked"
)

// Source values of ChangedSet.Source.
const (
	SourceGit   = "git"    // the hardened git CLI recipe (§4)
	SourceGoGit = "go-git" // the degraded pure-Go fallback (§6)
)

// DegradedReason values (§4.3): no git binary on PATH, or one older than 2.24.
const (
	ReasonGitUnavailable = "git_unavailable"
	ReasonGitTooOld      = "git_too_old"
)

// Entry is one changed path. Path is the raw repository-relative path bytes ('/' separated, no
// trailing slash). NestedRepository marks an untracked nested repository or linked worktree,
// which git prints as "dir/" and which is recorded as "dir". UTF8 is false when Path is not valid
// UTF-8 (the audit's changed_path_unrepresentable).
type Entry struct {
	Path             []byte
	Status           Status
	NestedRepository bool
	UTF8             bool
	// SelfIgnoring marks a directory created since the baseline that ignores itself and is not a
	// known tool cache (toolcache.go): one entry for the directory, its files not listed.
	SelfIgnoring bool
}

// ChangedSet is C for one baseline (gitscope.md §1): Entries sorted by raw path bytes, unique,
// with the controller's artifacts below .mastermind/ still included (WithoutControl gives D). Source is SourceGit or SourceGoGit;
// Degraded is true exactly when Source is SourceGoGit, with DegradedReason ReasonGitUnavailable
// or ReasonGitTooOld.
type ChangedSet struct {
	Source         string
	Degraded       bool
	DegradedReason string
	Entries        []Entry
	// InputChanges are the inputs that changed since pre-flight although I1 allows them to
	// (ChangedSetSince only; sorted as found). Each is an error finding of the audit.
	InputChanges []InputChange
	// ToolCaches are the tool caches created since the baseline that ignore themselves, left out
	// of Entries (gitscope.md §4.7); SelfIgnoring the other self-ignoring directories created
	// since, each one SelfIgnoring entry of Entries. Both sorted by Dir.
	ToolCaches   []IgnoredDir
	SelfIgnoring []IgnoredDir
}

// WithoutControl returns D: the entries that rule does not leave out as the controller's own
// (repopath.LeftOut, trust-model.md I3: the contract files, and the controller names whose bytes
// rule finds the controller's); any other path below .mastermind/ stays in D. rule is consulted
// only for paths below .mastermind/, once each, so 200,000 changed paths elsewhere cost one
// prefix comparison each (gitscope.md §8.1 scenario B). When the left-out entries are one run of
// adjacent entries at the start or the end (they sort together below .mastermind/), or there are
// none, the result is a subslice of cs.Entries, so nothing is copied: callers must not modify
// its elements. A shared result's capacity is its length, so an append copies.
func (cs *ChangedSet) WithoutControl(rule repopath.ControlRule) []Entry {
	first, last, count := -1, -1, 0
	var out []int
	for i, e := range cs.Entries {
		if !bytes.HasPrefix(e.Path, controlPrefix) || !repopath.LeftOut(string(e.Path), rule) {
			continue
		}
		if first < 0 {
			first = i
		}
		last = i
		count++
		out = append(out, i)
	}
	n := len(cs.Entries)
	adjacent := count == last-first+1
	switch {
	case first < 0:
		return slices.Clip(cs.Entries)
	case adjacent && first == 0:
		return slices.Clip(cs.Entries[last+1:])
	case adjacent && last == n-1:
		return slices.Clip(cs.Entries[:first])
	}
	d := make([]Entry, 0, n-count)
	j := 0
	for i, e := range cs.Entries {
		if j < len(out) && out[j] == i {
			j++
			continue
		}
		d = append(d, e)
	}
	return d
}

// controlPrefix is the first bytes of every path repopath.LeftOut can leave out.
var controlPrefix = []byte(repopath.ControlDir + "/")

// EntryType is a path's kind in the baseline tree (BaselineEntries).
type EntryType string

// Baseline entry kinds: absent from the tree, a regular file (any blob mode), a symlink, a
// submodule commit, or a directory.
const (
	EntryAbsent  EntryType = "absent"
	EntryBlob    EntryType = "blob"
	EntryLink    EntryType = "link"
	EntryGitlink EntryType = "gitlink"
	EntryTree    EntryType = "tree"
)
