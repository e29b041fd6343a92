package harness

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mastermind-controller/mastermind/internal/fsx"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// Settings files, relative to the repository root, that `hook install --harness` merges into.
const (
	ClaudeSettingsRel = ".claude/settings.json"
	CodexHooksRel     = ".codex/hooks.json"
)

// SettingsRel returns the settings file of harness, "" for a name that is not a harness.
func SettingsRel(harness string) string {
	switch harness {
	case Claude:
		return ClaudeSettingsRel
	case Codex:
		return CodexHooksRel
	}
	return ""
}

// DefaultTimeout is the hook timeout both harnesses apply to a command hook whose entry has no
// "timeout", and `hook run`'s default --timeout.
const DefaultTimeout = 600 * time.Second

// CommandMarker starts every hook command mastermind installs. An existing handler whose command
// starts with it is ours: install updates it in place instead of adding a second one.
const CommandMarker = "mastermind hook run"

// HookCommand returns the command line a harness runs, `mastermind hook run --harness H` with the
// flags asked for. A timeout above 0 is passed on, so the run can stop itself before the harness
// kills it.
func HookCommand(harness string, failOnDrift, failOpen bool, timeout int) string {
	cmd := CommandMarker + " --harness " + harness
	if failOnDrift {
		cmd += " --fail-on drift"
	}
	if failOpen {
		cmd += " --fail-open"
	}
	if timeout > 0 {
		cmd += fmt.Sprintf(" --timeout %ds", timeout)
	}
	return cmd
}

// Handler is the command handler install writes: the command and the entry's "timeout" in
// seconds, none when 0.
type Handler struct {
	Command string
	Timeout int
}

// Settings merge actions.
const (
	SettingsCreated   = "created"   // the file did not exist
	SettingsAdded     = "added"     // the file existed; our handler was added
	SettingsUpdated   = "updated"   // our handler was there with another command; it was rewritten
	SettingsUnchanged = "unchanged" // our handler was already there, identical
)

// MaxSettingsBytes bounds the settings file read.
const MaxSettingsBytes = 4 << 20

// InvalidSettingsError is an existing settings file that MergeSettings refuses to change, such as
// one with duplicate keys or a `hooks` entry of an unexpected shape. The file is left as it is.
type InvalidSettingsError struct {
	File   string // as given to MergeSettings, for messages
	Detail string
}

func (e *InvalidSettingsError) Error() string {
	return fmt.Sprintf("%s: %s; fix the file by hand (it was not changed)", e.File, e.Detail)
}

// MergeSettings adds h as a command handler of each event to the settings document data, in the
// entry shape of integrations.md §2, keeping every existing key and handler in order and updating
// ours in place. It returns the new document and the action; an invalid document is an
// *InvalidSettingsError naming file.
func MergeSettings(file string, data []byte, events []string, h Handler) (out []byte, action string, err error) {
	created := len(bytes.TrimSpace(data)) == 0
	if created {
		data = []byte("{}")
	}
	if err := checkDocument(data); err != nil {
		return nil, "", &InvalidSettingsError{File: file, Detail: err.Error()}
	}
	doc := gjson.ParseBytes(data)
	hooks := doc.Get("hooks")
	if hooks.Exists() && !hooks.IsObject() {
		return nil, "", shapeError(file, data, "hooks", `"hooks" must be an object of event names`)
	}
	work := append([]byte(nil), data...)
	added, updated := false, false
	for _, ev := range events {
		groups := hooks.Get(gjson.Escape(ev))
		if groups.Exists() && !groups.IsArray() {
			return nil, "", shapeError(file, data, "hooks."+gjson.Escape(ev), fmt.Sprintf(`"hooks.%s" must be an array of matcher groups`, ev))
		}
		found := false
		for gi, g := range groups.Array() {
			if !g.IsObject() {
				return nil, "", shapeError(file, data, fmt.Sprintf("hooks.%s.%d", gjson.Escape(ev), gi), fmt.Sprintf(`"hooks.%s[%d]" must be an object`, ev, gi))
			}
			hs := g.Get("hooks")
			if hs.Exists() && !hs.IsArray() {
				return nil, "", shapeError(file, data, fmt.Sprintf("hooks.%s.%d.hooks", gjson.Escape(ev), gi), fmt.Sprintf(`"hooks.%s[%d].hooks" must be an array`, ev, gi))
			}
			for hi, h2 := range hs.Array() {
				c := h2.Get("command")
				if c.Type != gjson.String || !isOurs(c.Str) {
					continue
				}
				found = true
				at := fmt.Sprintf("hooks.%s.%d.hooks.%d.", gjson.Escape(ev), gi, hi)
				if c.Str != h.Command {
					if work, err = sjson.SetBytes(work, at+"command", h.Command); err != nil {
						return nil, "", err
					}
					updated = true
				}
				if to := h2.Get("timeout"); h.Timeout > 0 && (to.Type != gjson.Number || to.Raw != fmt.Sprint(h.Timeout)) {
					if work, err = sjson.SetBytes(work, at+"timeout", h.Timeout); err != nil {
						return nil, "", err
					}
					updated = true
				}
			}
		}
		if found {
			continue
		}
		group, err := json.Marshal(matcherGroup{Hooks: []commandHandler{{Type: "command", Command: h.Command, Timeout: h.Timeout}}})
		if err != nil {
			return nil, "", err
		}
		work, err = sjson.SetRawBytes(work, fmt.Sprintf("hooks.%s.-1", gjson.Escape(ev)), group)
		if err != nil {
			return nil, "", err
		}
		added = true
	}
	if !added && !updated && !created {
		return data, SettingsUnchanged, nil
	}
	var compact, pretty bytes.Buffer
	if err := json.Compact(&compact, work); err != nil {
		return nil, "", fmt.Errorf("internal error: merged %s is not JSON: %w", file, err)
	}
	if err := json.Indent(&pretty, compact.Bytes(), "", "  "); err != nil {
		return nil, "", err
	}
	pretty.WriteByte('\n')
	switch {
	case created:
		action = SettingsCreated
	case added:
		action = SettingsAdded
	default:
		action = SettingsUpdated
	}
	return pretty.Bytes(), action, nil
}

