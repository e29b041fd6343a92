package spec

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/repopath"
	"github.com/mastermind-controller/mastermind/internal/textsafe"
)

// backtickExtensions are the file extensions that make a code span a scope token (§1.4). The
// comparison is case-sensitive; ".txt" is deliberately absent.
var backtickExtensions = []string{".rs", ".py", ".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".cs", ".go",
	".java", ".php", ".c", ".cc", ".cpp", ".cxx", ".h", ".hpp", ".md", ".toml", ".json", ".yml", ".yaml",
	".sql", ".sh", ".html", ".css", ".scss"}

// MaxBacktickToken is the longest code span, in bytes, taken as a scope token.
const MaxBacktickToken = 200

// Audit reasons for the §1.4 scope rules.
const (
	ReasonTargetPathInvalid = "target_path_invalid"
	ReasonPathLimitExceeded = "path_limit_exceeded"
	ReasonDeclarationLimit  = "declaration_limit_exceeded"
	ReasonCreationConflict  = "creation_touch_conflict"
	ReasonDeletionConflict  = "deletion_conflict"
	ReasonForbiddenDecl     = "declaration_forbidden"
	ReasonAncestorConflict  = "declaration_ancestor_conflict"
	ReasonTargetMissing     = "target_missing"
	ReasonTargetNotRegular  = "target_not_regular"
	ReasonTargetUnavailable = "target_unavailable"
)

// BacktickScope returns the §1.4 backtick-fallback scope of the body whatever the frontmatter
// holds. Post-flight uses it when the frontmatter cannot be parsed (§10.4); Parse itself never
// falls back when a frontmatter is present but invalid (§1.2).
func (s *Spec) BacktickScope() Scope {
	if s.fallback == nil {
		return Scope{Source: SourceNone}
	}
	return cloneScope(*s.fallback)
}

func cloneScope(sc Scope) Scope {
	sc.Declared = slices.Clone(sc.Declared)
	sc.Touches = slices.Clone(sc.Touches)
	sc.Creates = slices.Clone(sc.Creates)
	sc.ExpectedDocs = slices.Clone(sc.ExpectedDocs)
	sc.Deletes = slices.Clone(sc.Deletes)
	sc.IgnoredTokens = slices.Clone(sc.IgnoredTokens)
	return sc
}

// readScope computes the declared scope (§1.4) and applies its rules.
func (p *parser) readScope() {
	fb := p.backtickScope()
	p.spec.fallback = &fb
	switch {
	case !p.fmPresent || (p.fmValid && len(p.fmDecls) == 0 && !p.hasListItems()):
		p.spec.Scope = cloneScope(fb)
	default:
		// The scope rules are checked even on an invalid frontmatter, so every violation is
		// reported in one pass; but a present, invalid frontmatter never falls back and its
		// scope is not used.
		p.frontmatterScope()
		if !p.fmValid {
			p.spec.Scope = Scope{Source: SourceNone}
		}
	}
}

// hasListItems reports whether touches, creates, expected_docs or deletes holds an item, even one
// whose shape was wrong.
func (p *parser) hasListItems() bool {
	fm := p.spec.Frontmatter
	return len(fm.Touches)+len(fm.Creates)+len(fm.ExpectedDocs)+len(fm.Deletes) > 0
}

// backtickScope collects the qualifying inline code spans of the body.
func (p *parser) backtickScope() Scope {
	sc := Scope{Source: SourceBackticks}
	seen := map[string]bool{}
	ignored := map[string]bool{}
	for _, cs := range p.body.CodeSpans() {
		tok := cs.Text
		if !cs.SingleLine || len(tok) < 1 || len(tok) > MaxBacktickToken || !qualifies(tok) {
			continue
		}
		path, err := repopath.Clean(tok)
		if err != nil {
			if !ignored[tok] {
				ignored[tok] = true
				sc.IgnoredTokens = append(sc.IgnoredTokens, tok)
			}
			continue
		}
		if !seen[path] {
			seen[path] = true
			sc.Declared = append(sc.Declared, path)
		}
	}
	if len(sc.Declared) == 0 {
		sc.Source = SourceNone
	}
	return sc
}

// qualifies reports whether a code span looks like a path: it contains "/" or ends with a listed
// extension.
func qualifies(tok string) bool {
	if strings.Contains(tok, "/") {
		return true
	}
	for _, e := range backtickExtensions {
		if strings.HasSuffix(tok, e) {
			return true
		}
	}
	return false
}

