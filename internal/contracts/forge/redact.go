package forge

import (
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"
)

// Marker replaces every redacted secret (§1.10).
const Marker = "***REDACTED***"

// Redact returns a deep copy of v with secrets replaced by Marker under the walk of §1.10:
// strings directly under a credential-like key (and non-blank) are replaced wholesale; every
// other string goes through the secret-shape patterns and then the labelled-secret passes; array
// elements are walked without a key hint; numbers, booleans and null are unchanged.
func Redact(v any) any { return redactValue(v, "", 0) }

func redactValue(v any, key string, depth int) any {
	switch t := v.(type) {
	case string:
		if key != "" && SecretKey(key) && !isBlank(t) {
			return Marker
		}
		return RedactString(t)
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = redactValue(e, "", depth+1)
		}
		return out
	case *Object:
		out := NewObject()
		for _, k := range t.keys {
			out.Set(k, redactValue(t.vals[k], k, depth+1))
		}
		return out
	}
	return v
}

var secretKeyRe = lazyRegexp(`(^|[_.\- ])(passwd|password|pwd|secret|secret[_-]?key|token|access[_-]?token|refresh[_-]?token|session[_-]?token|api[_-]?key|apikey|client[_-]?secret|access[_-]?key|private[_-]?key|credential|credentials|authorization|bearer)($|[_.\- ])`)

// SecretKey reports whether an object key names a credential under the §1.10 key-name rule
// (ASCII case-insensitive): password, db_password, apiKey, X-Api-Key, session.token match;
// author, tokens, keyboard do not.
func SecretKey(key string) bool { return secretKeyRe().MatchString(asciiLower(key)) }

// asciiLower lower-cases ASCII letters only, so byte offsets in the result index the input.
// Case-insensitive rules match on this copy, because Go's (?i) folds non-ASCII letters such as
// KELVIN SIGN and ECMAScript's non-unicode /i does not.
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// Secret-shape patterns 1–9 of §1.10, pattern 2's look-behind checked in code. They cost about
// 2.5 ms to compile, so they compile on first use: every mastermind command links this package.
var (
	simpleShapes = sync.OnceValue(func() []secretShape {
		return []secretShape{
			{"nvapi-", regexp.MustCompile(`nvapi-[A-Za-z0-9_-]+`)},
			{"", nil}, // 2: OpenAI-style, see openAIRe
			{"sk_", regexp.MustCompile(`sk_(?:live|test)_[A-Za-z0-9]{10,}`)},
			{"rk_", regexp.MustCompile(`rk_(?:live|test)_[A-Za-z0-9]{10,}`)},
			{"_", regexp.MustCompile(`gh[oprsu]_[A-Za-z0-9]{20,}`)},
			{"xox", regexp.MustCompile(`xox[baprs]-[A-Za-z0-9-]+`)},
			{"AKIA", regexp.MustCompile(`AKIA[0-9A-Z]{16}`)},
			{"AIza", regexp.MustCompile(`AIza[0-9A-Za-z_-]{35}`)},
			{"SG.", regexp.MustCompile(`SG\.[A-Za-z0-9_-]{16,256}\.[A-Za-z0-9_-]{16,256}`)},
		}
	})
	openAIRe = lazyRegexp(`sk-[A-Za-z0-9_-]{20,}`)
	// urlCredRe runs on the ASCII-lower-cased copy (pattern 12 is case-insensitive).
	urlCredRe = lazyRegexp(`([a-z][a-z0-9+.-]{0,39}://[^` + jsSpaceClass + `:/@]{1,512}):[^` + jsSpaceClass + `:/@]{1,512}@`)
)

// secretShape is one secret-shape pattern and a substring every match contains (a cheap filter).
type secretShape struct {
	needle string
	re     *regexp.Regexp
}

// lazyRegexp returns a function that compiles expr (which must be valid) on its first call.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// RedactString applies the secret-shape patterns 1–12 and then the labelled-secret passes a–d
// of §1.10 to one string.
func RedactString(s string) string {
	for i, p := range simpleShapes() {
		if i == 1 {
			if strings.Contains(s, "sk-") {
				s = replaceRegexp(s, s, openAIRe(), true, func(string, []int) string { return Marker })
			}
			continue
		}
		if strings.Contains(s, p.needle) {
			s = p.re.ReplaceAllLiteralString(s, Marker)
		}
	}
	if strings.Contains(s, "-----BEGIN ") {
		s = redactPEM(s)
	}
	if strings.Contains(s, "eyJ") {
		s = redactJWT(s)
	}
	if strings.Contains(s, "://") {
		s = replaceRegexp(s, asciiLower(s), urlCredRe(), false, func(orig string, m []int) string {
			return orig[m[2]:m[3]] + ":" + Marker + "@"
		})
	}
	return redactLabelled(s)
}

