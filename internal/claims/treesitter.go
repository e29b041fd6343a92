//go:build cgo

package claims

import (
	"errors"
	"path"
	"strings"

	ts "github.com/tree-sitter/go-tree-sitter"
	tsjavascript "github.com/tree-sitter/tree-sitter-javascript/bindings/go"
	tspython "github.com/tree-sitter/tree-sitter-python/bindings/go"
	tsrust "github.com/tree-sitter/tree-sitter-rust/bindings/go"
	tstypescript "github.com/tree-sitter/tree-sitter-typescript/bindings/go"
)

// The tree-sitter backend uses the official binding and grammar modules, which are C and so are
// compiled only with cgo (spec-and-lifecycle.md §10.6).
func init() {
	for l, g := range map[language]*ts.Language{
		langPython: ts.NewLanguage(tspython.Language()), langJS: ts.NewLanguage(tsjavascript.Language()),
		langTS: ts.NewLanguage(tstypescript.LanguageTypescript()), langTSX: ts.NewLanguage(tstypescript.LanguageTSX()),
		langRust: ts.NewLanguage(tsrust.Language()),
	} {
		backends[l] = backend{
			parse:    func(file string, src []byte) (*unit, error) { return parseTS(l, g, file, src) },
			findCall: findTSCall,
		}
	}
}

// TreeSitter reports whether this build checks Python, JavaScript, TypeScript/TSX, Rust and Java
// claims, which it does when built with cgo.
const TreeSitter = true

// maxTSDepth bounds the syntax-tree depth the walkers descend; deeper files fail to parse.
const maxTSDepth = 2000

var errTSSyntax = errors.New("syntax error")

// callKind classifies a call's callee.
type callKind uint8

const (
	callBare      callKind = iota // f(…)
	callMember                    // x.f(…); qual is the text of x
	callQualified                 // a::b::f(…) (Rust paths); qual is the path text
	callNew                       // Java new T(…) (qual ""), this(…) or super(…) (qual "this"/"super")
)

// tsCall is one call found in a declaration's body (closures and nested functions included).
type tsCall struct {
	kind callKind
	name string
	qual string
	line int
}

// tsFile is the tree-sitter backend's parse result: the names that imports bind in the file,
// and for Java the static imports and supertypes. The syntax tree is not kept.
type tsFile struct {
	imports map[string]bool
	java    *javaFile
}

// tsWalker extracts declarations, calls and imports from one syntax tree.
type tsWalker struct {
	lang    language
	src     []byte
	u       *unit
	imports map[string]bool
	java    *javaFile // Java only
	err     error
}

// parseTS parses src with a tree-sitter grammar and lists its callables with their enclosing
// chain, and its type declarations and top-level variables as non-functions. A tree with any
// ERROR or MISSING node fails the parse.
func parseTS(l language, g *ts.Language, file string, src []byte) (*unit, error) {
	// The official binding frees nothing by itself: the parser and the tree are C memory
	// released only by Close (leak_cgo_test.go). Nodes are values inside the tree.
	p := ts.NewParser()
	defer p.Close()
	if err := p.SetLanguage(g); err != nil {
		return nil, err
	}
	tree := p.Parse(src, nil)
	if tree == nil {
		return nil, errTSSyntax
	}
	defer tree.Close()
	root := tree.RootNode()
	if root == nil || root.HasError() {
		return nil, errTSSyntax
	}
	w := &tsWalker{lang: l, src: src, imports: map[string]bool{},
		u: &unit{path: file, module: tsModuleName(file)}}
	if l == langJava {
		w.java = newJavaFile()
		w.u.module = "" // the package declaration's name, if any (javaImport)
	}
	w.walk(root, nil, false, 0)
	if w.err != nil {
		return nil, w.err
	}
	if w.java != nil {
		w.u.module = w.java.pkg
	}
	w.u.impl = &tsFile{imports: w.imports, java: w.java}
	return w.u, nil
}

