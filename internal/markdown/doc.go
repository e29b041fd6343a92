// Package markdown reads the CommonMark structure of reports, specs, briefs and outputs with
// goldmark and no extensions. Structure always comes from the syntax tree, never from a scan of
// raw lines (executor-report-v1.md §1.4).
//
// Parsing is guarded against the input shapes that make goldmark quadratic; docs/hardening.md
// rows F1, F2, F29 and F33 have the shapes and the figures.
package markdown
