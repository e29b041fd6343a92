package forge

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/repopath"
	"github.com/mastermind-controller/mastermind/internal/textsafe"
)

// CompareFiles checks files_changed against the paths git reports as changed since rev, leaving
// out .mastermind/ and the forge run logs ingest writes. Listed paths git does not show and
// changed paths the report omits are errors, sorted by path.
func CompareFiles(report *Object, changed []string, rev string) []Error {
	fc, ok := report.vals["files_changed"].([]any)
	if !ok {
		return nil
	}
	inGit := map[string]bool{}
	for _, c := range changed {
		if strings.HasPrefix(c, RunsDir+"/") {
			continue
		}
		inGit[c] = true
	}
	listed := map[string]bool{}
	var errs []Error
	for i, e := range fc {
		s, ok := e.(string)
		if !ok {
			errs = append(errs, Error{Rule: RuleFilesNotChanged, Message: fmt.Sprintf("files_changed[%d] is not a string (got %s)", i, Stringify(nil, e))})
			continue
		}
		p, err := repopath.Clean(s)
		if err != nil {
			errs = append(errs, Error{Rule: RuleFilesNotChanged, Message: fmt.Sprintf("files_changed[%d] %s", i, textsafe.Escape(err.Error()))})
			continue
		}
		if listed[p] {
			continue
		}
		listed[p] = true
		if !inGit[p] {
			errs = append(errs, Error{Rule: RuleFilesNotChanged, Message: fmt.Sprintf("files_changed lists %q but git shows no change to it since %s", textsafe.Escape(p), rev)})
		}
	}
	var unlisted []string
	for p := range inGit {
		if !listed[p] {
			unlisted = append(unlisted, p)
		}
	}
	sort.Strings(unlisted)
	for _, p := range unlisted {
		errs = append(errs, Error{Rule: RuleFilesUnlisted, Message: fmt.Sprintf("%q changed since %s but is not listed in files_changed", textsafe.Escape(p), rev)})
	}
	return errs
}
