//go:build cgo

package claims

import (
	"strings"

	ts "github.com/tree-sitter/go-tree-sitter"
	tsjava "github.com/tree-sitter/tree-sitter-java/bindings/go"
)

// The Java backend shares the tree-sitter walker of treesitter.go; its declaration, overload,
// signature and call rules are in spec-and-lifecycle.md §10.6, "Java".
func init() {
	grammar := ts.NewLanguage(tsjava.Language())
	backends[langJava] = backend{
		parse:    func(file string, src []byte) (*unit, error) { return parseTS(langJava, grammar, file, src) },
		findCall: findJavaCall,
	}
}

// javaFile holds what a Java call search needs beyond the declarations: the package name, the
// static imports as "Util.send" or "Util.*", and each class's direct supertypes by simple name.
type javaFile struct {
	pkg     string
	statics map[string]bool
	supers  map[string][]string
}

func newJavaFile() *javaFile {
	return &javaFile{statics: map[string]bool{}, supers: map[string][]string{}}
}

// javaCallable recognises method, constructor and compact-constructor declarations with a body.
func (w *tsWalker) javaCallable(n *ts.Node) (callable, bool) {
	t := n.Kind()
	switch t {
	case "method_declaration", "constructor_declaration", "compact_constructor_declaration":
	default:
		return callable{}, false
	}
	name, body := field(n, "name"), field(n, "body")
	if name == nil || body == nil {
		return callable{}, false
	}
	params := field(n, "parameters")
	if t == "compact_constructor_declaration" {
		// Its parameters are the record's components.
		if cb := n.Parent(); cb != nil {
			if r := cb.Parent(); r != nil && r.Kind() == "record_declaration" {
				params = field(r, "parameters")
			}
		}
	}
	return callable{name: w.text(name), decl: javaSigStart(n), body: body, method: true,
		ctor: t != "method_declaration", overload: w.javaParamKey(params)}, true
}

// javaSigStart is the node where a declaration's signature starts: its first child that is not an
// annotation or comment, looking inside the modifiers.
func javaSigStart(n *ts.Node) *ts.Node {
	for i := range n.ChildCount() {
		c := n.Child(i)
		if c == nil {
			continue
		}
		switch c.Kind() {
		case "modifiers":
			for j := range c.ChildCount() {
				if m := c.Child(j); m != nil && !javaSkippable(m.Kind()) {
					return m
				}
			}
		default:
			if !javaSkippable(c.Kind()) {
				return c
			}
		}
	}
	return n
}

func javaSkippable(t string) bool {
	switch t {
	case "marker_annotation", "annotation", "line_comment", "block_comment":
		return true
	}
	return false
}

// javaParamKey is the parameter-type list of a formal_parameters node without white space or a
// receiver parameter: "(final String a, int b[], List<T>... c)" -> "(String,int[],List<T>...)".
func (w *tsWalker) javaParamKey(params *ts.Node) string {
	if params == nil {
		return "()"
	}
	var parts []string
	for _, c := range namedChildren(params) {
		switch c.Kind() {
		case "formal_parameter":
			parts = append(parts, squash(w.text(field(c, "type"))+w.text(field(c, "dimensions"))))
		case "spread_parameter":
			for _, k := range namedChildren(c) {
				if k.Kind() != "modifiers" && !javaSkippable(k.Kind()) {
					parts = append(parts, squash(w.text(k))+"...")
					break
				}
			}
		}
	}
	return "(" + strings.Join(parts, ",") + ")"
}

// squash removes all white space.
func squash(s string) string { return strings.Join(strings.Fields(s), "") }

// javaContainer recognises the scopes that qualify Java declarations, and records supertypes.
func (w *tsWalker) javaContainer(n *ts.Node) (container, bool) {
	switch n.Kind() {
	case "class_declaration", "interface_declaration", "enum_declaration", "record_declaration",
		"annotation_type_declaration":
		name := field(n, "name")
		if name == nil {
			return container{}, false
		}
		cname := w.text(name)
		for _, c := range namedChildren(n) {
			switch c.Kind() {
			case "superclass", "super_interfaces", "extends_interfaces":
				w.java.supers[cname] = append(w.java.supers[cname], w.javaTypeNames(c, 0)...)
			}
		}
		return container{name: cname, body: field(n, "body"), typeish: true, record: true}, true
	case "enum_constant":
		// RED { void f() {} }: the constant is a non-function and, with a body, a scope.
		if name := field(n, "name"); name != nil {
			return container{name: w.text(name), body: field(n, "body"), typeish: true, record: true}, true
		}
	case "object_creation_expression":
		// An anonymous class: a scope named after its type.
		for _, c := range namedChildren(n) {
			if c.Kind() == "class_body" {
				if typ := field(n, "type"); typ != nil {
					return container{name: javaSimpleName(w.text(typ)), body: c, typeish: true}, true
				}
			}
		}
	}
	return container{}, false
}

