// Package markdown reads the CommonMark structure of reports, specs, briefs and outputs with
// github.com/yuin/goldmark (no extensions): top-level blocks, sentinels, fenced code blocks,
// headings, code spans and prose lines. Structure always comes from the syntax tree, never from a
// scan of raw lines (executor-report-v1.md §1.4, spec-and-lifecycle.md §1.3–§1.5).
//
// Parsing is guarded against the input shapes that make goldmark quadratic (guard.go): deep
// container nesting on one line is capped, and link and emphasis parsing is off in a paragraph
// over the inline budget. ParseBlocks skips inline parsing altogether. docs/hardening.md has the
// figures.
package markdown
