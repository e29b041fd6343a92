package report

import (
	"github.com/mastermind-controller/mastermind/internal/repopath"
)

// buildReport converts a value that passed every stage into the typed Report (§7).
func buildReport(loc *located) *Report {
	root, _ := loc.doc.Value.(map[string]any)
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
