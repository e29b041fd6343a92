package transcript

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/verification"
	"mvdan.cc/sh/v3/syntax"
)

// shape is a shell command as the witness rules read it (docs/design/transcripts.md §3).
type shape struct {
	// core is the command without a leading `cd DIR &&` or `set -o pipefail`, trailing output
	// redirections and a pipeline's later stages, whitespace collapsed.
	core string
	// dir is the directory core runs in, "" when a cd could not be resolved.
	dir string
	// pipeline: core is the first stage of a pipeline; pipefail: the command set pipefail
	// first; background: it ends with &.
	pipeline, pipefail, background bool
	// cdTo is the directory the command leaves the shell in when it is `cd DIR` or starts with
	// `cd DIR &&`, "" otherwise.
	cdTo string
	// parsed is false when the command is not valid shell; core is then the whole command.
	parsed bool
	// redirected is true when core leaves out something that writes: a trailing output
	// redirection or a pipeline's later stages.
	redirected bool
	// git are the git invocations of every stage and list member of the command.
	git [][]string
	// detaches: some part of the command may leave a process running after it returns, or the
	// command does not parse. chdir: it may move the persistent shell's directory. Both follow
	// transcripts.md §2 and §6.
	detaches, chdir bool
}

// parseShape reads cmd, run in the absolute dir or "" when unknown, with home the user's home.
func parseShape(cmd, dir, home string) shape {
	sh := shape{core: verification.MatchKey(cmd), dir: dir, detaches: true, chdir: true}
	f, err := parseBash(cmd)
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
	sh.detaches, sh.chdir = detaches(f, 0), movesDir(f)
	stmts := f.Stmts
	for len(stmts) > 1 {
		ok, on := setPipefail(stmts[0])
		if !ok {
			break
		}
		sh.pipefail, stmts = on, stmts[1:]
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
		// The leftmost member of a && list: a && b && c parses as (a && b) && c.
		for {
			x, ok := b.X.Cmd.(*syntax.BinaryCmd)
			if !ok || x.Op != syntax.AndStmt {
				break
			}
			b = x
		}
		pf, on := setPipefail(b.X)
		switch {
		case pf:
			sh.pipefail = on
		case isCd(b.X):
			sh.dir = cdTarget(b.X, sh.dir, home)
			sh.cdTo = sh.dir
		default:
			goto done
		}
		rest := text[b.OpPos.Offset()+2 : s.End().Offset()]
		f2, err := parseBash(rest)
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

// parseBash parses src as a bash script.
func parseBash(src string) (*syntax.File, error) {
	return syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
}

// coreEnd is the end offset of s without its trailing output redirections, such as 2>&1 or >file;
// a redirection elsewhere keeps them all.
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

// litArgs are the words of a call as literal strings without quotes; a word with an
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

// setPipefail reports whether s is a `set` call that names pipefail beside only the options of
// transcripts.md §3, so it may be dropped in front of a command, and whether it leaves pipefail
// on. Options are read in order, so `-o pipefail +o pipefail` leaves it off.
func setPipefail(s *syntax.Stmt) (ok, on bool) {
	c, isCall := s.Cmd.(*syntax.CallExpr)
	if !isCall || s.Negated || len(s.Redirs) > 0 || len(c.Assigns) > 0 || len(c.Args) < 3 {
		return false, false
	}
	args := litArgs(c.Args)
	if len(args) != len(c.Args) || args[0] != "set" {
		return false, false
	}
	named := false
	for i := 1; i < len(args); i++ {
		a := args[i]
		if len(a) < 2 || (a[0] != '-' && a[0] != '+') || a == "--" {
			return false, false
		}
		for j, l := range a[1:] {
			switch {
			case l == 'o' && j == len(a)-2 && i+1 < len(args):
				i++
				switch args[i] {
				case "pipefail":
					named, on = true, a[0] == '-'
				case "errexit", "nounset", "xtrace":
				default:
					return false, false
				}
			case strings.ContainsRune("eux", l):
			default:
				return false, false
			}
		}
	}
	return named, on
}

// detachers are programs that leave what they start running after they return.
var detachers = map[string]bool{
	"setsid": true, "nohup": true, "disown": true, "bg": true, "daemonize": true, "daemon": true,
	"start-stop-daemon": true, "at": true, "batch": true, "systemd-run": true, "screen": true,
	"tmux": true, "dtach": true, "abduco": true,
}

// shells are the programs whose -c script is read as a command of its own.
var shells = map[string]bool{"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true}

// maxShellDepth bounds the nested shell -c scripts read.
const maxShellDepth = 4

// detaches reports whether any part of f may leave a process running after the command returns
// (docs/design/transcripts.md §6 condition 3): a backgrounded or coprocess statement at any
// depth, a process substitution, a detaching program, or a shell -c script that detaches or is
// not a literal.
func detaches(f *syntax.File, depth int) bool {
	found := false
	syntax.Walk(f, func(n syntax.Node) bool {
		if found {
			return false
		}
		switch n := n.(type) {
		case *syntax.Stmt:
			found = n.Background || n.Coprocess || n.Disown
		case *syntax.ProcSubst, *syntax.CoprocClause:
			found = true
		case *syntax.CallExpr:
			found = callDetaches(n, depth)
		}
		return !found
	})
	return found
}

// callDetaches reports whether the call c runs a detaching program or a shell script that
// detaches.
func callDetaches(c *syntax.CallExpr, depth int) bool {
	if len(c.Args) == 0 {
		return false
	}
	prog, ok := litWord(c.Args[0])
	if !ok {
		return true // a command word with an expansion could be anything
	}
	prog = filepath.Base(prog)
	switch {
	case detachers[prog]:
		return true
	case prog == "eval":
		return true
	case !shells[prog]:
		return false
	}
	for i := 1; i < len(c.Args); i++ {
		a, ok := litWord(c.Args[i])
		if !ok {
			return true
		}
		if !strings.HasPrefix(a, "-") || strings.HasPrefix(a, "--") {
			continue
		}
		if !strings.Contains(a, "c") {
			continue
		}
		if i+1 >= len(c.Args) {
			return false
		}
		script, ok := litWord(c.Args[i+1])
		if !ok || depth >= maxShellDepth {
			return true
		}
		f, err := parseBash(script)
		return err != nil || detaches(f, depth+1)
	}
	return false
}

// movesDir reports whether f may change the persistent shell's directory: a cd, pushd, popd,
// source, . or eval outside a subshell, command substitution or pipeline stage, or a command
// word that is not a literal.
func movesDir(f *syntax.File) bool {
	found := false
	syntax.Walk(f, func(n syntax.Node) bool {
		if found {
			return false
		}
		switch n := n.(type) {
		case *syntax.Subshell, *syntax.CmdSubst, *syntax.ProcSubst:
			return false
		case *syntax.BinaryCmd:
			return n.Op != syntax.Pipe && n.Op != syntax.PipeAll
		case *syntax.CallExpr:
			if len(n.Args) == 0 {
				return true
			}
			prog, ok := litWord(n.Args[0])
			switch {
			case !ok:
				found = true
			case prog == "cd", prog == "pushd", prog == "popd", prog == "source", prog == ".", prog == "eval":
				found = true
			}
		}
		return !found
	})
	return found
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

// gitRewrite reports whether the git invocation args rewrites what git shows, as transcripts.md
// §4 lists.
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
	switch sub {
	case "update-index", "replace", "stash":
		return true
	case "reset":
		return slices.Contains(rest, "--hard")
	case "commit":
		return slices.Contains(rest, "--amend")
	case "config":
		for _, r := range rest {
			if !strings.HasPrefix(r, "-") {
				return strings.HasPrefix(strings.ToLower(r), "core.")
			}
		}
	}
	return false
}
