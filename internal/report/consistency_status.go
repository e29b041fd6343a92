package report

import (
	"fmt"
	"github.com/mastermind-controller/mastermind/internal/yamlstrict"
	"strconv"
)

// checkStatus applies C10–C13. They run only when status is a valid enum value and the array
// they inspect passed the schema (§5.4 rule 3).
func (c *checker) checkStatus(doc *yamlstrict.Doc, root map[string]any) []pending {
	status, ok := c.str(doc, "/status")
	if !ok || !c.passed("/status") {
		return nil
	}
	var out []pending
	switch status {
	case "complete":
		if c.passed("/defects") {
			for i := range list(root, "defects") {
				p := "/defects/" + strconv.Itoa(i)
				out = append(out, pending{RuleCompleteHasDefects, p, p, fmt.Sprintf(
					"status complete must not list defects; use partial or failed, or remove defects[%d]", i)})
			}
		}
		if c.passed("/phases") {
			for i, ph := range list(root, "phases") {
				m, _ := ph.(map[string]any)
				st, _ := m["status"].(string)
				if st == "done" {
					continue
				}
				id, _ := m["id"].(string)
				p := "/phases/" + strconv.Itoa(i) + "/status"
				out = append(out, pending{RuleCompleteStepNotDone, p, p, fmt.Sprintf(
					"status complete requires every phase to be done; phases[%d] (%s) is %s", i, quote(id), st)})
			}
		}
		if c.passed("/verifications") {
			for i, v := range list(root, "verifications") {
				m, _ := v.(map[string]any)
				if r, _ := m["result"].(string); r != "fail" {
					continue
				}
				cmd, _ := m["cmd"].(string)
				p := "/verifications/" + strconv.Itoa(i) + "/result"
				out = append(out, pending{RuleCompleteFailedVerification, p, p, fmt.Sprintf(
					"status complete must not contain a failed verification; verifications[%d] (%s) has result fail", i, quote(shorten(cmd)))})
			}
		}
	case "partial", "failed":
		if c.passed("/defects") && len(list(root, "defects")) == 0 {
			if _, present := root["defects"]; present {
				out = append(out, pending{RuleDefectRequired, "/defects", "/defects", fmt.Sprintf(
					"status %s requires at least one defect explaining what is missing or failed", status)})
			}
		}
	}
	return out
}
