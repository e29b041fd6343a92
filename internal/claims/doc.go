// Package claims checks the structural claims of an executor report against the source, with no
// index or database (spec-and-lifecycle.md §10.6): function_added{symbol, file?, signature?} and
// integration{from, to, from_file?, to_file?, relation?}.
//
// Go is parsed with go/parser, go/ast and go/printer (no type checking). Python, JavaScript,
// TypeScript/TSX, Rust and Java (.java) are parsed with the official tree-sitter binding
// github.com/tree-sitter/go-tree-sitter and the official grammar modules
// (github.com/tree-sitter/tree-sitter-{python,javascript,typescript,rust,java}), which are C and so
// are compiled only with cgo (conventions.md §8). Java follows the issue "Claims checked against
// the source" (§10.6 recommends it next); its rules are documented in java.go: methods and
// constructors are declarations, identity is (class chain, name, parameter types), overloads are
// ambiguous unless a claimed signature picks exactly one, leading annotations are not part of a
// signature, and calls are method invocations, new, this(…) and super(…) (a method reference is
// not a call). An integration names a method, not an overload: the overloads of one Java method
// count as one target and one caller.
//
// The verdict does not depend on the build (lifecycle-v2.md §8). A claim that needs a file in one
// of those languages in a build without their backend (no cgo) gets no outcome: Verify returns a
// *BackendUnavailableError (errors.Is ErrBackendUnavailable) naming the language, and post-flight
// ends as an operational error. A file of any other programming language (.kt, .c; a Markdown
// file named in a claim) is executor_claim_unresolved{reason: language_unsupported} in every build.
//
// Verify is pure with respect to its inputs: it reads files only through a Source, so post-flight
// plugs in the working tree (fsx, no symlinks followed, 4 MiB per file) and the baseline tree
// (gitscope). Its outcomes are Checks in claim order, one per claim; failed and unresolved checks
// carry a finding.Finding whose Rule is the audit kind of §9.1 and whose Message is the §9.3 text.
package claims

// Post-flight wiring (spec-and-lifecycle.md §4 step 5.7):
//
//	src := claims.RootSource{
//		Root:     repo.Root(),
//		Baseline: func(p string) ([]byte, bool, error) { return repo.BaselineBlob(ctx, baseline, p) },
//		List:     func() ([]string, error) { return repo.ListFiles(ctx) },
//	}.Source()
//	checks, err := claims.Verify(ctx, cs, changed, src, baseline) // cs from report.Claim, changed from D
//	if err != nil {
//		return err // a missing backend (ErrBackendUnavailable): operational, exit 3, no verdict
//	}
//	for _, ch := range checks {
//		if ch.Finding != nil {
//			findings = append(findings, *ch.Finding)
//		}
//	}
//	// evidence: "claim_checks": checks (each Check marshals to {claim_index, claim, status, evidence?, finding?})
