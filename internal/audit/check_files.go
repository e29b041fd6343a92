package audit

import (
	"errors"
	"unicode/utf8"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/gitscope"
	"github.com/mastermind-controller/mastermind/internal/repopath"
	"github.com/mastermind-controller/mastermind/internal/textsafe"
)

// checkFilesModified applies §10.2: every files_modified entry is in D, and every path of D is
// listed.
func checkFilesModified(r *run) ([]finding.Finding, error) {
	var fs []finding.Finding
	listed := map[string]bool{}
	for _, fm := range r.rep.FilesModified {
		if listed[fm.Path] {
			continue // a duplicate entry of a partial report is one finding
		}
		listed[fm.Path] = true
		if _, ok := r.status(fm.Path); !ok {
			fs = append(fs, findReportUnexpectedFile(fm.Path))
		}
	}
	r.pathFindings(finding.KindReportMissingChangedFile, func(i int) bool { return !listed[r.paths[i]] })
	return fs, nil
}

// unrepresentable reports whether a changed path can never be listed in files_modified, with its
// changed_path_unrepresentable finding: it is not valid UTF-8, fails repopath hygiene, or
// normalises to another path. Such paths are left out of every other comparison.
func unrepresentable(e gitscope.Entry) (finding.Finding, bool) {
	if !e.UTF8 || !utf8.Valid(e.Path) {
		return findChangedPathUnrepresentable(textsafe.Escape(string(e.Path))), true
	}
	p := string(e.Path)
	n, err := repopath.Clean(p)
	var pe *repopath.Error
	switch {
	case errors.As(err, &pe):
		return findChangedPathInvalid(textsafe.Escape(p), string(pe.Reason)), true
	case err != nil:
		return findChangedPathInvalid(textsafe.Escape(p), err.Error()), true
	case n != p:
		return findChangedPathInvalid(textsafe.Escape(p), "files_modified normalisation rewrites it to "+textsafe.Escape(n)), true
	}
	return finding.Finding{}, false
}
