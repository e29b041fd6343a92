package filter

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/mastermind-controller/mastermind/internal/jsonstrict"
)

// Kind, Value and Member are internal/jsonstrict's decoded tree, which keeps what encoding/json
// forgets: object members stay in source order and numbers keep their literal text. A Value built
// from a YAML block has no offsets.
type (
	Kind   = jsonstrict.Kind
	Value  = jsonstrict.Value
	Member = jsonstrict.Member
)

// The JSON value kinds.
const (
	KindNull   = jsonstrict.KindNull
	KindBool   = jsonstrict.KindBool
	KindNumber = jsonstrict.KindNumber
	KindString = jsonstrict.KindString
	KindArray  = jsonstrict.KindArray
	KindObject = jsonstrict.KindObject
)

// MaxDepth is the deepest nesting of arrays and objects a return or schema may have, the limit of
// yamlstrict.DecodeJSON; deeper input is malformed.
const MaxDepth = 64

// SyntaxError is a JSON text that does not parse. Offset is the byte offset in the parsed text
// where the decoder stopped.
type SyntaxError struct {
	Msg    string
	Offset int64
}

func (e *SyntaxError) Error() string { return e.Msg }

// ParseJSON parses exactly one RFC 8259 JSON value. Invalid JSON, a duplicate object key and
// nesting deeper than MaxDepth are a *SyntaxError with encoding/json's message (agent-contracts.md
// §2.4); invalid UTF-8 in strings becomes U+FFFD.
func ParseJSON(data []byte) (*Value, error) {
	if !json.Valid(data) {
		var x any
		err := json.Unmarshal(data, &x)
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, &SyntaxError{Msg: se.Error(), Offset: se.Offset}
		}
		if err == nil {
			err = errors.New("invalid JSON")
		}
		return nil, &SyntaxError{Msg: err.Error()}
	}
	v, err := jsonstrict.Decode(data, jsonstrict.Options{MaxDepth: MaxDepth, AllowInvalidUTF8: true})
	// Offsets follow encoding/json's convention: the offset just after the offending byte.
	var de *jsonstrict.DuplicateKeyError
	var xe *jsonstrict.DepthError
	switch {
	case errors.As(err, &de):
		return nil, &SyntaxError{Msg: "duplicate object key " + strconv.Quote(de.Name), Offset: de.Offset + 1}
	case errors.As(err, &xe):
		return nil, &SyntaxError{Msg: fmt.Sprintf("nesting deeper than %d levels", MaxDepth), Offset: xe.Offset + 1}
	case err != nil:
		return nil, &SyntaxError{Msg: err.Error()}
	}
	return v, nil
}

// typePhrase names v's JSON type with an article, for "wrong type: got <...>" and "got <...>".
func typePhrase(v *Value) string {
	switch v.Kind {
	case KindNull:
		return "null"
	case KindBool:
		return "a boolean"
	case KindNumber:
		return "a number"
	case KindString:
		return "a string"
	case KindArray:
		return "an array"
	}
	return "an object"
}
