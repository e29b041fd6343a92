package gitscope

import (
	"context"
	"io"
	"slices"
	"sort"
)

// lsAllArgs lists tracked plus untracked non-ignored files (§3 "List files").
var lsAllArgs = slices.Concat(globalArgs, untrackedGuardArgs, []string{
	"ls-files", "-z", "--cached", "--others", "--exclude-standard", "--full-name", "--",
})

// DiffStatUnavailable is DiffStat's text in degraded mode (§3: the release notes say so).
const DiffStatUnavailable = "diff stat unavailable (degraded)\n"

// ListFiles returns every tracked file plus every untracked, non-ignored file, as
// repository-relative '/'-separated paths, sorted and unique. Untracked nested repositories
// (git's "dir/") are not files and are left out; submodule gitlinks are listed as their path.
// Uses `git ls-files -z --cached --others --exclude-standard`, or the go-git index plus the
// ignore-aware walk without a usable git.
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

// controlArtifactExcludes are the pathspecs that keep the controller's own names out of the
// release-notes diff stat: repopath.ClassifyControl's contract and controller names as globs (a
// glob's "*" does not cross "/"; the task-name rule is not checked, which matters only for what
// the stat shows). The stat is a display: whether such a path's bytes are the controller's is
// the changed set's decision (trust-model.md I3). Every other path below .mastermind/ (a lock,
// a temporary file) is in the stat.
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
	args := slices.Concat(diffStatGlobalArgs, diffConfigArgs, indexGuardArgs, filterArgs,
		[]string{"diff", "--stat=200", "--no-renames", "--no-color", "--no-ext-diff", "--no-textconv", baseline, "--", "."}, controlArtifactExcludes)
	var out []byte
	err = r.runEnv(ctx, r.root, "diff", args, pi.env(), func(rd io.Reader) error {
		b, err := io.ReadAll(io.LimitReader(rd, maxSmallOut+1))
		if len(b) > maxSmallOut {
			return shapef("diff stat over %d bytes", maxSmallOut)
		}
		out = b
		return err
	})
	if err != nil {
		return "", err
	}
	return string(out), nil
}
