package spec

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/agnivade/levenshtein"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/fsx"
	"github.com/mastermind-controller/mastermind/internal/textsafe"
)

// CheckDeclaredFiles checks that every touches and expected_docs path of s.Scope exists now under
// the absolute root as a regular file with no symlink in its path (§3.2, §10.4). It returns one
// spec.declared_file_unavailable finding per failing path, in declaration order.
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

// maxSuggestEntries bounds the directory entries ClosestPath compares per directory.
const maxSuggestEntries = 10000

// ClosestPath suggests the existing regular file nearest to the missing repository-relative
// path rel by the rule of spec-and-lifecycle.md §3.2, or "" when nothing is near enough.
func ClosestPath(root, rel string) string {
	parts := strings.Split(rel, "/")
	if len(parts) > 64 || len(rel) > 4096 {
		return ""
	}
	d, err := fsx.OpenDir(root, "")
	if err != nil {
		return ""
	}
	defer func() { d.Close() }()
	got := make([]string, 0, len(parts))
	for i, want := range parts {
		last := i == len(parts)-1
		name := closestEntry(d, want, last)
		if name == "" {
			return ""
		}
		got = append(got, name)
		if !last {
			sub, err := d.Sub(name)
			if err != nil {
				return ""
			}
			d.Close()
			d = sub
		}
	}
	cand := strings.Join(got, "/")
	a, b := strings.ToLower(rel), strings.ToLower(cand)
	if cand == rel || levenshtein.ComputeDistance(a, b) > max(utf8.RuneCountInString(a), utf8.RuneCountInString(b))/3 {
		return ""
	}
	return cand
}

// closestEntry returns the entry of d nearest to want, a regular file when file is true and a
// directory otherwise, or "". An exact name wins, then the smallest distance without case, then
// with case, then the name.
func closestEntry(d *fsx.Dir, want string, file bool) string {
	names, err := d.Names()
	if err != nil {
		return ""
	}
	sort.Strings(names)
	if len(names) > maxSuggestEntries {
		names = names[:maxSuggestEntries]
	}
	isKind := func(n string) bool {
		fi, err := d.Lstat(n)
		if err != nil {
			return false
		}
		if file {
			return fi.Mode().IsRegular()
		}
		return fi.IsDir()
	}
	if slices.Contains(names, want) && isKind(want) {
		return want
	}
	lw, wn := strings.ToLower(want), utf8.RuneCountInString(want)
	best, bestD, bestExact := "", -1, -1
	for _, n := range names {
		if n == ".git" || n == want {
			continue
		}
		if bestD >= 0 && abs(utf8.RuneCountInString(n)-wn) > bestD {
			continue // the distance is at least the difference in length
		}
		dist, exact := levenshtein.ComputeDistance(lw, strings.ToLower(n)), levenshtein.ComputeDistance(want, n)
		if bestD >= 0 && (dist > bestD || (dist == bestD && exact >= bestExact)) {
			continue
		}
		if isKind(n) {
			best, bestD, bestExact = n, dist, exact
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
// regular file the executor adds (lifecycle-v2.md §7), since an approval that could never end
// held is useless. It returns one spec.creation_not_regular finding per failing path, in
// declaration order.
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
