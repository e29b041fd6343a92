package verification

import "testing"

// TestRecognizeExamples covers every recognised and unrecognised example of §10.5.3.
func TestRecognizeExamples(t *testing.T) {
	recognised := map[string]Runner{
		"cargo test --locked":                               RunnerCargo,
		"cargo test -p core --features=serde":               RunnerCargo,
		"go test -count=1 ./...":                            RunnerGo,
		"go test -run TestLRU -v ./internal/cache/":         RunnerGo,
		"python3 -m pytest -q tests/unit":                   RunnerPytest,
		"pytest -k slow":                                    RunnerPytest,
		"jest --ci":                                         RunnerJest,
		"vitest run src/":                                   RunnerVitest,
		"vitest --run --coverage":                           RunnerVitest,
		"  go test ./...  ":                                 RunnerGo,
		"cargo.exe test":                                    RunnerCargo,
		"go\ttest\t-race ./...":                             RunnerGo,
		"go test -count 3 ./a ./b":                          RunnerGo,
		"python -m pytest":                                  RunnerPytest,
		"python.exe -m pytest tests/x_test.py":              RunnerPytest,
		"python3.exe -m pytest -m slow":                     RunnerPytest,
		"jest -t parses src/parser":                         RunnerJest,
		"vitest run --testNamePattern=foo":                  RunnerVitest,
		"cargo test --manifest-path crates/core/Cargo.toml": RunnerCargo,
	}
	for cmd, want := range recognised {
		got, ok := Recognize(cmd)
		if !ok || got != want {
			t.Errorf("Recognize(%q) = %q, %v; want %q", cmd, got, ok, want)
		}
	}
	unrecognised := []string{
		// discovery or compile-only forms
		"cargo test --no-run", "cargo test -- --list", "go test -c", "go test -list .", "pytest --co",
		"jest --listTests",
		// wrappers
		"npm test", "npx jest", "uv run pytest", "env cargo test", "./cargo test", "make test",
		`bash -c "go test"`,
		// other shapes
		"go test -tags=x ./...", "vitest --run src/", "vitest", "go test ./... | tee log",
		// character set and value rules
		"go test ./...; rm -rf x", "go test $PKG", "go test ./*", "go test -run 'A'", "go test @x",
		"go test (x)", "go test ./...\ngo vet", "go test -count=0 ./...", "go test -count=01",
		"go test -count=-1", "go test -count", "go test -run=", "go test -run -v", "cargo test -p",
		"cargo test --release=true", "go", "cargo", "python -m", "python3 -m unittest", "", "   ",
		"Go test ./...", "go test -V", "jest --ci=true", "vitest run --run",
	}
	for _, cmd := range unrecognised {
		if r, ok := Recognize(cmd); ok {
			t.Errorf("Recognize(%q) = %q, want unrecognised", cmd, r)
		}
	}
}

// FuzzRecognize checks that Recognize never panics and only accepts the allowed character set.
func FuzzRecognize(f *testing.F) {
	for _, s := range []string{"go test ./...", "cargo test -p x", "vitest --run", "pytest -k a b", "jest -t"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if _, ok := Recognize(s); ok {
			for _, r := range s {
				if !allowedChar(r) && r != '\n' && r != '\r' && r != '\v' && r != '\f' && r != 0x85 && r != 0xA0 && !isSpace(r) {
					t.Fatalf("recognised %q with character %q", s, r)
				}
			}
		}
	})
}

func isSpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\v', '\f', '\r', 0x85, 0xA0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}
