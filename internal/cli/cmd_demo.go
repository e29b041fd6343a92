package cli

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/mastermind-controller/mastermind/internal/gitscope"
	"github.com/mastermind-controller/mastermind/internal/postflight"
	"github.com/mastermind-controller/mastermind/internal/render"
	"github.com/mastermind-controller/mastermind/internal/textsafe"
	"github.com/spf13/cobra"
)

// DemoOptions holds the flags of `mastermind demo`.
type DemoOptions struct {
	IO   *IOStreams
	Keep string
	// Now is the clock passed to the lifecycle; time.Now when nil.
	Now func() time.Time
}

// NewCmdDemo builds `mastermind demo [--keep DIR]`. runF replaces the run function in tests.
func NewCmdDemo(io *IOStreams, runF func(*DemoOptions) error) *cobra.Command {
	opts := &DemoOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "demo [--keep DIR]",
		Short: "Run the whole task lifecycle on a scratch repository (held, drift, broken)",
		Long: `Build scratch git repositories and run the real run-task lifecycle on them, three times:

  held    the executor changes exactly the declared files and reports them
  drift   the executor also adds a file outside the declared scope (and reports it)
  broken  the executor leaves a changed file out of the report's files_modified

Each variant writes a spec, runs pre-flight, makes an executor-like change, writes an executor
report and runs post-flight. The demo prints, per variant, the pre-flight result, the change,
the post-flight verdict with its findings and exit code, then a summary. Only git is needed; the
scratch repositories set their own user.name and user.email and ignore the global and system git
configuration.

--keep DIR builds the repositories in DIR (which must not exist or be empty) and keeps them, one
folder per variant (DIR/held, DIR/drift, DIR/broken), so each audit.md (the evidence JSON at its
end), state.json and the held variant's release notes can be read; the demo's controller store
is DIR/.store. Otherwise a temporary directory is used and removed afterwards.

Exit status:
  0  every variant produced its expected verdict
  3  a variant produced another verdict, or git or the file system failed`,
		Example: "  mastermind demo\n  mastermind demo --keep /tmp/mm-demo",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runDemo(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Keep, "keep", "", "build the scratch repositories in DIR and keep them")
	return cmd
}

// demoVariant is one scenario of the demo.
type demoVariant struct {
	name    string
	verdict postflight.Verdict
	what    string // what the executor does, as the help lists it
	// files maps the paths the executor writes to their content, also the report's files_modified.
	files  map[string]string
	listed []string
}

var demoVariants = []demoVariant{
	{name: "held", verdict: postflight.VerdictHeld, what: "the executor changes exactly the declared files and reports them",
		files:  map[string]string{"src/app.go": demoAppChanged, "src/helper.go": demoHelper},
		listed: []string{"src/app.go", "src/helper.go"}},
	{name: "drift", verdict: postflight.VerdictDrift, what: "the executor also adds a file outside the declared scope (and reports it)",
		files:  map[string]string{"src/app.go": demoAppChanged, "src/helper.go": demoHelper, "notes.txt": "scratch notes\n"},
		listed: []string{"src/app.go", "src/helper.go", "notes.txt"}},
	{name: "broken", verdict: postflight.VerdictBroken, what: "the executor leaves a changed file out of the report's files_modified",
		files:  map[string]string{"src/app.go": demoAppChanged, "src/helper.go": demoHelper},
		listed: []string{"src/app.go"}},
}

const demoApp = "package app\n\n// Greet returns a greeting.\nfunc Greet(name string) string { return \"hello \" + name }\n"

const demoAppChanged = "package app\n\n// Greet returns a greeting.\nfunc Greet(name string) string { return Prefix() + name }\n"

const demoHelper = "package app\n\n// Prefix is the greeting prefix.\nfunc Prefix() string { return \"hello \" }\n"

const demoSpec = `---
id: '001'
touches:
  - file: src/app.go
creates:
  - src/helper.go
verify:
  - cmd: go test ./...
---
# Greeting prefix helper

## Goals

Move the greeting prefix into a helper function.

## Alternatives Considered

Keep the literal inline; rejected because two call sites will need it.

## Tests Plan

Run the package tests.

## Documentation Plan

None needed: the change is internal.

## Observability Plan

None: no runtime behaviour changes.

## Performance Considerations

None: one extra function call.
`

func demoReport(specPath string, listed []string) string {
	var b strings.Builder
	b.WriteString("## Execution report\n\n<!-- mastermind:report-begin -->\n```yaml\nschema_version: 1\n")
	fmt.Fprintf(&b, "spec: %s\nstatus: complete\nphases:\n  - id: plan-1\n    status: done\nfiles_modified:\n", specPath)
	for _, p := range listed {
		fmt.Fprintf(&b, "  - %s\n", p)
	}
	b.WriteString("claims: []\ndefects: []\nverifications:\n  - cmd: go test ./...\n    result: pass\n    observed:\n      exit_code: 0\n      tests_run: 1\n```\n<!-- mastermind:report-end -->\n")
	return b.String()
}

