package cli

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"os"

	"github.com/mastermind-controller/mastermind/internal/audit"
	"github.com/mastermind-controller/mastermind/internal/gitscope"
	"github.com/mastermind-controller/mastermind/internal/postflight"
	"github.com/mastermind-controller/mastermind/internal/render"
	"github.com/mastermind-controller/mastermind/internal/textsafe"
	"github.com/spf13/cobra"
)

// ChangesOptions holds the flags of `mastermind changes`.
type ChangesOptions struct {
	IO    *IOStreams
	Since string
	Root  string
	JSON  bool
}

// NewCmdChanges builds `mastermind changes --since REV [--root DIR] [--json]` (gitscope.md §2a).
// runF replaces the run function in tests.
func NewCmdChanges(io *IOStreams, runF func(*ChangesOptions) error) *cobra.Command {
	opts := &ChangesOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "changes --since REV [--root DIR] [--json]",
		Short: "Print the changed set an audit with baseline REV would use",
		Long: `Print every path that really changed since the commit REV: the baseline tree compared with
the working tree (committed, staged and unstaged edits alike, net of reverts), plus untracked files
that are not ignored. Renames are a deletion plus an addition. mastermind's own files under
.mastermind/ (task specs, reports, reviews, state.json, audit.md, locks, release notes, lessons,
the current pointer) are left out, as the audit leaves them out; any other file there is listed.
Nothing is changed.

Text output is one line per path, "STATUS<TAB>path", sorted by path bytes; STATUS is added,
modified, deleted or untracked, and control characters in paths are escaped. --json prints
{"schema_version": 1, "baseline", "source", "degraded", "degraded_reason", "changes": [{"status",
"path"}]}; a path that is not valid UTF-8 carries "path_base64" instead of "path".

The set comes from git itself (git 2.24 or later). Without a usable git it comes from a built-in
reader and is marked degraded (source "go-git").

changes has no pre-flight snapshot: it reads the live index and the live ignore rules, as your
own git status does. So assume-unchanged bits, forged stat data in .git/index, rules added to
.gitignore files, .git/info/exclude or core.excludesFile, and attribute or configuration changes
made since a task's pre-flight still decide what it shows. Post-flight (run-task --post-only)
audits against the task's pre-flight snapshot and is not fooled by them (trust-model.md I1).
Replace refs, commit-graph and multi-pack-index files are ignored here too, and in a sparse
checkout a skip-worktree file present in the working tree is compared.

A directory created since REV that ignores itself is handled as post-flight handles it: a known
tool cache (.pytest_cache, .mypy_cache, .ruff_cache, .venv, target with CACHEDIR.TAG, ..., and
the names in .mastermind/tool-caches.yaml at REV) is left out and named on stderr (--json:
"tool_caches"); any other one is printed as one untracked line for the directory, although
git status hides it.

REV is resolved to a commit; it must be non-empty, at most 1024 bytes and must not start with "-".

Exit status:
  0  the changed set was printed
  2  usage error (missing --since, malformed REV, unknown flag)
  3  not a git repository, REV does not name a commit, or git failed`,
		Example: "  mastermind changes --since HEAD~3\n  mastermind changes --since 1a2b3c4 --json\n  mastermind changes --since main --root ../repo",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runChanges(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Since, "since", "", "baseline revision (commit, branch, tag); required")
	cmd.Flags().StringVar(&opts.Root, "root", "", "repository top level (default: discovered from the current directory)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the changed set as JSON")
	return cmd
}

// changesJSON is the --json envelope of `changes`.
type changesJSON struct {
	SchemaVersion  int               `json:"schema_version"`
	Baseline       string            `json:"baseline"`
	Source         string            `json:"source"`
	Degraded       bool              `json:"degraded"`
	DegradedReason string            `json:"degraded_reason"`
	Changes        []changeEntryJSON `json:"changes"`
	// ToolCaches are the tool caches created since the baseline, left out of changes
	// (gitscope.md §4.7); absent when none.
	ToolCaches []audit.ToolCacheJSON `json:"tool_caches,omitempty"`
}

type changeEntryJSON struct {
	Status     string `json:"status"`
	Path       string `json:"path,omitempty"`
	PathBase64 string `json:"path_base64,omitempty"`
}

