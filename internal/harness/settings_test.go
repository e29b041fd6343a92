package harness

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/tidwall/gjson"
)

func TestMergeSettingsGoldens(t *testing.T) {
	both := []string{EventStop, EventSubagentStop}
	tests := []struct {
		name   string
		in     string // testdata/settings/<in>, "" for a new file
		events []string
		h      Handler
		action string
	}{
		{"claude-new", "", []string{EventStop}, Handler{HookCommand(Claude, false, false, 600), 600}, SettingsCreated},
		{"claude-new-subagent", "", both, Handler{HookCommand(Claude, true, false, 780), 780}, SettingsCreated},
		{"claude-existing", "claude-existing.in.json", both, Handler{HookCommand(Claude, false, false, 600), 600}, SettingsAdded},
		{"claude-ours-old", "claude-ours-old.in.json", []string{EventStop}, Handler{HookCommand(Claude, false, false, 900), 900}, SettingsUpdated},
		{"codex-existing", "codex-existing.in.json", []string{EventStop}, Handler{HookCommand(Codex, false, true, 600), 600}, SettingsAdded},
		{"no-timeout", "", []string{EventStop}, Handler{Command: HookCommand(Claude, false, false, 0)}, SettingsCreated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var in []byte
			if tt.in != "" {
				in = readFixture(t, "settings/"+tt.in)
			}
			out, action, err := MergeSettings("settings.json", in, tt.events, tt.h)
			if err != nil {
				t.Fatal(err)
			}
			if action != tt.action {
				t.Errorf("action %q, want %q", action, tt.action)
			}
			goldenFile(t, "settings/"+tt.name+".golden.json", out)

			// Every key of the input is still there with the same value.
			if tt.in != "" {
				gjson.ParseBytes(in).ForEach(func(k, v gjson.Result) bool {
					if k.Str == "hooks" {
						return true
					}
					if got := gjson.GetBytes(out, gjson.Escape(k.Str)); got.Raw == "" || compactJSON(t, got.Raw) != compactJSON(t, v.Raw) {
						t.Errorf("key %s changed: %s -> %s", k.Str, v.Raw, got.Raw)
					}
					return true
				})
				// Every existing handler command is still there.
				for _, c := range gjson.GetBytes(in, "hooks.@values.#.hooks.#.command|@flatten").Array() {
					if !strings.Contains(string(out), c.Raw) {
						t.Errorf("existing handler %s lost", c.Raw)
					}
				}
			}
			// Exactly one handler of ours per event, with the wanted command.
			for _, ev := range tt.events {
				var ours []string
				for _, h := range gjson.GetBytes(out, "hooks."+ev+".#.hooks|@flatten").Array() {
					if isOurs(h.Get("command").Str) {
						ours = append(ours, h.Get("command").Str)
						if to := h.Get("timeout"); tt.h.Timeout > 0 && to.Int() != int64(tt.h.Timeout) {
							t.Errorf("%s: timeout %s, want %d", ev, to.Raw, tt.h.Timeout)
						}
					}
				}
				if len(ours) != 1 || ours[0] != tt.h.Command {
					t.Errorf("%s: our handlers %q, want exactly [%q]", ev, ours, tt.h.Command)
				}
			}
			// Idempotent: merging again changes nothing.
			again, action2, err := MergeSettings("settings.json", out, tt.events, tt.h)
			if err != nil || action2 != SettingsUnchanged || string(again) != string(out) {
				t.Errorf("second merge: action %q err %v, changed=%v", action2, err, string(again) != string(out))
			}
		})
	}
}

func compactJSON(t *testing.T, s string) string {
	t.Helper()
	return gjson.Parse(s).Get("@ugly").Raw
}

