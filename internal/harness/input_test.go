package harness

import (
	"bytes"
	"strings"
	"testing"
)

func TestParseInputDocumentedFixtures(t *testing.T) {
	tests := []struct {
		file string
		want Input
	}{
		{"fixtures/claude-stop.json", Input{SessionID: "abc123", Cwd: "/Users/...", HookEventName: "Stop", StopHookActive: true,
			TranscriptPath: "~/.claude/projects/.../00893aaf-19fa-41d2-8238-13269b9b3ca0.jsonl"}},
		{"fixtures/claude-subagent-stop.json", Input{SessionID: "abc123", Cwd: "/Users/...", HookEventName: "SubagentStop",
			AgentID: "def456", AgentType: "Explore", AgentTranscriptPath: "~/.claude/projects/.../abc123/subagents/agent-def456.jsonl",
			TranscriptPath: "~/.claude/projects/.../abc123.jsonl"}},
		{"fixtures/codex-stop.json", Input{SessionID: "019a5c1e-7f3b-7c12-9d4e-2b8f6a1c3d5e", Cwd: "/home/dev/project", HookEventName: "Stop"}},
		{"fixtures/codex-subagent-stop.json", Input{SessionID: "019a5c1e-7f3b-7c12-9d4e-2b8f6a1c3d5e", Cwd: "/home/dev/project",
			HookEventName: "SubagentStop", StopHookActive: true, AgentID: "019a5c1f-0000-7000-8000-000000000001", AgentType: "worker",
			AgentTranscriptPath: "/home/dev/.codex/sessions/2026/12/01/rollout-child.jsonl",
			TranscriptPath:      "/home/dev/.codex/sessions/2026/12/01/rollout-parent.jsonl"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got, err := ParseInput(bytes.NewReader(readFixture(t, tt.file)))
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
			if got.IsSubagent() != (tt.want.HookEventName == EventSubagentStop) {
				t.Error("IsSubagent wrong")
			}
		})
	}
}

// The Codex fixtures are built from Codex's published input schemas; they must satisfy them.
func TestCodexFixturesMatchPublishedSchemas(t *testing.T) {
	for fixture, schema := range map[string]string{
		"fixtures/codex-stop.json":          "stop.command.input.schema.json",
		"fixtures/codex-subagent-stop.json": "subagent-stop.command.input.schema.json",
	} {
		if err := codexSchema(t, schema).Validate(jsonValue(t, readFixture(t, fixture))); err != nil {
			t.Errorf("%s does not match %s: %v", fixture, schema, err)
		}
	}
}

func TestParseInputMalformed(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", "empty input"},
		{"blank", " \n", "empty input"},
		{"not object", `["Stop"]`, "at byte 0: expected a JSON object"},
		{"truncated", `{"hook_event_name":"Stop"`, "unexpected end of input"},
		{"syntax", `{"hook_event_name":Stop}`, "at byte 19: invalid character 'S'"},
		{"wrong type bool", `{"stop_hook_active":"yes"}`, `field "stop_hook_active" must be a boolean, got a JSON string`},
		{"wrong type string", `{"session_id":42}`, `field "session_id" must be a string, got a JSON number`},
		{"trailing", `{"hook_event_name":"Stop"} {}`, "trailing data"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseInput(strings.NewReader(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
			if _, ok := err.(*InputError); !ok {
				t.Errorf("err is %T, want *InputError", err)
			}
		})
	}
}

func TestParseInputUnknownFieldsAndNulls(t *testing.T) {
	in, err := ParseInput(strings.NewReader(`{"hook_event_name":"Stop","cwd":null,"future_field":{"x":[1,2]},"stop_hook_active":true}`))
	if err != nil {
		t.Fatal(err)
	}
	if in.HookEventName != "Stop" || in.Cwd != "" || !in.StopHookActive {
		t.Errorf("got %+v", in)
	}
}

func TestParseInputTooLarge(t *testing.T) {
	big := `{"last_assistant_message":"` + strings.Repeat("a", MaxInputBytes) + `"}`
	if _, err := ParseInput(strings.NewReader(big)); err == nil || !strings.Contains(err.Error(), "more than") {
		t.Fatalf("err = %v", err)
	}
}

func FuzzParseInput(f *testing.F) {
	f.Add([]byte(`{"session_id":"a","hook_event_name":"Stop","stop_hook_active":false}`))
	f.Add([]byte(`{"agent_id":1}`))
	f.Add([]byte(`nul`))
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := ParseInput(bytes.NewReader(data))
		if err != nil {
			if _, ok := err.(*InputError); !ok {
				t.Fatalf("error of type %T", err)
			}
			return
		}
		_ = in.IsSubagent()
	})
}
