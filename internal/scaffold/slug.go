package scaffold

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mastermind-controller/mastermind/internal/repopath"
	"github.com/mastermind-controller/mastermind/internal/textsafe"
)

// MaxSlugBytes is the longest slug Slug produces, in bytes; longer slugs are cut at a word
// boundary where possible.
const MaxSlugBytes = 48

// MaxTitleRunes is the longest title accepted by CheckTitle, in code points.
const MaxTitleRunes = 200

// TaskNamePattern is the shape of a task folder name (spec-and-lifecycle.md §0,
// repopath.TaskNamePattern).
var TaskNamePattern = repopath.TaskNamePattern

// InputError is an invalid title or mode given to new-spec: a usage error (exit 2).
type InputError struct {
	Field string // "title" or "mode"
	Msg   string // a finished sentence naming the value and what was expected
}

func (e *InputError) Error() string { return e.Msg }

// Slug turns a title into a folder-name slug of lowercased ASCII letters and digits, every other
// run becoming one "-", at most MaxSlugBytes long. It is "" when the title has no ASCII letter or
// digit, and otherwise always matches the slug part of TaskNamePattern.
func Slug(title string) string {
	var b strings.Builder
	dash := false
	for _, r := range title {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
		case r >= 'A' && r <= 'Z':
			r += 'a' - 'A'
		default:
			dash = b.Len() > 0
			continue
		}
		if dash {
			b.WriteByte('-')
			dash = false
		}
		b.WriteRune(r)
	}
	s := b.String()
	if len(s) > MaxSlugBytes {
		s = s[:MaxSlugBytes]
		if i := strings.LastIndexByte(s, '-'); i >= MaxSlugBytes/2 {
			s = s[:i]
		}
		s = strings.TrimRight(s, "-")
	}
	return s
}

// CheckTitle trims title and checks it: non-empty, one line of at most MaxTitleRunes code
// points, valid UTF-8 without control or bidi characters (textsafe.NeedsEscape), and with at
// least one ASCII letter or digit to build the slug from. It returns the trimmed title, or an
// *InputError.
func CheckTitle(title string) (string, error) {
	t := strings.TrimSpace(title)
	switch {
	case t == "":
		return "", &InputError{Field: "title", Msg: "the title is empty; give a short description such as \"Add retry helper\""}
	case textsafe.Escape(t) != t:
		return "", &InputError{Field: "title", Msg: fmt.Sprintf("the title %q holds control, bidi or invalid UTF-8 characters; give one plain line", t)}
	case utf8.RuneCountInString(t) > MaxTitleRunes:
		return "", &InputError{Field: "title", Msg: fmt.Sprintf("the title is %d characters long; give at most %d", utf8.RuneCountInString(t), MaxTitleRunes)}
	case Slug(t) == "":
		return "", &InputError{Field: "title", Msg: fmt.Sprintf("the title %q has no ASCII letter or digit to build the folder name from; add some (for example an English summary)", t)}
	}
	return t, nil
}
