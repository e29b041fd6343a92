package report

import (
	"sort"
	"strconv"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/jsonptr"
	"github.com/mastermind-controller/mastermind/internal/yamlstrict"
)

// checkBlank applies C1, C2, C4, C7, C8 and C9: required and present text fields must not be
// blank after strings.TrimSpace.
func (c *checker) checkBlank(doc *yamlstrict.Doc, root map[string]any) []pending {
	var ptrs []string
	ptrs = append(ptrs, "/spec")
	for i := range list(root, "phases") {
		ptrs = append(ptrs, "/phases/"+strconv.Itoa(i)+"/id")
	}
	for i := range list(root, "files_modified") {
		ptrs = append(ptrs, "/files_modified/"+strconv.Itoa(i))
	}
	for i := range list(root, "defects") {
		for _, f := range []string{"kind", "phase", "details", "remediation_hint"} {
			ptrs = append(ptrs, "/defects/"+strconv.Itoa(i)+"/"+f)
		}
	}
	for i := range list(root, "verifications") {
		ptrs = append(ptrs, "/verifications/"+strconv.Itoa(i)+"/cmd")
	}
	for i, cl := range list(root, "claims") {
		m, ok := cl.(map[string]any)
		if !ok {
			continue
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			if k != "kind" {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			ptrs = append(ptrs, jsonptr.Append("/claims/"+strconv.Itoa(i), k))
		}
	}
	var out []pending
	for _, p := range ptrs {
		if s, ok := c.str(doc, p); ok && strings.TrimSpace(s) == "" {
			out = append(out, pending{RuleBlank, p, p, yamlstrict.FieldName(p) + " must not be blank"})
		}
	}
	return out
}
