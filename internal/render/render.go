package render

import (
	"fmt"
	"io"
)

// Output formats (the --format values; --json is FormatJSON).
const (
	FormatText     = "text"
	FormatJSON     = "json"
	FormatGitHub   = "github"
	FormatSARIF    = "sarif"
	FormatRDJSON   = "rdjson"
	FormatMarkdown = "markdown"
)

// Formats lists every --format value, in help order.
var Formats = []string{FormatText, FormatJSON, FormatGitHub, FormatSARIF, FormatRDJSON, FormatMarkdown}

// Header is the start of every --json envelope: the envelope schema version and the command
// that wrote it. Envelopes embed it as their first field, so the two keys come first.
type Header struct {
	SchemaVersion int    `json:"schema_version"`
	Command       string `json:"command"`
}

// NewHeader is the schema_version 1 header of command.
func NewHeader(command string) Header { return Header{SchemaVersion: 1, Command: command} }

// View is one command's result in every form a Renderer needs.
type View interface {
	// WriteText writes the human text.
	WriteText(t *Text)
	// JSON returns the --json envelope (a value that embeds Header), or nil when the command
	// has no JSON form for this result.
	JSON() any
	// Findings are the command's results, which the github, SARIF, rdjson and markdown formats
	// all read; the zero Findings for a command without results.
	Findings() Findings
}

// Diagnosed is a View with human diagnostics (notes, deviation lines) that the text formats
// write to the error stream; machine formats leave them out, their envelope carries the same
// facts.
type Diagnosed interface {
	WriteDiagnostics(t *Text)
}

// Plain is a View assembled from its parts, for results without logic of their own.
type Plain struct {
	// Text writes the human text; nil writes none.
	Text func(t *Text)
	// Envelope is the --json value; nil means no JSON output.
	Envelope any
	// Results are the findings.
	Results Findings
	// Diagnostics writes human diagnostics for the error stream; nil writes none.
	Diagnostics func(t *Text)
}

// WriteText calls p.Text.
func (p Plain) WriteText(t *Text) {
	if p.Text != nil {
		p.Text(t)
	}
}

// JSON returns p.Envelope.
func (p Plain) JSON() any { return p.Envelope }

// Findings returns p.Results.
func (p Plain) Findings() Findings { return p.Results }

// WriteDiagnostics calls p.Diagnostics.
func (p Plain) WriteDiagnostics(t *Text) {
	if p.Diagnostics != nil {
		p.Diagnostics(t)
	}
}

// Streams are where a Renderer writes: the result to Out, human diagnostics to Err.
type Streams struct {
	Out, Err io.Writer
}

// Renderer writes views in one format.
type Renderer interface {
	Render(s Streams, v View) error
}

// Options are the caller's decisions a Renderer follows.
type Options struct {
	// Color allows ANSI colour in text (the text format only; github's log stays plain).
	Color bool
	// Tool names the producer in SARIF and rdjson.
	Tool ToolMeta
}

// For returns the Renderer of format, or an error naming the formats there are.
func For(format string, opts Options) (Renderer, error) {
	switch format {
	case FormatText, "":
		return textRenderer{color: opts.Color}, nil
	case FormatJSON:
		return jsonRenderer{}, nil
	case FormatGitHub:
		return githubRenderer{}, nil
	case FormatSARIF:
		return logRenderer{tool: opts.Tool, write: WriteSARIF}, nil
	case FormatRDJSON:
		return logRenderer{tool: opts.Tool, write: WriteRDJSON}, nil
	case FormatMarkdown:
		return markdownRenderer{}, nil
	}
	return nil, fmt.Errorf("unknown format %q (text, json, github, sarif, rdjson or markdown)", format)
}
