package report

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/fsx"
)

// Rule ids of the transport and encoding stages (§5.2 stages 1 and 2).
const (
	RuleMissing    = "report.missing"
	RuleNotRegular = "report.not_regular"
	RuleUnstable   = "report.unstable"
	RuleTooLarge   = "report.too_large"
	RuleNotUTF8    = "report.not_utf8"
	RuleEmpty      = "report.empty"
)

// ReadInRepo reads <root>/<rel> under all five transport checks of §1.1 and validates it; rel is
// slash-separated and relative to the repository root. Refusals are findings with File = rel,
// and the error is non-nil only for other I/O failures.
func ReadInRepo(root, rel string) (Result, error) {
	return ReadInRoot(root, rel, rel)
}

// ReadInRoot is ReadInRepo with an explicit display path for the findings' File field.
func ReadInRoot(root, rel, display string) (Result, error) {
	if filepath.IsAbs(rel) {
		return transportResult(display, &fsx.PathError{Path: rel, Reason: fsx.ReasonOutsideRoot}, filepath.Join(root, rel))
	}
	data, err := fsx.ReadInRoot(root, filepath.ToSlash(rel), MaxBytes)
	if err != nil {
		return transportResult(display, err, filepath.Join(root, filepath.FromSlash(rel)))
	}
	return Validate(data, display), nil
}

// ReadDir reads the entry name of the open task folder d under the same checks as ReadInRepo
// and validates it (trust-model.md I4); display is the findings' File.
func ReadDir(d *fsx.Dir, name, display string) (Result, error) {
	data, err := d.ReadFile(name, MaxBytes)
	if err != nil {
		return transportResult(display, err, filepath.Join(d.Path(), name))
	}
	return Validate(data, display), nil
}

// ReadPath reads path for `report validate FILE` under checks 1 and 3–5 of §1.1 and validates
// it; display is the findings' File. The error is non-nil only for I/O failures other than those
// refusals.
func ReadPath(path, display string) (Result, error) {
	data, err := fsx.ReadFile(path, MaxBytes)
	if err != nil {
		return transportResult(display, err, path)
	}
	return Validate(data, display), nil
}

// ReadFrom reads and validates a report from r, standard input for `report validate -`; more
// than MaxBytes is report.too_large. The stable check does not apply to a stream.
func ReadFrom(r io.Reader, display string) (Result, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxBytes+1))
	if err != nil {
		return Result{}, fmt.Errorf("read %s: %w", display, err)
	}
	if len(data) > MaxBytes {
		return single(display, RuleTooLarge, tooLargeMessage(int64(len(data)))), nil
	}
	return Validate(data, display), nil
}

func tooLargeMessage(n int64) string {
	return fmt.Sprintf("executor report is %d bytes; the limit is 1048576 bytes (1 MiB)", n)
}

func single(file, rule, msg string) Result {
	return Result{Findings: []finding.Finding{{Rule: rule, Class: finding.ClassError, File: file, Message: msg}}}
}

// transportResult maps a refusal from internal/fsx to its §5.2 stage-1 finding; any other error is
// returned as an operational error.
func transportResult(display string, err error, full string) (Result, error) {
	var pe *fsx.PathError
	if !errors.As(err, &pe) {
		return Result{}, err
	}
	switch pe.Reason {
	case fsx.ReasonMissing:
		return single(display, RuleMissing, fmt.Sprintf("executor report %s does not exist; the executor must write it before post-flight", display)), nil
	case fsx.ReasonTooLarge:
		n := pe.Size
		if fi, err := os.Lstat(full); err == nil && fi.Size() > n {
			n = fi.Size()
		}
		return single(display, RuleTooLarge, tooLargeMessage(n)), nil
	case fsx.ReasonUnstable:
		return single(display, RuleUnstable, fmt.Sprintf("executor report %s changed while it was being read; re-run when the executor has finished writing", display)), nil
	}
	var found string
	switch pe.Reason {
	case fsx.ReasonSymlink:
		found = "symlink"
	case fsx.ReasonSymlinkedAncestor:
		found = "symlinked ancestor " + pe.Detail
	case fsx.ReasonOutsideRoot:
		found = "path outside the repository"
	case fsx.ReasonNotRegular:
		found = pe.Detail
		if found == "" {
			found = "special file"
		}
	default:
		return Result{}, err
	}
	return single(display, RuleNotRegular, fmt.Sprintf("executor report %s must be a regular file inside the repository (found %s)", display, found)), nil
}