// shapeError is an *InvalidSettingsError for the value at the gjson path in data: detail, then
// what was found there and where.
func shapeError(file string, data []byte, path, detail string) *InvalidSettingsError {
	r := gjson.GetBytes(data, path)
	kind := strings.ToLower(r.Type.String())
	switch {
	case r.IsArray():
		kind = "array"
	case r.IsObject():
		kind = "object"
	case r.Type == gjson.True || r.Type == gjson.False:
		kind = "boolean"
	}
	if kind == "null" {
		detail += "; found null"
	} else {
		detail += "; found " + article(kind) + " " + kind
	}
	if r.Index > 0 {
		line, col := lineCol(data, int64(r.Index))
		detail += fmt.Sprintf(" at line %d, column %d", line, col)
	}
	return &InvalidSettingsError{File: file, Detail: detail}
}

func article(word string) string {
	if strings.ContainsRune("aeiou", rune(word[0])) {
		return "an"
	}
	return "a"
}

// matcherGroup and commandHandler are the entry MergeSettings adds, keys in the documented order.
type matcherGroup struct {
	Hooks []commandHandler `json:"hooks"`
}

type commandHandler struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout,omitempty"`
}

// OurTimeout returns the largest numeric "timeout" of our handlers for events in data, 0 when
// there is none or data is not a settings document.
func OurTimeout(data []byte, events []string) int {
	best := 0
	hooks := gjson.GetBytes(data, "hooks")
	for _, ev := range events {
		for _, g := range hooks.Get(gjson.Escape(ev)).Array() {
			for _, h := range g.Get("hooks").Array() {
				c, to := h.Get("command"), h.Get("timeout")
				if c.Type == gjson.String && isOurs(c.Str) && to.Type == gjson.Number && to.Num > float64(best) && to.Num < 1<<31 {
					best = int(to.Num)
				}
			}
		}
	}
	return best
}

// isOurs reports whether a handler command is one mastermind installed: it starts with
// CommandMarker, optionally after a path to the binary.
func isOurs(cmd string) bool {
	f := strings.Fields(cmd)
	return len(f) >= 3 && filepath.Base(f[0]) == "mastermind" && f[1] == "hook" && f[2] == "run"
}

