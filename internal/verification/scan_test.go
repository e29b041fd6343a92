package verification

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

func writeFile(t testing.TB, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// vacuous runs Check on one passing row without tests_run and returns the vacuous reason, or
// "" when there is no vacuous_test_claim.
func vacuous(t *testing.T, root, cmd string) string {
	t.Helper()
	res := Check(root, nil, []Row{{Cmd: cmd, Result: "pass", ExitCode: i64(0)}})
	var reasons []string
	for _, f := range res.Findings {
		if f.Rule != KindVacuous {
			t.Fatalf("unexpected finding %v", f)
		}
		if f.Class != "warning" || f.Message != `"`+cmd+`" is reported as pass but `+f.FieldString("reason")+"; "+fixVacuous {
			t.Fatalf("bad vacuous finding %+v", f)
		}
		reasons = append(reasons, f.FieldString("reason"))
	}
	return strings.Join(reasons, "|")
}

func TestVacuousGo(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "go.mod", "module x\n")
	writeFile(t, root, "internal/cache/lru.go", "package cache\n")
	writeFile(t, root, "internal/cache/sub/lru_test.go", "package sub\n")
	writeFile(t, root, "pkg/a/a_test.go", "package a\n")
	writeFile(t, root, "node_modules/x/y_test.go", "")
	writeFile(t, root, ".mastermind/tasks/z_test.go", "")
	cases := map[string]string{
		"go test ./internal/cache/":     "no conventional *_test.go files found in ./internal/cache (not recursive)",
		"go test ./internal/cache":      "no conventional *_test.go files found in ./internal/cache (not recursive)",
		"go test ./internal/cache/...":  "",
		"go test -v ./pkg/...":          "",
		"go test ./pkg/a":               "",
		"go test":                       "no conventional *_test.go files found in the repository root (not recursive)",
		"go test .":                     "no conventional *_test.go files found in the repository root (not recursive)",
		"go test -count=1 ./...":        "",
		"go test ./internal/...":        "",
		"go test ./pkg/a ./pkg/b":       "", // several packages: unknown
		"go test std":                   "", // import path: unknown
		"go test ./missing":             "", // unresolvable: unknown
		"go test ./../x":                "", // ..: unknown
		"go test ./internal/cache/../x": "",
	}
	for cmd, want := range cases {
		if got := vacuous(t, root, cmd); got != want {
			t.Errorf("%s: got %q, want %q", cmd, got, want)
		}
	}
	// Only node_modules and .mastermind hold test files: the recursive root scan skips them.
	root2 := t.TempDir()
	writeFile(t, root2, "main.go", "package main\n")
	writeFile(t, root2, "node_modules/x/y_test.go", "")
	writeFile(t, root2, ".mastermind/z_test.go", "")
	writeFile(t, root2, ".git/objects/q_test.go", "")
	if got := vacuous(t, root2, "go test ./..."); got != "no conventional *_test.go files found in the repository (recursive)" {
		t.Errorf("skip dirs: %q", got)
	}
}

func TestVacuousCargo(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "Cargo.toml", "[package]\n")
	writeFile(t, root, "src/lib.rs", "pub fn f() {}\n")
	writeFile(t, root, "crates/core/Cargo.toml", "[package]\n")
	writeFile(t, root, "crates/core/src/lib.rs", "pub fn g() {}\n")
	writeFile(t, root, "crates/core/tests/it.rs", "// no attributes\n")
	writeFile(t, root, "crates/good/Cargo.toml", "[package]\n")
	writeFile(t, root, "crates/good/tests/it.rs", "#[tokio::test]\nasync fn t() {}\n")
	writeFile(t, root, "crates/rs/Cargo.toml", "[package]\n")
	writeFile(t, root, "crates/rs/src/deep/m.rs", "#[rstest]\nfn t() {}\n")
	writeFile(t, root, "crates/flat/Cargo.toml", "[package]\n")
	writeFile(t, root, "crates/flat/lib.rs", "fn x() {}\n")
	cases := map[string]string{
		"cargo test --locked":                                 "no Rust test attributes (#[test], ::test], #[rstest) found under src/ of the repository root",
		"cargo test --manifest-path crates/core/Cargo.toml":   "no Rust test attributes (#[test], ::test], #[rstest) found under src/ and tests/ of crates/core",
		"cargo test --manifest-path=./crates/good/Cargo.toml": "",
		"cargo test --manifest-path crates/rs/Cargo.toml":     "",
		"cargo test --manifest-path crates/flat/Cargo.toml":   "no Rust test attributes (#[test], ::test], #[rstest) found under crates/flat",
		"cargo test --workspace":                              "",
		"cargo test -p core":                                  "",
		"cargo test --doc":                                    "",
		"cargo test --exclude x":                              "",
		"cargo test --manifest-path crates/none/Cargo.toml":   "", // not a file: unknown
		"cargo test --manifest-path crates/core/other.toml":   "",
		"cargo test --manifest-path ../Cargo.toml":            "",
	}
	for cmd, want := range cases {
		if got := vacuous(t, root, cmd); got != want {
			t.Errorf("%s: got %q, want %q", cmd, got, want)
		}
	}
	// A #[test] makes the root crate non-vacuous.
	writeFile(t, root, "src/lib.rs", "#[test]\nfn t() {}\n")
	if got := vacuous(t, root, "cargo test"); got != "" {
		t.Errorf("with #[test]: %q", got)
	}
}