// tsModuleName is the module a file defines: its stem, or the directory name for a package entry
// file such as __init__.py, index.js or mod.rs.
func tsModuleName(file string) string {
	base := path.Base(file)
	stem := strings.TrimSuffix(base, path.Ext(base))
	switch stem {
	case "__init__", "index", "mod", "lib", "main":
		if d := path.Base(path.Dir(file)); d != "." && d != "/" {
			return d
		}
	}
	return stem
}

func (w *tsWalker) text(n *ts.Node) string {
	if n == nil {
		return ""
	}
	s, e := n.StartByte(), n.EndByte()
	if int(e) > len(w.src) || s > e {
		return ""
	}
	return string(w.src[s:e])
}

func line(n *ts.Node) int { return int(n.StartPosition().Row) + 1 }

// field is n's first child with the field name, or nil.
func field(n *ts.Node, name string) *ts.Node { return n.ChildByFieldName(name) }

// namedChildren lists n's named children in order. Indexing costs one cgo call per child, a
// third of what a TreeCursor costs.
func namedChildren(n *ts.Node) []*ts.Node {
	cnt := n.NamedChildCount()
	out := make([]*ts.Node, 0, cnt)
	for i := range cnt {
		if c := n.NamedChild(i); c != nil {
			out = append(out, c)
		}
	}
	return out
}

// tsSignature is the source text from the start of the declaration to the start of its body, with
// white-space runs collapsed, trimmed, and stripped of a trailing ":" or "{".
func (w *tsWalker) tsSignature(decl, body *ts.Node) string {
	s, e := decl.StartByte(), body.StartByte()
	if int(e) > len(w.src) || s > e {
		return ""
	}
	sig := collapseSpace(string(w.src[s:e]))
	sig = strings.TrimSuffix(sig, ":")
	sig = strings.TrimSuffix(sig, "{")
	return strings.TrimSpace(sig)
}

// callable is a function-like declaration recognised by a language's classifier.
type callable struct {
	name     string
	decl     *ts.Node // start of the signature
	body     *ts.Node
	method   bool   // constructor, method or associated function (inside a class, impl or trait)
	ctor     bool   // Java constructor
	overload string // Java parameter-type list
}

// container is a class, impl, trait, module or namespace scope.
type container struct {
	name    string
	body    *ts.Node
	typeish bool // class/impl/trait: callables inside are methods
	record  bool // also a non-function declaration (class, trait), not impl or module
}

// walk visits n with the enclosing container chain. inType says whether the nearest enclosing
// scope is a class, impl or trait.
func (w *tsWalker) walk(n *ts.Node, chain []string, inType bool, depth int) {
	if w.err != nil {
		return
	}
	if depth > maxTSDepth {
		w.err = errors.New("syntax tree nested too deeply")
		return
	}
	w.imports0(n)
	if c, ok := w.classifyCallable(n, inType); ok {
		d := &decl{container: strings.Join(chain, "."), name: c.name, kind: declFunction,
			line: line(c.decl), sig: w.tsSignature(c.decl, c.body), ctor: c.ctor, overload: c.overload}
		if c.method {
			d.kind = declMethod
		}
		d.node = w.calls(c.body)
		w.u.decls = append(w.u.decls, d)
		w.walkChildren(c.body, append(chain[:len(chain):len(chain)], c.name), false, depth+1)
		return
	}
	if c, ok := w.classifyContainer(n); ok {
		if c.record {
			w.u.decls = append(w.u.decls, &decl{container: strings.Join(chain, "."), name: c.name, kind: declOther, line: line(n)})
		}
		if c.body != nil {
			w.walkChildren(c.body, append(chain[:len(chain):len(chain)], c.name), c.typeish, depth+1)
		}
		return
	}
	if len(chain) == 0 || w.lang == langJava { // Java: fields and constants of any class
		for _, name := range w.classifyOther(n) {
			w.u.decls = append(w.u.decls, &decl{container: strings.Join(chain, "."), name: name, kind: declOther, line: line(n)})
		}
	}
	w.walkChildren(n, chain, inType, depth+1)
}

