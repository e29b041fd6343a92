package transcript

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tidwall/gjson"
	"mvdan.cc/sh/v3/syntax"
)

// codexItems are the response_item payload types of codex-rs/protocol's ResponseItem that hold
// no shell command or patch: read and skipped, not counted as unknown.
var codexItems = map[string]bool{
	"message": true, "reasoning": true, "web_search_call": true, "ghost_snapshot": true,
	"compaction": true, "compaction_summary": true, "context_compaction": true,
	"tool_search_call": true, "tool_search_output": true, "image_generation_call": true,
	"additional_tools": true, "agent_message": true, "other": true,
}

// codexReadOnly are the function_call tools of Codex that neither write files nor run commands.
// A call of a tool of another name may have written anything and counts for run: witnessed
// condition 3.
var codexReadOnly = map[string]bool{
	"update_plan": true, "view_image": true, "web_search": true, "list_mcp_resources": true,
	"list_mcp_resource_templates": true, "read_mcp_resource": true,
}

// codexLines are the rollout line types of RolloutItem other than response_item.
var codexLines = map[string]bool{
	"compacted": true, "inter_agent_communication": true, "inter_agent_communication_metadata": true,
	"world_state": true,
}

// The exit status in the header of a Codex tool output, before "Output:": "Exit code: N",
// "Process exited with code N", or "Process running with session ID N" for a command still
// running.
var (
	codexExit = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)^(?:Exit code:|Process exited with code) (-?\d+)\s*$`)
	})
	codexRunning = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^Process running with session ID (\d+)\s*$`) })
)

// codexLine reads one rollout line {timestamp, type, payload}.
func (r *reader) codexLine(line []byte) {
	if !gjson.ValidBytes(line) {
		r.unknown(time.Time{}, false)
		return
	}
	e := gjson.ParseBytes(line)
	ts, ok := parseTime(e.Get("timestamp"))
	p := e.Get("payload")
	if !ok || !p.IsObject() {
		r.unknown(ts, ok)
		return
	}
	before := !r.counts(ts)
	ord := Order{At: ts, File: r.file, Line: r.line}
	switch typ := e.Get("type").String(); typ {
	case "session_meta":
		r.known++
		if v := p.Get("cli_version"); v.Type == gjson.String {
			r.version(v.Str)
		}
		if cwd := p.Get("cwd").String(); cwd != "" {
			r.codexCwd = cwd
		}
	case "turn_context":
		r.known++
		if cwd := p.Get("cwd").String(); cwd != "" {
			r.codexCwd = cwd
		}
	case "response_item":
		r.codexItem(p, ord, before)
	case "event_msg":
		r.known++
		r.codexEvent(p)
	default:
		if !codexLines[typ] {
			r.unknown(ts, true)
			return
		}
		r.known++
	}
}

// codexItem reads a response_item payload.
func (r *reader) codexItem(p gjson.Result, ord Order, before bool) {
	c := &call{id: p.Get("call_id").String(), order: ord, before: before}
	switch typ := p.Get("type").String(); typ {
	case "function_call":
		args := p.Get("arguments")
		if c.id == "" || args.Type != gjson.String || !shallow([]byte(args.Str)) || !gjson.Valid(args.Str) {
			r.unknown(ord.At, true)
			return
		}
		a := gjson.Parse(args.Str)
		dir := r.codexDir(a.Get("workdir").String())
		switch name := p.Get("name").String(); name {
		case "exec_command":
			cmd := a.Get("cmd")
			if cmd.Type != gjson.String {
				r.unknown(ord.At, true)
				return
			}
			c.kind, c.cmd, c.dir = callShell, cmd.Str, dir
			if sh := a.Get("shell"); sh.Type == gjson.String && sh.Str != "" && !scriptShell(sh.Str) {
				// The model named another program to run cmd with: that program's run.
				joined, ok := argvCommand([]string{sh.Str, "-c", cmd.Str})
				if !ok {
					r.unknown(ord.At, true)
					return
				}
				c.cmd = joined
			}
		case "shell", "container.exec", "shell_command", "local_shell":
			cmd, ok := codexCommand(a.Get("command"))
			if !ok {
				r.unknown(ord.At, true)
				return
			}
			c.kind, c.cmd, c.dir = callShell, cmd, dir
		case "apply_patch":
			in := a.Get("input")
			if in.Type != gjson.String {
				in = a.Get("patch")
			}
			if !r.patchCall(c, in, dir) {
				return
			}
		case "write_stdin":
			// Polls a unified-exec session; its output may carry the exit code of the command
			// that session runs.
			c.kind, c.tool = callEdit, "write_stdin"
			c.paths = nil
			c.cmd = strconv.FormatInt(a.Get("session_id").Int(), 10)
			r.known++
			r.addPending(c)
			return
		default:
			r.known++
			if codexReadOnly[name] {
				return
			}
			c.kind, c.tool = callOther, name
			r.addPending(c)
			return
		}
	case "local_shell_call":
		cmd, ok := codexCommand(p.Get("action.command"))
		if c.id == "" || !ok {
			r.unknown(ord.At, true)
			return
		}
		c.kind, c.cmd, c.dir = callShell, cmd, r.codexDir(p.Get("action.working_directory").String())
	case "custom_tool_call":
		if p.Get("name").String() != "apply_patch" {
			// Another freeform tool, such as code mode's exec, runs commands mastermind cannot see.
			r.unknown(ord.At, true)
			return
		}
		if c.id == "" || !r.patchCall(c, p.Get("input"), r.codexDir("")) {
			return
		}
	case "function_call_output", "custom_tool_call_output":
		r.known++
		pc := r.take(c.id)
		if pc == nil {
			return
		}
		res := codexResult(p.Get("output"))
		res.end = ord
		if pc.tool == "write_stdin" {
			id, _ := strconv.ParseInt(pc.cmd, 10, 64)
			if run := r.running[id]; run != nil && res.running == 0 && res.status != StatusUnknown {
				delete(r.running, id)
				r.settle(run, res)
			}
			return
		}
		r.settle(pc, res)
		return
	default:
		if !codexItems[typ] {
			r.unknown(ord.At, true)
			return
		}
		r.known++
		return
	}
	r.known++
	r.addPending(c)
}

