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

// goFile is the Go backend's parse result: the source and its syntax tree. A target search may
// parse thousands of unchanged files of which only the matches matter, so the verifier drops the
// tree of files outside the changed set (dropTree) and ast re-parses on demand.
type goFile struct {
	name string
	src  []byte
	fset *token.FileSet
	file *ast.File
}

// ast returns the file's syntax tree, parsing the source again on first use. The source parsed
// once already, so the error cannot occur for the same bytes.
func (g *goFile) ast() (*token.FileSet, *ast.File) {
	if g.file == nil {
		g.fset = token.NewFileSet()
		f, err := parser.ParseFile(g.fset, g.name, g.src, parser.SkipObjectResolution)
		if err != nil {
			return g.fset, &ast.File{Name: ast.NewIdent("_")}
		}
		g.file = f
	}
	return g.fset, g.file
}

// dropTree releases the syntax tree; ast parses again if it is needed after all.
func (g *goFile) dropTree() { g.fset, g.file = nil, nil }

// funcDecl returns the i-th top-level declaration of the file as a FuncDecl.
func (g *goFile) funcDecl(i int) *ast.FuncDecl {
	_, f := g.ast()
	if i < 0 || i >= len(f.Decls) {
		return nil
	}
	fd, _ := f.Decls[i].(*ast.FuncDecl)
	return fd
}

// goDeclRef locates a FuncDecl: its file and its index in the file's Decls.
type goDeclRef struct {
	file  *goFile
	index int
}

// parseGo parses a Go file and lists its FuncDecls, plus its top-level types, variables and
// constants as non-functions so that naming one is claim_kind_mismatch. Any syntax error fails
// the parse.
func parseGo(file string, src []byte) (*unit, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	gf := &goFile{name: file, src: src, fset: fset, file: f}
	u := &unit{path: file, module: f.Name.Name, impl: gf}
	line := func(p token.Pos) int { return fset.Position(p).Line }
	for i, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			k, recv := declFunction, ""
			if d.Recv != nil && len(d.Recv.List) > 0 {
				k, recv = declMethod, receiverBase(d.Recv.List[0].Type)
			}
			u.decls = append(u.decls, &decl{container: recv, name: d.Name.Name, kind: k,
				line: line(d.Pos()), render: renderGoSignature, node: goDeclRef{gf, i}})
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

func renderGoSignature(d *decl) string {
	ref, ok := d.node.(goDeclRef)
	if !ok {
		return ""
	}
	fd := ref.file.funcDecl(ref.index)
	if fd == nil {
		return ""
	}
	return goSignature(fd)
}

// goSignature renders the declaration without its body and doc comment in gofmt style, on one
// line: positions are dropped so that a multi-line parameter list stays on one line.
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

// findGoCall searches fd's body, closures included, for a call binding to td by the Go rules of
// spec-and-lifecycle.md §10.6 step 5.
func findGoCall(v *verifier, from *unit, fd *decl, to *unit, td *decl) (int, string, bool) {
	ref, ok := fd.node.(goDeclRef)
	if !ok {
		return 0, "", false
	}
	fn := ref.file.funcDecl(ref.index)
	if fn == nil || fn.Body == nil {
		return 0, "", false
	}
	fset, _ := ref.file.ast()
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
				line = fset.Position(x.Pos()).Line
			}
		case *ast.SelectorExpr:
			if x.Sel.Name != td.name {
				break
			}
			if td.kind == declMethod {
				basis, line = BasisMethodName, fset.Position(x.Sel.Pos()).Line
				break
			}
			if id, ok := x.X.(*ast.Ident); ok && td.kind == declFunction && !sameDir && aliases[id.Name] {
				basis, line = BasisImport, fset.Position(x.Sel.Pos()).Line
			}
		}
		return true
	})
	return line, basis, basis != ""
}

// goImportNames returns the local names under which from's file imports the package of to's
// directory, and whether it dot-imports it, resolving import paths as §10.6 step 5 says.
func (v *verifier) goImportNames(from, to *unit) (map[string]bool, bool) {
	dt := path.Dir(to.path)
	want, haveMod := v.goImportPath(dt)
	names := map[string]bool{}
	dot := false
	_, ff := from.impl.(*goFile).ast()
	for _, imp := range ff.Imports {
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