func (w *tsWalker) walkChildren(n *ts.Node, chain []string, inType bool, depth int) {
	for _, c := range namedChildren(n) {
		w.walk(c, chain, inType, depth)
	}
}

// classifyCallable recognises function, method and constructor nodes.
func (w *tsWalker) classifyCallable(n *ts.Node, inType bool) (callable, bool) {
	t := n.Kind()
	switch w.lang {
	case langPython:
		if t == "function_definition" {
			return w.named(n, field(n, "name"), field(n, "body"), inType)
		}
	case langJS, langTS, langTSX:
		switch t {
		case "function_declaration", "generator_function_declaration":
			return w.named(n, field(n, "name"), field(n, "body"), false)
		case "method_definition":
			return w.named(n, field(n, "name"), field(n, "body"), true)
		case "variable_declarator":
			v := field(n, "value")
			if v == nil {
				return callable{}, false
			}
			switch v.Kind() {
			case "arrow_function", "function_expression", "function", "generator_function":
				return w.named(n, field(n, "name"), field(v, "body"), false)
			}
		}
	case langRust:
		if t == "function_item" {
			return w.named(n, field(n, "name"), field(n, "body"), inType)
		}
	case langJava:
		return w.javaCallable(n)
	}
	return callable{}, false
}

func (w *tsWalker) named(decl, name, body *ts.Node, method bool) (callable, bool) {
	if name == nil || body == nil {
		return callable{}, false
	}
	return callable{name: w.text(name), decl: decl, body: body, method: method}, true
}

// classifyContainer recognises scopes that qualify the declarations inside them.
func (w *tsWalker) classifyContainer(n *ts.Node) (container, bool) {
	t := n.Kind()
	mk := func(name, body *ts.Node, typeish, record bool) (container, bool) {
		if name == nil {
			return container{}, false
		}
		return container{name: w.text(name), body: body, typeish: typeish, record: record}, true
	}
	switch w.lang {
	case langPython:
		if t == "class_definition" {
			return mk(field(n, "name"), field(n, "body"), true, true)
		}
	case langJS, langTS, langTSX:
		switch t {
		case "class_declaration", "abstract_class_declaration", "class":
			return mk(field(n, "name"), field(n, "body"), true, true)
		case "internal_module", "module":
			return mk(field(n, "name"), field(n, "body"), false, false)
		case "interface_declaration", "enum_declaration", "type_alias_declaration":
			return mk(field(n, "name"), nil, false, true)
		}
	case langRust:
		switch t {
		case "impl_item":
			typ := field(n, "type")
			if typ == nil {
				return container{}, false
			}
			name := w.text(typ)
			if i := strings.IndexByte(name, '<'); i >= 0 {
				name = name[:i]
			}
			if i := strings.LastIndex(name, "::"); i >= 0 {
				name = name[i+2:]
			}
			return container{name: strings.TrimSpace(name), body: field(n, "body"), typeish: true}, true
		case "trait_item":
			return mk(field(n, "name"), field(n, "body"), true, true)
		case "mod_item":
			if b := field(n, "body"); b != nil {
				return mk(field(n, "name"), b, false, false)
			}
			if name := field(n, "name"); name != nil {
				w.imports[w.text(name)] = true // `mod x;` brings module x into scope
			}
		case "struct_item", "enum_item", "union_item", "type_item":
			return mk(field(n, "name"), nil, false, true)
		}
	case langJava:
		return w.javaContainer(n)
	}
	return container{}, false
}

