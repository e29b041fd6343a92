// Package claims checks the structural claims of an executor report against the source, with no
// index or database (spec-and-lifecycle.md §10.6): function_added{symbol, file?, signature?} and
// integration{from, to, from_file?, to_file?, relation?}.
//
// Go is parsed with go/parser, go/ast and go/printer (no type checking). Python, JavaScript,
// TypeScript/TSX, Rust and Java (.java) are parsed with github.com/smacker/go-tree-sitter and its
// bundled grammars, compiled only with the cgo build tag (conventions.md §8). Java follows the
// issue "Claims checked against the source" (§10.6 recommends it next); its rules are documented
// in java.go: methods and constructors are declarations, identity is (class chain, name,
// parameter types), overloads are ambiguous unless a claimed signature picks exactly one, leading
// annotations are not part of a signature, and calls are method invocations, new, this(…) and
// super(…) (a method reference is not a call). An integration names a method, not an overload:
// the overloads of one Java method count as one target and one caller.
//
// Languages no backend can check give executor_claim_unresolved with one of two reasons. A
// language with a tree-sitter backend that this build leaves out (a build without cgo) is
// language_unavailable: a cgo build could check it. Any other language (.kt, .c, a Markdown file
// named in a claim) is language_unsupported. When the candidates of a search hold both kinds,
// language_unavailable is reported. (The issue "Claims checked against the source" fixes these
// values; spec-and-lifecycle.md §9.1 lists only language_unsupported, and consumers accept new
// reason values, §13.2.)
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
//	checks := claims.Verify(ctx, cs, changed, src, baseline) // cs from report.Claim, changed from D
//	for _, ch := range checks {
//		if ch.Finding != nil {
//			findings = append(findings, *ch.Finding)
//		}
//	}
//	// evidence: "claim_checks": checks (each Check marshals to {claim_index, claim, status, evidence?, finding?})