func runDemo(ctx context.Context, opts *DemoOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	base := opts.Keep
	if base == "" {
		tmp, err := os.MkdirTemp("", "mastermind-demo-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		base = tmp
	} else {
		abs, err := filepath.Abs(base)
		if err != nil {
			return err
		}
		base = abs
		if entries, err := os.ReadDir(base); err == nil && len(entries) > 0 {
			return &ExitError{Code: ExitOperational, Msg: fmt.Sprintf("--keep %s: the directory is not empty", opts.Keep)}
		}
		if err := os.MkdirAll(base, 0o755); err != nil {
			return err
		}
	}
	out := opts.IO.Out
	fmt.Fprintf(out, "mastermind demo: one task (%s) on three scratch repositories: pre-flight, an executor change, post-flight\n\n", demoSpecRel)
	var failed, got []string
	for _, v := range demoVariants {
		// The demo's controller store sits beside its scratch repositories, so the user's own
		// store gets no records of them.
		verdict, err := runDemoVariant(ctx, opts, filepath.Join(base, v.name), filepath.Join(base, ".store"), v)
		if err != nil {
			return &ExitError{Code: ExitOperational, Msg: fmt.Sprintf("demo %s: %v", v.name, err), Err: err}
		}
		mark := "ok"
		if verdict != string(v.verdict) {
			mark = "UNEXPECTED"
			failed = append(failed, v.name)
		}
		got = append(got, verdict)
		fmt.Fprintf(out, "  verdict %s, expected %s: %s\n\n", verdict, v.verdict, mark)
	}
	if len(failed) > 0 {
		fmt.Fprintf(out, "demo: variants with an unexpected verdict: %s\n", strings.Join(failed, ", "))
	} else {
		fmt.Fprintf(out, "demo: every variant produced its expected verdict (%s)\n", strings.Join(got, ", "))
	}
	if opts.Keep != "" {
		fmt.Fprintf(out, "kept in %s: held/, drift/ and broken/, one scratch repository per variant; each has %s/audit.md and state.json (the evidence JSON is at the end of audit.md), and held/ has .mastermind/releases/001-greeting-prefix.md; the demo's controller store is %s\n",
			base, path.Dir(demoSpecRel), filepath.Join(base, ".store"))
	} else {
		fmt.Fprintln(out, "the scratch repositories were removed; to read each audit.md and state.json, run: mastermind demo --keep DIR")
	}
	if len(failed) > 0 {
		return &ExitError{Code: ExitOperational, Msg: "demo variants with an unexpected verdict: " + strings.Join(failed, ", ")}
	}
	return nil
}

// demoSpecRel is the demo task's spec path in each scratch repository.
const demoSpecRel = ".mastermind/tasks/001-greeting-prefix/spec.md"

// runDemoVariant builds one scratch repository and runs pre-flight, the executor change and
// post-flight through postflight.Run, the same code path as run-task, printing a few lines for
// each step. It returns the verdict.
func runDemoVariant(ctx context.Context, opts *DemoOptions, dir, stateDir string, v demoVariant) (string, error) {
	out := opts.IO.Out
	fmt.Fprintf(out, "%-9s %s\n", v.name, v.what)
	if err := os.MkdirAll(filepath.Join(dir, "src"), 0o755); err != nil {
		return "", err
	}
	write := func(rel, content string) error {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		return os.WriteFile(p, []byte(content), 0o644)
	}
	if err := write("src/app.go", demoApp); err != nil {
		return "", err
	}
	if err := write("README.md", "# demo\n"); err != nil {
		return "", err
	}
	if err := gitscope.InitScratch(ctx, dir); err != nil {
		return "", err
	}
	if err := write(demoSpecRel, demoSpec); err != nil {
		return "", err
	}
	repo, err := gitscope.Open(dir)
	if err != nil {
		return "", err
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	if err := os.Chdir(dir); err != nil {
		return "", err
	}
	defer os.Chdir(wd)
	run := func(mode postflight.Mode) (*postflight.Outcome, error) {
		res, err := postflight.Run(ctx, postflight.Options{Git: repo, SpecArg: demoSpecRel, Mode: mode,
			MaxIterations: postflight.DefaultMaxIterations, Now: opts.Now, StateDir: stateDir})
		printWarnings(opts.IO, res.Warnings)
		return res, err
	}
	pre, err := run(postflight.ModePreOnly)
	if err != nil {
		return "", err
	}
	if pre.Outcome != postflight.OutcomePreReady {
		fmt.Fprintf(out, "  pre-flight   ❌ refused: %s\n", textsafe.Escape(pre.Message))
		return "pre-flight refused", nil
	}
	fmt.Fprintf(out, "  pre-flight   ✅ approved (iteration %s)\n", iterationText(pre.State.Iteration, pre.Budget))
	for rel, content := range v.files {
		if err := write(rel, content); err != nil {
			return "", err
		}
	}
	if err := write(path.Dir(demoSpecRel)+"/executor-report.md", demoReport(demoSpecRel, v.listed)); err != nil {
		return "", err
	}
	fmt.Fprintf(out, "  executor     changed %s; the report lists %s\n", demoKeys(v.files), strings.Join(v.listed, ", "))
	post, err := run(postflight.ModePostOnly)
	if err != nil {
		return "", err
	}
	if post.State == nil || post.State.Findings == nil {
		fmt.Fprintf(out, "  post-flight  no verdict: %s\n", textsafe.Escape(post.Message))
		return "no verdict", nil
	}
	exit := fmt.Sprintf("exit %d", runTaskExitCode(post.Outcome, false))
	if post.Outcome == postflight.OutcomePostDrift {
		exit += fmt.Sprintf("; %d with --fail-on drift", runTaskExitCode(post.Outcome, true))
	}
	fmt.Fprintf(out, "  post-flight  %s (%s)\n", postflight.VerdictCounts(post.Verdict, *post.State.Findings), exit)
	for f := range post.AllFindings() {
		fmt.Fprintf(out, "    %s %s: %s\n", render.ClassTone(f.Class).Icon(), f.Rule, textsafe.Escape(f.Text()))
	}
	return string(post.State.Verdict), nil
}

func demoKeys(m map[string]string) string {
	var ks []string
	for _, v := range []string{"src/app.go", "src/helper.go", "notes.txt"} {
		if _, ok := m[v]; ok {
			ks = append(ks, v)
		}
	}
	return strings.Join(ks, ", ")
}
