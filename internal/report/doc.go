// Package report reads an executor report under the v1 contract of executor-report-v1.md,
// fail-closed, through the stages of its §5.2. A typed Report is returned only when there are no
// findings.
package report
