package jsonptr

import (
	"strconv"
	"strings"
)

// Escape returns token as an RFC 6901 reference token: "~" becomes "~0" and "/" becomes "~1"
// (RFC 6901 §3). Escape("a/b~c") == "a~1b~0c".
func Escape(token string) string {
	if !strings.ContainsAny(token, "~/") {
		return token
	}
	var b strings.Builder
	b.Grow(len(token) + 2)
	for i := 0; i < len(token); i++ {
		switch c := token[i]; c {
		case '~':
			b.WriteString("~0")
		case '/':
			b.WriteString("~1")
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// Unescape reverses Escape in one left-to-right pass, so "~01" is "~1", never "/" (RFC 6901 §4).
// A "~" not followed by "0" or "1" is kept as it is: such a token is not valid RFC 6901, and
// keeping it means a malformed pointer simply names no member.
func Unescape(token string) string {
	i := strings.IndexByte(token, '~')
	if i < 0 {
		return token
	}
	var b strings.Builder
	b.Grow(len(token))
	b.WriteString(token[:i])
	for ; i < len(token); i++ {
		c := token[i]
		if c == '~' && i+1 < len(token) && (token[i+1] == '0' || token[i+1] == '1') {
			if token[i+1] == '0' {
				b.WriteByte('~')
			} else {
				b.WriteByte('/')
			}
			i++
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// Append returns ptr extended by one reference token, escaped: Append("/a", "b/c") == "/a/b~1c",
// Append("", "x") == "/x".
func Append(ptr, token string) string {
	return ptr + "/" + Escape(token)
}

// AppendIndex returns ptr extended by the array index i: AppendIndex("/a", 2) == "/a/2".
func AppendIndex(ptr string, i int) string {
	return ptr + "/" + strconv.Itoa(i)
}

// Join builds a pointer from unescaped reference tokens: Join() == "", Join("a b", "0") ==
// "/a b/0". Join(Split(p)...) == p for every pointer p Split accepts.
func Join(tokens ...string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(Escape(t))
	}
	return b.String()
}

// Split returns the unescaped reference tokens of ptr: Split("") == nil, Split("/a~1b/0") ==
// ["a/b", "0"], Split("/") == [""]. A pointer that does not start with "/" is read as if it did.
func Split(ptr string) []string {
	if ptr == "" {
		return nil
	}
	toks := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	for i, t := range toks {
		toks[i] = Unescape(t)
	}
	return toks
}

// Parent returns ptr without its last reference token: Parent("/a/b") == "/a", Parent("/a") ==
// "", Parent("") == "".
func Parent(ptr string) string {
	if i := strings.LastIndexByte(ptr, '/'); i >= 0 {
		return ptr[:i]
	}
	return ""
}

// Last returns the unescaped last reference token of ptr, or "" for the whole document.
func Last(ptr string) string {
	if ptr == "" {
		return ""
	}
	return Unescape(ptr[strings.LastIndexByte(ptr, '/')+1:])
}
