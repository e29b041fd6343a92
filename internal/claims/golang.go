package claims

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"path"
	"strconv"
	"strings"
)

func init() {
	backends[langGo] = backend{parse: parseGo, findCall: findGoCall}
}

// goFile is the Go backend's parse result.
type goFile struct {
	fset *token.FileSet
	file *ast.File
}

// parseGo parses a Go file with go/parser (no type checking) and lists its declarations: every
// FuncDecl (identity: receiver base type, name), plus top-level types, variables and constants as
// non-function declarations so that naming one is claim_kind_mismatch. Any syntax error fails the
// parse.
func parseGo(file string, src []byte) (*unit, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	u := &unit{path: file, module: f.Name.Name, impl: &goFile{fset: fset, file: f}}
	line := func(p token.Pos) int { return fset.Position(p).Line }
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			k, recv := declFunction, ""
			if d.Recv != nil && len(d.Recv.List) > 0 {
				k, recv = declMethod, receiverBase(d.Recv.List[0].Type)
			}
			u.decls = append(u.decls, &decl{container: recv, name: d.Name.Name, kind: k,
				line: line(d.Pos()), render: renderGoSignature, node: d})
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					u.decls = append(u.decls, &decl{name: s.Name.Name, kind: declOther, line: line(s.Pos())})
				case *ast.ValueSpec:
					for _, n := range s.Names {
						u.decls = append(u.decls, &decl{name: n.Name, kind: declOther, line: line(n.Pos())})
					}
				}
			}
		}
	}
	return u, nil
}

// receiverBase strips *, parentheses and type parameters from a receiver type: (*List[T]) -> List.
func receiverBase(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

func renderGoSignature(d *decl) string { return goSignature(d.node.(*ast.FuncDecl)) }

// goSignature renders the declaration without its body and doc comment, gofmt style (go/printer
// with tabs for indentation, 8-wide), on one line: positions are dropped so the printer keeps a
// multi-line parameter list on one line, and white space is collapsed.
func goSignature(d *ast.FuncDecl) (sig string) {
	cp := *d
	cp.Body = nil
	cp.Doc = nil
	var b bytes.Buffer
	defer func() {
		if recover() != nil {
			sig = ""
		}
	}()
	cfg := printer.Config{Mode: printer.UseSpaces | printer.TabIndent, Tabwidth: 8}
	if err := cfg.Fprint(&b, token.NewFileSet(), &cp); err != nil {
		return ""
	}
	return collapseSpace(b.String())
}

// findGoCall searches fd's body, closures included, for a call binding to td (§10.6 step 5, Go):
//   - td a function F of the package in directory Dt: from the same directory a call whose callee
//     is the identifier F (same_package); otherwise p.F(…) where p names an import of from's file
//     whose path resolves to Dt, or F(…) through a dot import (import);
//   - td a method T.M: any call whose callee is a selector x.M (method_name).
//
// A function value that is only passed along is not a call. Generic instantiations F[T](…) count.
func findGoCall(v *verifier, from *unit, fd *decl, to *unit, td *decl) (int, string, bool) {
	fn, ok := fd.node.(*ast.FuncDecl)
	if !ok || fn.Body == nil {
		return 0, "", false
	}
	gf := from.impl.(*goFile)
	sameDir := path.Dir(from.path) == path.Dir(to.path)
	var aliases map[string]bool
	dotImport := false
	if td.kind == declFunction && !sameDir {
		aliases, dotImport = v.goImportNames(from, to)
	}
	line, basis := 0, ""
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		if basis != "" {
			return false
		}
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		callee := ast.Unparen(call.Fun)
		switch x := callee.(type) {
		case *ast.IndexExpr:
			callee = ast.Unparen(x.X)
		case *ast.IndexListExpr:
			callee = ast.Unparen(x.X)
		}
		switch x := callee.(type) {
		case *ast.Ident:
			if td.kind == declFunction && x.Name == td.name {
				if sameDir {
					basis = BasisSamePackage
				} else if dotImport {
					basis = BasisImport
				}
				line = gf.fset.Position(x.Pos()).Line
			}
		case *ast.SelectorExpr:
			if x.Sel.Name != td.name {
				break
			}
			if td.kind == declMethod {
				basis, line = BasisMethodName, gf.fset.Position(x.Sel.Pos()).Line
				break
			}
			if id, ok := x.X.(*ast.Ident); ok && td.kind == declFunction && !sameDir && aliases[id.Name] {
				basis, line = BasisImport, gf.fset.Position(x.Sel.Pos()).Line
			}
		}
		return true
	})
	return line, basis, basis != ""
}

// goImportNames returns the local names under which from's file imports the package of to's
// directory Dt, and whether it dot-imports it. An import path resolves to Dt by the module path of
// the nearest go.mod at or above Dt; without a go.mod, the import path's last element must equal
// the package name of to's file. An unnamed import is referred to by to's package name.
func (v *verifier) goImportNames(from, to *unit) (map[string]bool, bool) {
	dt := path.Dir(to.path)
	want, haveMod := v.goImportPath(dt)
	names := map[string]bool{}
	dot := false
	for _, imp := range from.impl.(*goFile).file.Imports {
		ip, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			continue
		}
		if haveMod {
			if ip != want {
				continue
			}
		} else if path.Base(ip) != to.module {
			continue
		}
		switch {
		case imp.Name == nil:
			names[to.module] = true
		case imp.Name.Name == ".":
			dot = true
		case imp.Name.Name != "_":
			names[imp.Name.Name] = true
		}
	}
	return names, dot
}

// goImportPath returns the import path of directory dir from the nearest go.mod at or above it.
func (v *verifier) goImportPath(dir string) (string, bool) {
	for d := dir; ; d = path.Dir(d) {
		modFile := "go.mod"
		if d != "." {
			modFile = d + "/go.mod"
		}
		if data, ok := v.readRaw(modFile); ok {
			mod := goModulePath(data)
			if mod == "" {
				return "", false
			}
			if d == dir {
				return mod, true
			}
			rel := dir
			if d != "." {
				rel = strings.TrimPrefix(dir, d+"/")
			}
			return mod + "/" + rel, true
		}
		if d == "." || d == "/" {
			return "", false
		}
	}
}

// goModulePath extracts the module path from go.mod text: the first `module` directive, quoted or
// not, with a trailing // comment removed. "" when there is none.
func goModulePath(data []byte) string {
	for _, ln := range strings.Split(string(data), "\n") {
		ln = strings.TrimSpace(ln)
		rest, ok := strings.CutPrefix(ln, "module")
		if !ok || (rest != "" && rest[0] != ' ' && rest[0] != '\t' && rest[0] != '"') {
			continue
		}
		if i := strings.Index(rest, "//"); i >= 0 {
			rest = rest[:i]
		}
		rest = strings.TrimSpace(rest)
		if uq, err := strconv.Unquote(rest); err == nil {
			rest = uq
		}
		return rest
	}
	return ""
}
