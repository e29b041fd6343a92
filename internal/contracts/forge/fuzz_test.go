package forge

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func FuzzExtract(f *testing.F) {
	f.Add([]byte(block(validCompleted)))
	f.Add([]byte(block(`{"d":1}`) + fence + "forge-report\n{"))
	f.Add([]byte("> " + fence + "forge-report\n> {}\n> " + fence + "\n"))
	f.Add([]byte("~~~forge-report\n[1,2]\n~~~\n"))
	f.Add([]byte("- a\n  ````forge-report\n  {\"x\":\"```\"}\n  ````\n"))
	if files, _ := filepath.Glob(filepath.Join("testdata", "no-block", "*.md")); len(files) > 0 {
		for _, file := range files {
			if data, err := os.ReadFile(file); err == nil {
				f.Add(data)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r := Check(data)
		if r.Valid() && r.Report == nil {
			t.Fatal("valid without a report")
		}
		for _, b := range Blocks(StripBOM(data)) {
			if b.Line < 1 || b.Line > bytes.Count(data, []byte{'\n'})+1 {
				t.Fatalf("line %d out of range", b.Line)
			}
		}
	})
}

func FuzzRedact(f *testing.F) {
	for _, s := range []string{
		"token nvapi-FAKE0123456789", "prefix sk-abcdefghijklmnopqrstu", "password=hunter2",
		`"api_key": "abc123"`, "token 4b19f0e2c9aa", "postgres://admin:SuperSecret99@db:5432/app",
		"-----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY-----",
		"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig", "task-orchestrator-with-a-long-slug-1234567890",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := RedactString(s)
		if utf8.ValidString(s) && !utf8.ValidString(out) {
			t.Fatalf("redaction broke UTF-8: %q -> %q", s, out)
		}
		// A provider key standing alone after a space is always masked, whatever surrounds it.
		secret := "nvapi-Zq9SECRETzq9"
		if got := RedactString(s + " " + secret + " " + s); strings.Contains(got, secret) {
			t.Fatalf("secret survived in %q", got)
		}
	})
}

func FuzzParseJSON(f *testing.F) {
	f.Add([]byte(`{"b":1,"10":2,"a":3,"2":4}`))
	f.Add([]byte(`[1e21,-0,"\u2028",{"a":{"a":null}}]`))
	f.Add([]byte(`{"a":1,"a":2}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := ParseJSON(data)
		if err != nil {
			return
		}
		once := Stringify(nil, v)
		v2, err := ParseJSON(once)
		if err != nil {
			t.Fatalf("Stringify output does not parse: %s: %v", once, err)
		}
		if twice := Stringify(nil, v2); !bytes.Equal(once, twice) {
			t.Fatalf("not stable:\n%s\n%s", once, twice)
		}
	})
}
