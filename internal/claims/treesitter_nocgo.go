//go:build !cgo

package claims

// TreeSitter reports whether this build checks Python, JavaScript, TypeScript/TSX, Rust and Java
// claims. Without cgo the tree-sitter grammars are not compiled in, and a claim that needs a file in
// those languages makes Verify return a BackendUnavailableError instead of an outcome: a cgo build
// could decide it (lifecycle-v2.md §8). Languages without any backend stay language_unsupported.
const TreeSitter = false