// javaTypeNames lists the simple names of the types in a superclass, super_interfaces or
// extends_interfaces clause.
func (w *tsWalker) javaTypeNames(n *ts.Node, depth int) []string {
	var out []string
	for _, c := range namedChildren(n) {
		switch {
		case c.Kind() == "type_list" && depth < 2:
			out = append(out, w.javaTypeNames(c, depth+1)...)
		case javaSkippable(c.Kind()):
		default:
			out = append(out, javaSimpleName(w.text(c)))
		}
	}
	return out
}

// javaSimpleName is a type's simple name: type arguments, qualification and white space removed
// ("java.util.Map<K, V>" -> "Map", "Outer.Inner" -> "Inner").
func javaSimpleName(s string) string {
	q := squash(withoutTypeArgs(s))
	if i := strings.LastIndexByte(q, '.'); i >= 0 {
		q = q[i+1:]
	}
	return q
}

// javaFields names the fields of a field or interface constant declaration (int a, b; -> a, b).
func (w *tsWalker) javaFields(n *ts.Node) []string {
	switch n.Kind() {
	case "field_declaration", "constant_declaration":
	default:
		return nil
	}
	var out []string
	for _, c := range namedChildren(n) {
		if c.Kind() == "variable_declarator" {
			if name := field(c, "name"); name != nil {
				out = append(out, w.text(name))
			}
		}
	}
	return out
}

// javaImport records the package name, static imports and the simple names of type imports.
func (w *tsWalker) javaImport(n *ts.Node) {
	switch n.Kind() {
	case "package_declaration":
		for _, c := range namedChildren(n) {
			if c.Kind() == "scoped_identifier" || c.Kind() == "identifier" {
				w.java.pkg = squash(w.text(c))
			}
		}
	case "import_declaration":
		static, star, name := false, false, ""
		for i := range n.ChildCount() {
			c := n.Child(i)
			if c == nil {
				continue
			}
			switch c.Kind() {
			case "static":
				static = true
			case "asterisk":
				star = true
			case "scoped_identifier", "identifier":
				name = squash(w.text(c))
			}
		}
		segs := strings.Split(name, ".")
		switch {
		case name == "":
		case static && star:
			w.java.statics[segs[len(segs)-1]+".*"] = true
		case static && len(segs) >= 2:
			w.java.statics[segs[len(segs)-2]+"."+segs[len(segs)-1]] = true
		case !static && !star:
			w.imports[segs[len(segs)-1]] = true
		}
	}
}

// javaCall classifies a call node: x.m(…) and m(…) (method_invocation), new T(…)
// (object_creation_expression), this(…) and super(…) (explicit_constructor_invocation).
func (w *tsWalker) javaCall(n *ts.Node) (tsCall, bool) {
	switch n.Kind() {
	case "method_invocation":
		name := field(n, "name")
		if name == nil {
			return tsCall{}, false
		}
		if obj := field(n, "object"); obj != nil {
			return tsCall{kind: callMember, name: w.text(name), qual: w.text(obj), line: line(name)}, true
		}
		return tsCall{kind: callBare, name: w.text(name), line: line(name)}, true
	case "object_creation_expression":
		if typ := field(n, "type"); typ != nil {
			return tsCall{kind: callNew, name: javaSimpleName(w.text(typ)), line: line(typ)}, true
		}
	case "explicit_constructor_invocation":
		if c := field(n, "constructor"); c != nil {
			switch q := w.text(c); q {
			case "this", "super":
				return tsCall{kind: callNew, qual: q, line: line(c)}, true
			}
		}
	}
	return tsCall{}, false
}

// findJavaCall binds a call in fd's body to td by the Java call rules of spec-and-lifecycle.md
// §10.6; Java has no free function.
func findJavaCall(_ *verifier, from *unit, fd *decl, to *unit, td *decl) (int, string, bool) {
	calls, _ := fd.node.([]tsCall)
	jf := from.impl.(*tsFile).java
	if jf == nil {
		return 0, "", false
	}
	tclass := td.container
	if i := strings.LastIndexByte(tclass, '.'); i >= 0 {
		tclass = tclass[i+1:]
	}
	sameFile := from.path == to.path
	inClass := sameFile && (fd.container == td.container || strings.HasPrefix(fd.container, td.container+"."))
	extends := func(super string) bool {
		for _, seg := range strings.Split(fd.container, ".") {
			for _, s := range jf.supers[seg] {
				if s == super {
					return true
				}
			}
		}
		return false
	}
	for _, c := range calls {
		if td.ctor {
			switch {
			case c.kind != callNew:
			case c.qual == "" && c.name == td.name:
				return c.line, BasisName, true
			case c.qual == "this" && fd.ctor && sameFile && fd.container == td.container:
				return c.line, BasisName, true
			case c.qual == "super" && fd.ctor && extends(td.name):
				return c.line, BasisName, true
			}
			continue
		}
		if c.name != td.name {
			continue
		}
		switch c.kind {
		case callMember:
			return c.line, BasisMethodName, true
		case callBare:
			switch {
			case inClass, extends(tclass):
				return c.line, BasisName, true
			case jf.statics[tclass+"."+td.name] || jf.statics[tclass+".*"]:
				return c.line, BasisImport, true
			}
		}
	}
	return 0, "", false
}
