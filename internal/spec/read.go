package spec

import (
	"errors"
	"fmt"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/fsx"
)

// RuleUnreadable and the other spec.* rule ids of spec-and-lifecycle.md §3.2 emitted here.
const (
	RuleUnreadable              = "spec.unreadable"
	RuleFrontmatterUnterminated = "spec.frontmatter_unterminated"
	RuleFrontmatterInvalid      = "spec.frontmatter_invalid"
	RuleFrontmatterUnknownKey   = "spec.frontmatter_unknown_key"
	RuleSectionMissing          = "spec.section_missing"
	RuleSectionDuplicate        = "spec.section_duplicate"
	RulePathInvalid             = "spec.path_invalid"
	RuleDeclarationLimit        = "spec.declaration_limit"
	RuleDeclarationConflict     = "spec.declaration_conflict"
	RuleDeclaredFileUnavailable = "spec.declared_file_unavailable"
	RuleCreationNotRegular      = "spec.creation_not_regular"
	RuleVerifyCommandEmpty      = "spec.verify_command_empty"
	RuleVerifyUnterminated      = "spec.verify_command_unterminated"
	RuleNoVerifyCommand         = "spec.no_verify_command"
)

// Read reads root/rel, rel slash-separated and repository-relative, under §1.1 and parses it. A
// file §1.1 refuses gives a nil Spec and one spec.unreadable finding whose File is rel; any other
// I/O failure is an error.
func Read(root, rel string) (*Spec, []finding.Finding, error) {
	data, err := fsx.ReadInRoot(root, rel, MaxBytes)
	return parseRead(data, err, rel)
}

// ReadDir is Read for the entry name of the open task folder d (trust-model.md I4); rel is the
// repository-relative path for findings.
func ReadDir(d *fsx.Dir, name, rel string) (*Spec, []finding.Finding, error) {
	data, err := d.ReadFile(name, MaxBytes)
	return parseRead(data, err, rel)
}

// parseRead parses what a read of the spec rel returned: a refusal (*fsx.PathError) is one
// spec.unreadable finding, any other error is returned.
func parseRead(data []byte, err error, rel string) (*Spec, []finding.Finding, error) {
	if err != nil {
		var pe *fsx.PathError
		if !errors.As(err, &pe) {
			return nil, nil, fmt.Errorf("read spec %s: %w", rel, err)
		}
		return nil, []finding.Finding{unreadableFinding(rel, pe)}, nil
	}
	s, fs := Parse(data, rel)
	return s, fs, nil
}

// unreadableFinding turns a refusal into spec.unreadable with a reason field.
func unreadableFinding(rel string, pe *fsx.PathError) finding.Finding {
	var msg string
	switch pe.Reason {
	case fsx.ReasonMissing:
		msg = fmt.Sprintf("spec %s does not exist; write the task contract before running the task", rel)
	case fsx.ReasonSymlink:
		msg = fmt.Sprintf("spec %s must be a regular file inside the repository (found a symlink)", rel)
	case fsx.ReasonSymlinkedAncestor:
		msg = fmt.Sprintf("spec %s must be a regular file inside the repository (found symlinked ancestor %s)", rel, pe.Detail)
	case fsx.ReasonNotRegular:
		msg = fmt.Sprintf("spec %s must be a regular file inside the repository (found %s)", rel, pe.Detail)
	case fsx.ReasonOutsideRoot:
		msg = fmt.Sprintf("spec %s must be a regular file inside the repository (found a path outside the repository)", rel)
	case fsx.ReasonTooLarge:
		msg = fmt.Sprintf("spec %s is larger than the limit of %d bytes (16 MiB); shorten it", rel, MaxBytes)
	case fsx.ReasonUnstable:
		msg = fmt.Sprintf("spec %s changed while it was being read; re-run when the planner has finished writing", rel)
	default:
		msg = fmt.Sprintf("spec %s cannot be read: %v", rel, pe)
	}
	return finding.Finding{Rule: RuleUnreadable, Class: finding.ClassError, File: rel, Message: msg,
		Fields: []finding.Field{{Key: "reason", Value: string(pe.Reason)}}}
}
