// Package jsonptr builds and splits RFC 6901 JSON pointers, the one place mastermind escapes and
// unescapes reference tokens ("~" is "~0", "/" is "~1"). Pointers here are the plain RFC 6901
// string form ("" is the whole document, "/a/0" is member a's first element); the URI-fragment
// form (percent-encoded, after "#") is not handled here.
package jsonptr