// frontmatterScope normalises the frontmatter declarations and applies spec.path_invalid,
// spec.declaration_limit and spec.declaration_conflict (§3.2).
func (p *parser) frontmatterScope() {
	sc := Scope{Source: SourceFrontmatter}
	decls := p.fmDecls
	if len(decls) > MaxDeclarations {
		d := decls[MaxDeclarations]
		p.add(RuleDeclarationLimit, d.line, d.col, d.pointer,
			fmt.Sprintf("the frontmatter declares %d paths in touches, creates, expected_docs and deletes; the limit is %d",
				len(decls), MaxDeclarations),
			finding.Field{Key: "reason", Value: ReasonDeclarationLimit})
	}
	type first struct {
		d    decl
		path string
	}
	firstOf := map[string]first{} // normalised path -> first declaration
	var valid []first
	inList := map[string]map[string]bool{"touches": {}, "creates": {}, "expected_docs": {}, "deletes": {}}
	for _, d := range decls {
		path, err := repopath.Clean(d.raw)
		if err != nil {
			reason := ReasonTargetPathInvalid
			var re *repopath.Error
			if errors.As(err, &re) && re.PathLimit() {
				reason = ReasonPathLimitExceeded
			}
			why := "invalid path"
			if re != nil {
				why = string(re.Reason)
			}
			p.add(RulePathInvalid, d.line, d.col, d.pointer,
				fmt.Sprintf("%s %q is not a repository-relative file path: %s", d.field, textsafe.Escape(d.raw), why),
				finding.Field{Key: "file", Value: d.raw}, finding.Field{Key: "reason", Value: reason})
			continue
		}
		if !inList[d.list][path] {
			inList[d.list][path] = true
			if p.spec.declPos == nil {
				p.spec.declPos = map[string]posString{}
			}
			p.spec.declPos[d.list+"\x00"+path] = posString{value: path, line: d.line, col: d.col, pointer: d.pointer}
			switch d.list {
			case "touches":
				sc.Touches = append(sc.Touches, path)
			case "creates":
				sc.Creates = append(sc.Creates, path)
			case "expected_docs":
				sc.ExpectedDocs = append(sc.ExpectedDocs, path)
			case "deletes":
				sc.Deletes = append(sc.Deletes, path)
			}
		}
		if f, ok := firstOf[path]; ok {
			// The same path in deletes or creates and in another list is a conflict; other
			// repeats are deduplicated silently.
			p.listConflict(d, f.d, path)
			continue
		}
		firstOf[path] = first{d, path}
		valid = append(valid, first{d, path})
		sc.Declared = append(sc.Declared, path)
	}
	// Ancestor conflicts: a declared path that is a proper ancestor directory of another.
	for _, f := range valid {
		parts := strings.Split(f.path, "/")
		for i := 1; i < len(parts); i++ {
			anc := strings.Join(parts[:i], "/")
			a, ok := firstOf[anc]
			if !ok {
				continue
			}
			p.add(RuleDeclarationConflict, a.d.line, a.d.col, a.d.pointer,
				fmt.Sprintf("%s %q is an ancestor directory of %s %q; declare exact file paths only",
					a.d.field, textsafe.Escape(anc), f.d.field, textsafe.Escape(f.path)),
				finding.Field{Key: "file", Value: anc}, finding.Field{Key: "reason", Value: ReasonAncestorConflict})
		}
	}
	// A declared path the executor must change cannot also be forbidden (lifecycle-v2.md §2):
	// such an approval could never end held.
	for _, f := range valid {
		if pat, bad := p.spec.Forbids.Match(f.path, false); bad {
			p.add(RuleDeclarationConflict, f.d.line, f.d.col, f.d.pointer,
				fmt.Sprintf("%s %q matches forbids pattern %q; a declared path must change, so it cannot be forbidden: drop it from one list, or re-allow it with a later forbids pattern !%s",
					f.d.field, textsafe.Escape(f.path), textsafe.Escape(pat), textsafe.Escape(f.path)),
				finding.Field{Key: "file", Value: f.path}, finding.Field{Key: "reason", Value: ReasonForbiddenDecl},
				finding.Field{Key: "pattern", Value: pat})
		}
	}
	p.spec.Scope = sc
}

// listConflict records spec.declaration_conflict when the declaration d repeats the path of
// the earlier declaration first in a list it conflicts with: creates (new at the baseline) with
// touches or expected_docs (existing), or deletes with any other list.
func (p *parser) listConflict(d, first decl, path string) {
	a, b := first, d
	switch {
	case a.list == b.list:
		return
	case a.list == "deletes" || b.list == "deletes":
		del, o := a, b
		if b.list == "deletes" {
			del, o = b, a
		}
		why := "a file the task deletes cannot also be edited or expected to change"
		if o.list == "creates" {
			why = "a path cannot be both in the baseline (deletes) and new (creates); to replace a file's content, list it under touches"
		}
		p.add(RuleDeclarationConflict, d.line, d.col, d.pointer,
			fmt.Sprintf("%s %q is also declared as %s; %s", del.field, textsafe.Escape(path), o.field, why),
			finding.Field{Key: "file", Value: path}, finding.Field{Key: "reason", Value: ReasonDeletionConflict})
	case a.list == "creates" || b.list == "creates":
		c, o := a, b
		if b.list == "creates" {
			c, o = b, a
		}
		p.add(RuleDeclarationConflict, d.line, d.col, d.pointer,
			fmt.Sprintf("%s %q is also declared as %s; a path in creates must be new, so it cannot also be in touches or expected_docs",
				c.field, textsafe.Escape(path), o.field),
			finding.Field{Key: "file", Value: path}, finding.Field{Key: "reason", Value: ReasonCreationConflict})
	}
}
