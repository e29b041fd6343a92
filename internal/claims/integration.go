package claims

// integration checks integration{from, to, from_file?, to_file?, relation?}
// (spec-and-lifecycle.md §10.6): relation, resolve to, resolve from, languages, find a call.
func (v *verifier) integration(c Claim) Check {
	from, to := deref(c.From), deref(c.To)
	// 1. Relation.
	if c.Relation != nil && *c.Relation != "calls" {
		return unresolved(c, reasonRelationUnsupported, 0)
	}
	// 2. Resolve to.
	tm, ch := v.resolve(c, to, c.ToFile, false, func() ([]string, string, string) {
		listed, err := v.listFiles()
		if err != nil {
			return nil, "", reasonCurrentUnavailable
		}
		var keep []string
		for _, p := range listed {
			if n, ok := claimPath(p); ok && n == p && !excludedFromSearch(p) {
				keep = append(keep, p)
			}
		}
		sup, unchecked := v.candidates(keep, false)
		return sup, unchecked, ""
	})
	if ch != nil {
		return *ch
	}
	tm = oneOverloadSet(tm)
	switch len(tm) {
	case 0:
		return hallucinated(c, from, to)
	case 1:
	default:
		return unresolved(c, reasonCallTargetAmbiguous, len(tm))
	}
	// 3. Resolve from: the caller must be a changed caller.
	fm, ch := v.resolve(c, from, c.FromFile, true, func() ([]string, string, string) {
		sup, unchecked := v.candidates(v.changedCandidates(), false)
		return sup, unchecked, ""
	})
	if ch != nil {
		return *ch
	}
	callers := fm // a Java overload set: a call in any of them
	if len(oneOverloadSet(fm)) == 1 {
		fm = fm[:1]
	}
	switch len(fm) {
	case 0:
		return unresolved(c, reasonFromMissing, 0)
	case 1:
	default:
		return unresolved(c, reasonAmbiguous, len(fm))
	}
	t, f := tm[0], fm[0]
	// 4. Languages.
	if family(t.u.lang) != family(f.u.lang) {
		return unresolved(c, reasonCrossLanguage, 0)
	}
	// 5. Find a call.
	var line int
	var basis string
	ok := false
	for _, f = range callers {
		if line, basis, ok = safeFindCall(backends[f.u.lang].findCall, v, f.u, f.d, t.u, t.d); ok {
			break
		}
	}
	if !ok {
		return missingCallEdge(c, from, to)
	}
	// 6. Verified.
	return verified(c, &Evidence{Kind: EvidenceCallCandidate, FromFile: f.u.path, ToFile: t.u.path,
		CallLine: line, TargetLine: t.d.line, MatchBasis: basis})
}

// resolve finds the callable declarations named sym, in file if given, otherwise in the files that
// list returns; with changedOnly, a file outside D holds no caller. A non-nil Check is an
// unresolved outcome, and an empty result without one means not found.
func (v *verifier) resolve(c Claim, sym string, file *string, changedOnly bool, list func() ([]string, string, string)) ([]match, *Check) {
	fail := func(reason string) ([]match, *Check) {
		ch := unresolved(c, reason, 0)
		return nil, &ch
	}
	var paths []string
	unchecked := ""
	if file != nil {
		p, reason := v.explicitFile(*file)
		if reason != "" {
			return fail(reason)
		}
		if changedOnly && !v.inChanged(p) {
			if r := v.probe(p); r != "" {
				return fail(r)
			}
			return fail(reasonFromMissing)
		}
		paths = []string{p}
	} else {
		var reason string
		paths, unchecked, reason = list()
		if reason != "" {
			return fail(reason)
		}
	}
	res := v.search(paths, sym, (*decl).callable)
	if v.exhausted {
		return fail(reasonBudget)
	}
	if reason := res.decide(file != nil, unchecked); reason != "" {
		return fail(reason)
	}
	return res.matches, nil
}

// oneOverloadSet reduces matches that are the overloads of one Java method to the first in
// source order, because a call binds by name. Any other list is returned as is.
func oneOverloadSet(ms []match) []match {
	if len(ms) < 2 {
		return ms
	}
	first := ms[0]
	for _, m := range ms {
		if m.u != first.u || m.u.lang != langJava || m.d.container != first.d.container || m.d.name != first.d.name {
			return ms
		}
	}
	return ms[:1]
}

// safeFindCall turns a panic in a backend's call search into "no call found" rather than a crash;
// the search reads only an already parsed tree.
func safeFindCall(f callFinder, v *verifier, from *unit, fd *decl, to *unit, td *decl) (line int, basis string, ok bool) {
	defer func() {
		if recover() != nil {
			line, basis, ok = 0, "", false
		}
	}()
	return f(v, from, fd, to, td)
}
