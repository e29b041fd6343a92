package audit

import (
	"os"
	"path/filepath"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/fsx"
	"github.com/mastermind-controller/mastermind/internal/gitscope"
	"github.com/mastermind-controller/mastermind/internal/spec"
)

// checkDeclared applies §10.4: the declared files are readable regular files, and every
// declared creation is absent from the baseline tree, added or untracked in the changed set and
// a regular file in the working tree. A failed baseline lookup makes every declared creation
// creation_baseline_unavailable.
func checkDeclared(r *run) ([]finding.Finding, error) {
	root, sp := r.in.Root, r.in.Spec
	var fs []finding.Finding
	touches := map[string]bool{}
	for _, p := range sp.Scope.Touches {
		touches[p] = true
	}
	for _, f := range spec.CheckDeclaredFiles(root, sp) {
		file, reason := f.FieldString("file"), f.FieldString("reason")
		if reason == ReasonTargetMissing && touches[file] {
			fs = append(fs, findTouchDeleted(file))
			continue
		}
		fs = append(fs, findDeclaredFileUnavailable(file, reason))
	}
	entries := r.in.Prefetch.baselineEntries()
	for _, p := range sp.Scope.Creates {
		switch {
		case entries.err != nil:
			fs = append(fs, findDeclaredFileUnavailable(p, ReasonCreationBaselineUnavailable))
			continue
		case entries.types[p] != "" && entries.types[p] != gitscope.EntryAbsent:
			fs = append(fs, findDeclaredFileUnavailable(p, ReasonCreationExistsInBaseline))
			continue
		}
		if s, ok := r.status(p); !ok || (s != gitscope.StatusAdded && s != gitscope.StatusUntracked) {
			fs = append(fs, findDeclaredFileUnavailable(p, ReasonCreationNotAdded))
			continue
		}
		if err := fsx.CheckNoSymlink(root, p); err != nil {
			fs = append(fs, findDeclaredFileUnavailable(p, ReasonTargetNotRegular))
			continue
		}
		if fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(p))); err != nil || !fi.Mode().IsRegular() {
			fs = append(fs, findDeclaredFileUnavailable(p, ReasonTargetNotRegular))
		}
	}
	return fs, nil
}
