package forge

import (
	"regexp"
	"strings"
)

// labelTerm is TERM of §1.10 in its significant alternation order, lower case because the passes
// match on the ASCII-lower-cased copy.
const labelTerm = `password|passwd|pwd|client[_.-]?secret|secret[_.-]?key|secret|access[_.-]?token|refresh[_.-]?token|session[_.-]?token|token|api[_.-]?key|apikey|access[_.-]?key|private[_.-]?key|credentials?|authorization|bearer|auth|session|cookie`

const (
	sp      = `[` + jsSpaceClass + `]`
	keyPart = `(["']?)(` + labelTerm + `)(["']?)(` + sp + `*[:=]` + sp + `*)`
	// labelMax is the 1–4096 character bound of the labelled values.
	labelMax = 4096
)

// The RE2 parts of passes a–d: the key, separator and the value's first character. Code extends
// the value up to 4096 characters, since RE2 rejects counts above 1000, and checks the
// look-behind.
var (
	labelDoubleRe = lazyRegexp(keyPart + `"[^"\r\n]`)
	labelSingleRe = lazyRegexp(keyPart + `'[^'\r\n]`)
	labelBareRe   = lazyRegexp(keyPart + `[^` + jsSpaceClass + `"',;]`)
	labelWordRe   = lazyRegexp(`(` + labelTerm + `)(` + sp + `+)[a-z0-9_./+=-]`)
)

// redactLabelled applies the four labelled-secret passes of §1.10 in order: a double-quoted
// value, b single-quoted value, c unquoted value after ':' or '=', d a bare "term value" whose
// value (12–4096 of [A-Za-z0-9_./+=-]) mixes an ASCII letter and a digit.
func redactLabelled(s string) string {
	if !strings.ContainsAny(s, ":= \t\n\v\f\r\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff") {
		return s
	}
	s = quotedPass(s, labelDoubleRe(), '"')
	s = quotedPass(s, labelSingleRe(), '\'')
	s = barePass(s)
	s = wordPass(s)
	return s
}

// labelMatch finds the next pass match at or after pos whose start is not preceded by an ASCII
// letter or digit, resuming at candidate start + 1 on rejection.
func labelMatch(s, lower string, re *regexp.Regexp, pos int) []int {
	for pos <= len(s) {
		m := re.FindStringSubmatchIndex(lower[pos:])
		if m == nil {
			return nil
		}
		for i := range m {
			if m[i] >= 0 {
				m[i] += pos
			}
		}
		if m[0] > 0 && isASCIIAlnum(s[m[0]-1]) {
			pos = m[0] + 1
			continue
		}
		return m
	}
	return nil
}

// quotedPass is pass a or b with the quote q: the value after the opening quote is 1–4096
// characters other than q, CR and LF, then an optional closing quote.
func quotedPass(s string, re *regexp.Regexp, q byte) string {
	lower := asciiLower(s)
	var b strings.Builder
	last, pos := 0, 0
	for {
		m := labelMatch(s, lower, re, pos)
		if m == nil {
			break
		}
		open := m[9] // the opening quote
		end, _ := runUnits(s, open+1, labelMax, func(r rune) bool { return r != rune(q) && r != '\r' && r != '\n' })
		b.WriteString(s[last:open])
		b.WriteByte(q)
		b.WriteString(Marker)
		if end < len(s) && s[end] == q {
			b.WriteByte(q)
			end++
		}
		last, pos = end, end
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// barePass is pass c: after ':' or '=', an unquoted value of 1–4096 characters that are not
// white space, '"', '\”, ',' or ';'.
func barePass(s string) string {
	lower := asciiLower(s)
	var b strings.Builder
	last, pos := 0, 0
	for {
		m := labelMatch(s, lower, labelBareRe(), pos)
		if m == nil {
			break
		}
		vs := m[9]
		end, _ := runUnits(s, vs, labelMax, bareValueRune)
		b.WriteString(s[last:vs])
		b.WriteString(Marker)
		last, pos = end, end
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

func bareValueRune(r rune) bool {
	if isJSSpace(r) {
		return false
	}
	switch r {
	case '"', '\'', ',', ';':
		return false
	}
	return true
}

func wordValueRune(r rune) bool {
	return r < 0x80 && (isASCIIAlnum(byte(r)) || strings.ContainsRune("_./+=-", r))
}

// wordPass is pass d: TERM, white space, then 12–4096 characters of [A-Za-z0-9_./+=-]; the value
// is masked only when it holds at least one ASCII letter and one digit, otherwise the match is
// kept unchanged and the search continues after it.
func wordPass(s string) string {
	lower := asciiLower(s)
	var b strings.Builder
	last, pos := 0, 0
	for {
		m := labelMatch(s, lower, labelWordRe(), pos)
		if m == nil {
			break
		}
		vs := m[5] // value start, after the white space
		end, n := runUnits(s, vs, labelMax, wordValueRune)
		if n < 12 {
			pos = m[0] + 1
			continue
		}
		val := s[vs:end]
		hasLetter := strings.IndexFunc(val, func(r rune) bool { return r < 0x80 && isASCIILetter(byte(r)) }) >= 0
		hasDigit := strings.IndexFunc(val, func(r rune) bool { return r >= '0' && r <= '9' }) >= 0
		if hasLetter && hasDigit {
			b.WriteString(s[last:vs])
			b.WriteString(Marker)
			last = end
		}
		pos = end
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}
