package claims

// functionAdded checks function_added{symbol, file?, signature?} (spec-and-lifecycle.md §10.6):
// candidates, matches, kind, signature, added against the baseline, verified — the first failing
// step decides the outcome.
func (v *verifier) functionAdded(c Claim) Check {
	sym := deref(c.Symbol)
	// 1. Candidates.
	var paths []string
	var file *string
	unchecked := ""  // language reason of candidates no backend can check
	outside := false // the named file is not a changed file of D
	if c.File != nil {
		p, reason := v.explicitFile(*c.File)
		if reason != "" {
			return unresolved(c, reason, 0)
		}
		file = &p
		if !v.inChanged(p) {
			// A function is added only in a changed file: a file outside D that exists at the
			// baseline is unchanged, and one absent from it too, such as an ignored build/gen.go, is
			// no part of the audited change.
			b := v.load(p, true)
			switch {
			case v.exhausted:
				return unresolved(c, reasonBudget, 0)
			case b.reason != "":
				return unresolved(c, b.reason, 0)
			case b.absent:
				return unresolved(c, reasonCurrentUnavailable, 0)
			}
			outside = true
		}
		paths = []string{p}
	} else {
		paths, unchecked = v.candidates(v.changedCandidates(), true)
	}
	// 2. Matches.
	res := v.search(paths, sym, func(*decl) bool { return true })
	if v.exhausted {
		return unresolved(c, reasonBudget, 0)
	}
	if reason := res.decide(file != nil, unchecked); reason != "" {
		return unresolved(c, reason, 0)
	}
	switch {
	case len(res.matches) == 0:
		return symbolMissing(c, sym, file)
	case len(res.matches) > 1:
		if m, ok := narrowOverloads(res.matches, c.Signature); ok {
			res.matches = []match{m}
		} else {
			return unresolved(c, reasonAmbiguous, len(res.matches))
		}
	}
	m := res.matches[0]
	// 3. Kind.
	if !m.d.callable() {
		return unresolved(c, reasonClaimKindMismatch, 0)
	}
	// 4. Signature.
	if c.Signature != nil && collapseSpace(*c.Signature) != m.d.signature() {
		return signatureMismatch(c, sym, m.u.path, *c.Signature, m.d.signature())
	}
	// 5. Added by this task.
	if countIdentity(m.u, m.d) > 1 {
		return unresolved(c, reasonAdditionAmbiguous, 0)
	}
	switch {
	case v.status[m.u.path] == StatusAdded || v.status[m.u.path] == StatusUntracked:
		// Absent at the baseline; renamed files are a deletion plus an addition, so a function
		// moved with its file counts as added.
	default:
		b := v.load(m.u.path, true)
		switch {
		case v.exhausted:
			return unresolved(c, reasonBudget, 0)
		case b.reason != "":
			return unresolved(c, b.reason, 0)
		case b.absent && outside:
			return unresolved(c, reasonCurrentUnavailable, 0)
		case b.absent:
		default:
			switch countIdentity(b.u, m.d) {
			case 0:
				if m.d.overload != "" && countName(b.u, m.d) > 0 && countName(m.u, m.d) <= countName(b.u, m.d) {
					// A Java method whose parameter types changed: the class has no more
					// overloads of the name than at the baseline, so this is an edited one.
					return symbolNotAdded(c, sym, m.u.path)
				}
				if outside {
					// git reports the file unchanged, yet its current text differs from the
					// baseline, as with skip-worktree or a concurrent edit: the current declaration is no
					// part of the audited change.
					return unresolved(c, reasonCurrentUnavailable, 0)
				}
			case 1:
				return symbolNotAdded(c, sym, m.u.path)
			default:
				return unresolved(c, reasonAdditionAmbiguous, 0)
			}
		}
	}
	// 6. Verified.
	return verified(c, &Evidence{Kind: EvidenceAddedDeclaration, File: m.u.path, Line: m.d.line, BaselineOID: v.baselineOID})
}

// countIdentity counts the callable declarations of u with d's identity (container, name,
// overload).
func countIdentity(u *unit, d *decl) int {
	n := 0
	for _, x := range u.decls {
		if x.callable() && x.container == d.container && x.name == d.name && x.overload == d.overload {
			n++
		}
	}
	return n
}

// countName counts the callable declarations of u with d's container and name, whatever their
// parameter types (Java overloads).
func countName(u *unit, d *decl) int {
	n := 0
	for _, x := range u.decls {
		if x.callable() && x.container == d.container && x.name == d.name {
			n++
		}
	}
	return n
}

// narrowOverloads picks, among several Java matches, the one whose actual signature equals the
// claimed signature. It fails without a claimed signature, when zero or several matches have it,
// and when any match is not a Java callable.
func narrowOverloads(ms []match, sig *string) (match, bool) {
	if sig == nil {
		return match{}, false
	}
	want := collapseSpace(*sig)
	var found []match
	for _, m := range ms {
		if m.u.lang != langJava || !m.d.callable() {
			return match{}, false
		}
		if m.d.signature() == want {
			found = append(found, m)
		}
	}
	if len(found) != 1 {
		return match{}, false
	}
	return found[0], true
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