// replaceRegexp replaces every leftmost match of re found in match, a same-length view of s, by
// repl(s, submatch indices). With lookBehind, which RE2 lacks, a candidate preceded by an ASCII
// letter or digit is rejected and the search resumes one byte later.
func replaceRegexp(s, match string, re *regexp.Regexp, lookBehind bool, repl func(string, []int) string) string {
	var b strings.Builder
	last, pos := 0, 0
	for pos <= len(s) {
		m := re.FindStringSubmatchIndex(match[pos:])
		if m == nil {
			break
		}
		for i := range m {
			if m[i] >= 0 {
				m[i] += pos
			}
		}
		if lookBehind && m[0] > 0 && isASCIIAlnum(s[m[0]-1]) {
			pos = m[0] + 1
			continue
		}
		b.WriteString(s[last:m[0]])
		b.WriteString(repl(s, m))
		last = m[1]
		pos = m[1]
		if m[1] == m[0] {
			pos++
		}
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

func isASCIIAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// runUnits scans from i over runes accepted by ok, taking at most maxUnits UTF-16 code units as
// ECMAScript counts them. It returns the end offset and the units taken.
func runUnits(s string, i, maxUnits int, ok func(r rune) bool) (end, units int) {
	for i < len(s) {
		r, w := utf8.DecodeRuneInString(s[i:])
		if !ok(r) {
			break
		}
		u := 1
		if r > 0xFFFF {
			u = 2
		}
		if units+u > maxUnits {
			break
		}
		units += u
		i += w
	}
	return i, units
}

func jwtChar(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-'
}

// redactJWT is pattern 11, eyJ[A-Za-z0-9_-]{10,256}\.[A-Za-z0-9_-]{1,8192}\.[A-Za-z0-9_-]{1,8192},
// by scanning, since RE2 rejects counts above 1000. A longer signature is masked in its first
// 8192 characters only, as the bounded pattern does.
func redactJWT(s string) string {
	var b strings.Builder
	last, pos := 0, 0
	// memo for the payload run: every candidate in one header run shares its start.
	memoStart, memoEnd := -1, -1
	for {
		k := strings.Index(s[pos:], "eyJ")
		if k < 0 {
			break
		}
		st := pos + k
		p1 := st + 3
		e1, n1 := runUnits(s, p1, 257, jwtChar)
		if n1 < 10 || n1 > 256 || e1 >= len(s) || s[e1] != '.' {
			pos = st + 1
			continue
		}
		p2 := e1 + 1
		var e2 int
		if p2 == memoStart {
			e2 = memoEnd
		} else {
			e2, _ = runUnits(s, p2, 8193, jwtChar)
			memoStart, memoEnd = p2, e2
		}
		if e2 == p2 || e2-p2 > 8192 || e2 >= len(s) || s[e2] != '.' {
			pos = st + 1
			continue
		}
		p3 := e2 + 1
		e3, _ := runUnits(s, p3, 8192, jwtChar)
		if e3 == p3 {
			pos = st + 1
			continue
		}
		b.WriteString(s[last:st])
		b.WriteString(Marker)
		last, pos = e3, e3
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// pemEnd returns the end of a PEM armour line "-----BEGIN [A-Z ]*PRIVATE KEY-----" or its END
// form at i, or -1. The [A-Z ]* run is maximal because '-' is outside it.
func pemEnd(s string, i int, prefix string) int {
	if !strings.HasPrefix(s[i:], prefix) {
		return -1
	}
	j := i + len(prefix)
	for j < len(s) && (s[j] >= 'A' && s[j] <= 'Z' || s[j] == ' ') {
		j++
	}
	if !strings.HasSuffix(s[i+len(prefix):j], "PRIVATE KEY") || !strings.HasPrefix(s[j:], "-----") {
		return -1
	}
	return j + 5
}

// pemMaxBody is the lazy 0–8192 character body bound of pattern 10.
const pemMaxBody = 8192

// redactPEM is pattern 10: a BEGIN … PRIVATE KEY----- header, lazily 0–8192 characters of
// anything, then an END … PRIVATE KEY----- footer, all replaced by one marker.
func redactPEM(s string) string {
	type span struct{ start, end int }
	var footers []span
	for i := 0; ; {
		k := strings.Index(s[i:], "-----END ")
		if k < 0 {
			break
		}
		st := i + k
		if e := pemEnd(s, st, "-----END "); e >= 0 {
			footers = append(footers, span{st, e})
		}
		i = st + 1
	}
	if len(footers) == 0 {
		return s
	}
	var b strings.Builder
	last, pos := 0, 0
	cacheFooter, cacheFrom, cacheUnits := -1, 0, 0
	for {
		k := strings.Index(s[pos:], "-----BEGIN ")
		if k < 0 {
			break
		}
		hs := pos + k
		he := pemEnd(s, hs, "-----BEGIN ")
		if he < 0 {
			pos = hs + 1
			continue
		}
		fi := sort.Search(len(footers), func(i int) bool { return footers[i].start >= he })
		if fi == len(footers) {
			break // no footer after this header, nor after any later one
		}
		f := footers[fi]
		ok := false
		switch gap := f.start - he; {
		case gap <= pemMaxBody: // units never exceed bytes
			ok = true
		case gap > 3*pemMaxBody: // a code unit takes at most 3 bytes
		default:
			var units int
			if cacheFooter == fi && cacheFrom <= he {
				_, d := runUnits(s[:he], cacheFrom, 1<<30, func(rune) bool { return true })
				units = cacheUnits - d
			} else {
				_, units = runUnits(s[:f.start], he, 1<<30, func(rune) bool { return true })
			}
			cacheFooter, cacheFrom, cacheUnits = fi, he, units
			ok = units <= pemMaxBody
		}
		if !ok {
			pos = hs + 1
			continue
		}
		b.WriteString(s[last:hs])
		b.WriteString(Marker)
		last, pos = f.end, f.end
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}
