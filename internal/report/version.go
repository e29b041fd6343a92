package report

import (
	"fmt"

	"github.com/mastermind-controller/mastermind/internal/textsafe"
	"github.com/mastermind-controller/mastermind/internal/yamlstrict"
)

// versionGate applies §5.2 stage 5: a root schema_version that is a plain scalar resolving to an
// integer other than 1 is the only finding. A string, float or absent version is left to the
// schema stage. It reports whether the gate closed.
func (c *checker) versionGate(doc *yamlstrict.Doc) bool {
	n := doc.Nodes["/schema_version"]
	if n == nil || n.Kind != yamlstrict.KindInt || !n.Plain {
		return false
	}
	if m, ok := doc.Value.(map[string]any); ok {
		if v, ok := m["schema_version"].(int64); ok && v == 1 {
			return false
		}
	}
	line, col := c.loc.filePos(n.Pos)
	c.add(RuleUnsupportedVersion, line, col, "/schema_version",
		fmt.Sprintf("schema_version %s is not supported; this mastermind reads schema_version 1", textsafe.Escape(n.Literal)))
	return true
}
