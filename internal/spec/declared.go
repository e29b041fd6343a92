package spec

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/fsx"
	"github.com/mastermind-controller/mastermind/internal/textsafe"
)

// CheckDeclaredFiles checks that every touches and expected_docs path of s.Scope exists now under
// root (absolute) as a regular file with no symlink in its path (§3.2, §10.4), first matching row
// wins:
//
//   - missing: reason target_missing;
//   - a symlink, directory, FIFO or other non-regular file, or a symlinked or non-directory
//     ancestor: target_not_regular;
//   - any other stat error: target_unavailable.
//
// It returns one spec.declared_file_unavailable finding (class error, no position) per failing
// path, in declaration order, with fields file and reason, and File set to the spec path given to
// Parse. Only a frontmatter scope has touches and expected_docs; for others it returns nil.
func CheckDeclaredFiles(root string, s *Spec) []finding.Finding {
	if s == nil {
		return nil
	}
	var out []finding.Finding
	seen := map[string]bool{}
	paths := append(append([]string(nil), s.Scope.Touches...), s.Scope.ExpectedDocs...)
	for _, p := range paths {
		if seen[p] {
			continue
		}
		seen[p] = true
		reason := DeclaredFileReason(root, p)
		if reason == "" {
			continue
		}
		out = append(out, finding.Finding{Rule: RuleDeclaredFileUnavailable, Class: finding.ClassError, File: s.file,
			Message: fmt.Sprintf("declared file %s is unavailable (%s)", textsafe.Escape(p), reason),
			Fields:  []finding.Field{{Key: "file", Value: p}, {Key: "reason", Value: reason}}})
	}
	return out
}

// DeclaredFileReason returns the §10.4 reason why the repository-relative path rel is not a
// regular file reachable without symlinks under root, or "" when it is one.
func DeclaredFileReason(root, rel string) string {
	err := fsx.CheckNoSymlink(root, rel)
	if err == nil {
		fi, serr := os.Lstat(filepath.Join(root, filepath.FromSlash(rel)))
		switch {
		case serr == nil && fi.Mode().IsRegular():
			return ""
		case serr == nil:
			return ReasonTargetNotRegular
		case errors.Is(serr, fs.ErrNotExist):
			return ReasonTargetMissing
		default:
			return ReasonTargetUnavailable
		}
	}
	switch fsx.ReasonOf(err) {
	case fsx.ReasonMissing:
		return ReasonTargetMissing
	case fsx.ReasonSymlink, fsx.ReasonSymlinkedAncestor, fsx.ReasonNotRegular:
		return ReasonTargetNotRegular
	}
	return ReasonTargetUnavailable
}