// checkDocument accepts one JSON object with nothing after it and no duplicate keys at any depth,
// since which duplicate a harness keeps differs between parsers.
func checkDocument(data []byte) error {
	if !json.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v)
		var se *json.SyntaxError
		if errors.As(err, &se) {
			// Offset counts the offending byte as read; point at it.
			line, col := lineCol(data, max(se.Offset-1, 0))
			return fmt.Errorf("not valid JSON at line %d, column %d: %v (comments and trailing commas are not allowed)", line, col, se)
		}
		return fmt.Errorf("not valid JSON: %v", err)
	}
	if t := bytes.TrimSpace(data); len(t) == 0 || t[0] != '{' {
		return errors.New("the top level must be a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return scanValue(dec, data, "")
}

func scanValue(dec *json.Decoder, data []byte, path string) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch tok {
	case json.Delim('{'):
		seen := map[string]bool{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return err
			}
			k := kt.(string)
			if seen[k] {
				line, col := lineCol(data, dec.InputOffset())
				return fmt.Errorf("duplicate key %q in %s (ends at line %d, column %d)", k, objectName(path), line, col)
			}
			seen[k] = true
			if err := scanValue(dec, data, path+"."+k); err != nil {
				return err
			}
		}
		_, err = dec.Token()
		return err
	case json.Delim('['):
		for i := 0; dec.More(); i++ {
			if err := scanValue(dec, data, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		_, err = dec.Token()
		return err
	}
	return nil
}

func objectName(path string) string {
	if path == "" {
		return "the top-level object"
	}
	return strings.TrimPrefix(path, ".")
}

// lineCol converts a byte offset into a 1-based line and a column in bytes.
func lineCol(data []byte, off int64) (int, int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := int(off) - bytes.LastIndexByte(before, '\n')
	return line, col
}

// RefusedPathError is a settings path InstallSettings will not write through: a link or
// non-regular file at the settings file or its directory. Nothing is written.
type RefusedPathError struct {
	Rel  string      // repository-relative, slash-separated: the directory or the file refused
	Dir  bool        // Rel is the settings file's directory
	Type fs.FileMode // the file's type bits, when !Dir
}

func (e *RefusedPathError) Error() string {
	if e.Dir {
		return fmt.Sprintf("%s is not a directory (a symbolic link or a file); refusing to write through it. Remove it and run hook install again", e.Rel)
	}
	return fmt.Sprintf("%s is not a regular file (%s); refusing to replace it. Remove it and run hook install again", e.Rel, typeName(e.Type))
}

// typeName names a non-regular file type for RefusedPathError.
func typeName(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}

// InstallResult says what InstallSettings did.
type InstallResult struct {
	Path   string // absolute path of the settings file
	Rel    string // repository-relative, slash-separated
	Action string // SettingsCreated, SettingsAdded, SettingsUpdated or SettingsUnchanged
	// Handler is what the file now runs: the command and the timeout written.
	Handler Handler
	// KeptTimeout is true when a larger timeout already on a handler of ours was kept.
	KeptTimeout bool
}

// HookOptions are the settings of the handler InstallSettings writes.
type HookOptions struct {
	FailOnDrift, FailOpen bool
	// Timeout is the entry's timeout in seconds; install keeps a larger one already on a handler
	// of ours, never lowering a timeout the user raised.
	Timeout int
}

// InstallSettings merges mastermind's handler for events into harness's settings file under root
// with MergeSettings and writes it atomically. A refused path is a *RefusedPathError and an invalid
// file an *InvalidSettingsError, and neither is overwritten.
func InstallSettings(root, harness string, events []string, opts HookOptions) (InstallResult, error) {
	rel := SettingsRel(harness)
	if rel == "" {
		return InstallResult{}, fmt.Errorf("unknown harness %q (want claude or codex)", harness)
	}
	path := filepath.Join(root, filepath.FromSlash(rel))
	res := InstallResult{Path: path, Rel: rel}
	dir := filepath.Dir(path)
	if fi, err := os.Lstat(dir); err == nil {
		if !fi.IsDir() {
			return res, &RefusedPathError{Rel: filepath.ToSlash(filepath.Dir(rel)), Dir: true}
		}
	} else if errors.Is(err, fs.ErrNotExist) {
		if err := os.Mkdir(dir, 0o755); err != nil {
			return res, err
		}
	} else {
		return res, err
	}
	var data []byte
	fi, err := os.Lstat(path)
	switch {
	case err == nil && !fi.Mode().IsRegular():
		return res, &RefusedPathError{Rel: rel, Type: fi.Mode().Type()}
	case err == nil:
		data, err = fsx.ReadFile(path, MaxSettingsBytes)
		if err != nil {
			return res, err
		}
	case !errors.Is(err, fs.ErrNotExist):
		return res, err
	}
	timeout := opts.Timeout
	if prev := OurTimeout(data, events); prev > timeout {
		timeout, res.KeptTimeout = prev, true
	}
	res.Handler = Handler{Command: HookCommand(harness, opts.FailOnDrift, opts.FailOpen, timeout), Timeout: timeout}
	out, action, err := MergeSettings(rel, data, events, res.Handler)
	if err != nil {
		return res, err
	}
	res.Action = action
	if action == SettingsUnchanged {
		return res, nil
	}
	return res, fsx.WriteFileAtomic(path, out, 0o644)
}