func TestVacuousCargoReadLimits(t *testing.T) {
	for name, content := range map[string]string{
		"non-UTF-8": "fn x() {}\n\xff\xfe",
		"too large": strings.Repeat("// padding\n", MaxScanSourceSize/11+1),
	} {
		root := t.TempDir()
		writeFile(t, root, "src/lib.rs", content)
		if got := vacuous(t, root, "cargo test"); got != "" {
			t.Errorf("%s: scan gave %q, want unknown", name, got)
		}
	}
	// More than 8 MiB in total: nine files of just under 1 MiB.
	root := t.TempDir()
	chunk := strings.Repeat("/", MaxScanSourceSize-1)
	for i := 0; i < 9; i++ {
		writeFile(t, root, "src/f"+string(rune('a'+i))+".rs", chunk)
	}
	if got := vacuous(t, root, "cargo test"); got != "" {
		t.Errorf("8 MiB total: scan gave %q, want unknown", got)
	}
}

func TestVacuousPytestJestVitest(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "app/main.py", "")
	writeFile(t, root, "tests/unit/helpers.py", "")
	writeFile(t, root, "tests/int/test_api.py", "")
	writeFile(t, root, "tests/int/other_test.py", "")
	writeFile(t, root, "src/app.ts", "")
	cases := map[string]string{
		"pytest tests/unit":                "no test_*.py or *_test.py files found under tests/unit",
		"python3 -m pytest -q tests/unit/": "no test_*.py or *_test.py files found under tests/unit",
		"pytest tests/int":                 "",
		"pytest":                           "",
		"pytest -k slow":                   "",
		"pytest tests/int/test_api.py":     "",
		"pytest tests/unit/helpers.py":     "", // an existing .py file counts as tests present
		"pytest tests/int/test_api.py::t":  "",
		"pytest tests/unit tests/int":      "",
		"pytest missing/":                  "",
		"jest --ci":                        "no *.test.* or *.spec.* files found in the repository",
		"vitest run":                       "no *.test.* or *.spec.* files found in the repository",
		"vitest --run --coverage":          "no *.test.* or *.spec.* files found in the repository",
		"jest -t parses":                   "", // filter: unknown
		"vitest run src/":                  "",
	}
	for cmd, want := range cases {
		if got := vacuous(t, root, cmd); got != want {
			t.Errorf("%s: got %q, want %q", cmd, got, want)
		}
	}
	writeFile(t, root, "src/app.spec.ts", "")
	if got := vacuous(t, root, "jest"); got != "" {
		t.Errorf("with a spec file: %q", got)
	}
	root2 := t.TempDir()
	writeFile(t, root2, "lib/only.py", "")
	if got := vacuous(t, root2, "pytest"); got != "no test_*.py or *_test.py files found in the repository" {
		t.Errorf("pytest root: %q", got)
	}
}

