// Package jsonstrict decodes one RFC 8259 JSON text into an ordered tree and refuses what
// encoding/json lets through: repeated member names, text after the value, deep nesting and,
// unless allowed, invalid UTF-8 and lone surrogate escapes. Members keep their source order and
// numbers their literal text, so a Value is written back exactly.
//
// The tokenizer is jsontext, whose messages are not a contract: callers that quote
// encoding/json's syntax messages produce those themselves. Users: state.json and the stored
// audit result (Stream), report-filter returns, OUTPUT schemas and the embedded report schema.
package jsonstrict