func runChanges(ctx context.Context, opts *ChangesOptions) (err error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if opts.Since == "" {
		return usageErrorf("changes requires --since REV")
	}
	var repo *gitscope.Repo
	if opts.Root != "" {
		repo, err = gitscope.Open(opts.Root)
	} else {
		var wd string
		if wd, err = os.Getwd(); err == nil {
			repo, err = gitscope.Discover(wd)
		}
	}
	if err != nil {
		return err
	}
	// A full lowercase OID needs no serial rev-parse: ChangedSet validates it concurrently with
	// the recipe (gitscope.md §8.4).
	oid := opts.Since
	if !gitscope.IsFullOID(oid) {
		oid, err = repo.ResolveRevision(ctx, opts.Since)
		if errors.Is(err, gitscope.ErrInvalidRevision) {
			return usageErrorf("--since: %s", textsafe.Escape(err.Error()))
		}
		if errors.Is(err, gitscope.ErrRevisionNotFound) {
			return fmt.Errorf("--since %s", textsafe.Escape(err.Error()))
		}
		if err != nil {
			return &ExitError{Code: ExitOperational, Msg: textsafe.Escape(err.Error()), Err: err}
		}
	}
	cs, err := repo.ChangedSet(ctx, oid)
	if errors.Is(err, gitscope.ErrBaselineUnavailable) {
		return fmt.Errorf("--since %q %w", oid, gitscope.ErrRevisionNotFound)
	}
	if err != nil {
		return err
	}
	if !opts.JSON {
		for _, tc := range cs.ToolCaches {
			fmt.Fprintf(opts.IO.ErrOut, "left out: ignored tool cache created since the baseline: %s/, %d files (%s)\n",
				textsafe.Escape(tc.Dir), tc.Files, textsafe.Escape(tc.Tool))
		}
	}
	// The controller names are decided as the current task's post-flight decides them
	// (trust-model.md I3), from the store.
	gitDir, err := repo.GitDir()
	if err != nil {
		return err
	}
	rule, closeRule := postflight.ControlRuleFor(repo.Root(), gitDir, "", "")
	defer closeRule()
	return show(opts.IO, outputFormat(opts.JSON, ""), changesView{oid: oid, cs: cs, entries: cs.WithoutControl(rule)})
}

// changesView is the changed set since oid. The envelope and the text are built only for the
// format asked for, since the set may hold 100,000 entries.
type changesView struct {
	oid     string
	cs      *gitscope.ChangedSet
	entries []gitscope.Entry
}

func (v changesView) JSON() any {
	out := changesJSON{SchemaVersion: 1, Baseline: v.oid, Source: v.cs.Source, Degraded: v.cs.Degraded,
		DegradedReason: v.cs.DegradedReason, Changes: make([]changeEntryJSON, 0, len(v.entries))}
	for _, e := range v.entries {
		j := changeEntryJSON{Status: string(e.Status)}
		if e.UTF8 {
			j.Path = string(e.Path)
		} else {
			j.PathBase64 = base64.StdEncoding.EncodeToString(e.Path)
		}
		out.Changes = append(out.Changes, j)
	}
	for _, tc := range v.cs.ToolCaches {
		out.ToolCaches = append(out.ToolCaches, audit.ToolCacheJSON{Dir: tc.Dir + "/", Tool: tc.Tool, Files: tc.Files})
	}
	return out
}

func (changesView) Findings() render.Findings { return render.Findings{} }

// WriteText prints "STATUS<TAB>path" lines with textsafe-escaped paths. Characters a reader cannot
// see, such as U+200B, are escaped too, so "READ\u200BME.md" never prints as README.md.
func (v changesView) WriteText(t *render.Text) {
	n := 0
	for _, e := range v.entries {
		n += len(e.Status) + len(e.Path) + 2
	}
	t.Grow(n)
	for _, e := range v.entries {
		t.WriteString(string(e.Status))
		t.WriteString("\t")
		if textsafe.PrintableASCII(e.Path) {
			_, _ = t.Write(e.Path) // no string copy for the common path
		} else {
			t.WriteString(textsafe.Escape(string(e.Path)))
		}
		t.WriteString("\n")
	}
}
