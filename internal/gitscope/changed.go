package gitscope

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"unicode/utf8"
)

// diffGlobalArgs and diffCmdArgs are the diff command of §4.1 without -C, the pinned settings
// (pinArgs), the filter-driver guard (filterGuardArgs, between the two) and the baseline.
var (
	diffGlobalArgs = slices.Concat(globalArgs, diffConfigArgs, indexGuardArgs)
	diffCmdArgs    = []string{
		"diff", "--no-ext-diff", "--no-textconv", "--no-color", "--name-status", "-z", "--no-renames",
		"--ignore-submodules=none",
	}
)

// lsOthersLiveArgs is the untracked-files command of §4.1 without -C, with one rule of the
// highest precedence: a .gitignore is never ignored, so a directory that ignores itself shows
// its .gitignore, which the tool-cache scan then finds (§4.7), as in a snapshot run.
var lsOthersLiveArgs = slices.Concat(globalArgs, untrackedGuardArgs, []string{
	"ls-files", "-z", "--others", "--exclude-standard", "--exclude=!.gitignore", "--full-name", "--",
})

// ChangedSet computes C of gitscope.md §1 for baseline, a full commit OID or EmptyTreeOID, with
// the §4.1 recipe, or without a usable git the degraded §6 result. It is never partial: an
// error is *ErrGitFailed, *ErrDubiousOwnership, ErrBaselineUnavailable or a layout go-git cannot
// open.
func (r *Repo) ChangedSet(ctx context.Context, baseline string) (*ChangedSet, error) {
	if !IsFullOID(baseline) {
		return nil, fmt.Errorf("baseline %q is not a full 40-hex object id: %w", baseline, ErrBaselineUnavailable)
	}
	if _, err := r.gitBinary(); err != nil {
		return r.degradedChangedSet(ctx, baseline, ReasonGitUnavailable)
	}
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	if err := r.checkLegacyInputs(); err != nil {
		return nil, err
	}
	// The filter drivers to disable are read while the index is copied; the diff waits for them.
	fg := r.startFilterGuard(ctx)
	var (
		wg                     sync.WaitGroup
		verOK                  bool
		verErr, valErr, fgErr  error
		diffErr, lsErr, piErr  error
		diffEntries, lsEntries []Entry
		total                  int64 // path bytes of both commands; guarded by mu
		mu                     sync.Mutex
	)
	wg.Add(4)
	go func() {
		defer wg.Done()
		verOK, _, verErr = r.gitVersion(ctx)
	}()
	go func() {
		defer wg.Done()
		valErr = r.validateCLI(ctx, baseline)
		if valErr != nil {
			cancel()
		}
	}()
	go func() {
		defer wg.Done()
		// git diff refreshes the index stat cache and writes it back even with
		// --no-optional-locks (git 2.39): it reads and refreshes a private copy of the index, so
		// the repository's own is never written. The copy overlaps the other three commands.
		pi, err := r.newPrivateIndex(ctx)
		if err != nil {
			piErr = err
			return
		}
		defer pi.cleanup()
		filterArgs, err := fg.wait()
		if err != nil {
			fgErr = err
			return
		}
		var t int64
		args := slices.Concat(diffGlobalArgs, filterArgs, diffCmdArgs, []string{baseline, "--"})
		diffErr = r.runEnv(ctx, r.root, "diff", args, pi.env(), func(rd io.Reader) error {
			var err error
			diffEntries, err = parseDiff(newNulReader(rd, &t))
			return err
		})
		mu.Lock()
		total += t
		mu.Unlock()
	}()
	go func() {
		defer wg.Done()
		// ls-files runs no filter driver (it reads no file's content): it starts at once, and
		// only reads the index: the real one.
		var t int64
		lsErr = r.run(ctx, r.root, "ls-files", lsOthersLiveArgs, func(rd io.Reader) error {
			var err error
			lsEntries, err = parseOthers(newNulReader(rd, &t))
			return err
		})
		mu.Lock()
		total += t
		mu.Unlock()
	}()
	wg.Wait()
	if _, err := fg.wait(); fgErr == nil {
		fgErr = err
	}

	if verErr != nil {
		return r.degradedChangedSet(parent, baseline, ReasonGitUnavailable)
	}
	if !verOK {
		return r.degradedChangedSet(parent, baseline, ReasonGitTooOld)
	}
	for _, err := range []error{valErr, fgErr, diffErr, lsErr} {
		var dub *ErrDubiousOwnership
		if errors.As(err, &dub) {
			return nil, err
		}
	}
	if valErr != nil {
		return nil, valErr
	}
	if piErr != nil {
		return nil, piErr
	}
	if fgErr != nil {
		return nil, fgErr
	}
	if diffErr != nil {
		return nil, diffErr
	}
	if lsErr != nil {
		return nil, lsErr
	}
	if total > maxPathBytes {
		return nil, &ErrGitFailed{Cmd: "diff", Exit: -1, Stderr: fmt.Sprintf("output exceeds %d MiB of path bytes", maxPathBytes>>20)}
	}
	entries, caches, hiding, err := r.liveToolCaches(parent, baseline).apply(mergeEntries(diffEntries, lsEntries))
	if err != nil {
		return nil, err
	}
	return &ChangedSet{Source: SourceGit, Entries: entries, ToolCaches: caches, SelfIgnoring: hiding}, nil
}

// arena hands out stable copies of short byte slices from large shared blocks, so 100,000 paths
// cost a few allocations rather than 100,000.
type arena struct{ buf []byte }

