package report

import (
	"strconv"

	"github.com/mastermind-controller/mastermind/internal/jsonptr"
	"github.com/mastermind-controller/mastermind/internal/repopath"
)

// buildReport converts the located value into the typed Report (§7), leaving out the top-level
// fields and elements whose pointers skip holds. Values of the wrong type are read as absent, so
// a partial report never holds a value the schema refused.
func buildReport(loc *located, skip map[string]bool) *Report {
	root, _ := loc.doc.Value.(map[string]any)
	if len(skip) > 0 {
		root = pruned(root, skip)
	}
	r := &Report{Form: loc.form, Positions: make(map[string]Pos, len(loc.doc.Nodes))}
	if v, ok := root["schema_version"].(int64); ok {
		r.SchemaVersion = int(v)
	}
	r.Spec, _ = root["spec"].(string)
	r.Status, _ = root["status"].(string)
	for _, v := range list(root, "phases") {
		m, _ := v.(map[string]any)
		id, _ := m["id"].(string)
		st, _ := m["status"].(string)
		r.Phases = append(r.Phases, Phase{ID: id, Status: st})
	}
	for _, v := range list(root, "files_modified") {
		s, _ := v.(string)
		r.FilesModified = append(r.FilesModified, FileEntry{Raw: s, Path: repopath.Normalize(s)})
	}
	for i, v := range list(root, "claims") {
		m, _ := v.(map[string]any)
		cl := Claim{Index: i}
		cl.Kind, _ = m["kind"].(string)
		cl.Symbol, cl.File, cl.Signature = optString(m, "symbol"), optString(m, "file"), optString(m, "signature")
		cl.From, cl.To, cl.Relation = optString(m, "from"), optString(m, "to"), optString(m, "relation")
		cl.FromFile, cl.ToFile = optString(m, "from_file"), optString(m, "to_file")
		r.Claims = append(r.Claims, cl)
	}
	for _, v := range list(root, "defects") {
		m, _ := v.(map[string]any)
		var d Defect
		d.Kind, _ = m["kind"].(string)
		d.Phase, _ = m["phase"].(string)
		d.Details, _ = m["details"].(string)
		d.RemediationHint, _ = m["remediation_hint"].(string)
		r.Defects = append(r.Defects, d)
	}
	for i, v := range list(root, "verifications") {
		m, _ := v.(map[string]any)
		vr := Verification{Index: i, OutputExcerpt: optString(m, "output_excerpt")}
		vr.Cmd, _ = m["cmd"].(string)
		vr.Result, _ = m["result"].(string)
		if o, ok := m["observed"].(map[string]any); ok {
			vr.Observed = &Observed{ExitCode: optInt(o, "exit_code"), TestsRun: optInt(o, "tests_run")}
		}
		r.Verifications = append(r.Verifications, vr)
	}
	r.Verifications = keptIndex(r.Verifications, func(v Verification) int { return v.Index }, skip, "/verifications/")
	r.Claims = keptIndex(r.Claims, func(c Claim) int { return c.Index }, skip, "/claims/")
	for p, n := range loc.doc.Nodes {
		line, col := loc.filePos(n.Pos)
		r.Positions[p] = Pos{Line: line, Column: col}
	}
	return r
}

func optString(m map[string]any, k string) *string {
	if s, ok := m[k].(string); ok {
		return &s
	}
	return nil
}

func optInt(m map[string]any, k string) *int64 {
	switch x := m[k].(type) {
	case int64:
		return &x
	case float64: // unreachable after the integer-kind check; kept exact when integral
		if i := int64(x); float64(i) == x {
			return &i
		}
	}
	return nil
}

// pruned returns a shallow copy of root without the skipped top-level fields and the skipped
// elements of phases, files_modified and defects. Verifications and claims keep every element
// here, so that Index stays the position in the report; keptIndex drops them later.
func pruned(root map[string]any, skip map[string]bool) map[string]any {
	out := make(map[string]any, len(root))
	for k, v := range root {
		ptr := jsonptr.Append("", k)
		if skip[ptr] {
			continue
		}
		l, isList := v.([]any)
		if !isList || k == "verifications" || k == "claims" {
			out[k] = v
			continue
		}
		kept := make([]any, 0, len(l))
		for i, e := range l {
			if !skip[ptr+"/"+strconv.Itoa(i)] {
				kept = append(kept, e)
			}
		}
		out[k] = kept
	}
	return out
}

// keptIndex drops the elements whose "<prefix><index>" pointer is skipped.
func keptIndex[T any](l []T, index func(T) int, skip map[string]bool, prefix string) []T {
	if len(skip) == 0 {
		return l
	}
	var out []T
	for _, e := range l {
		if !skip[prefix+strconv.Itoa(index(e))] {
			out = append(out, e)
		}
	}
	return out
}
