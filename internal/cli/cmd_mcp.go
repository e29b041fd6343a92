package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/buildinfo"
	"github.com/mastermind-controller/mastermind/internal/fsx"
	"github.com/mastermind-controller/mastermind/internal/mcpstdio"
	"github.com/mastermind-controller/mastermind/internal/postflight"
	"github.com/mastermind-controller/mastermind/internal/textsafe"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
)

// MCPOptions holds the flags of `mastermind mcp`.
type MCPOptions struct {
	IO   *IOStreams
	Root string
}

const mcpLong = `Serve the Model Context Protocol over stdio (integrations.md §3), so an MCP client (an agent,
an orchestrator, the MCP Inspector) can run the lifecycle, the gate and the validators as tools.

Tools (each runs the same command as the command line, in this process, and returns its --json
output as the structured result):
  preflight        {spec}              run-task <spec> --pre-only --json
  postflight       {spec, run_verify?} run-task <spec> --post-only --json [--run-verify]
  status           {}                  status --json
  brief            {spec}              brief <spec> --format json
  validate_report  {path} or {text}    report validate <path|-> --json
  gate             {base?}             gate --format json (--base, or --since where the gate
                                       has no --base)
  changes          {since}             changes --since <since> --json
  schema           {name}              schema <name>
Spec and report paths are relative to the repository root (an absolute path must lie inside
it); a path outside the root or through a symbolic link is refused without reading the file. A
verdict of drift or broken, an invalid report or a failing gate is a successful tool result
(isError false) whose structured content is the envelope; isError is true only when the command
could not run (exit 2 or 3: a bad argument, not a git repository, git failing, a busy lock), with
the error text as content.

Resources: mastermind://tasks/<task>/audit.md and mastermind://tasks/<task>/state.json, the
task folder's files as they are. resources/list lists them for every open task (state not
learned) that has them; the templates cover any task.

Transport: one JSON-RPC message per line. A line that is not JSON is answered with -32700 and
one that is not a JSON-RPC 2.0 message (no "jsonrpc":"2.0", a batch, an id that is not a string
or an integer, an id already in flight) with -32600; a line over 8 MiB is answered with -32600
and skipped unread. The session goes on after each. When stdin closes, every request already
read is answered before the server exits.

The repository is --root, else discovered from the current directory when the server starts.
Logs go to stderr; stdout carries only the protocol.

Exit status:
  0  the client closed the connection
  2  usage error
  3  operational: not a git repository, or reading stdin or writing stdout failed`

// NewCmdMCP builds `mastermind mcp [--root DIR]`.
func NewCmdMCP(io *IOStreams, runF func(*MCPOptions) error) *cobra.Command {
	opts := &MCPOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "mcp [--root DIR]",
		Short: "Serve the lifecycle, gate and validators as MCP tools over stdio",
		Long:  mcpLong,
		Example: `  mastermind mcp
  npx @modelcontextprotocol/inspector --cli mastermind mcp --method tools/list`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runMCP(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Root, "root", "", "repository root (default: discovered from the current directory)")
	return cmd
}