func (a *arena) copy(b []byte) []byte {
	if cap(a.buf)-len(a.buf) < len(b) {
		a.buf = make([]byte, 0, max(64<<10, len(b)))
	}
	start := len(a.buf)
	a.buf = append(a.buf, b...)
	return a.buf[start:len(a.buf):len(a.buf)]
}

// parseDiff reads `diff --name-status -z` output of <letter>\0<path>\0 pairs. A status other than
// A D M T U X, an empty path or a missing NUL is a shape error.
func parseDiff(nr *nulReader) ([]Entry, error) {
	// Entries are gathered in chunks and copied once at the end: a doubling slice of 100,000
	// entries (two pointers each) would copy them twice under the collector's write barriers.
	var chunks [][]Entry
	cur := make([]Entry, 0, 1024)
	n := 0
	var a arena
	for {
		st, err := nr.next()
		if err == io.EOF {
			if len(chunks) == 0 {
				return cur, nil
			}
			out := make([]Entry, 0, n+len(cur))
			for _, c := range chunks {
				out = append(out, c...)
			}
			return append(out, cur...), nil
		}
		if err != nil {
			return nil, err
		}
		var status Status
		switch string(st) {
		case "A":
			status = StatusAdded
		case "D":
			status = StatusDeleted
		case "M", "T", "U", "X":
			status = StatusModified
		default:
			return nil, shapef("diff status %q", truncateForMessage(st))
		}
		p, err := nr.next()
		if err == io.EOF {
			return nil, shapef("diff status %q without a path", st)
		}
		if err != nil {
			return nil, err
		}
		if len(p) == 0 {
			return nil, shapef("empty path after status %q", st)
		}
		if len(cur) == cap(cur) {
			chunks, n = append(chunks, cur), n+len(cur)
			cur = make([]Entry, 0, min(2*cap(cur), 64<<10))
		}
		cur = append(cur, Entry{Path: a.copy(p), Status: status, UTF8: utf8.Valid(p)})
	}
}

// parseOthers reads `ls-files -z --others` output of <path>\0 entries; a trailing '/' marks a
// nested repository, recorded without the slash.
func parseOthers(nr *nulReader) ([]Entry, error) {
	var out []Entry
	var a arena
	for {
		p, err := nr.next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		nested := false
		if len(p) > 0 && p[len(p)-1] == '/' {
			nested = true
			p = p[:len(p)-1]
		}
		if len(p) == 0 || p[len(p)-1] == '/' {
			return nil, shapef("empty path in ls-files output")
		}
		out = append(out, Entry{Path: a.copy(p), Status: StatusUntracked, NestedRepository: nested, UTF8: utf8.Valid(p)})
	}
}

// mergeEntries merges diff and untracked entries into one list sorted by path bytes, one entry
// per path (appendMerged), diff entries first on a tie. An input git did not list in path order
// is sorted in place; without others the result reuses diff's array.
func mergeEntries(diff, others []Entry) []Entry {
	byPath := func(x, y Entry) int { return bytes.Compare(x.Path, y.Path) }
	for _, in := range [][]Entry{diff, others} {
		if !slices.IsSortedFunc(in, byPath) {
			slices.SortStableFunc(in, byPath)
		}
	}
	var out []Entry
	if len(others) == 0 {
		out = diff[:0] // merged in place: the write index never passes the read index
	} else {
		out = make([]Entry, 0, len(diff)+len(others))
	}
	for len(diff) > 0 || len(others) > 0 {
		var e Entry
		if len(others) == 0 || len(diff) > 0 && bytes.Compare(diff[0].Path, others[0].Path) <= 0 {
			e, diff = diff[0], diff[1:]
		} else {
			e, others = others[0], others[1:]
		}
		out = appendMerged(out, e)
	}
	return slices.Clip(out)
}

// appendMerged appends e to out, or folds it into out's last entry of the same path by the §1
// rules: deleted in the diff and untracked on disk (index-only removal), or listed twice by the
// diff (unmerged), is one modified entry.
func appendMerged(out []Entry, e Entry) []Entry {
	n := len(out)
	if n == 0 || !bytes.Equal(out[n-1].Path, e.Path) {
		return append(out, e)
	}
	prev := &out[n-1]
	switch {
	case e.Status == StatusUntracked && prev.Status != StatusUntracked:
		// index-only removal (D + untracked) or any other tracked/untracked overlap
		if prev.Status == StatusDeleted {
			prev.Status = StatusModified
		}
		prev.NestedRepository = prev.NestedRepository || e.NestedRepository
	case e.Status != prev.Status:
		prev.Status = StatusModified
	}
	return out
}

// IsFullOID reports whether s is a full SHA-1 object id of 40 lowercase hex digits, the only form
// in which a baseline is stored and passed to git.
func IsFullOID(s string) bool { return len(s) == 40 && isHex(s) }

// truncateForMessage shortens b to 40 bytes for an error message.
func truncateForMessage(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "..."
	}
	return string(b)
}

// checkLegacyInputs refuses, before git starts, a FIFO, socket or device where the plain
// recipe's git reads besides the files Discover and Open check. A FIFO at a work-tree
// .gitignore or .gitattributes is not found here; the run's deadline bounds that wait.
func (r *Repo) checkLegacyInputs() error {
	gitDir, commonDir, ok := gitDirOf(r.root)
	if !ok {
		return nil
	}
	return r.checkReadInputs(gitDir, commonDir, &inputsSnapshot{})
}
