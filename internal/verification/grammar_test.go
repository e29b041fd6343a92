package verification

import (
	"strings"
	"testing"
)

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
		// wrappers (npx jest, uv run pytest and ./cargo test are recognised since lifecycle-v2.md §7)
		"npm test", "env cargo test", "make test",
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

// TestRecognizeLaunchForms covers the forms of lifecycle-v2.md §7: .exe suffixes, path prefixes and
// launchers, each with the near forms that must stay unrecognised.
func TestRecognizeLaunchForms(t *testing.T) {
	cases := []struct {
		cmd  string
		want Runner // "" means unrecognised
	}{
		// .exe (and .cmd) suffixes.
		{"go.exe test -v ./...", RunnerGo},
		{"go.exe vet ./...", ""},
		{"go.exe", ""},
		{"goexe test ./...", ""},
		{"go.exe.exe test ./...", ""},
		{"cargo.exe test --locked", RunnerCargo},
		{"cargo.exe build", ""},
		{"pytest.exe -q", RunnerPytest},
		{"pytest.exe --co", ""},
		{"jest.exe --ci", RunnerJest},
		{"jest.exe --listTests", ""},
		{"vitest.exe run", RunnerVitest},
		{"vitest.exe", ""},
		{"jest.cmd --ci", RunnerJest},
		{"python.exe -m pytest", RunnerPytest},
		{"python3.exe -m pytest -q", RunnerPytest},
		{"python.exe -m unittest", ""},
		// Path prefixes.
		{"./node_modules/.bin/jest", RunnerJest},
		{"./node_modules/.bin/jest --ci src/a", RunnerJest},
		{"./node_modules/.bin/jest-cli", ""},
		{"node_modules/.bin/vitest run", RunnerVitest},
		{"node_modules/.bin/vitest", ""},
		{".venv/bin/pytest tests", RunnerPytest},
		{".venv/bin/pytest --co", ""},
		{".venv/bin/python -m pytest -x", RunnerPytest},
		{".venv/bin/python -m pip install x", ""},
		{`venv\Scripts\pytest.exe -q`, RunnerPytest},
		{`C:\Go\bin\go.exe test ./...`, RunnerGo},
		{`C:\Go\bin\go.exe test .\pkg`, ""}, // a backslash outside the program path
		{`C:\Go\bin\go.exe build`, ""},
		{"/usr/local/go/bin/go test -race ./...", RunnerGo},
		{"/usr/local/go/bin/gofmt -l .", ""},
		{"~/.cargo/bin/cargo test", ""}, // '~' is outside the character set
		{"./cargo test", RunnerCargo},
		// Python launchers.
		{"python -m pytest tests", RunnerPytest},
		{"python3 -m pytest tests", RunnerPytest},
		{"python3.12 -m pytest -q", RunnerPytest},
		{"python3. -m pytest", ""},
		{"python3.x -m pytest", ""},
		{"py -m pytest", RunnerPytest},
		{"py -m pytest --co", ""},
		{"py pytest", ""},
		{"python -m pytest_cov", ""},
		{"python -mpytest", ""},
		{"uv run pytest", RunnerPytest},
		{"uv run pytest -k slow tests/unit", RunnerPytest},
		{"uv run python -m pytest", RunnerPytest},
		{"uv run python3 -m pytest -q", RunnerPytest},
		{"uv pytest", ""},
		{"uv run jest", ""}, // a Python launcher starts pytest only
		{"uv run cargo test", ""},
		{"uv run --frozen pytest", ""},
		{"uv run", ""},
		{"poetry run pytest -q", RunnerPytest},
		{"poetry run python -m pytest", RunnerPytest},
		{"poetry pytest", ""},
		{"poetry run pytest --co", ""},
		{"pipenv run pytest", RunnerPytest},
		{"pipenv run python3 -m pytest tests", RunnerPytest},
		{"pipenv install", ""},
		// JavaScript launchers.
		{"npx jest", RunnerJest},
		{"npx jest --ci", RunnerJest},
		{"npx vitest run", RunnerVitest},
		{"npx vitest", ""}, // watch mode
		{"npx --yes jest", ""},
		{"npx pytest", ""}, // a JavaScript launcher starts jest or vitest only
		{"npx", ""},
		{"bunx vitest --run", RunnerVitest},
		{"bunx jest --listTests", ""},
		{"pnpm vitest run", RunnerVitest},
		{"pnpm exec jest --ci", RunnerJest},
		{"pnpm test", ""},
		{"pnpm exec", ""},
		{"pnpm run jest", ""},
		{"yarn jest", RunnerJest},
		{"yarn exec vitest run src", RunnerVitest},
		{"yarn test", ""},
		{"yarn jest --watch", ""},
		{"npm test", ""},
		{"npm exec jest", ""},
		{"npx npx jest", ""},
		{"uv run uv run pytest", ""},
	}
	for _, tc := range cases {
		got, ok := Recognize(tc.cmd)
		if tc.want == "" {
			if ok {
				t.Errorf("Recognize(%q) = %q, want unrecognised", tc.cmd, got)
			}
			continue
		}
		if !ok || got != tc.want {
			t.Errorf("Recognize(%q) = %q, %v; want %q", tc.cmd, got, ok, tc.want)
		}
	}
}

func TestRunArgs(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"python -m pytest tests/x.py -v", "pytest tests/x.py -v", true},
		{"npx jest", "jest", true},
		{"uv run pytest -q", "python3 -m pytest -q", true},
		{"pytest tests/x.py", "pytest tests/y.py", false},
		{"go test ./...", "go test -v ./...", false},
		{"jest", "vitest run", false},
	} {
		ra, aa, oka := RunArgs(tc.a)
		rb, ab, okb := RunArgs(tc.b)
		same := oka && okb && ra == rb && strings.Join(aa, " ") == strings.Join(ab, " ")
		if same != tc.same {
			t.Errorf("%q vs %q: same=%v, want %v", tc.a, tc.b, same, tc.same)
		}
	}
	if _, _, ok := RunArgs("make test"); ok {
		t.Error("make test is not a recognised runner")
	}
}