func runMCP(ctx context.Context, opts *MCPOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	repo, err := openRepo(opts.Root)
	if err != nil {
		return err
	}
	server := newMCPServer(repo.Root())
	t := &mcpstdio.Transport{In: opts.IO.In, Out: opts.IO.Out, MaxLine: mcpMaxLine}
	// Run returns nil when the client closes stdin, once every request read has been answered;
	// a malformed line is answered and skipped, so only a read or write failure is exit 3.
	if err := server.Run(ctx, t); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

// mcpMaxLine bounds one inbound MCP message: the largest report text JSON-escaped at six bytes per
// byte, plus the request around it.
const mcpMaxLine = 8 << 20

// Tool inputs. Field descriptions become the tools' JSON Schemas.
type mcpSpecArgs struct {
	Spec string `json:"spec" jsonschema:"the task: its spec .mastermind/tasks/<NNN>-<slug>/spec.md or its task folder, relative to the repository root, or its folder name <NNN>-<slug>"`
}

type mcpPostflightArgs struct {
	Spec      string `json:"spec" jsonschema:"the task: its spec .mastermind/tasks/<NNN>-<slug>/spec.md or its task folder, relative to the repository root, or its folder name <NNN>-<slug>"`
	RunVerify bool   `json:"run_verify,omitempty" jsonschema:"run every declared verify command under the controller and trust only what it observes (run-task --run-verify, verification-receipts.md)"`
}

type mcpValidateArgs struct {
	Path string `json:"path,omitempty" jsonschema:"the report file, relative to the repository root"`
	Text string `json:"text,omitempty" jsonschema:"the report text itself (instead of path)"`
}

type mcpGateArgs struct {
	Base string `json:"base,omitempty" jsonschema:"the protected base revision to gate against (default: the branch against its upstream, or the open tasks without one, each task from its controller record)"`
}

type mcpChangesArgs struct {
	Since string `json:"since" jsonschema:"the revision to list changes since"`
}

type mcpSchemaArgs struct {
	Name string `json:"name" jsonschema:"the schema name, for example executor-report-v1 or state-v1"`
}

type mcpNoArgs struct{}

// newMCPServer builds the server for the repository at root: the tools and resources of
// integrations.md §3, each a call of the same command the CLI runs.
func newMCPServer(root string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "mastermind", Title: "mastermind post-flight controller", Version: buildinfo.Get().Version}, &mcp.ServerOptions{
		Instructions: "mastermind audits an AI coding agent's work against its task spec and git. Use preflight before dispatching an executor, brief for the executor's prompt, postflight after it returns, gate before merging. A drift or broken verdict is a normal result: read its findings.",
	})
	// specTool runs args with the spec argument confined to the repository (mcpPath).
	specTool := func(ctx context.Context, spec string, args func(abs string) []string) (*mcp.CallToolResult, any, error) {
		if isTaskName(spec) {
			spec = specForTask(spec) // a folder name, as every command takes it (spec-and-lifecycle.md §0)
		}
		abs, err := mcpPath(root, spec)
		if err != nil {
			return mcpError(textsafe.Escape(err.Error())), nil, nil
		}
		return mcpInvoke(ctx, nil, args(abs)...)
	}
	mcp.AddTool(s, &mcp.Tool{Name: "preflight", Description: "Validate a task spec, record the baseline and approve the task for an executor (run-task --pre-only). Returns the run-task JSON envelope."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in mcpSpecArgs) (*mcp.CallToolResult, any, error) {
			return specTool(ctx, in.Spec, func(abs string) []string {
				return []string{"run-task", abs, "--pre-only", "--json", "--root", root}
			})
		})
	mcp.AddTool(s, &mcp.Tool{Name: "postflight", Description: "Audit the executor's work: report, changed set since the baseline, scope, verification evidence and claims (run-task --post-only). A drift or broken verdict is a successful result; read outcome, findings and state.next_step."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in mcpPostflightArgs) (*mcp.CallToolResult, any, error) {
			return specTool(ctx, in.Spec, func(abs string) []string {
				args := []string{"run-task", abs, "--post-only", "--json", "--root", root}
				if in.RunVerify {
					args = append(args, "--run-verify")
				}
				return args
			})
		})
	mcp.AddTool(s, &mcp.Tool{Name: "status", Description: "The planner's view of every task: status, next step, verdict (status --json)."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ mcpNoArgs) (*mcp.CallToolResult, any, error) {
			return mcpInvoke(ctx, nil, "status", "--json", "--root", root)
		})
	mcp.AddTool(s, &mcp.Tool{Name: "brief", Description: "The executor's brief for a task: goals, declared scope, verify commands, report path and template, the rules that make a report pass (brief --format json)."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in mcpSpecArgs) (*mcp.CallToolResult, any, error) {
			return specTool(ctx, in.Spec, func(abs string) []string {
				return []string{"brief", abs, "--format", "json", "--root", root}
			})
		})
	mcp.AddTool(s, &mcp.Tool{Name: "validate_report", Description: "Check an executor report against the v1 contract without git (report validate --json). Give path (inside the repository) or text. An invalid report is a successful result with its violations."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in mcpValidateArgs) (*mcp.CallToolResult, any, error) {
			switch {
			case (in.Path == "") == (in.Text == ""):
				return mcpError("give exactly one of path or text"), nil, nil
			case in.Text != "":
				return mcpInvoke(ctx, strings.NewReader(in.Text), "report", "validate", "-", "--json")
			}
			abs, err := mcpPath(root, in.Path)
			if err != nil {
				return mcpError(textsafe.Escape(err.Error())), nil, nil
			}
			rel, _ := fsx.Rel(root, abs)
			return mcpResult(reportValidateInRoot(root, rel), "report validate")
		})
	mcp.AddTool(s, &mcp.Tool{Name: "gate", Description: "The pre-merge gate (gate --format json): the branch against its upstream, every task audited as post-flight audits it; with base, against that protected base. A failing gate is a successful result."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in mcpGateArgs) (*mcp.CallToolResult, any, error) {
			args := []string{"gate", "--format", "json", "--root", root}
			if in.Base != "" {
				args = append(args, "--base="+in.Base)
			}
			return mcpInvoke(ctx, nil, args...)
		})
	mcp.AddTool(s, &mcp.Tool{Name: "changes", Description: "The changed set the audit would use since a revision (changes --json)."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in mcpChangesArgs) (*mcp.CallToolResult, any, error) {
			return mcpInvoke(ctx, nil, "changes", "--since="+in.Since, "--json", "--root", root)
		})
	mcp.AddTool(s, &mcp.Tool{Name: "schema", Description: "An embedded JSON Schema: executor-report-v1 or state-v1."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in mcpSchemaArgs) (*mcp.CallToolResult, any, error) {
			return mcpInvoke(ctx, nil, "schema", in.Name)
		})
	for _, name := range taskResourceNames {
		mime := taskResourceMIME(name)
		s.AddResourceTemplate(&mcp.ResourceTemplate{
			URITemplate: "mastermind://tasks/{task}/" + name, Name: "task " + name, MIMEType: mime,
			Description: "The task folder's " + name + " (.mastermind/tasks/<task>/" + name + ")",
		}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return readTaskResource(root, req.Params.URI, name, mime)
		})
	}
	// resources/list is computed on each call: the open tasks change while the server runs.
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "resources/list" {
				return next(ctx, method, req)
			}
			return listTaskResources(root)
		}
	})
	return s
}

