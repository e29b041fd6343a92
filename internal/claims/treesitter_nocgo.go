//go:build !cgo

package claims

// TreeSitter reports whether this build checks Python, JavaScript, TypeScript/TSX, Rust and Java
// claims. Without cgo a claim that needs one of them makes Verify return a BackendUnavailableError.
const TreeSitter = false
