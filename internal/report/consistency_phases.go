package report

import (
	"fmt"
	"github.com/mastermind-controller/mastermind/internal/yamlstrict"
	"strconv"
	"strings"
)

// checkPhaseIDs applies C3: phase ids are unique after trimming; every later occurrence is
// reported and names the first.
func (c *checker) checkPhaseIDs(doc *yamlstrict.Doc, root map[string]any) []pending {
	first := map[string]int{}
	var out []pending
	for i := range list(root, "phases") {
		p := "/phases/" + strconv.Itoa(i) + "/id"
		id, ok := c.str(doc, p)
		if !ok || strings.TrimSpace(id) == "" {
			continue
		}
		key := strings.TrimSpace(id)
		if j, dup := first[key]; dup {
			out = append(out, pending{RuleDuplicatePhaseID, p, p, fmt.Sprintf(
				"phase id %s is duplicated (also phases[%d].id after trimming)", quote(id), j)})
			continue
		}
		first[key] = i
	}
	return out
}