// taskResourceNames are the task-folder files served as resources.
var taskResourceNames = []string{"audit.md", "state.json"}

func taskResourceMIME(name string) string {
	if strings.HasSuffix(name, ".json") {
		return "application/json"
	}
	return "text/markdown"
}

// listTaskResources lists audit.md and state.json of every task not learned that has them, in
// task order.
func listTaskResources(root string) (*mcp.ListResourcesResult, error) {
	infos, err := postflight.ScanTasks(root)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: textsafe.Escape(err.Error())}
	}
	// Stale at once, since the tasks change while the server runs, and this repository's own.
	res := &mcp.ListResourcesResult{Resources: []*mcp.Resource{}, Cacheable: mcp.Cacheable{TTLMs: 0, CacheScope: "private"}}
	for _, in := range infos {
		if !openTask(in) {
			continue
		}
		for _, name := range taskResourceNames {
			rel := in.Task.Dir + "/" + name
			if fsx.CheckNoSymlink(root, rel) != nil {
				continue
			}
			if fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(rel))); err != nil || !fi.Mode().IsRegular() {
				continue
			}
			res.Resources = append(res.Resources, &mcp.Resource{
				URI: "mastermind://tasks/" + in.Task.Name + "/" + name, Name: in.Task.Name + " " + name,
				MIMEType: taskResourceMIME(name), Description: "Task " + in.Task.Name + "'s " + name + " (" + rel + ")",
			})
		}
	}
	return res, nil
}

