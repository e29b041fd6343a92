// Package forge implements the forge-report contract (design/agent-contracts.md §1): extraction
// of the last complete ```forge-report fenced block from an agent's message, validation of the
// report object (§1.4, every error collected), redaction of secrets (§1.10), the ECMAScript-exact
// JSON encoder and canonical form of entry_hash (§1.9), and the events.jsonl writer with forge's
// O_EXCL lock, write-ahead log and hash chain (§1.6–§1.8).
//
// Extraction walks the CommonMark structure (goldmark) instead of the design's raw-text regex:
// a ``` inside a JSON string cannot end the block and a ~~~forge-report fence counts. The info
// string must be exactly "forge-report" (so "forge-report json" does not count) and an unterminated
// final block is skipped, so an earlier complete block wins, as in §1.3.
package forge
