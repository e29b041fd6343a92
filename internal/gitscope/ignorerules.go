package gitscope

import (
	"bytes"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// preflightExcludes renders the ignore rules as of pre-flight as one exclude file for `git
// ls-files --others --exclude-from=<file>`, so that git reads no live ignore source. The order
// that makes it git's own answer is in gitscope.md §4.6, "The pre-flight exclude file".
func preflightExcludes(s *inputsSnapshot) []byte {
	var out []byte
	for _, role := range []string{roleExcludesFile, roleInfoExclude} {
		if f := s.file(role); f.Present {
			out = appendRooted(out, "", f.Data)
		}
	}
	for _, ig := range s.Ignores {
		if strings.ContainsAny(ig.Dir, "\n\r") {
			// Cannot be written as a line: its rules are left out (more paths, never fewer).
			continue
		}
		out = appendRooted(out, ig.Dir, ig.Data)
	}
	return out
}

// appendRooted appends the patterns of one ignore file that lives in dir to out, re-rooted as
// gitscope.md §4.6 says; dir is "" for the root or a global source. Lines are split as git
// splits them.
func appendRooted(out []byte, dir string, data []byte) []byte {
	if dir == "" {
		// Root-level patterns mean the same in an --exclude-from file: copied verbatim, so a
		// pattern without a slash keeps git's fast base-name match.
		out = append(out, data...)
		if len(data) > 0 && data[len(data)-1] != '\n' {
			out = append(out, '\n')
		}
		return out
	}
	prefix := escapeGlob(dir)
	for len(data) > 0 {
		line, rest, _ := bytes.Cut(data, []byte("\n"))
		data = rest
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		body := line
		neg := body[0] == '!'
		if neg {
			body = body[1:]
		}
		t := bytes.TrimSuffix(trimTrailingSpaces(body), []byte("/"))
		if len(t) == 0 {
			continue
		}
		if neg {
			out = append(out, '!')
		}
		if bytes.IndexByte(t, '/') >= 0 {
			body = bytes.TrimPrefix(body, []byte("/"))
			out = append(out, '/')
			out = append(out, prefix...)
			out = append(out, '/')
		} else {
			out = append(out, '/')
			out = append(out, prefix...)
			out = append(out, "/**/"...)
		}
		out = append(out, body...)
		out = append(out, '\n')
	}
	return out
}

// trimTrailingSpaces is git's trim_trailing_spaces: trailing ' ' removed unless escaped by a
// backslash.
func trimTrailingSpaces(b []byte) []byte {
	end := len(b)
	for end > 0 && b[end-1] == ' ' {
		// count backslashes before this space
		n := 0
		for i := end - 2; i >= 0 && b[i] == '\\'; i-- {
			n++
		}
		if n%2 == 1 {
			break
		}
		end--
	}
	return b[:end]
}

// escapeGlob escapes the wildmatch metacharacters of a literal directory path.
func escapeGlob(s string) string {
	if !strings.ContainsAny(s, `*?[\`) {
		return s
	}
	var b strings.Builder
	for _, c := range []byte(s) {
		switch c {
		case '*', '?', '[', '\\':
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String()
}

// preflightPatterns are the pre-flight ignore rules for go-git's matcher in the degraded walk:
// the global sources, then each baseline .gitignore in its directory's domain.
func preflightPatterns(s *inputsSnapshot) []gitignore.Pattern {
	var ps []gitignore.Pattern
	for _, role := range []string{roleExcludesFile, roleInfoExclude} {
		if f := s.file(role); f.Present {
			ps = append(ps, parseIgnoreData(f.Data, nil)...)
		}
	}
	for _, ig := range s.Ignores {
		var domain []string
		if ig.Dir != "" {
			domain = strings.Split(ig.Dir, "/")
		}
		ps = append(ps, parseIgnoreData(ig.Data, domain)...)
	}
	return ps
}