// mcpPath resolves a tool's path argument inside the repository root: relative to root, or
// absolute and inside it, with no symbolic link on the way (trust-model.md I4). A path that
// does not exist yet is returned as is; the command reports it. The error names only the path.
func mcpPath(root, p string) (string, error) {
	if p == "" {
		return "", errors.New("the path is empty; give it relative to the repository root")
	}
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(root, filepath.FromSlash(p))
	}
	rel, err := fsx.Rel(root, abs)
	if err != nil || rel == "." {
		return "", fmt.Errorf("%s is outside the repository %s; give a path inside it, relative to its root", p, root)
	}
	if err := fsx.CheckNoSymlink(root, rel); err != nil && fsx.ReasonOf(err) != fsx.ReasonMissing {
		return "", err
	}
	return filepath.Join(root, filepath.FromSlash(rel)), nil
}

// mcpInvoke runs one command with the request's context, so a client's cancellation stops it as
// Ctrl-C would, and maps it to a tool result.
func mcpInvoke(ctx context.Context, stdin io.Reader, args ...string) (*mcp.CallToolResult, any, error) {
	return mcpResult(invokeContext(ctx, stdin, args...), args[0])
}

// mcpResult maps a command's run to a tool result: exit 0 or 1 is a successful result whose
// structured content is the command's JSON stdout; exit 2 or 3, or stdout that is not JSON, is
// isError with the error text.
func mcpResult(res invocation, command string) (*mcp.CallToolResult, any, error) {
	out := bytes.TrimSpace(res.Stdout)
	if (res.Code == ExitOK || res.Code == ExitNotPassed) && json.Valid(out) && len(out) > 0 && out[0] == '{' {
		return nil, json.RawMessage(out), nil
	}
	msg := strings.TrimSpace(string(res.Stderr))
	if msg == "" {
		// An operational envelope on stdout carries its message.
		var env struct{ Message string }
		if json.Unmarshal(out, &env) == nil && env.Message != "" {
			msg = env.Message
		} else {
			msg = fmt.Sprintf("mastermind %s exited %d", command, res.Code)
		}
	}
	r := mcpError(strings.TrimPrefix(msg, "mastermind: "))
	if json.Valid(out) && len(out) > 0 && out[0] == '{' {
		r.StructuredContent = json.RawMessage(out)
	}
	return r, nil, nil
}

// reportValidateInRoot runs `report validate <rel> --json` with the report read inside root
// without following links, as the MCP tool must. The CLI itself reads any path its user names.
func reportValidateInRoot(root, rel string) invocation {
	var out, errOut bytes.Buffer
	err := runReportValidate(&ReportValidateOptions{IO: &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, File: rel, JSON: true, root: root})
	if err != nil && !silent(err) {
		fmt.Fprintf(&errOut, "%s\n", textsafe.Escape(err.Error()))
	}
	return invocation{Stdout: out.Bytes(), Stderr: errOut.Bytes(), Code: exitCodeFor(err)}
}

// mcpError is an isError tool result with text.
func mcpError(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// readTaskResource serves mastermind://tasks/<task>/<name> from the task folder, refusing a
// task name outside the layout, a symlink, or a missing file.
func readTaskResource(root, uri, name, mime string) (*mcp.ReadResourceResult, error) {
	const prefix = "mastermind://tasks/"
	rest, ok := strings.CutPrefix(uri, prefix)
	task, file, ok2 := strings.Cut(rest, "/")
	if !ok || !ok2 || file != name || !isTaskName(task) {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	rel := ".mastermind/tasks/" + task + "/" + name
	data, err := fsx.ReadInRoot(root, rel, 64<<20)
	if err != nil {
		if fsx.ReasonOf(err) == fsx.ReasonMissing || errors.Is(err, os.ErrNotExist) {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		// A symlink or another refusal: the client asked for something mastermind will not read.
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: textsafe.Escape(err.Error())}
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: mime, Text: string(data)}}}, nil
}