// patchCall fills c as an apply_patch edit of the paths its patch text names.
func (r *reader) patchCall(c *call, in gjson.Result, dir string) bool {
	if in.Type != gjson.String {
		r.unknown(c.order.At, true)
		return false
	}
	c.kind, c.tool = callEdit, "apply_patch"
	for _, l := range strings.Split(in.Str, "\n") {
		for _, pre := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "} {
			if rest, ok := strings.CutPrefix(l, pre); ok {
				if abs := absIn(strings.TrimSpace(rest), dir); abs != "" {
					c.paths = append(c.paths, abs)
				}
			}
		}
	}
	return true
}

// codexEvent reads the event_msg payloads that carry a call's outcome.
func (r *reader) codexEvent(p gjson.Result) {
	switch p.Get("type").String() {
	case "exec_command_end":
		if c := r.pending[p.Get("call_id").String()]; c != nil {
			if code := p.Get("exit_code"); code.Type == gjson.Number {
				n := int(code.Int())
				c.exit = &n
			}
		}
	case "patch_apply_end":
		if c := r.pending[p.Get("call_id").String()]; c != nil && p.Get("success").Type != gjson.Null {
			if !p.Get("success").Bool() {
				n := 1
				c.exit = &n
			}
		}
	}
}

// codexDir is the directory of a call: its workdir against the turn's cwd, else the cwd.
func (r *reader) codexDir(workdir string) string {
	if workdir == "" {
		return r.codexCwd
	}
	return absIn(workdir, r.codexCwd)
}

// codexCommand reads a command: a string, or an argv (argvCommand).
func codexCommand(v gjson.Result) (string, bool) {
	if v.Type == gjson.String {
		return v.Str, true
	}
	if !v.IsArray() {
		return "", false
	}
	var argv []string
	ok := true
	v.ForEach(func(_, a gjson.Result) bool {
		if a.Type != gjson.String {
			ok = false
			return false
		}
		argv = append(argv, a.Str)
		return true
	})
	if !ok {
		return "", false
	}
	return argvCommand(argv)
}

// argvCommand is argv as one command: the script of a scriptShell's -c or -lc, else argv's
// words joined so that they read back as argv.
func argvCommand(argv []string) (string, bool) {
	if len(argv) == 0 {
		return "", false
	}
	if len(argv) == 3 && (argv[1] == "-lc" || argv[1] == "-c") && scriptShell(argv[0]) {
		return argv[2], true
	}
	words := make([]string, len(argv))
	for i, a := range argv {
		w, ok := shellWord(a, i == 0)
		if !ok {
			return "", false
		}
		words[i] = w
	}
	return strings.Join(words, " "), true
}

// scriptShell reports whether p names a shell whose script the witness rules read as written:
// bash or zsh, which have pipefail, by bare name or in /bin or /usr/bin (transcripts.md §2).
func scriptShell(p string) bool {
	switch p {
	case "bash", "zsh", "/bin/bash", "/bin/zsh", "/usr/bin/bash", "/usr/bin/zsh":
		return true
	}
	return false
}

// shellWord is a as one shell word: unchanged when no character means anything to the shell,
// else quoted, so the joined argv reads back as the same words. An = is plain only after the
// program, where it starts no assignment.
func shellWord(a string, first bool) (string, bool) {
	plain := a != ""
	for _, c := range a {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("_./:,+@%^-", c) || c == '=' && !first) {
			plain = false
			break
		}
	}
	if plain {
		return a, true
	}
	q, err := syntax.Quote(a, syntax.LangBash)
	return q, err == nil
}

// codexResult reads a function_call_output's output: a string, an object {content, success}
// or an array of content items. The status is the header's exit code, or a legacy JSON
// output's metadata.exit_code; a command still running is unknown until a write_stdin output
// gives its exit code.
func codexResult(out gjson.Result) result {
	text, success := "", gjson.Result{}
	switch {
	case out.Type == gjson.String:
		text = out.Str
	case out.IsObject():
		text, success = out.Get("content").String(), out.Get("success")
	case out.IsArray():
		text = resultText(out)
	}
	if t := strings.TrimSpace(text); strings.HasPrefix(t, "{") && shallow([]byte(t)) && gjson.Valid(t) {
		if code := gjson.Get(t, "metadata.exit_code"); code.Type == gjson.Number {
			return exitResult(int(code.Int()))
		}
	}
	head := clip(text)
	if i := strings.Index(head, "\nOutput:"); i >= 0 {
		head = head[:i]
	}
	if m := codexExit().FindStringSubmatch(head); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil {
			return exitResult(n)
		}
	}
	if m := codexRunning().FindStringSubmatch(head); m != nil {
		id, _ := strconv.ParseInt(m[1], 10, 64)
		return result{running: id, note: "background", ok: true}
	}
	res := result{note: "no exit code", ok: !(success.Exists() && !success.Bool())}
	if strings.Contains(head, "aborted") || strings.Contains(head, "rejected by user") {
		res.note = "cancelled"
	}
	return res
}

func exitResult(n int) result {
	if n == 0 {
		return result{status: StatusPassed, ok: true}
	}
	return result{status: StatusFailed, code: n}
}
