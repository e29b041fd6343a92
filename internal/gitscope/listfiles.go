package gitscope

import (
	"context"
	"io"
	"slices"
	"sort"

	"github.com/mastermind-controller/mastermind/internal/repopath"
)

// lsAllArgs lists tracked plus untracked non-ignored files (§3 "List files").
var lsAllArgs = slices.Concat(globalArgs, untrackedGuardArgs, []string{
	"ls-files", "-z", "--cached", "--others", "--exclude-standard", "--full-name", "--",
})

// DiffStatUnavailable is DiffStat's text in degraded mode, which the release notes show.
const DiffStatUnavailable = "diff stat unavailable (degraded)\n"

// ListFiles returns every tracked file and every untracked, non-ignored file as sorted, unique
// repository-relative paths. Untracked nested repositories are left out, and submodule gitlinks
// are listed as their path.
func (r *Repo) ListFiles(ctx context.Context) ([]string, error) {
	if !r.gitUsable() {
		return r.degradedListFiles(ctx)
	}
	var out []string
	var total int64
	err := r.run(ctx, r.root, "ls-files", lsAllArgs, func(rd io.Reader) error {
		return eachRecord(rd, &total, func(p []byte) error {
			if len(p) == 0 {
				return shapef("empty path in ls-files output")
			}
			if p[len(p)-1] == '/' {
				return nil
			}
			out = append(out, string(p))
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(out)
	return slices.Compact(out), nil
}

// controlArtifactExcludes are the pathspecs that keep repopath.ClassifyControl's contract and
// controller names out of the release-notes diff stat. The stat is a display; whether such a
// path's bytes are the controller's is the changed set's decision.
var controlArtifactExcludes = []string{
	":(exclude,literal).mastermind/.gitignore",
	":(exclude,literal).mastermind/current",
	":(exclude,literal).mastermind/tasks/_lessons.md",
	":(exclude,glob).mastermind/releases/*.md",
	":(exclude,glob).mastermind/dispatch/*.json",
	":(exclude,glob).mastermind/tasks/*/spec.md",
	":(exclude,glob).mastermind/tasks/*/executor-report.md",
	":(exclude,glob).mastermind/tasks/*/history-review*.md",
	":(exclude,glob).mastermind/tasks/*/state.json",
	":(exclude,glob).mastermind/tasks/*/audit.md",
}

// diffStatGlobalArgs are globalArgs without --literal-pathspecs, which would turn the magic
// pathspecs of controlArtifactExcludes into literal paths.
var diffStatGlobalArgs = slices.DeleteFunc(slices.Clone(globalArgs), func(a string) bool { return a == "--literal-pathspecs" })

// DiffStat returns the release-notes diff stat (§4.5): the output of `git diff --stat=200
// --no-renames --no-color --no-ext-diff --no-textconv <baseline> -- . <controlArtifactExcludes>`
// with the hardened environment, at most 16 MiB. Without a usable git it returns
// DiffStatUnavailable and no error. The baseline must be a full OID (ErrBaselineUnavailable).
func (r *Repo) DiffStat(ctx context.Context, baseline string) (string, error) {
	if !IsFullOID(baseline) {
		return "", ErrBaselineUnavailable
	}
	if !r.gitUsable() {
		return DiffStatUnavailable, nil
	}
	fg := r.startFilterGuard(ctx)
	pi, err := r.newPrivateIndex(ctx)
	filterArgs, ferr := fg.wait()
	if err != nil {
		return "", err
	}
	defer pi.cleanup()
	if ferr != nil {
		return "", ferr
	}
	global := slices.Concat(diffStatGlobalArgs, diffConfigArgs, indexGuardArgs, filterArgs)
	args := slices.Concat(statCmd(baseline), []string{"."}, controlArtifactExcludes)
	out, err := r.runSmall(ctx, r.root, global, pi.env(), args...)
	if err != nil {
		return "", err
	}
	return string(out), nil
}

// statCmd is the git diff --stat command line of both diff stats, up to the pathspecs.
func statCmd(baseline string) []string {
	return []string{"diff", "--stat=200", "--no-renames", "--no-color", "--no-ext-diff", "--no-textconv", baseline, "--"}
}

// maxStatPathBytes bounds the paths the view's diff stat names on git's command line; a larger
// change set is diffed whole (".", the artifacts excluded) once every baseline tree has been
// verified.
const maxStatPathBytes = 256 << 10

// statExcluded reports whether the diff stat leaves p out: the controller's names that
// controlArtifactExcludes names, whatever their bytes.
func statExcluded(p string) bool {
	switch repopath.ClassifyControl(p).Kind {
	case repopath.ControlContract, repopath.ControlReport, repopath.ControlWritten:
		return true
	}
	return false
}

// diffStat is SnapshotView.DiffStat in CLI mode.
func (v *SnapshotView) diffStat(ctx context.Context) (string, error) {
	det := &v.det
	var paths, ita []string
	size := 0
	for _, e := range worktreeEntries(det.d0, det.dirty) {
		if p := string(e.Path); !statExcluded(p) {
			paths = append(paths, p)
			size += len(p) + 1
		}
	}
	for _, e := range det.others {
		if p := string(e.Path); !e.NestedRepository && v.added[p] && !statExcluded(p) {
			ita = append(ita, p)
			size += len(p) + 1
		}
	}
	if len(paths)+len(ita) == 0 {
		return "", nil
	}
	whole := size > maxStatPathBytes
	if err := v.verifyStatObjects(ctx, paths, whole); err != nil {
		return "", err
	}
	pi, err := v.r.snapshotIndex(v.store, v.s)
	if err != nil {
		return "", err
	}
	defer pi.cleanup()
	guard := slices.Concat(indexGuardArgs, fullIndexArgs, det.filterArgs)
	if v.s.SkipWorktree {
		guard = append(guard, sparseArgs...)
	}
	// Files the commits added are untracked for the index snapshot; intent-to-add entries make
	// git diff count them from the work tree.
	for chunk := range slices.Chunk(ita, lsTreeChunk) {
		args := slices.Concat(globalArgs, guard, []string{"add", "--intent-to-add", "--force", "--"}, chunk)
		if _, err := v.r.runSmall(ctx, v.r.root, nil, pi.env(), args...); err != nil {
			return "", err
		}
	}
	var global, args []string
	if whole {
		global = slices.Concat(diffStatGlobalArgs, diffConfigArgs, guard)
		args = slices.Concat(statCmd(v.baseline), []string{"."}, controlArtifactExcludes)
	} else {
		global = slices.Concat(globalArgs, diffConfigArgs, guard)
		args = slices.Concat(statCmd(v.baseline), paths, ita)
	}
	out, err := v.r.runSmall(ctx, v.r.root, global, pi.env(), args...)
	if err != nil {
		return "", err
	}
	return string(out), nil
}

// verifyStatObjects verifies every object git diff --stat reads for paths: the baseline commit,
// the trees on the way, each path's baseline and index-snapshot blobs, and the attribute blobs
// git may read from the index.
func (v *SnapshotView) verifyStatObjects(ctx context.Context, paths []string, whole bool) error {
	if any, err := v.objs.anyNew(ctx); err != nil || !any {
		return err
	}
	if v.baseline == EmptyTreeOID {
		return v.objs.verify(ctx, v.indexBlobs(paths)...)
	}
	t, err := v.objs.reader(ctx)
	if err != nil {
		return err
	}
	root, err := t.rootTree(ctx, v.baseline)
	if err != nil {
		return err
	}
	oids := []string{v.baseline}
	if whole {
		if err := v.objs.verifyBaselineTrees(ctx); err != nil {
			return err
		}
	}
	for _, p := range paths {
		e, trees, err := t.lookup(ctx, root, p)
		if err != nil {
			return err
		}
		oids = append(oids, trees...)
		if e != nil && !e.isTree() && e.mode != modeGitlink {
			oids = append(oids, e.oid)
		}
	}
	attrs, err := v.objs.attrIndexBlobs(ctx, v.s, v.det.d0)
	if err != nil {
		return err
	}
	return v.objs.verify(ctx, slices.Concat(oids, v.indexBlobs(paths), attrs)...)
}

// indexBlobs are the index snapshot's blobs of paths, from the snapshot run's records.
func (v *SnapshotView) indexBlobs(paths []string) []string {
	det := &v.det
	src := make(map[string]rawEntry, len(det.dirty))
	for _, e := range det.dirty {
		src[string(e.path)] = e
	}
	var oids []string
	for _, p := range paths {
		if e, ok := det.d0[p]; ok {
			if e.dstMode != 0 && e.dstMode != modeGitlink && !e.dst.isNull() {
				oids = append(oids, e.dst.String())
			}
		} else if e, ok := src[p]; ok && e.srcMode != 0 && e.srcMode != modeGitlink && !e.src.isNull() {
			oids = append(oids, e.src.String())
		}
	}
	return oids
}
