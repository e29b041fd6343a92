package transcript

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tidwall/gjson"
)

// claudeTypes are the entry types of the published Claude Code session schemas (2.0.76 to
// 2.1.144) that hold no tool call or result: read and skipped, not counted as unknown.
var claudeTypes = map[string]bool{
	"system": true, "summary": true, "file-history-snapshot": true, "queue-operation": true,
	"progress": true, "pr-link": true, "agent-name": true, "custom-title": true, "last-prompt": true,
	"attachment": true, "permission-mode": true, "ai-title": true, "agent-setting": true,
	"bridge-session": true, "worktree-state": true,
}

// claudeReadOnly are the Claude Code tools that neither write files nor run commands. A call of
// any other tool but Bash and the edit tools may have written anything and counts for run:
// witnessed condition 3; Task and Agent start a subagent, whose calls are in its own file.
var claudeReadOnly = map[string]bool{
	"Read": true, "Glob": true, "Grep": true, "LS": true, "NotebookRead": true, "WebFetch": true,
	"WebSearch": true, "TodoWrite": true, "TodoRead": true, "TaskCreate": true, "TaskGet": true,
	"TaskUpdate": true, "TaskList": true, "BashOutput": true, "TaskOutput": true, "KillShell": true,
	"KillBash": true, "ExitPlanMode": true, "EnterPlanMode": true, "AskUserQuestion": true,
	"ListMcpResourcesTool": true, "ReadMcpResourceTool": true, "ToolSearch": true,
	"Task": true, "Agent": true,
}