// classifyOther names top-level non-function declarations (module-level variables and constants).
func (w *tsWalker) classifyOther(n *ts.Node) []string {
	switch w.lang {
	case langPython:
		if n.Kind() == "assignment" {
			if l := field(n, "left"); l != nil && l.Kind() == "identifier" {
				if p := n.Parent(); p != nil && p.Kind() == "expression_statement" {
					if gp := p.Parent(); gp != nil && gp.Kind() == "module" {
						return []string{w.text(l)}
					}
				}
			}
		}
	case langJS, langTS, langTSX:
		if n.Kind() == "variable_declarator" {
			if name := field(n, "name"); name != nil && name.Kind() == "identifier" {
				return []string{w.text(name)}
			}
		}
	case langRust:
		switch n.Kind() {
		case "const_item", "static_item":
			if name := field(n, "name"); name != nil {
				return []string{w.text(name)}
			}
		}
	case langJava:
		return w.javaFields(n)
	}
	return nil
}

// imports0 records the names an import-like node binds.
func (w *tsWalker) imports0(n *ts.Node) {
	switch w.lang {
	case langPython:
		switch n.Kind() {
		case "import_statement", "import_from_statement":
			for i, c := range namedChildren(n) {
				if n.Kind() == "import_from_statement" && i == 0 {
					continue // the module the names come from
				}
				switch c.Kind() {
				case "dotted_name":
					full := w.text(c)
					w.imports[full] = true
					if first, _, ok := strings.Cut(full, "."); ok {
						w.imports[first] = true
					}
				case "aliased_import":
					if a := field(c, "alias"); a != nil {
						w.imports[w.text(a)] = true
					}
				}
			}
		}
	case langJS, langTS, langTSX:
		switch n.Kind() {
		case "import_clause", "namespace_import":
			for _, c := range namedChildren(n) {
				if c.Kind() == "identifier" {
					w.imports[w.text(c)] = true
				}
			}
		case "import_specifier":
			name := field(n, "alias")
			if name == nil {
				name = field(n, "name")
			}
			if name != nil {
				w.imports[w.text(name)] = true
			}
		case "variable_declarator":
			// const m = require("…")
			if v := field(n, "value"); v != nil && v.Kind() == "call_expression" {
				if f := field(v, "function"); f != nil && w.text(f) == "require" {
					if name := field(n, "name"); name != nil && name.Kind() == "identifier" {
						w.imports[w.text(name)] = true
					}
				}
			}
		}
	case langRust:
		switch n.Kind() {
		case "use_declaration":
			w.rustUse(field(n, "argument"), 0)
		}
	case langJava:
		w.javaImport(n)
	}
}

// rustUse records the names a use tree binds: the last segment of a path, an alias, or every item
// of a use list.
func (w *tsWalker) rustUse(n *ts.Node, depth int) {
	if n == nil || depth > maxTSDepth {
		return
	}
	switch n.Kind() {
	case "identifier", "crate", "self", "super":
		w.imports[w.text(n)] = true
	case "scoped_identifier":
		if name := field(n, "name"); name != nil {
			w.imports[w.text(name)] = true
		}
	case "use_as_clause":
		if a := field(n, "alias"); a != nil {
			w.imports[w.text(a)] = true
		}
	case "scoped_use_list":
		w.rustUse(field(n, "list"), depth+1)
	case "use_list":
		for _, c := range namedChildren(n) {
			w.rustUse(c, depth+1)
		}
	}
}

// calls lists the calls inside body in source order, closures and nested functions included.
// Iterative, so deep expressions cannot exhaust the stack.
func (w *tsWalker) calls(body *ts.Node) []tsCall {
	var out []tsCall
	stack := []*ts.Node{body}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if c, ok := w.call(n); ok {
			out = append(out, c)
		}
		kids := namedChildren(n)
		for i := len(kids) - 1; i >= 0; i-- {
			stack = append(stack, kids[i])
		}
	}
	return out
}

