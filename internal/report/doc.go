// Package report reads an executor report (executor-report.md) under the v1 contract of
// executor-report-v1.md, fail-closed: transport checks (§1.1), encoding (§1.2), locating the
// sentinel or bare form with goldmark structure (§1.3–§1.5), strict YAML/JSON decoding through
// internal/yamlstrict (§2), the version gate (§5.2 stage 5), JSON Schema validation against the
// embedded schemas/executor-report-v1.schema.json (§3), the consistency rules C1–C13 (§4),
// suppression (§5.4) and ordering (§5.5). A typed Report (§7) is returned only when there are no
// findings.
package report