// claudeExit is the first line of a failed Bash tool result, "Exit code 1", or the entry's
// toolUseResult string "Error: Exit code 1".
var claudeExit = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:Error: )?Exit code (-?\d+)\s*$`) })

// claudeLine reads one Claude Code session entry.
func (r *reader) claudeLine(line []byte) {
	if !gjson.ValidBytes(line) {
		r.unknown(time.Time{}, false)
		return
	}
	e := gjson.ParseBytes(line)
	if !e.IsObject() {
		r.unknown(time.Time{}, false)
		return
	}
	if v := e.Get("version"); v.Type == gjson.String {
		r.version(v.Str)
	}
	switch typ := e.Get("type").String(); typ {
	case "assistant":
		r.claudeAssistant(e)
	case "user":
		r.claudeUser(e)
	default:
		if !claudeTypes[typ] {
			r.unknownEntry(e)
			return
		}
		r.known++
		if ts, ok := parseTime(e.Get("timestamp")); ok {
			r.counts(ts)
		}
	}
}

// claudeAssistant queues the entry's Bash and edit tool calls.
func (r *reader) claudeAssistant(e gjson.Result) {
	ts, ok := parseTime(e.Get("timestamp"))
	content := e.Get("message.content")
	if !ok || !content.IsArray() {
		r.unknown(ts, ok)
		return
	}
	r.known++
	if cwd := e.Get("cwd"); cwd.Type == gjson.String && cwd.Str != "" {
		r.cwd = cwd.Str
	}
	before := !r.counts(ts)
	ord := Order{At: ts, File: r.file, Line: r.line}
	sub := r.file > 0 || e.Get("isSidechain").Bool()
	content.ForEach(func(_, b gjson.Result) bool {
		if b.Get("type").String() != "tool_use" {
			return true
		}
		id, input := b.Get("id"), b.Get("input")
		if id.Type != gjson.String || id.Str == "" || !input.IsObject() {
			r.unknown(ts, true)
			return true
		}
		c := &call{id: id.Str, order: ord, sub: sub, before: before}
		switch name := b.Get("name").String(); name {
		case "Bash", "bash":
			cmd := input.Get("command")
			if cmd.Type != gjson.String {
				r.unknown(ts, true)
				return true
			}
			c.kind, c.cmd, c.dir, c.background = callShell, cmd.Str, r.cwd, input.Get("run_in_background").Bool()
			if r.batchChdir {
				c.dir = "" // an earlier call of this batch may have moved the shell
			}
			r.batchChdir = r.batchChdir || r.shape(c.cmd, c.dir).chdir
		case "Edit", "Write", "MultiEdit", "NotebookEdit":
			p := input.Get("file_path")
			if name == "NotebookEdit" && input.Get("notebook_path").Type == gjson.String {
				p = input.Get("notebook_path")
			}
			abs := ""
			if p.Type == gjson.String {
				abs = absIn(p.Str, r.cwd)
			}
			if abs == "" {
				r.unknown(ts, true)
				return true
			}
			c.kind, c.tool, c.paths = callEdit, name, []string{abs}
		default:
			if (name == "Task" || name == "Agent") && input.Get("run_in_background").Bool() && !before {
				later(&r.sess.LastBackground, ord, Order{})
			}
			if claudeReadOnly[name] {
				return true
			}
			c.kind, c.tool = callOther, name
		}
		r.addPending(c)
		return true
	})
}

// claudeUser settles the calls whose tool_result blocks the entry holds.
func (r *reader) claudeUser(e gjson.Result) {
	ts, ok := parseTime(e.Get("timestamp"))
	if !ok {
		r.unknown(ts, false)
		return
	}
	r.known++
	r.counts(ts)
	r.batchChdir = false
	end := Order{At: ts, File: r.file, Line: r.line}
	content := e.Get("message.content")
	if !content.IsArray() {
		return // a prompt
	}
	var results []gjson.Result
	content.ForEach(func(_, b gjson.Result) bool {
		if b.Get("type").String() == "tool_result" {
			results = append(results, b)
		}
		return true
	})
	tur := e.Get("toolUseResult")
	for _, b := range results {
		c := r.take(b.Get("tool_use_id").String())
		if c == nil {
			continue
		}
		res := claudeResult(b, tur, len(results) == 1)
		res.end = end
		// The Bash tool's shell persists: a successful `cd DIR` moves the next call, which
		// matters where an entry carries no cwd of its own; another command that may move it
		// leaves the directory unknown until an entry says it.
		if c.kind == callShell {
			if sh := r.shape(c.cmd, c.dir); sh.cdTo != "" && res.status == StatusPassed {
				r.cwd = sh.cdTo
			} else if sh.chdir {
				r.cwd = ""
			}
		}
		r.settle(c, res)
	}
}

// claudeResult reads a tool_result block, with the entry's toolUseResult when own is set: is_error
// with "Exit code N" is exit N, a background, interrupted or cancelled run is unknown, and any
// other Bash result is exit 0.
func claudeResult(b, tur gjson.Result, own bool) result {
	text := resultText(b.Get("content"))
	first, _, _ := strings.Cut(text, "\n")
	isErr := b.Get("is_error").Bool()
	res := result{ok: !isErr}
	switch {
	case own && tur.IsObject() && tur.Get("backgroundTaskId").Exists(),
		strings.HasPrefix(text, "Command running in background"):
		res.note = "background"
	case own && tur.IsObject() && tur.Get("interrupted").Bool():
		res.note = "interrupted"
	case isErr:
		var m []string
		if len(first) < 64 { // "Error: Exit code -2147483648"
			m = claudeExit().FindStringSubmatch(first)
		}
		if m != nil {
			code, err := strconv.Atoi(m[1])
			if err == nil {
				res.status, res.code = StatusFailed, code
				if code == 0 {
					res.status = StatusPassed
				}
				return res
			}
		}
		if strings.Contains(text, "interrupted") || strings.Contains(text, "doesn't want to proceed") {
			res.note = "cancelled"
		} else {
			res.note = "error without exit code"
		}
	default:
		res.status = StatusPassed
	}
	return res
}

// maxResultText bounds the result text read for a status.
const maxResultText = 4096

// resultText is the head of a tool result's content: the string, or its text items joined.
func resultText(c gjson.Result) string {
	if c.Type == gjson.String {
		return clip(c.Str)
	}
	var b strings.Builder
	c.ForEach(func(_, it gjson.Result) bool {
		if it.Type == gjson.String {
			b.WriteString(it.Str)
		} else if t := it.Get("text"); t.Type == gjson.String {
			b.WriteString(t.Str)
		}
		return b.Len() < maxResultText
	})
	return clip(b.String())
}

func clip(s string) string {
	if len(s) > maxResultText {
		return s[:maxResultText]
	}
	return s
}
