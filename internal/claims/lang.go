package claims

import (
	"path"
	"strings"
)

// language is a source language, chosen by file extension (spec-and-lifecycle.md §10.6).
type language string

const (
	langGo     language = "go"
	langPython language = "python"
	langJS     language = "javascript"
	langTS     language = "typescript"
	langTSX    language = "tsx"
	langRust   language = "rust"
	langJava   language = "java"
)

// langByExt maps the §10.6 extensions to languages. Go is supported in every build, the
// tree-sitter languages only with cgo.
var langByExt = map[string]language{
	".go": langGo, ".py": langPython,
	".js": langJS, ".mjs": langJS, ".cjs": langJS, ".jsx": langJS,
	".ts": langTS, ".tsx": langTSX, ".rs": langRust, ".java": langJava,
}

// otherSourceExts are programming-language extensions without a backend in any build. A changed
// file with one of them turns "symbol not found" into language_unsupported, because the symbol may
// live there.
var otherSourceExts = map[string]bool{
	".c": true, ".h": true, ".cc": true, ".cpp": true, ".cxx": true, ".hpp": true, ".hh": true,
	".cs": true, ".kt": true, ".kts": true, ".scala": true, ".groovy": true,
	".rb": true, ".php": true, ".swift": true, ".m": true, ".mm": true, ".dart": true, ".lua": true,
	".ex": true, ".exs": true, ".erl": true, ".hs": true, ".ml": true, ".fs": true, ".clj": true,
	".pl": true, ".pm": true, ".r": true, ".jl": true, ".zig": true, ".nim": true, ".vue": true,
	".svelte": true, ".elm": true, ".pyi": true,
}

// parseFunc parses one file into a unit; an error is a parse failure.
type parseFunc func(file string, src []byte) (*unit, error)

// callFinder searches fd's body (in from) for a call that binds to td (in to), returning the
// 1-based call line and the match basis.
type callFinder func(v *verifier, from *unit, fd *decl, to *unit, td *decl) (line int, basis string, ok bool)

type backend struct {
	parse    parseFunc
	findCall callFinder
}

// backends holds the languages this build supports. Go registers in golang.go; the tree-sitter
// languages register in treesitter.go and java.go, which are compiled only with cgo.
var backends = map[language]backend{}

// langOf returns the language of a path by extension and whether this build supports it. listed
// reports whether some build supports it, other whether it is in otherSourceExts.
func langOf(p string) (l language, supported, listed, other bool) {
	ext := strings.ToLower(path.Ext(p))
	if l, ok := langByExt[ext]; ok {
		_, sup := backends[l]
		return l, sup, true, false
	}
	return "", false, false, otherSourceExts[ext]
}

// family groups languages that bind to each other without a foreign-function layer: JavaScript,
// TypeScript and TSX import each other directly.
func family(l language) string {
	switch l {
	case langJS, langTS, langTSX:
		return "javascript"
	}
	return string(l)
}

// excludedFromSearch reports whether a listed file is skipped when resolving an integration target
// without to_file: .mastermind/ at the top, and vendor/, node_modules/ or testdata/ at any depth.
func excludedFromSearch(p string) bool {
	if strings.HasPrefix(p, ".mastermind/") {
		return true
	}
	for _, part := range strings.Split(path.Dir(p), "/") {
		switch part {
		case "vendor", "node_modules", "testdata":
			return true
		}
	}
	return false
}
