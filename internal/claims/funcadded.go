package claims

// functionAdded checks function_added{symbol, file?, signature?} (spec-and-lifecycle.md §10.6):
// candidates, matches, kind, signature, added against the baseline, verified — the first failing
// step decides the outcome.
func (v *verifier) functionAdded(c Claim) Check {
	sym := deref(c.Symbol)
	// 1. Candidates.
	var paths []string
	var file *string
	unsupported := false
	if c.File != nil {
		p, ok := claimPath(*c.File)
		if !ok {
			return unresolved(c, reasonCurrentUnavailable, 0)
		}
		file = &p
		if _, sup, _, _ := langOf(p); !sup {
			return unresolved(c, reasonLanguageUnsupported, 0)
		}
		paths = []string{p}
	} else {
		paths, unsupported = candidates(v.changedCandidates(), true)
	}
	// 2. Matches.
	res := v.search(paths, sym, func(*decl) bool { return true })
	if v.exhausted {
		return unresolved(c, reasonBudget, 0)
	}
	if file != nil && res.problem != "" {
		return unresolved(c, res.problem, 0)
	}
	switch {
	case len(res.matches) == 0 && res.problem != "":
		return unresolved(c, res.problem, 0)
	case len(res.matches) == 0 && unsupported:
		return unresolved(c, reasonLanguageUnsupported, 0)
	case len(res.matches) == 0:
		return symbolMissing(c, sym, file)
	case len(res.matches) > 1:
		return unresolved(c, reasonAmbiguous, len(res.matches))
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
	switch v.status[m.u.path] {
	case StatusAdded, StatusUntracked:
		// Absent at the baseline; renamed files are a deletion plus an addition, so a function
		// moved with its file counts as added.
	default:
		b := v.load(m.u.path, true)
		switch {
		case v.exhausted:
			return unresolved(c, reasonBudget, 0)
		case b.reason != "":
			return unresolved(c, b.reason, 0)
		case b.absent:
		default:
			switch countIdentity(b.u, m.d) {
			case 0:
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

// countIdentity counts the callable declarations of u with d's identity (container, name).
func countIdentity(u *unit, d *decl) int {
	n := 0
	for _, x := range u.decls {
		if x.callable() && x.container == d.container && x.name == d.name {
			n++
		}
	}
	return n
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