func TestMergeSettingsRefusesInvalid(t *testing.T) {
	tests := map[string]string{
		"invalid-comment.in.json":        "not valid JSON at line 2, column 3",
		"invalid-trailing-comma.in.json": "not valid JSON at line 3, column 1",
		"invalid-duplicate.in.json":      `duplicate key "hooks" in the top-level object`,
		"invalid-hooks-array.in.json":    `"hooks" must be an object of event names; found an array at line 1, column 11;`,
		"invalid-stop-object.in.json":    `"hooks.Stop" must be an array of matcher groups; found an object at line 1, column 20;`,
		"invalid-toplevel-array.in.json": "the top level must be a JSON object",
		"invalid-group-string.in.json":   `"hooks.Stop[0]" must be an object; found a string at line 2, column 22;`,
		"invalid-handlers-null.in.json":  `"hooks.Stop[0].hooks" must be an array; found null at line 1, column 31;`,
	}
	for file, want := range tests {
		t.Run(file, func(t *testing.T) {
			_, _, err := MergeSettings(".claude/settings.json", readFixture(t, "settings/"+file), []string{EventStop}, Handler{Command: HookCommand(Claude, false, false, 0)})
			var ie *InvalidSettingsError
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), want) {
				t.Fatalf("err = %v, want an InvalidSettingsError containing %q", err, want)
			}
			if !strings.HasPrefix(err.Error(), ".claude/settings.json: ") || !strings.Contains(err.Error(), "it was not changed") {
				t.Errorf("message does not name the file and say it was left alone: %v", err)
			}
		})
	}
}

func TestInstallSettingsNeverOverwritesInvalid(t *testing.T) {
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, ".claude", "settings.json")
	bad := "{\n  // keep me\n  \"model\": \"opus\"\n}\n"
	if err := writeFile(path, bad); err != nil {
		t.Fatal(err)
	}
	_, err := InstallSettings(root, Claude, []string{EventStop}, HookOptions{Timeout: 600})
	var ie *InvalidSettingsError
	if !errors.As(err, &ie) {
		t.Fatalf("err = %v", err)
	}
	got, _ := os.ReadFile(path)
	if string(got) != bad {
		t.Errorf("invalid file was changed:\n%s", got)
	}
	entries, _ := os.ReadDir(filepath.Join(root, ".claude"))
	if len(entries) != 1 {
		t.Errorf("stray files left: %v", entries)
	}
}

func TestInstallSettingsCreatesAndIsIdempotent(t *testing.T) {
	root := t.TempDir()
	for i, want := range []string{SettingsCreated, SettingsUnchanged} {
		res, err := InstallSettings(root, Codex, []string{EventStop, EventSubagentStop}, HookOptions{Timeout: 600})
		if err != nil {
			t.Fatal(err)
		}
		if res.Action != want || res.Rel != ".codex/hooks.json" {
			t.Errorf("run %d: %+v, want action %s", i, res, want)
		}
	}
	data, err := os.ReadFile(filepath.Join(root, ".codex", "hooks.json"))
	if err != nil {
		t.Fatal(err)
	}
	goldenFile(t, "settings/codex-new-both.golden.json", data)
}

