package transcript

import (
	"path/filepath"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/verification"
	"mvdan.cc/sh/v3/syntax"
)

// shape is a shell command as the witness rules read it (docs/design/transcripts.md §3).
type shape struct {
	// core is the command after dropping a leading `cd DIR &&` and `set -o pipefail`, trailing
	// output redirections and, for a pipeline, every stage but the first; whitespace collapsed.
	core string
	// dir is the directory core runs in ("" when a cd could not be resolved).
	dir string
	// pipeline: core is the first stage of a pipeline; pipefail: the command set pipefail
	// first; background: it ends with &.
	pipeline, pipefail, background bool
	// cdTo is the directory the command leaves the shell in when it is `cd DIR` or starts with
	// `cd DIR &&` ("" otherwise).
	cdTo string
	// parsed is false when the command is not valid shell; core is then the whole command.
	parsed bool
	// redirected is true when core leaves out something that writes: a trailing output
	// redirection or a pipeline's later stages.
	redirected bool
	// git are the git invocations in the command (every stage and list member).
	git [][]string
}

// parseShape reads cmd, run in dir (absolute; "" when unknown) with home the user's home.
func parseShape(cmd, dir, home string) shape {
	sh := shape{core: verification.MatchKey(cmd), dir: dir}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmd), "")
	if err != nil || len(f.Stmts) == 0 {
		return sh
	}
	sh.parsed = true
	syntax.Walk(f, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CallExpr); ok {
			if args := litArgs(c.Args); len(args) > 0 && filepath.Base(args[0]) == "git" {
				sh.git = append(sh.git, args)
			}
		}
		return true
	})
	stmts := f.Stmts
	for len(stmts) > 1 && isPipefail(stmts[0]) {
		sh.pipefail, stmts = true, stmts[1:]
	}
	if len(stmts) != 1 {
		return sh
	}
	text, s := cmd, stmts[0]
	for {
		b, ok := s.Cmd.(*syntax.BinaryCmd)
		if !ok || b.Op != syntax.AndStmt {
			break
		}
		// The leftmost member of a && list (a && b && c parses as (a && b) && c).
		for {
			x, ok := b.X.Cmd.(*syntax.BinaryCmd)
			if !ok || x.Op != syntax.AndStmt {
				break
			}
			b = x
		}
		switch {
		case isPipefail(b.X):
			sh.pipefail = true
		case isCd(b.X):
			sh.dir = cdTarget(b.X, sh.dir, home)
			sh.cdTo = sh.dir
		default:
			goto done
		}
		rest := text[b.OpPos.Offset()+2 : s.End().Offset()]
		f2, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(rest), "")
		if err != nil || len(f2.Stmts) != 1 {
			sh.core = verification.MatchKey(rest)
			return sh
		}
		text, s = rest, f2.Stmts[0]
	}
done:
	if isCd(s) && !s.Background {
		sh.cdTo = cdTarget(s, sh.dir, home)
	}
	sh.background = s.Background
	if b, ok := s.Cmd.(*syntax.BinaryCmd); ok && (b.Op == syntax.Pipe || b.Op == syntax.PipeAll) {
		sh.pipeline = true
		for {
			x, ok := b.X.Cmd.(*syntax.BinaryCmd)
			if !ok || (x.Op != syntax.Pipe && x.Op != syntax.PipeAll) {
				break
			}
			b = x
		}
		s = b.X
	}
	end := coreEnd(s)
	sh.redirected = sh.pipeline || end < s.End().Offset()
	sh.core = verification.MatchKey(text[s.Pos().Offset():end])
	return sh
}

// coreEnd is the end offset of s without its trailing output redirections (2>&1, >file,
// >/dev/null, &>file, >>file); a redirection elsewhere keeps them all.
func coreEnd(s *syntax.Stmt) uint {
	if s.Cmd == nil || s.Negated || s.Background {
		return s.End().Offset()
	}
	end := s.Cmd.End().Offset()
	for _, r := range s.Redirs {
		if r.OpPos.Offset() < end {
			return s.End().Offset()
		}
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.DplOut, syntax.RdrClob, syntax.RdrAll, syntax.AppAll:
		default:
			return s.End().Offset()
		}
	}
	return end
}

// litArgs are the words of a call as literal strings (quotes removed); a word with an
// expansion ends the list.
func litArgs(ws []*syntax.Word) []string {
	var out []string
	for _, w := range ws {
		s, ok := litWord(w)
		if !ok {
			break
		}
		out = append(out, s)
	}
	return out
}

// litWord is w's value when it holds literals and quotes only.
func litWord(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(l.Value)
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// isCd reports whether s is a plain `cd DIR` call.
func isCd(s *syntax.Stmt) bool {
	c, ok := s.Cmd.(*syntax.CallExpr)
	return ok && len(s.Redirs) == 0 && len(c.Assigns) == 0 && len(c.Args) == 2 && c.Args[0].Lit() == "cd"
}

// isPipefail reports whether s is `set -o pipefail` (or set -eo pipefail, -euo pipefail).
func isPipefail(s *syntax.Stmt) bool {
	c, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(c.Args) < 3 {
		return false
	}
	args := litArgs(c.Args)
	if len(args) != len(c.Args) || args[0] != "set" {
		return false
	}
	for i := 1; i+1 < len(args); i++ {
		if strings.HasPrefix(args[i], "-") && strings.HasSuffix(args[i], "o") && args[i+1] == "pipefail" {
			return true
		}
	}
	return false
}

// cdTarget resolves the directory of `cd DIR` run in dir: "" when DIR has an expansion, is
// "-", or is relative to an unknown dir.
func cdTarget(s *syntax.Stmt, dir, home string) string {
	c := s.Cmd.(*syntax.CallExpr)
	t, ok := litWord(c.Args[1])
	switch {
	case !ok || t == "" || t == "-":
		return ""
	case t == "~" || strings.HasPrefix(t, "~/"):
		if l, lit := c.Args[1].Parts[0].(*syntax.Lit); home == "" || !lit || !strings.HasPrefix(l.Value, "~") {
			return "" // a quoted ~ is not the home directory
		}
		t = filepath.Join(home, strings.TrimPrefix(t, "~"))
	case strings.HasPrefix(t, "~"):
		return ""
	}
	if filepath.IsAbs(t) {
		return filepath.Clean(t)
	}
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, t)
}

// gitRewrite reports whether args (a git invocation) rewrites what git shows: update-index,
// replace, reset --hard, commit --amend, stash, config core.* (docs/design/transcripts.md §4).
func gitRewrite(args []string) bool {
	i := 1
	for i < len(args) {
		a := args[i]
		switch {
		case a == "-C" || a == "-c" || a == "--git-dir" || a == "--work-tree" || a == "--namespace":
			i += 2
			continue
		case strings.HasPrefix(a, "-"):
			i++
			continue
		}
		break
	}
	if i >= len(args) {
		return false
	}
	sub, rest := args[i], args[i+1:]
	has := func(flag string) bool {
		for _, r := range rest {
			if r == flag {
				return true
			}
		}
		return false
	}
	switch sub {
	case "update-index", "replace", "stash":
		return true
	case "reset":
		return has("--hard")
	case "commit":
		return has("--amend")
	case "config":
		for _, r := range rest {
			if !strings.HasPrefix(r, "-") {
				return strings.HasPrefix(strings.ToLower(r), "core.")
			}
		}
	}
	return false
}
