package report

import (
	"math"
	"unicode/utf8"
)

// fastValid reports whether v certainly satisfies schema s, judging the keywords the v1 schema
// uses with draft 2020-12 semantics; anything else is false, and the full validator decides. It
// keeps a 1 MiB report's validation within 3× a bare YAML decode (executor-report-v1.md §3).
func (sd *schemaDoc) fastValid(v any, s map[string]any, depth int) bool {
	if s == nil || depth > 2*128 {
		return false
	}
	for k, kv := range s {
		switch k {
		case "$schema", "$id", "title", "description", "$comment", "$defs":
		case "$ref":
			ref, ok := kv.(string)
			if !ok || len(ref) == 0 || ref[0] != '#' {
				return false
			}
			target, _ := at(sd.root, refPointer(ref[1:]))
			tm, ok := target.(map[string]any)
			if !ok || !sd.fastValid(v, tm, depth+1) {
				return false
			}
		case "type":
			t, ok := kv.(string)
			if !ok || !typeOK(v, t) {
				return false
			}
		case "const":
			if !scalarEqual(v, kv) {
				return false
			}
		case "enum":
			vals, ok := kv.([]any)
			if !ok {
				return false
			}
			found := false
			for _, e := range vals {
				found = found || scalarEqual(v, e)
			}
			if !found {
				return false
			}
		case "required":
			req, ok := kv.([]any)
			if !ok {
				return false
			}
			if m, isMap := v.(map[string]any); isMap {
				for _, r := range req {
					name, ok := r.(string)
					if !ok {
						return false
					}
					if _, present := m[name]; !present {
						return false
					}
				}
			}
		case "properties":
			props, ok := kv.(map[string]any)
			if !ok {
				return false
			}
			if m, isMap := v.(map[string]any); isMap {
				for name, ps := range props {
					psm, ok := ps.(map[string]any)
					if !ok {
						return false
					}
					if val, present := m[name]; present && !sd.fastValid(val, psm, depth+1) {
						return false
					}
				}
			}
		case "additionalProperties":
			if b, ok := kv.(bool); !ok || b {
				return false
			}
			if m, isMap := v.(map[string]any); isMap {
				props, _ := s["properties"].(map[string]any)
				for name := range m {
					if _, ok := props[name]; !ok {
						return false
					}
				}
			}
		case "items":
			is, ok := kv.(map[string]any)
			if !ok {
				return false
			}
			if l, isList := v.([]any); isList {
				for _, e := range l {
					if !sd.fastValid(e, is, depth+1) {
						return false
					}
				}
			}
		case "minLength":
			n, ok := kv.(float64)
			if !ok {
				return false
			}
			if str, isStr := v.(string); isStr && float64(utf8.RuneCountInString(str)) < n {
				return false
			}
		case "minimum", "maximum":
			bound, ok := kv.(float64)
			if !ok {
				return false
			}
			if x, isNum := number64(v); isNum {
				if (k == "minimum" && x < bound) || (k == "maximum" && x > bound) {
					return false
				}
			}
		case "oneOf":
			branches, ok := kv.([]any)
			if !ok {
				return false
			}
			matched := 0
			for _, b := range branches {
				bm, ok := b.(map[string]any)
				if !ok {
					return false
				}
				if sd.fastValid(v, bm, depth+1) {
					matched++
				}
			}
			if matched != 1 {
				return false
			}
		default:
			return false
		}
	}
	return true
}

func typeOK(v any, t string) bool {
	switch t {
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "null":
		return v == nil
	case "number":
		_, ok := number64(v)
		return ok
	case "integer":
		switch x := v.(type) {
		case int64:
			return true
		case float64:
			return x == math.Trunc(x) && !math.IsInf(x, 0)
		}
	}
	return false
}

func number64(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, !math.IsNaN(x)
	}
	return 0, false
}

// scalarEqual compares an instance scalar with a schema scalar by JSON equality. Collections are
// never judged equal here.
func scalarEqual(v, schemaVal any) bool {
	switch sv := schemaVal.(type) {
	case string:
		s, ok := v.(string)
		return ok && s == sv
	case bool:
		b, ok := v.(bool)
		return ok && b == sv
	case nil:
		return v == nil
	case float64:
		switch x := v.(type) {
		case int64:
			return math.Abs(sv) < 1<<53 && sv == math.Trunc(sv) && int64(sv) == x
		case float64:
			return x == sv
		}
	}
	return false
}