func TestInstallSettingsRefusesSymlinks(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(root, ".claude")); err != nil {
		t.Fatal(err)
	}
	_, err := InstallSettings(root, Claude, []string{EventStop}, HookOptions{})
	var re *RefusedPathError
	if !errors.As(err, &re) || err.Error() != ".claude is not a directory (a symbolic link or a file); refusing to write through it. Remove it and run hook install again" {
		t.Fatalf("symlinked directory: err = %v, want a *RefusedPathError naming .claude", err)
	}
	if _, err := os.Lstat(filepath.Join(outside, "settings.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("settings.json written through the symlinked directory: %v", err)
	}
	root2 := t.TempDir()
	if err := os.Mkdir(filepath.Join(root2, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(outside, "elsewhere.json")
	if err := writeFile(target, "{}"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(root2, ".claude", "settings.json")); err != nil {
		t.Fatal(err)
	}
	_, err = InstallSettings(root2, Claude, []string{EventStop}, HookOptions{})
	if !errors.As(err, &re) || err.Error() != ".claude/settings.json is not a regular file (a symbolic link); refusing to replace it. Remove it and run hook install again" {
		t.Fatalf("symlinked file: err = %v, want a *RefusedPathError naming .claude/settings.json", err)
	}
	if got, _ := os.ReadFile(target); string(got) != "{}" {
		t.Errorf("symlink target changed: %s", got)
	}
	root3 := t.TempDir()
	if err := os.Mkdir(filepath.Join(root3, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root3, ".claude", "settings.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = InstallSettings(root3, Claude, []string{EventStop}, HookOptions{})
	if !errors.As(err, &re) || err.Error() != ".claude/settings.json is not a regular file (a FIFO); refusing to replace it. Remove it and run hook install again" {
		t.Fatalf("FIFO: err = %v, want a *RefusedPathError naming the FIFO", err)
	}
}

func TestIsOurs(t *testing.T) {
	for cmd, want := range map[string]bool{
		"mastermind hook run --harness claude":               true,
		"/usr/local/bin/mastermind hook run --harness codex": true,
		"mastermind hook install":                            false,
		"npm run lint":                                       false,
		"echo mastermind hook run":                           false,
	} {
		if got := isOurs(cmd); got != want {
			t.Errorf("isOurs(%q) = %v", cmd, got)
		}
	}
}

func FuzzMergeSettings(f *testing.F) {
	f.Add([]byte(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"x"}]}]}}`))
	f.Add([]byte(`{"a":1}`))
	f.Add([]byte(`{"hooks":{"Stop":[{"hooks":[{"command":"mastermind hook run --harness claude"}]}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		out, action, err := MergeSettings("f", data, []string{EventStop, EventSubagentStop}, Handler{HookCommand(Claude, false, false, 600), 600})
		if err != nil {
			return
		}
		if action == SettingsUnchanged {
			return
		}
		if err := checkDocument(out); err != nil {
			t.Fatalf("merge of %q produced an invalid document: %v\n%s", data, err, out)
		}
	})
}

// A matcher the user added to our SubagentStop group survives a re-install with other flags.
func TestMergeSettingsKeepsUserMatcher(t *testing.T) {
	in := []byte(`{"hooks":{"SubagentStop":[{"matcher":"implementer","hooks":[{"type":"command","command":"mastermind hook run --harness claude","timeout":900}]}]}}`)
	out, action, err := MergeSettings("s", in, []string{EventSubagentStop}, Handler{Command: HookCommand(Claude, true, false, 0)})
	if err != nil || action != SettingsUpdated {
		t.Fatalf("action %q err %v", action, err)
	}
	g := gjson.GetBytes(out, "hooks.SubagentStop.0")
	if g.Get("matcher").Str != "implementer" || g.Get("hooks.0.timeout").Int() != 900 ||
		g.Get("hooks.0.command").Str != "mastermind hook run --harness claude --fail-on drift" || gjson.GetBytes(out, "hooks.SubagentStop.#").Int() != 1 {
		t.Errorf("merged:\n%s", out)
	}
}

// A timeout the user raised on our handler is kept, and the command's --timeout follows it; a
// smaller one is raised.
func TestInstallSettingsKeepsALargerTimeout(t *testing.T) {
	for _, c := range []struct{ had, want int }{{1800, 1800}, {30, 780}} {
		root := t.TempDir()
		if err := os.Mkdir(filepath.Join(root, ".claude"), 0o755); err != nil {
			t.Fatal(err)
		}
		in := fmt.Sprintf(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"mastermind hook run --harness claude","timeout":%d}]}]}}`, c.had)
		if err := writeFile(filepath.Join(root, ".claude", "settings.json"), in); err != nil {
			t.Fatal(err)
		}
		res, err := InstallSettings(root, Claude, []string{EventStop}, HookOptions{Timeout: 780})
		if err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(filepath.Join(root, ".claude", "settings.json"))
		h := gjson.GetBytes(data, "hooks.Stop.0.hooks.0")
		wantCmd := fmt.Sprintf("mastermind hook run --harness claude --timeout %ds", c.want)
		if res.Handler.Timeout != c.want || res.KeptTimeout != (c.had > 780) || h.Get("timeout").Int() != int64(c.want) || h.Get("command").Str != wantCmd {
			t.Errorf("had %d: result %+v, file %s", c.had, res, h.Raw)
		}
	}
}