// TestVacuousUnknownNeverAbsent covers the safety rules: each case would otherwise be an absence.
func TestVacuousUnknownNeverAbsent(t *testing.T) {
	t.Run("symlink in scope path", func(t *testing.T) {
		root := t.TempDir()
		writeFile(t, root, "real/pkg/x.go", "package pkg\n")
		if err := os.Symlink("real", filepath.Join(root, "link")); err != nil {
			t.Fatal(err)
		}
		if got := vacuous(t, root, "go test ./link/pkg"); got != "" {
			t.Errorf("got %q", got)
		}
		if got := vacuous(t, root, "go test ./real/pkg"); got == "" {
			t.Errorf("control: the real path should be an absence")
		}
	})
	t.Run("symlink during walk", func(t *testing.T) {
		root := t.TempDir()
		writeFile(t, root, "a/b/x.go", "package b\n")
		if err := os.Symlink("/etc", filepath.Join(root, "a/b/etc")); err != nil {
			t.Fatal(err)
		}
		if got := vacuous(t, root, "go test ./..."); got != "" {
			t.Errorf("got %q", got)
		}
	})
	deep := func(n int) string {
		root := t.TempDir()
		rel := ""
		for i := 1; i <= n; i++ {
			rel += "d/"
		}
		writeFile(t, root, rel+"x.go", "package d\n")
		return root
	}
	t.Run("13-deep tree", func(t *testing.T) {
		if got := vacuous(t, deep(13), "go test ./..."); got != "" {
			t.Errorf("got %q", got)
		}
	})
	t.Run("12-deep tree is scanned", func(t *testing.T) {
		if got := vacuous(t, deep(12), "go test ./..."); got == "" {
			t.Errorf("12 levels should be within the limit")
		}
	})
	t.Run("too many entries", func(t *testing.T) {
		root := t.TempDir()
		for i := 0; i <= MaxScanEntries; i++ {
			p := filepath.Join(root, "many", "f"+strconv.Itoa(i)+".txt")
			if i == 0 {
				writeFile(t, root, "many/f0.txt", "")
				continue
			}
			if err := os.WriteFile(p, nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if got := vacuous(t, root, "jest"); got != "" {
			t.Errorf("got %q", got)
		}
	})
	t.Run("trusted row is not scanned", func(t *testing.T) {
		root := t.TempDir()
		res := Check(root, nil, []Row{{Cmd: "jest", Result: "pass", TestsRun: i64(3)}})
		if len(res.Findings) != 0 {
			t.Errorf("%v", res.Findings)
		}
	})
	t.Run("contradicted and failed rows are not scanned", func(t *testing.T) {
		root := t.TempDir()
		res := Check(root, nil, []Row{{Cmd: "jest", Result: "pass", ExitCode: i64(1)}, {Cmd: "jest", Result: "fail"}})
		if len(res.Findings) != 1 || res.Findings[0].Rule != KindExitNonZero {
			t.Errorf("%v", res.Findings)
		}
	})
	t.Run("unobserved row is scanned", func(t *testing.T) {
		root := t.TempDir()
		res := Check(root, []string{"jest"}, []Row{{Cmd: "jest", Result: "pass"}})
		if got := summarize(res); len(got) != 2 || got[0] != "verification_requirement_unmet cmd=jest reason=unobserved_exit" ||
			!strings.HasPrefix(got[1], "vacuous_test_claim cmd=jest reason=no *.test.*") {
			t.Errorf("%v", got)
		}
	})
}

// TestVacuousFollowsLaunchForms checks that the scan runs for every launch form the grammar
// recognises (lifecycle-v2.md §7), with the same scope as the bare runner.
func TestVacuousFollowsLaunchForms(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "pkg/a.go", "package pkg\n")
	writeFile(t, root, "tests/unit/helpers.py", "")
	writeFile(t, root, "src/app.ts", "")
	const goReason = "no conventional *_test.go files found in ./pkg (not recursive)"
	const pyReason = "no test_*.py or *_test.py files found under tests/unit"
	const jsReason = "no *.test.* or *.spec.* files found in the repository"
	cases := map[string]string{
		"go.exe test ./pkg":                          goReason,
		`C:\Go\bin\go.exe test ./pkg`:                goReason,
		"/usr/local/go/bin/go test -v ./pkg":         goReason,
		".venv/bin/pytest tests/unit":                pyReason,
		"pytest.exe tests/unit":                      pyReason,
		"py -m pytest tests/unit":                    pyReason,
		"uv run pytest tests/unit":                   pyReason,
		"poetry run python3 -m pytest -q tests/unit": pyReason,
		"pipenv run pytest tests/unit":               pyReason,
		"npx jest":                                   jsReason,
		"./node_modules/.bin/jest --ci":              jsReason,
		"jest.exe":                                   jsReason,
		"pnpm vitest run":                            jsReason,
		"yarn exec vitest --run":                     jsReason,
		"bunx vitest run":                            jsReason,
		"npx jest src":                               "", // a filter: unknown
		"npm test":                                   "", // unrecognised: no scan
	}
	for cmd, want := range cases {
		if got := vacuous(t, root, cmd); got != want {
			t.Errorf("%s: got %q, want %q", cmd, got, want)
		}
	}
}

// TestVacuousSpecialFileUnknown checks that a FIFO met during the walk makes the scan unknown,
// never a confirmed absence (lifecycle-v2.md §7).
func TestVacuousSpecialFileUnknown(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "pkg/a.go", "package pkg\n")
	if got := vacuous(t, root, "go test ./pkg"); got == "" {
		t.Fatal("control: without the FIFO the scan should confirm the absence")
	}
	if err := syscall.Mkfifo(filepath.Join(root, "pkg", "a_test.go"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, cmd := range []string{"go test ./pkg", "go test ./...", "go.exe test ./pkg"} {
		if got := vacuous(t, root, cmd); got != "" {
			t.Errorf("%s: a FIFO in the scope gave the absence %q; want unknown", cmd, got)
		}
	}
}
