package claims

import (
	"testing"
)

func TestIntegrationGo(t *testing.T) {
	const peer = "package peer\n\nimport \"example.com/app/retry\"\n\nfunc Ping() { retry.Do(nil) }\n"
	r := repo{
		base: map[string]string{
			"go.mod":             "module example.com/app // the app\n\ngo 1.22\n",
			"retry/retry.go":     "package retry\n\nfunc Do(f func() error) error { return f() }\n",
			"client/send.go":     "package client\n\nfunc Send() {}\n\ntype Conn struct{}\n\nfunc (c *Conn) Flush() {}\n",
			"vendor/x/x.go":      "package x\n\nfunc Vendored() {}\n",
			"tools/go.mod":       "module \"example.com/tools\"\n",
			"tools/lint/lint.go": "package lint\n\nfunc Run() {}\n",
			"a/a.go":             "package a\n\nfunc Dup() {}\n",
			"b/b.go":             "package b\n\nfunc Dup() {}\n",
			"peer/peer.go":       peer,
		},
		cur: map[string]string{
			"go.mod":             "module example.com/app // the app\n\ngo 1.22\n",
			"retry/retry.go":     "package retry\n\nfunc Do(f func() error) error { return f() }\n",
			"client/send.go":     "package client\n\nfunc Send() {}\n\ntype Conn struct{}\n\nfunc (c *Conn) Flush() {}\n",
			"vendor/x/x.go":      "package x\n\nfunc Vendored() {}\n",
			"tools/go.mod":       "module \"example.com/tools\"\n",
			"tools/lint/lint.go": "package lint\n\nfunc Run() {}\n",
			"a/a.go":             "package a\n\nfunc Dup() {}\n",
			"b/b.go":             "package b\n\nfunc Dup() {}\n",
			"peer/peer.go":       peer,
			"client/use.go": `package client

import (
	r "example.com/app/retry"
	"example.com/app/retry"
	"example.com/tools/lint"
	wrong "example.org/other/retry"
)

func Direct() { Send() }

func Qualified() error { return retry.Do(nil) }

func Aliased() error {
	return r.Do(
		nil)
}

func PassedOnly(run func(func(func() error) error)) { run(retry.Do) }

func InClosure() {
	go func() {
		_ = retry.Do(nil)
	}()
}

func ThroughMethod(c *Conn) { c.Flush() }

func MethodNotFree(c *Conn) { c.Send() }

func OtherModule() { lint.Run() }

func WrongImport() { _ = wrong.Do(nil) }

func Generic() { _ = Map[int](nil) }

func Map[T any](xs []T) []T { return xs }

func Dups() { a.Dup() }
`,
			"app/dot.go":  "package app\n\nimport . \"example.com/app/retry\"\n\nfunc Dotted() { _ = Do(nil) }\n",
			"lib/Main.kt": "class Main {}\n",
		},
	}
	tests := []struct {
		name  string
		claim Claim
		want  string
	}{
		{"same package bare call", ig("Direct", "Send"), "verified compatible_call_candidate client/use.go:10 -> client/send.go:3 same_package"},
		{"import by package name", ig("Qualified", "retry.Do"), "verified compatible_call_candidate client/use.go:12 -> retry/retry.go:3 import"},
		{"import alias, multi-line call", ig("client.Aliased", "Do", "to_file=retry/retry.go"), "verified compatible_call_candidate client/use.go:15 -> retry/retry.go:3 import"},
		{"function value passed, not called", ig("PassedOnly", "retry.Do"), "failed missing_call_edge: no call from PassedOnly to retry.Do was found"},
		{"call inside a closure", ig("InClosure", "Do"), "verified compatible_call_candidate client/use.go:23 -> retry/retry.go:3 import"},
		{"method call by name", ig("ThroughMethod", "(*Conn).Flush"), "verified compatible_call_candidate client/use.go:27 -> client/send.go:7 method_name"},
		{"x.Send does not bind to free Send", ig("MethodNotFree", "Send", "from_file=client/use.go"), "failed missing_call_edge: no call from MethodNotFree to Send was found"},
		{"nearest go.mod decides the import path", ig("OtherModule", "lint.Run"), "verified compatible_call_candidate client/use.go:31 -> tools/lint/lint.go:3 import"},
		{"import path of another module", ig("WrongImport", "retry.Do"), "failed missing_call_edge: no call from WrongImport to retry.Do was found"},
		{"generic instantiation", ig("Generic", "Map"), "verified compatible_call_candidate client/use.go:35 -> client/use.go:37 same_package"},
		{"dot import", ig("Dotted", "Do"), "verified compatible_call_candidate app/dot.go:5 -> retry/retry.go:3 import"},
		{"target does not exist", ig("Direct", "Nope"), "failed hallucinated_symbol: integration target Nope does not exist"},
		{"vendor is not searched", ig("Direct", "Vendored"), "failed hallucinated_symbol: integration target Vendored does not exist"},
		{"vendor via to_file", ig("Direct", "Vendored", "to_file=vendor/x/x.go"), "failed missing_call_edge: no call from Direct to Vendored was found"},
		{"target ambiguous", ig("Dups", "Dup"), "unresolved call_target_ambiguous 2"},
		{"caller must be changed", ig("Send", "Do"), "unresolved from_missing"},
		{"unchanged from_file is not a changed caller", ig("Send", "Do", "from_file=client/send.go"), "unresolved from_missing"},
		{"unchanged from_file that already calls the target", ig("Ping", "retry.Do", "from_file=peer/peer.go"), "unresolved from_missing"},
		{"changed from_file", ig("Direct", "Send", "from_file=client/use.go"), "verified compatible_call_candidate client/use.go:10 -> client/send.go:3 same_package"},
		{"from_file missing", ig("Direct", "Send", "from_file=client/gone.go"), "unresolved current_file_unavailable"},
		{"signature of an unchanged file", fa("Ping", "file=peer/peer.go", "signature=func Ping(x int)"),
			`failed claimed_signature_mismatch: claimed signature "func Ping(x int)" of Ping differs from the source: "func Ping()"`},
		{"relation calls", ig("Direct", "Send", "relation=calls"), "verified compatible_call_candidate client/use.go:10 -> client/send.go:3 same_package"},
		{"relation unsupported", ig("Direct", "Send", "relation=imports"), "unresolved relation_unsupported"},
		{"to_file unsupported language", ig("Direct", "Main", "to_file=lib/Main.kt"), "unresolved language_unsupported"},
		{"to_file missing", ig("Direct", "Send", "to_file=client/nope.go"), "unresolved current_file_unavailable"},
		{"to_file missing in an unsupported language", ig("Direct", "Main", "to_file=lib/Nope.kt"), "unresolved current_file_unavailable"},
		{"from_file in an unsupported language", ig("Main", "Send", "from_file=lib/Main.kt"), "unresolved language_unsupported"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := verifyOne(t, r, tt.claim); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestIntegrationGoWithoutGoMod(t *testing.T) {
	r := repo{
		base: map[string]string{"lib/lib.go": "package lib\n\nfunc Work() {}\n"},
		cur: map[string]string{
			"lib/lib.go":   "package lib\n\nfunc Work() {}\n",
			"cmd/main.go":  "package main\n\nimport \"anything/lib\"\n\nfunc main() { lib.Work() }\n",
			"cmd/other.go": "package main\n\nimport \"anything/libx\"\n\nfunc bad() { lib.Work() }\n",
		},
	}
	for claim, want := range map[Claim]string{
		ig("main", "Work"): "verified compatible_call_candidate cmd/main.go:5 -> lib/lib.go:3 import",
		ig("bad", "Work"):  "failed missing_call_edge: no call from bad to Work was found",
	} {
		if got := verifyOne(t, r, claim); got != want {
			t.Errorf("%s -> %s: got %s, want %s", *claim.From, *claim.To, got, want)
		}
	}
}
