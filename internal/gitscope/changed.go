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

// lsOthersArgs is the untracked-files command of §4.1 without -C.
var lsOthersArgs = slices.Concat(globalArgs, untrackedGuardArgs, []string{
	"ls-files", "-z", "--others", "--exclude-standard", "--full-name", "--",
})

// ChangedSet computes C for baseline (a full 40-hex commit OID, or EmptyTreeOID) — gitscope.md §1.
//
// With git >= 2.24 on PATH it runs the §4.1 recipe: diff and ls-files concurrently with the
// baseline validation and `git version`; a failed validation discards both results
// (ErrBaselineUnavailable). Errors: *ErrGitFailed (non-zero exit, timeout, unexpected output
// shape, more than 256 MiB of path bytes), *ErrDubiousOwnership, ErrBaselineUnavailable.
// Without a usable git it returns the degraded §6 result (Source "go-git", Degraded true), or an
// error naming the layout when go-git cannot open the repository. Never partial, never truncated.
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
	// The filter drivers to disable are read while the index is copied; the diff and the
	// listing wait for them (the listing for the FIFO check of core.excludesFile).
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
	var hiddenDirs []string
	var hiddenErr error
	wg.Add(5)
	go func() {
		defer wg.Done()
		if _, err := fg.wait(); err != nil {
			return
		}
		hiddenDirs, hiddenErr = r.hiddenDirs(ctx)
	}()
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
		var t int64
		if _, err := fg.wait(); err != nil {
			lsErr = err
			return
		}
		// ls-files only reads the index: the real one.
		lsErr = r.run(ctx, r.root, "ls-files", lsOthersArgs, func(rd io.Reader) error {
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
	if hiddenErr != nil {
		return nil, hiddenErr
	}
	entries, caches, hiding, err := r.liveToolCaches(parent, baseline).apply(mergeEntries(diffEntries, lsEntries), r.liveSelfIgnoring(hiddenDirs))
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

// parseDiff reads `diff --name-status -z` output: <letter>\0<path>\0 pairs. A status other than
// one of A D M T U X (a score, an empty status), an empty path or a missing NUL is a shape error.
func parseDiff(nr *nulReader) ([]Entry, error) {
	var out []Entry
	var a arena
	for {
		st, err := nr.next()
		if err == io.EOF {
			return out, nil
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
		out = append(out, Entry{Path: a.copy(p), Status: status, UTF8: utf8.Valid(p)})
	}
}

// parseOthers reads `ls-files -z --others` output: <path>\0 entries, where a trailing '/' marks a
// nested repository (recorded without the slash, NestedRepository set).
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

// mergeEntries applies the §1 merge rules to diff entries and untracked entries: sorted by path
// bytes, one entry per path; a path both deleted in the diff and untracked on disk (index-only
// removal) is one `modified` entry; a path listed twice by the diff (unmerged) is `modified`.
func mergeEntries(diff, others []Entry) []Entry {
	all := make([]Entry, 0, len(diff)+len(others))
	all = append(all, diff...)
	all = append(all, others...)
	slices.SortStableFunc(all, func(x, y Entry) int { return bytes.Compare(x.Path, y.Path) })
	out := all[:0]
	for _, e := range all {
		if n := len(out); n > 0 && bytes.Equal(out[n-1].Path, e.Path) {
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
			continue
		}
		out = append(out, e)
	}
	return slices.Clip(out)
}

// IsFullOID reports whether s is a full SHA-1 object id: exactly 40 lowercase hex digits (the
// only form a baseline is stored and passed to git in, gitscope.md §4.2).
func IsFullOID(s string) bool { return len(s) == 40 && isHex(s) }

// truncateForMessage shortens b to 40 bytes for an error message.
func truncateForMessage(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "..."
	}
	return string(b)
}

// checkLegacyInputs refuses at once, before git starts, a FIFO, socket or device where the
// plain recipe's git reads besides the files Discover and Open check: info/attributes,
// info/grafts, info/sparse-checkout, .gitmodules, and the configuration files with their
// includes. (A FIFO at a work-tree .gitignore or .gitattributes is not found here; only a
// snapshot run, which never reads them, is immune; the run's deadline bounds the plain one.)
func (r *Repo) checkLegacyInputs() error {
	gitDir, commonDir, ok := gitDirOf(r.root)
	if !ok {
		return nil
	}
	return r.checkReadInputs(gitDir, commonDir, &inputsSnapshot{})
}