// call classifies a call node's callee. A function passed as a value is not a call node.
func (w *tsWalker) call(n *ts.Node) (tsCall, bool) {
	if w.lang == langJava {
		return w.javaCall(n)
	}
	t := n.Kind()
	if t != "call" && t != "call_expression" {
		return tsCall{}, false
	}
	f := field(n, "function")
	for f != nil && (f.Kind() == "generic_function" || f.Kind() == "parenthesized_expression") {
		if f.Kind() == "generic_function" {
			f = field(f, "function")
		} else {
			kids := namedChildren(f)
			if len(kids) != 1 {
				return tsCall{}, false
			}
			f = kids[0]
		}
	}
	if f == nil {
		return tsCall{}, false
	}
	switch f.Kind() {
	case "identifier":
		return tsCall{kind: callBare, name: w.text(f), line: line(f)}, true
	case "attribute": // Python obj.attr
		if a := field(f, "attribute"); a != nil {
			return tsCall{kind: callMember, name: w.text(a), qual: w.text(field(f, "object")), line: line(a)}, true
		}
	case "member_expression": // JS/TS obj.prop
		if p := field(f, "property"); p != nil {
			return tsCall{kind: callMember, name: w.text(p), qual: w.text(field(f, "object")), line: line(p)}, true
		}
	case "field_expression": // Rust value.field
		if p := field(f, "field"); p != nil {
			return tsCall{kind: callMember, name: w.text(p), qual: w.text(field(f, "value")), line: line(p)}, true
		}
	case "scoped_identifier": // Rust a::b::f
		if p := field(f, "name"); p != nil {
			return tsCall{kind: callQualified, name: w.text(p), qual: w.text(field(f, "path")), line: line(p)}, true
		}
	}
	return tsCall{}, false
}

// findTSCall binds a call in fd's body to td by the tree-sitter rules of spec-and-lifecycle.md
// §10.6 step 5.
func findTSCall(_ *verifier, from *unit, fd *decl, to *unit, td *decl) (int, string, bool) {
	calls, _ := fd.node.([]tsCall)
	imports := from.impl.(*tsFile).imports
	ctype := td.container
	if i := strings.LastIndexByte(ctype, '.'); i >= 0 {
		ctype = ctype[i+1:]
	}
	for _, c := range calls {
		if c.name != td.name {
			continue
		}
		switch {
		case td.kind == declMethod && c.kind == callMember:
			return c.line, BasisMethodName, true
		case td.kind == declMethod && c.kind == callQualified:
			last := lastSegment(c.qual)
			if last == ctype || last == "Self" {
				return c.line, BasisMethodName, true
			}
		case td.kind == declFunction && c.kind == callBare:
			return c.line, BasisName, true
		case td.kind == declFunction && c.kind == callMember:
			// A module alias, or the namespace/module that contains the function.
			if imports[c.qual] || (td.container != "" && c.qual == ctype) {
				return c.line, BasisImport, true
			}
		case td.kind == declFunction && c.kind == callQualified:
			last := lastSegment(c.qual)
			if imports[last] || last == to.module || (td.container != "" && last == ctype) {
				return c.line, BasisImport, true
			}
		}
	}
	return 0, "", false
}

// withoutTypeArgs removes generic type arguments, nested ones included, from a Java or Rust type
// name: "Map<K, List<V>>" -> "Map", "a::Wrapper::<u8>" -> "a::Wrapper::".
func withoutTypeArgs(s string) string {
	var b strings.Builder
	depth := 0
	for _, r := range s {
		switch {
		case r == '<':
			depth++
		case r == '>' && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// lastSegment is the last segment of a Rust path without generic arguments:
// "a::Wrapper::<u8>" -> "Wrapper", "Vec<T>" -> "Vec".
func lastSegment(q string) string {
	q = strings.TrimSuffix(strings.TrimSpace(withoutTypeArgs(q)), "::")
	if i := strings.LastIndex(q, "::"); i >= 0 {
		q = q[i+2:]
	}
	return strings.TrimSpace(q)
}
