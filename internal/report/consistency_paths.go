package report

import (
	"errors"
	"fmt"
	"github.com/mastermind-controller/mastermind/internal/yamlstrict"
	"strconv"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/repopath"
)

// checkPaths applies C5, path hygiene through internal/repopath, and C6, no path listed twice
// after normalisation, each later occurrence naming the first (§4.2).
func (c *checker) checkPaths(doc *yamlstrict.Doc, root map[string]any) []pending {
	first := map[string]int{}
	var out []pending
	for i := range list(root, "files_modified") {
		p := "/files_modified/" + strconv.Itoa(i)
		raw, ok := c.str(doc, p)
		if !ok || strings.TrimSpace(raw) == "" {
			continue // C4 reports blank entries
		}
		norm, err := repopath.Clean(raw)
		var pe *repopath.Error
		if errors.As(err, &pe) {
			out = append(out, pending{RulePathInvalid, p, p, fmt.Sprintf(
				"files_modified[%d] %s is not a repository-relative path: %s", i, quote(raw), pe.Reason)})
			continue
		}
		if j, dup := first[norm]; dup {
			out = append(out, pending{RuleDuplicatePath, p, p, fmt.Sprintf(
				"files_modified[%d] %s names the same path as files_modified[%d] (%s)", i, quote(raw), j, quote(norm))})
			continue
		}
		first[norm] = i
	}
	return out
}
