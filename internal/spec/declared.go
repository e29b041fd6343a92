package spec

import "github.com/mastermind-controller/mastermind/internal/finding"

// CheckDeclaredFiles checks that every touches and expected_docs path of s exists now under root
// as a regular file with no symlink in its path (§3.2, §10.4). It returns one
// spec.declared_file_unavailable finding per failing path, with fields file and reason
// (target_missing, target_not_regular or target_unavailable). File of each finding is empty;
// the caller sets the spec path. It is meaningful only when s.Scope.Source is "frontmatter".
func CheckDeclaredFiles(root string, s *Spec) []finding.Finding {
	return nil
}
