// Package forge implements the forge-report contract of agent-contracts.md §1: extraction of the
// last complete forge-report block from an agent's message, validation of the report, redaction
// of secrets, the ECMAScript-exact encoder behind entry_hash and the events.jsonl writer.
// Extraction walks the CommonMark structure instead of the design's raw-text regex (§1.3).
package forge
