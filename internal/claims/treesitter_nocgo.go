//go:build !cgo

package claims

// TreeSitter reports whether this build checks Python, JavaScript, TypeScript/TSX and Rust claims.
// Without cgo the tree-sitter grammars are not compiled in, and claims whose files are in those
// languages are executor_claim_unresolved{reason: language_unavailable}: a cgo build could check
// them (spec-and-lifecycle.md §10.6; conventions.md §8). Languages without any backend stay
// language_unsupported.
const TreeSitter = false
