package forge

import (
	"os"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mastermind-controller/mastermind/internal/fsx"
)

// registryLimit bounds the agent registry and agent definition reads.
const registryLimit = 1 << 20

// Paths of the forge writer's agent names, relative to the root (§1.6).
const (
	AgentRegistryPath = ".claude/config/agents/agent-registry.json"
	AgentsDir         = ".claude/agents"
)

// FoldAgent maps an agent name to the name the forge writer's canonicalAgent writes for it, so
// the dashboard draws one node per agent, by the tables of agent-contracts.md §1.6. Unlike the
// writer it follows no symbolic link and reads no file over 1 MiB.
func FoldAgent(root, name string) string {
	key := jsLower(name)
	if display, ok := registryNames(root)[key]; ok {
		return display
	}
	if display, ok := agentFileNames(root)[key]; ok {
		return display
	}
	return name
}

// registryNames is the writer's loadBossRegistry canon map, or nil when the registry is absent or
// unusable.
func registryNames(root string) map[string]string {
	data, err := fsx.ReadInRoot(root, AgentRegistryPath, registryLimit)
	if err != nil {
		return nil
	}
	v, err := ParseJSON(data)
	if err != nil || v == nil {
		return nil // JSON.parse throws; null.agents throws
	}
	reg, _ := v.(*Object)
	var agents any
	if reg != nil {
		agents = reg.vals["agents"]
	}
	canon := map[string]string{}
	for _, e := range jsEntries(agents) {
		if e.val == nil {
			return nil // a.name on null throws: the writer loses the whole registry
		}
		var name any
		if o, ok := e.val.(*Object); ok {
			name = o.vals["name"]
		}
		display := e.key
		if jsTruthy(name) {
			display = jsString(name)
		}
		canon[jsLower(e.key)] = display
		if jsTruthy(name) {
			canon[jsLower(jsString(name))] = display
		}
	}
	return canon
}

type jsEntry struct {
	key string
	val any
}

// jsEntries is Object.entries(v || {}) for a parsed JSON value: an object's keys in property
// order, an array's indices; strings give their characters, which never change a fold, and other
// values nothing.
func jsEntries(v any) []jsEntry {
	var out []jsEntry
	switch t := v.(type) {
	case *Object:
		for _, k := range t.Keys() {
			out = append(out, jsEntry{k, t.vals[k]})
		}
	case []any:
		for i, e := range t {
			out = append(out, jsEntry{formatNumber(float64(i)), e})
		}
	case string:
		for i, u := range utf16Units(t) {
			out = append(out, jsEntry{formatNumber(float64(i)), string(appendUnit(nil, u))})
		}
	}
	return out
}

// jsTruthy is ECMAScript ToBoolean for a parsed JSON value.
func jsTruthy(v any) bool {
	switch t := v.(type) {
	case nil:
		return false
	case bool:
		return t
	case float64:
		return t != 0 && t == t
	case string:
		return t != ""
	}
	return true
}

// agentFileNames is the writer's loadProjectAgents canon map.
func agentFileNames(root string) map[string]string {
	if fsx.CheckNoSymlink(root, AgentsDir) != nil {
		return nil
	}
	entries, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(AgentsDir)))
	if err != nil {
		return nil
	}
	canon := map[string]string{}
	for _, e := range entries { // os.ReadDir sorts by name, as libuv's scandir does for node
		f := e.Name()
		if !strings.HasSuffix(jsLower(f), ".md") {
			continue
		}
		base := f[:len(f)-3]
		declared := ""
		if e.Type().IsRegular() {
			if data, err := fsx.ReadInRoot(root, AgentsDir+"/"+f, registryLimit); err == nil {
				declared = agentFileName(toWellFormed(data))
			}
		}
		display := declared
		if display == "" {
			display = base
		}
		for _, alias := range []string{base, display, strings.ReplaceAll(display, "-", " ")} {
			key := jsLower(alias)
			if _, taken := canon[key]; key != "" && !taken {
				canon[key] = display
			}
		}
	}
	return canon
}

// toWellFormed decodes bytes as node's utf8 decoding does for a file: invalid bytes become U+FFFD.
func toWellFormed(data []byte) string {
	if utf8.Valid(data) {
		return string(data)
	}
	var b strings.Builder
	for len(data) > 0 {
		r, n := utf8.DecodeRune(data)
		b.WriteRune(r)
		data = data[n:]
	}
	return b.String()
}

// agentFrontmatter is the writer's /^---\r?\n([\s\S]*?)\r?\n---/: no BOM allowed, and the closing
// "---" need not end its line.
var agentFrontmatter = lazyRegexp(`\A---\r?\n((?s:.*?))\r?\n---`)

// agentFileName returns the declared name of an agent file as the forge writer reads it, with
// /^name:\s*(.+)$/m in ECMAScript semantics, so "name:" with nothing after it on its line takes
// the next line. "" means none.
func agentFileName(text string) string {
	m := agentFrontmatter().FindStringSubmatch(text)
	if m == nil {
		return ""
	}
	fm := m[1]
	for p := 0; p <= len(fm); {
		if strings.HasPrefix(fm[p:], "name:") {
			rest := fm[p+5:]
			value := strings.TrimLeftFunc(rest, isJSSpace)
			if value == "" {
				return "" // only white space left: the match, if any, trims to ""
			}
			if end := strings.IndexFunc(value, isJSLineTerminator); end >= 0 {
				value = value[:end]
			}
			value = jsTrim(value)
			if value != "" && strings.ContainsRune(`"'`, rune(value[0])) {
				value = value[1:]
			}
			if value != "" && strings.ContainsRune(`"'`, rune(value[len(value)-1])) {
				value = value[:len(value)-1]
			}
			return value
		}
		next := strings.IndexFunc(fm[p:], isJSLineTerminator)
		if next < 0 {
			break
		}
		_, size := utf8.DecodeRuneInString(fm[p+next:])
		p += next + size
	}
	return ""
}

func isJSLineTerminator(r rune) bool {
	return r == '\n' || r == '\r' || r == 0x2028 || r == 0x2029
}

// jsLower is ECMAScript String.prototype.toLowerCase: Go's per-character lower case plus the
// SpecialCasing rules that differ from it, U+0130 → "i\u0307" and a final capital sigma → ς.
func jsLower(s string) string {
	if !strings.ContainsAny(s, "\u0130\u03a3") {
		return strings.ToLower(s)
	}
	rs := []rune(s)
	var b strings.Builder
	for i, r := range rs {
		switch r {
		case 0x130:
			b.WriteString("i\u0307")
		case 0x3a3:
			if casedBefore(rs, i) && !casedAfter(rs, i) {
				b.WriteRune('ς')
			} else {
				b.WriteRune('σ')
			}
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// casedBefore and casedAfter are the Final_Sigma context of Unicode SpecialCasing: a cased letter
// before the sigma and none after it, skipping case-ignorable characters.
func casedBefore(rs []rune, i int) bool {
	for j := i - 1; j >= 0; j-- {
		if !caseIgnorable(rs[j]) {
			return cased(rs[j])
		}
	}
	return false
}

func casedAfter(rs []rune, i int) bool {
	for j := i + 1; j < len(rs); j++ {
		if !caseIgnorable(rs[j]) {
			return cased(rs[j])
		}
	}
	return false
}

func cased(r rune) bool { return unicode.IsUpper(r) || unicode.IsLower(r) || unicode.IsTitle(r) }

func caseIgnorable(r rune) bool {
	return strings.ContainsRune("'.:^`\u00b7\u2018\u2019\u2024\u2027", r) ||
		unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk)
}
