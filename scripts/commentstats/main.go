// Command commentstats measures comment density in the non-test Go files below a directory: the
// share of source lines that hold a comment, and the share of those that hold part of a worded
// parenthetical, per package and overall (issue #30 item 5).
//
// A worded parenthetical is a prose "(...)" inside a comment, not a call such as f(x), holding at
// least -words words; a reference such as (trust-model.md I3) or (§10.4) holds none.
//
// Usage: go run ./scripts/commentstats [-words N] [dir]
package main

import (
	"flag"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"
)

type counts struct{ lines, comment, paren int }

func main() {
	minWords := flag.Int("words", 2, "words a parenthetical needs to count as worded")
	flag.Parse()
	root := "."
	if flag.NArg() > 0 {
		root = flag.Arg(0)
	}
	per := map[string]*counts{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (strings.HasPrefix(n, ".") || n == "testdata" || n == "thirdparty") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(filepath.Dir(path))
		c := per[pkg]
		if c == nil {
			c = &counts{}
			per[pkg] = c
		}
		c.lines += strings.Count(string(src), "\n")
		commentLines := map[int]bool{}
		parenLines := map[int]bool{}
		for _, g := range f.Comments {
			// Join the group's text with the line of each byte, so a parenthetical may span lines.
			var text []rune
			var line []int
			for _, cm := range g.List {
				start := fset.Position(cm.Pos()).Line
				for i, l := range strings.Split(cm.Text, "\n") {
					commentLines[start+i] = true
					for _, r := range l {
						text = append(text, r)
						line = append(line, start+i)
					}
					text = append(text, ' ')
					line = append(line, start+i)
				}
			}
			markParens(text, line, *minWords, parenLines)
		}
		c.comment += len(commentLines)
		c.paren += len(parenLines)
		return nil
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var names []string
	var total counts
	for k, c := range per {
		names = append(names, k)
		total.lines += c.lines
		total.comment += c.comment
		total.paren += c.paren
	}
	sort.Strings(names)
	fmt.Printf("%-36s %7s %7s %6s %6s %6s\n", "package", "lines", "comment", "share", "paren", "share")
	for _, n := range names {
		row(n, per[n])
	}
	row("TOTAL", &total)
}

func row(name string, c *counts) {
	fmt.Printf("%-36s %7d %7d %5.1f%% %6d %5.1f%%\n", name, c.lines, c.comment,
		pct(c.comment, c.lines), c.paren, pct(c.paren, c.comment))
}

func pct(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}

// markParens records in out the lines touched by each outermost prose parenthetical of text that
// holds at least minWords words.
func markParens(text []rune, line []int, minWords int, out map[int]bool) {
	for i := 0; i < len(text); i++ {
		if text[i] != '(' || (i > 0 && isIdent(text[i-1])) {
			continue
		}
		depth, j := 0, i
		for ; j < len(text); j++ {
			if text[j] == '(' {
				depth++
			} else if text[j] == ')' {
				depth--
				if depth == 0 {
					break
				}
			}
		}
		if j == len(text) {
			continue
		}
		if words(text[i+1:j]) >= minWords {
			for k := i; k <= j; k++ {
				out[line[k]] = true
			}
		}
		i = j
	}
}

func isIdent(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// words counts the prose words of s: tokens of two or more letters once trailing punctuation is
// trimmed. References such as trust-model.md, check_scope.go, §8.1 or I3 are not words.
func words(s []rune) int {
	n := 0
	for _, w := range strings.Fields(string(s)) {
		w = strings.TrimFunc(w, func(r rune) bool { return !isIdent(r) })
		if len([]rune(w)) < 2 || strings.ContainsAny(w, "./§") {
			continue
		}
		if strings.IndexFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && r != '-' && r != '\'' }) < 0 {
			n++
		}
	}
	return n
}
