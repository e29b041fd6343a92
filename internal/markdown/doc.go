// Package markdown reads the CommonMark structure of reports, specs, briefs and outputs with
// github.com/yuin/goldmark (no extensions): top-level blocks, sentinels, fenced code blocks,
// headings, code spans and prose lines. Structure always comes from the syntax tree, never from a
// scan of raw lines (executor-report-v1.md §1.4, spec-and-lifecycle.md §1.3–§1.5).
package markdown
