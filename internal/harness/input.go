package harness

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Hook event names (hook_event_name) that `mastermind hook run` handles.
const (
	EventStop         = "Stop"
	EventSubagentStop = "SubagentStop"
)

// Harness names of `--harness`.
const (
	Claude = "claude"
	Codex  = "codex"
)

// MaxInputBytes bounds the hook JSON read from stdin. Documented inputs are well under 1 KiB
// plus last_assistant_message; 4 MiB leaves room for a long final message.
const MaxInputBytes = 4 << 20

// Input is the part of a Stop or SubagentStop hook input that mastermind uses, in the shape both
// harnesses document. Unknown fields are ignored, and a null string field reads as "".
type Input struct {
	SessionID      string `json:"session_id"`
	Cwd            string `json:"cwd"`
	HookEventName  string `json:"hook_event_name"`
	StopHookActive bool   `json:"stop_hook_active"`
	// SubagentStop only.
	AgentID             string `json:"agent_id"`
	AgentType           string `json:"agent_type"`
	AgentTranscriptPath string `json:"agent_transcript_path"`
	// TranscriptPath is the session transcript, "" when the harness passes none
	// (transcripts.md §1).
	TranscriptPath string `json:"transcript_path"`
}

// InputError is hook JSON that could not be read, such as a known field of the wrong type or more
// than MaxInputBytes. Offset is the 0-based byte offset of the problem when known, else -1.
type InputError struct {
	Offset int64
	Msg    string
}

func (e *InputError) Error() string {
	if e.Offset >= 0 {
		return fmt.Sprintf("hook input (stdin) is not valid hook JSON at byte %d: %s", e.Offset, e.Msg)
	}
	return "hook input (stdin) is not valid hook JSON: " + e.Msg
}

// ParseInput reads one hook input object of at most MaxInputBytes from r. Any failure is an
// *InputError naming the byte offset and the problem; the caller blocks with its text.
func ParseInput(r io.Reader) (Input, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxInputBytes+1))
	if err != nil {
		return Input{}, &InputError{Offset: -1, Msg: "reading stdin: " + err.Error()}
	}
	if len(data) > MaxInputBytes {
		return Input{}, &InputError{Offset: -1, Msg: fmt.Sprintf("more than %d bytes", MaxInputBytes)}
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return Input{}, &InputError{Offset: -1, Msg: "empty input; expected a JSON object such as {\"hook_event_name\":\"Stop\",…}"}
	}
	if trimmed[0] != '{' {
		return Input{}, &InputError{Offset: int64(bytes.Index(data, trimmed[:1])), Msg: "expected a JSON object"}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var raw struct {
		SessionID           *string `json:"session_id"`
		Cwd                 *string `json:"cwd"`
		HookEventName       *string `json:"hook_event_name"`
		StopHookActive      *bool   `json:"stop_hook_active"`
		AgentID             *string `json:"agent_id"`
		AgentType           *string `json:"agent_type"`
		AgentTranscriptPath *string `json:"agent_transcript_path"`
		TranscriptPath      *string `json:"transcript_path"`
	}
	if err := dec.Decode(&raw); err != nil {
		return Input{}, decodeError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return Input{}, &InputError{Offset: dec.InputOffset(), Msg: "trailing data after the JSON object"}
	}
	s := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	in := Input{SessionID: s(raw.SessionID), Cwd: s(raw.Cwd), HookEventName: s(raw.HookEventName),
		AgentID: s(raw.AgentID), AgentType: s(raw.AgentType), AgentTranscriptPath: s(raw.AgentTranscriptPath),
		TranscriptPath: s(raw.TranscriptPath)}
	if raw.StopHookActive != nil {
		in.StopHookActive = *raw.StopHookActive
	}
	return in, nil
}

func decodeError(err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		// Offset counts the offending byte as read; name the byte itself, 0-based.
		return &InputError{Offset: max(se.Offset-1, 0), Msg: se.Error()}
	case errors.As(err, &te):
		return &InputError{Offset: te.Offset, Msg: fmt.Sprintf("field %q must be a %s, got a JSON %s", te.Field, goKind(te.Type.String()), te.Value)}
	case errors.Is(err, io.ErrUnexpectedEOF):
		return &InputError{Offset: -1, Msg: "unexpected end of input (truncated JSON)"}
	}
	return &InputError{Offset: -1, Msg: err.Error()}
}

func goKind(t string) string {
	switch t {
	case "string":
		return "string"
	case "bool":
		return "boolean"
	}
	return t
}

// IsSubagent reports whether the input is a SubagentStop event.
func (in Input) IsSubagent() bool { return in.HookEventName == EventSubagentStop }
