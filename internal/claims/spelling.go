package claims

import (
	"strings"
)

// matchSymbol reports whether the symbol spelling sym names declaration d of unit u
// (spec-and-lifecycle.md §10.6, "Declarations and signatures").
func matchSymbol(u *unit, d *decl, sym string) bool {
	if u.lang == langGo {
		return matchGoSymbol(u, d, sym)
	}
	return matchTSSymbol(u, d, sym)
}

// matchGoSymbol accepts the Go spellings of §10.6. When Type and pkg are both possible readings of
// X.Name both match, so the claim is ambiguous; type parameters in a spelled receiver are ignored.
func matchGoSymbol(u *unit, d *decl, sym string) bool {
	sym = strings.TrimSpace(sym)
	if strings.HasPrefix(sym, "(") {
		end := strings.Index(sym, ").")
		if end < 0 {
			return false
		}
		typ := strings.TrimSpace(sym[1:end])
		typ = strings.TrimSpace(strings.TrimPrefix(typ, "*"))
		return d.kind == declMethod && d.name == sym[end+2:] && d.container == stripTypeParams(typ)
	}
	qual, name, dotted := strings.Cut(sym, ".")
	if !dotted {
		return d.name == sym
	}
	if d.name != name || strings.Contains(name, ".") {
		return false
	}
	if d.kind == declMethod {
		return d.container == stripTypeParams(qual)
	}
	return d.container == "" && qual == u.module
}

// stripTypeParams removes a trailing type-parameter list: "List[T]" -> "List".
func stripTypeParams(t string) string {
	if i := strings.IndexByte(t, '['); i >= 0 {
		return strings.TrimSpace(t[:i])
	}
	return t
}

// matchTSSymbol accepts the tree-sitter spellings of §10.6: Name, or Qualifier<sep>Name. Prefixes
// of the module path, as in "pkg.mod.Class.method", are not resolved.
func matchTSSymbol(u *unit, d *decl, sym string) bool {
	sym = strings.TrimSpace(sym)
	sym = strings.ReplaceAll(sym, "::", ".")
	sym = strings.ReplaceAll(sym, "#", ".")
	i := strings.LastIndexByte(sym, '.')
	if i < 0 {
		return d.name == sym
	}
	qual, name := sym[:i], sym[i+1:]
	if d.name != name || qual == "" {
		return false
	}
	full := u.module
	if d.container != "" {
		if full != "" {
			full += "." + d.container
		} else {
			full = d.container
		}
	}
	return trailingPart(d.container, qual) || trailingPart(full, qual)
}

// trailingPart reports whether q equals chain or a trailing "."-separated part of it.
func trailingPart(chain, q string) bool {
	if chain == "" {
		return false
	}
	return chain == q || strings.HasSuffix(chain, "."+q)
}

// collapseSpace collapses runs of white space to one space and trims the result (§10.6 signature
// comparison).
func collapseSpace(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
