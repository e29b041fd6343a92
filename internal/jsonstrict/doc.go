// Package jsonstrict decodes one JSON text (RFC 8259) into an ordered tree and refuses what
// encoding/json lets through: a repeated object member name (reported with the byte offsets of
// both occurrences and the RFC 6901 pointer of the repeat), text after the value, nesting beyond a
// caller's limit and, unless the caller allows it, invalid UTF-8 and lone UTF-16 surrogate
// escapes. Object members keep their source order and numbers keep their literal text, so a caller
// can report positions, keep declaration order and re-emit numbers exactly. A Value is written
// back (Indent, Compact, MarshalJSON) in that order with those literals, or converted to
// encoding/json's generic form (Any).
//
// The tokenizer is encoding/json/jsontext (github.com/go-json-experiment/json/jsontext). Its
// messages are not a contract: callers that quote encoding/json's syntax messages (the filter's
// REJECT text, forge's contract) keep producing those themselves and use this package for the
// structure.
//
// Users: state.json and the stored audit result (internal/postflight, Stream), report-filter
// returns and OUTPUT schemas (internal/contracts/filter) and the embedded report schema
// (internal/report).
package jsonstrict
