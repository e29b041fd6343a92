package yamlstrict

import (
	"math"
	"strconv"
)

// resolvePlain resolves a plain scalar's text by the YAML 1.2 core schema
// only (executor-report-v1.md §2.3), ignoring yaml.v3's own resolution. It
// returns the converted value, the resolved kind, and the value rule the text
// breaks, "" when none; a broken rule makes the value nil.
func resolvePlain(s string) (any, Kind, string) {
	switch s {
	case "", "~", "null", "Null", "NULL":
		return nil, KindNull, RuleNull
	case "true", "True", "TRUE":
		return true, KindBool, ""
	case "false", "False", "FALSE":
		return false, KindBool, ""
	case ".nan", ".NaN", ".NAN":
		return nil, KindFloat, RuleNonFinite
	}
	if isInfLiteral(s) {
		return nil, KindFloat, RuleNonFinite
	}
	switch {
	case isDecimalInt(s):
		return parseInt(s, 10)
	case len(s) > 2 && s[0] == '0' && s[1] == 'o' && allDigits(s[2:], isOctal):
		return parseInt(s[2:], 8)
	case len(s) > 2 && s[0] == '0' && s[1] == 'x' && allDigits(s[2:], isHex):
		return parseInt(s[2:], 16)
	case isFloatLiteral(s):
		f, err := strconv.ParseFloat(s, 64)
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, KindFloat, RuleNonFinite
		}
		if err != nil {
			// Unreachable for text matching the core float pattern; fail closed.
			return nil, KindFloat, RuleNonFinite
		}
		return f, KindFloat, ""
	}
	return s, KindString, ""
}

func parseInt(digits string, base int) (any, Kind, string) {
	n, err := strconv.ParseInt(digits, base, 64)
	if err != nil {
		return nil, KindInt, RuleIntRange
	}
	return n, KindInt, ""
}

func isInfLiteral(s string) bool {
	if len(s) > 0 && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	return s == ".inf" || s == ".Inf" || s == ".INF"
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isOctal(c byte) bool { return c >= '0' && c <= '7' }
func isHex(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func allDigits(s string, ok func(byte) bool) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !ok(s[i]) {
			return false
		}
	}
	return true
}

// isDecimalInt matches [-+]?[0-9]+.
func isDecimalInt(s string) bool {
	if len(s) > 0 && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	return allDigits(s, isDigit)
}

// isFloatLiteral matches [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?.
func isFloatLiteral(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := func() int {
		start := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		return i - start
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	} else {
		if digits() == 0 {
			return false
		}
		if i < len(s) && s[i] == '.' {
			i++
			digits()
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}
