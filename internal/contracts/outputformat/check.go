package outputformat

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Outcome is the result kind of a check (§3.5).
type Outcome string

// Outcomes, as written in the JSON envelope.
const (
	NotDeclared  Outcome = "not_declared"
	Match        Outcome = "match"
	Deviation    Outcome = "deviation"
	InvalidRegex Outcome = "invalid_regex"
	ConfigError  Outcome = "config_error"
)

// TruncateLimit is the number of code points of output quoted in a message (§3.4).
const TruncateLimit = 200

// Result is the outcome of Check or Lint.
type Result struct {
	Declared bool
	Pattern  string
	Mode     Mode
	Outcome  Outcome
	// Passed is false exactly when the command exits 1.
	Passed bool
	// Message is the exact §3.4 message without the mode prefix, "" for a match or nothing
	// declared; for a configuration error it is the reason.
	Message string
	// RegexError is Go's compile error for an invalid pattern, with a hint for constructs RE2
	// does not support.
	RegexError string
	// Note explains a not-declared result from invalid YAML.
	Note string
}

// Line returns the stderr line of a deviation or invalid regex:
// "output_format deviation (<mode>): <message>".
func (r *Result) Line() string {
	return fmt.Sprintf("output_format deviation (%s): %s", r.Mode, r.Message)
}

// EffectiveMode applies the precedence flag, then frontmatter, then lenient.
func EffectiveMode(flag Mode, cfg Config) Mode {
	switch {
	case flag != "":
		return flag
	case cfg.Mode != "":
		return cfg.Mode
	}
	return Lenient
}

// Compile compiles an output_format pattern as Go RE2 with no flags. It never panics; the error
// names the unsupported construct (look-around, back-references, \cX).
func Compile(pattern string) (re *regexp.Regexp, err error) {
	defer func() {
		if r := recover(); r != nil {
			re, err = nil, fmt.Errorf("regexp: %v", r)
		}
	}()
	re, err = regexp.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("%w%s", err, hint(pattern, err.Error()))
	}
	return re, nil
}

func hint(pattern, msg string) string {
	switch {
	case strings.Contains(msg, "`(?=") || strings.Contains(msg, "`(?!") || strings.Contains(msg, "`(?<=") || strings.Contains(msg, "`(?<!"):
		return " (look-ahead and look-behind are not supported by Go's RE2 syntax)"
	case strings.Contains(msg, "invalid escape sequence: `\\") && len(msg) > 0 && strings.ContainsAny(msg[len(msg)-2:len(msg)-1], "123456789"):
		return " (back-references are not supported by Go's RE2 syntax)"
	case strings.Contains(msg, "invalid escape sequence: `\\c`"):
		return ` (the \cX control escape is not supported by Go's RE2 syntax; use \x01-style escapes)`
	}
	return ""
}

// Truncate quotes output for a message: the whole output when it has at most 200 code points,
// otherwise its first 199 code points and "…". Invalid UTF-8 bytes count, and are shown, as
// U+FFFD.
func Truncate(output []byte) string {
	s := strings.ToValidUTF8(string(output), "\uFFFD")
	if !utf8.ValidString(string(output)) {
		// ToValidUTF8 folds a run of bad bytes into one U+FFFD; count each byte instead.
		var b strings.Builder
		for i := 0; i < len(output); {
			r, w := utf8.DecodeRune(output[i:])
			b.WriteRune(r)
			i += w
		}
		s = b.String()
	}
	if utf8.RuneCountInString(s) <= TruncateLimit {
		return s
	}
	n := 0
	for i := range s {
		if n == TruncateLimit-1 {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// MismatchMessage is `expected output matching /<pattern>/, got: "<out>"` (§3.4).
func MismatchMessage(pattern string, output []byte) string {
	return fmt.Sprintf("expected output matching /%s/, got: \"%s\"", pattern, Truncate(output))
}

// InvalidRegexMessage is `output_format pattern is not a valid regex: "/<pattern>/"` (§3.4).
func InvalidRegexMessage(pattern string) string {
	return fmt.Sprintf("output_format pattern is not a valid regex: \"/%s/\"", pattern)
}

// Check applies cfg to output under the mode precedence flag > frontmatter > lenient (§3.3–§3.5).
func Check(cfg Config, output []byte, flag Mode) Result {
	res := Result{Declared: cfg.Declared, Pattern: cfg.Pattern, Mode: EffectiveMode(flag, cfg), Note: cfg.Note}
	switch {
	case cfg.Error != "":
		res.Outcome, res.Message, res.Passed = ConfigError, cfg.Error, false
		return res
	case !cfg.Declared:
		res.Outcome, res.Passed = NotDeclared, true
		return res
	}
	re, err := Compile(cfg.Pattern)
	if err != nil {
		res.Outcome, res.Message, res.RegexError = InvalidRegex, InvalidRegexMessage(cfg.Pattern), err.Error()
		res.Passed = res.Mode != Strict
		return res
	}
	if re.Match(output) {
		res.Outcome, res.Passed = Match, true
		return res
	}
	res.Outcome, res.Message = Deviation, MismatchMessage(cfg.Pattern, output)
	res.Passed = res.Mode != Strict
	return res
}

// Lint reports configuration problems without an output: a configuration error or a pattern Go
// cannot compile fails (Passed false) whatever the mode.
func Lint(cfg Config, flag Mode) Result {
	res := Check(cfg, nil, flag)
	switch res.Outcome {
	case Deviation:
		res.Outcome, res.Message, res.Passed = Match, "", true // no output: only compilation matters
	case InvalidRegex:
		res.Passed = false
	}
	return res
}
