// Command gen-docs writes the command reference, docs/reference/*.md, from mastermind's cobra
// command tree (conventions.md §5): one page per command, named after its command path
// (mastermind_hook_install.md), plus README.md as an index. The output holds no date or
// generator tag, so it is reproducible and a test can compare it with the checked-in pages.
//
// github.com/spf13/cobra/doc would do this, but it imports github.com/cpuguy83/go-md2man for man
// pages, a module this repository does not require; the page layout below follows
// doc.GenMarkdownTree with DisableAutoGenTag, except that the long help is a fenced text block
// (it is preformatted, with aligned exit-status tables and <placeholders>).
//
// Usage: go run ./scripts/gen-docs [-out docs/reference]
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/cli"
	"github.com/spf13/cobra"
)

func main() {
	out := flag.String("out", filepath.Join("docs", "reference"), "output directory")
	flag.Parse()
	if err := write(*out); err != nil {
		fmt.Fprintln(os.Stderr, "gen-docs:", err)
		os.Exit(1)
	}
}

// write replaces the *.md files of dir with the generated pages.
func write(dir string) error {
	pages := generate()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	old, err := filepath.Glob(filepath.Join(dir, "*.md"))
	if err != nil {
		return err
	}
	for _, p := range old {
		if _, keep := pages[filepath.Base(p)]; !keep {
			if err := os.Remove(p); err != nil {
				return err
			}
		}
	}
	for name, data := range pages {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// rootCmd builds the command tree as `mastermind` runs it, with cobra's default help and
// completion commands added.
func rootCmd() *cobra.Command {
	io := &cli.IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard}
	root := cli.NewRootCmd(io)
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	root.DisableAutoGenTag = true
	return root
}

// generate returns every page by file name.
func generate() map[string][]byte {
	root := rootCmd()
	pages := map[string][]byte{}
	var index bytes.Buffer
	index.WriteString("# mastermind command reference\n\n")
	index.WriteString("Generated from the command tree by `go run ./scripts/gen-docs`; do not edit by hand.\n\n")
	var walk func(c *cobra.Command, depth int)
	walk = func(c *cobra.Command, depth int) {
		if !available(c) {
			return
		}
		pages[fileName(c)] = page(c)
		fmt.Fprintf(&index, "%s- [%s](%s) — %s\n", strings.Repeat("  ", depth), c.CommandPath(), fileName(c), c.Short)
		for _, sub := range sorted(c.Commands()) {
			walk(sub, depth+1)
		}
	}
	walk(root, 0)
	pages["README.md"] = index.Bytes()
	return pages
}

// available is cobra/doc's filter: no deprecated, hidden or help-topic commands, and no "help".
func available(c *cobra.Command) bool {
	return c.IsAvailableCommand() && !c.IsAdditionalHelpTopicCommand() || !c.HasParent()
}

func fileName(c *cobra.Command) string {
	return strings.ReplaceAll(c.CommandPath(), " ", "_") + ".md"
}

func sorted(cs []*cobra.Command) []*cobra.Command {
	out := append([]*cobra.Command(nil), cs...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out
}

// page renders one command like cobra/doc.GenMarkdown.
func page(c *cobra.Command) []byte {
	c.InitDefaultHelpFlag()
	var b bytes.Buffer
	fmt.Fprintf(&b, "## %s\n\n%s\n\n", c.CommandPath(), c.Short)
	if c.Long != "" {
		fmt.Fprintf(&b, "### Synopsis\n\n```text\n%s\n```\n\n", strings.TrimRight(c.Long, "\n"))
	}
	if c.Runnable() {
		fmt.Fprintf(&b, "```\n%s\n```\n\n", c.UseLine())
	}
	if c.Example != "" {
		fmt.Fprintf(&b, "### Examples\n\n```\n%s\n```\n\n", strings.TrimRight(c.Example, "\n"))
	}
	if fs := c.NonInheritedFlags(); fs.HasAvailableFlags() {
		fmt.Fprintf(&b, "### Options\n\n```\n%s```\n\n", fs.FlagUsages())
	}
	if fs := c.InheritedFlags(); fs.HasAvailableFlags() {
		fmt.Fprintf(&b, "### Options inherited from parent commands\n\n```\n%s```\n\n", fs.FlagUsages())
	}
	var also []string
	if c.HasParent() {
		p := c.Parent()
		also = append(also, fmt.Sprintf("* [%s](%s)\t - %s", p.CommandPath(), fileName(p), p.Short))
	}
	for _, sub := range sorted(c.Commands()) {
		if available(sub) {
			also = append(also, fmt.Sprintf("* [%s](%s)\t - %s", sub.CommandPath(), fileName(sub), sub.Short))
		}
	}
	if len(also) > 0 {
		fmt.Fprintf(&b, "### SEE ALSO\n\n%s\n", strings.Join(also, "\n"))
	}
	return b.Bytes()
}

// allCommands lists c and every descendant, depth first in name order.
func allCommands(c *cobra.Command) []*cobra.Command {
	out := []*cobra.Command{c}
	for _, sub := range sorted(c.Commands()) {
		out = append(out, allCommands(sub)...)
	}
	return out
}
