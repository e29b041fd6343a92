package cli

// The deliberate differences from the original tools, one line each with its reason, shown at
// the end of `forge-report --help` and `output-format --help`. docs/agent-contracts.md holds the
// same lines (TestDifferencesDocumented).

const forgeDifferencesHelp = `Deliberate differences from the original forge-report.cjs (docs/agent-contracts.md):
  - The block is found by CommonMark structure, not a regex: a fence inside a JSON string does not cut it (the original reports valid JSON as malformed).
  - A ~~~forge-report fence counts: CommonMark reads both fence kinds alike.
  - A block inside another fenced block is an example and never counts, so a quoted example after the real block cannot replace it.
  - A fence indented four spaces, an opening fence mid-line or a closing fence glued to the JSON is no block, and the error says what to fix: CommonMark does not read them as fences.
  - JSON nesting deeper than 512 levels, in a report or an events.jsonl line, is refused with one message: hostile input must not exhaust the stack.
  - Malformed-JSON messages come from Go's decoder, not V8's: another engine, same verdict.
  - Labelled secrets in free text ("password=hunter2" in evidence) are redacted too: the original wrote them to the log in the clear.
  - Extraction and redaction run in linear time (a guarded CommonMark parse, RE2 patterns): hostile input cannot stall them as the original's lazy block regex can.
  - Ingest writes both events in one locked, write-ahead-logged append or neither: the original could log one event and report "INGESTED WITH WARNINGS".
  - A __proto__ key inside a report is kept as written: the original's redaction copy drops it, JSON.parse restores it as an ordinary key.
  - No symbolic link is followed under .claude (run directory, events.jsonl, agents): nothing is read or written outside the repository.
  - Text output escapes invisible and control characters (U+2028 prints as \u2028); --json carries the exact message: terminal safety.`

const outputFormatDifferencesHelp = `Deliberate differences from the original output_format check (docs/agent-contracts.md):
  - Patterns are Go RE2, not ECMAScript: look-around, back-references and \cX are invalid, "." matches \r, \s is ASCII; matching is linear-time on any output.
  - The frontmatter is parsed as YAML: comments, quotes, escapes, CRLF and a BOM are handled (a line scanner made "# comment" part of the pattern).
  - A duplicate output_format key is a configuration error: the original silently takes the first value, usually not the one edited last.
  - A frontmatter that never closes ("----" instead of "---") is a configuration error when it declares output_format, a note otherwise: the original silently passes.
  - Text output escapes invisible and control characters; --json carries the exact message: terminal safety.`
