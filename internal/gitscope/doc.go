// Package gitscope computes the real changed-file set of a git work tree since a baseline, as
// specified in docs/design/gitscope.md (the contract), and owns every other read of the
// repository: discovery, HEAD, baseline validation, baseline trees and blobs, commit lookups,
// the file list and the release-notes diff stat.
//
// It is the only package that runs git and the only one that uses go-git.
//
//   - The changed set comes from the hardened git CLI recipe (§4.1/§4.2): `git diff --name-status
//     -z --no-renames <baseline>` and `git ls-files -z --others --exclude-standard`, run
//     concurrently with the baseline validation and `git version`, with an explicitly built
//     environment, parsed as NUL-separated bytes, merged by the rules of §1. The diff reads and
//     refreshes a private copy of the index (index.go), so the repository is never written, and
//     no hook runs (core.hooksPath=/dev/null). FIFOs and devices where git reads a repository
//     file are refused before anything opens them (safeopen.go). docs/hardening.md lists the
//     hostile cases tried.
//   - Settings an executor can write into the agent-editable .git/config, config.worktree or
//     .git/info/* never decide the result where git would let them hide a change (pin.go):
//     every command run in the repository carries `--work-tree=<root>` (core.worktree could
//     point git at a decoy copy of the baseline) and `-c core.ignorecase=<probed>`, where the
//     value comes from a read-only probe of the work tree's file system (an existing directory
//     looked up with its name's case swapped is the same file), not from configuration; also
//     `-c core.checkStat=default -c core.trustctime=true` (a relaxed stat comparison hid a
//     same-size edit with its mtime restored) and `-c core.symlinks=true` off Windows; the
//     untracked listings carry `-c core.untrackedCache=false`. core.fileMode stays honoured (§7
//     #7).
//   - No filter driver runs (filters.go): concurrently with the private-index copy, `git config
//     --list -z` lists every configured driver (reading configuration runs nothing), and each diff disables them all with `-c
//     filter.<name>.clean= -c filter.<name>.smudge= -c filter.<name>.process= -c
//     filter.<name>.required=false`; a clean filter from .git/info/attributes could otherwise
//     both rewrite an edited file into the baseline's bytes and run a command. Consequence
//     (fail closed, see README.md): a stat-dirty file behind a transforming filter (git-lfs)
//     compares as its raw bytes and shows as modified. A driver name that -c cannot express
//     (containing '=') is refused with ErrGitFailed.
//   - go-git (§5) is opened lazily once (openGoGit: special files refused, alternates left to
//     the CLI) for HEAD, baseline blobs and commit lookups; git CLI equivalents take over when
//     go-git cannot open the layout (§3). Baseline tree lookups (BaselineEntries) ask one
//     batched `git ls-tree` when git is usable: go-git's first object read decodes the whole
//     pack index, which cost post-flight its speed target; go-git reads trees without git.
//     Worktree.Status() is never called.
//   - Without git >= 2.24 on PATH, the degraded pure-Go fallback of §6 runs and marks its result
//     Degraded.
//   - HooksDir (hooks.go) asks git where the user's git looks for hooks, for `hook install`: the
//     one query run without the core.hooksPath=/dev/null pin and with the caller's
//     GIT_CONFIG_GLOBAL/GIT_CONFIG_SYSTEM/GIT_CONFIG_NOSYSTEM; it has no degraded fallback.
//   - Post-flight reads the repository through a SnapshotView (view.go, gitscope.md §4.6,
//     trust-model.md I1 and §4.5): TakeSnapshot records the index, its diff against the
//     baseline, the ignore and attribute sources, the configuration and the baseline's
//     .gitignore files at pre-flight in a SnapshotStore; the view runs git against a private
//     copy of the index snapshot under the pre-flight ignore rules, reports every other changed
//     input as an InputChange, adds the commits since the baseline, reads objects through a
//     hashing git cat-file, verifies every copy written since pre-flight of what it or git
//     reads, audits submodules against their own snapshots and refuses a FIFO where git would
//     read before git starts.
package gitscope
