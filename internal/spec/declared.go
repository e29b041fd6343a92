package spec

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/agnivade/levenshtein"

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
	touches := len(s.Scope.Touches)
	paths := append(append([]string(nil), s.Scope.Touches...), s.Scope.ExpectedDocs...)
	for i, p := range paths {
		if seen[p] {
			continue
		}
		seen[p] = true
		reason := DeclaredFileReason(root, p)
		if reason == "" {
			continue
		}
		msg := fmt.Sprintf("declared file %s is unavailable (%s)", textsafe.Escape(p), reason)
		fields := []finding.Field{{Key: "file", Value: p}, {Key: "reason", Value: reason}}
		if reason == ReasonTargetMissing {
			list := "touches"
			if i >= touches {
				list = "expected_docs"
			}
			closest := ClosestPath(root, p)
			if closest != "" {
				msg += fmt.Sprintf(": it does not exist; did you mean %s? If the task creates %s, list it under creates instead of %s",
					textsafe.Escape(closest), textsafe.Escape(p), list)
				fields = append(fields, finding.Field{Key: "closest", Value: closest})
			} else {
				msg += ": it does not exist; if the task creates it, list it under creates instead of " + list
			}
		}
		out = append(out, finding.Finding{Rule: RuleDeclaredFileUnavailable, Class: finding.ClassError, File: s.file,
			Message: msg, Fields: fields})
	}
	return out
}

// maxSuggestEntries bounds the directory entries ClosestPath reads per directory.
const maxSuggestEntries = 10000

// ClosestPath suggests the existing regular file nearest to the missing repository-relative
// path rel: each component is matched, from the root down, to the closest entry of its
// directory (by Levenshtein distance without case; directories for the inner components, a
// regular file for the last, never a symlink or .git). The result is "" when nothing is within
// a third of the longer path's length, so a path that was never a typo gets no suggestion.
func ClosestPath(root, rel string) string {
	parts := strings.Split(rel, "/")
	if len(parts) > 64 || len(rel) > 4096 {
		return ""
	}
	got := make([]string, 0, len(parts))
	for i, want := range parts {
		last := i == len(parts)-1
		name := closestEntry(filepath.Join(root, filepath.FromSlash(strings.Join(got, "/"))), want, last)
		if name == "" {
			return ""
		}
		got = append(got, name)
	}
	cand := strings.Join(got, "/")
	a, b := strings.ToLower(rel), strings.ToLower(cand)
	if cand == rel || levenshtein.ComputeDistance(a, b) > max(utf8.RuneCountInString(a), utf8.RuneCountInString(b))/3 {
		return ""
	}
	return cand
}

// closestEntry returns the entry of dir nearest to want (an exact name first), a regular file
// when file is true and a directory otherwise, or "".
func closestEntry(dir, want string, file bool) string {
	f, err := os.Open(dir)
	if err != nil {
		return ""
	}
	defer f.Close()
	entries, _ := f.ReadDir(maxSuggestEntries)
	lw := strings.ToLower(want)
	best, bestD, bestExact := "", -1, -1
	for _, e := range entries {
		n, t := e.Name(), e.Type()
		if n == ".git" || (file && !t.IsRegular()) || (!file && !t.IsDir()) {
			continue
		}
		if n == want {
			return n
		}
		if bestD >= 0 && abs(utf8.RuneCountInString(n)-utf8.RuneCountInString(want)) > bestD {
			continue // the distance is at least the difference in length
		}
		d, x := levenshtein.ComputeDistance(lw, strings.ToLower(n)), levenshtein.ComputeDistance(want, n)
		if bestD < 0 || d < bestD || (d == bestD && (x < bestExact || (x == bestExact && n < best))) {
			best, bestD, bestExact = n, d, x
		}
	}
	return best
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
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

// CheckCreates checks, for pre-flight, that every creates path of s.Scope can still end as a
// regular file the executor adds (lifecycle-v2.md §7): the path may be absent or an untracked
// regular file, but it must not be a symlink, a directory, a FIFO, a socket or a device now, and
// no ancestor may be a symlink or a non-directory. Such an approval could never end held
// (§10.4: target_not_regular). It returns one spec.creation_not_regular finding (class error, no
// position) per failing path, in declaration order, with fields file, reason (target_not_regular
// or target_unavailable) and found, and File set to the spec path given to Parse.
func CheckCreates(root string, s *Spec) []finding.Finding {
	if s == nil {
		return nil
	}
	var out []finding.Finding
	for _, p := range s.Scope.Creates {
		found, reason := creationObstacle(root, p)
		if found == "" {
			continue
		}
		out = append(out, finding.Finding{Rule: RuleCreationNotRegular, Class: finding.ClassError, File: s.file,
			Message: fmt.Sprintf("creates path %s is %s, so the executor can never add it as a regular file; remove it from the work tree, or declare the real path the task creates",
				textsafe.Escape(p), found),
			Fields: []finding.Field{{Key: "file", Value: p}, {Key: "reason", Value: reason}, {Key: "found", Value: found}}})
	}
	return out
}

// creationObstacle describes what stands at or above the creates path rel, or "" when the path is
// absent or a regular file reachable without symlinks.
func creationObstacle(root, rel string) (found, reason string) {
	err := fsx.CheckNoSymlink(root, rel)
	var pe *fsx.PathError
	switch {
	case err == nil:
	case errors.As(err, &pe) && pe.Reason == fsx.ReasonMissing:
		return "", ""
	case errors.As(err, &pe) && pe.Reason == fsx.ReasonSymlink:
		return "a symbolic link", ReasonTargetNotRegular
	case errors.As(err, &pe) && pe.Reason == fsx.ReasonSymlinkedAncestor:
		return "below the symbolic link " + textsafe.Escape(pe.Detail), ReasonTargetNotRegular
	case errors.As(err, &pe) && pe.Reason == fsx.ReasonNotRegular:
		return "below " + textsafe.Escape(pe.Detail), ReasonTargetNotRegular
	default:
		return "unreadable (" + textsafe.Escape(err.Error()) + ")", ReasonTargetUnavailable
	}
	fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(rel)))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", ""
	case err != nil:
		return "unreadable (" + textsafe.Escape(err.Error()) + ")", ReasonTargetUnavailable
	}
	m := fi.Mode()
	switch {
	case m.IsRegular():
		return "", ""
	case m.IsDir():
		return "a directory", ReasonTargetNotRegular
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO", ReasonTargetNotRegular
	case m&fs.ModeSocket != 0:
		return "a socket", ReasonTargetNotRegular
	case m&fs.ModeDevice != 0:
		return "a device", ReasonTargetNotRegular
	}
	return "a special file", ReasonTargetNotRegular
}
