package filter

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/mastermind-controller/mastermind/internal/fsx"
	"github.com/mastermind-controller/mastermind/internal/gitscope"
)

// Repo is what the repository checks of §2.8 need; *gitscope.Repo satisfies it. ResolveCommit
// returns gitscope.ErrCommitNotFound or a *gitscope.AmbiguousError for the two failing outcomes;
// any other error is operational.
type Repo interface {
	Root() string
	ResolveCommit(ctx context.Context, prefix string) (oid, subject string, err error)
}

// Reasons of §2.8.
const (
	reasonPathMissing = "does not exist in the repository"
	reasonUnresolved  = "does not resolve to a commit in this repository"
)

// repoChecker runs the §2.8 checks with per-run caches.
type repoChecker struct {
	ctx     context.Context
	repo    Repo
	schema  *Schema
	root    *Value
	lines   map[string]int // path → line count; -1 when missing
	commits map[string]commitResult
	items   []Item
}

type commitResult struct {
	oid, subject string
	reason, rule string
}

// checkRepo walks the instance with its schema nodes and checks every value that passed its
// syntactic format against the repository, as agent-contracts.md §2.8 says. Applicators other
// than properties, patternProperties, additionalProperties, items, prefixItems, $ref and allOf
// are not followed.
func checkRepo(ctx context.Context, repo Repo, s *Schema, root *Value) ([]Item, error) {
	c := &repoChecker{ctx: ctx, repo: repo, schema: s, root: root, lines: map[string]int{}, commits: map[string]commitResult{}}
	if err := c.walk(root, nil, nil, s.resolve(s.raw, 0)); err != nil {
		return nil, err
	}
	return c.items, nil
}

func (c *repoChecker) walk(v *Value, tokens []string, isIndex []bool, ns []*Value) error {
	switch v.Kind {
	case KindString:
		for _, f := range formatsOf(ns) {
			if err := c.checkFormat(f, v.String, tokens, ns); err != nil {
				return err
			}
		}
	case KindArray:
		for i, it := range v.Items {
			tok := strconv.Itoa(i)
			if err := c.walk(it, append(tokens[:len(tokens):len(tokens)], tok), append(isIndex[:len(isIndex):len(isIndex)], true),
				c.schema.child(ns, tok, true)); err != nil {
				return err
			}
		}
	case KindObject:
		if err := c.checkShaSubject(v, tokens, ns); err != nil {
			return err
		}
		for _, m := range v.Members {
			if err := c.walk(m.Value, append(tokens[:len(tokens):len(tokens)], m.Name), append(isIndex[:len(isIndex):len(isIndex)], false),
				c.schema.child(ns, m.Name, false)); err != nil {
				return err
			}
		}
	}
	return nil
}

func (c *repoChecker) add(tokens []string, ns []*Value, reason, rule string) {
	c.items = append(c.items, c.schema.item(c.root, tokens, "", c.schema.label(ns), reason, rule))
}

func (c *repoChecker) checkFormat(format, s string, tokens []string, ns []*Value) error {
	switch format {
	case FormatPathLine:
		pl, ok := ParsePathLine(s)
		if !ok {
			return nil
		}
		n, err := c.lineCount(pl.Path)
		if err != nil {
			return err
		}
		switch {
		case n < 0:
			c.add(tokens, ns, reasonPathMissing, RuleRepoPathMissing)
		case pl.End > n:
			c.add(tokens, ns, "line "+strconv.Itoa(pl.End)+" is beyond the end of the file ("+strconv.Itoa(n)+" lines)", RuleRepoLineRange)
		}
	case FormatRepoPath:
		p, err := cleanPath(s)
		if err != nil {
			return nil
		}
		n, err := c.lineCount(p)
		if err != nil {
			return err
		}
		if n < 0 {
			c.add(tokens, ns, reasonPathMissing, RuleRepoPathMissing)
		}
	case FormatGitSHA:
		if !ValidSHA(s) {
			return nil
		}
		r, err := c.commit(s)
		if err != nil {
			return err
		}
		if r.reason != "" {
			c.add(tokens, ns, r.reason, r.rule)
		}
	case FormatCommitLine:
		sha, subject, ok := ParseCommitLine(s)
		if !ok {
			return nil
		}
		r, err := c.commit(sha)
		if err != nil {
			return err
		}
		if r.reason != "" {
			c.add(tokens, ns, r.reason, r.rule)
		} else if reason, bad := subjectMismatch(r, subject); bad {
			c.add(tokens, ns, reason, RuleRepoSubject)
		}
	}
	return nil
}

// checkShaSubject: an object whose schema has a "sha" property of format git-sha and a sibling
// "subject" string property gets the subject check (§2.5).
func (c *repoChecker) checkShaSubject(v *Value, tokens []string, ns []*Value) error {
	shaNodes := c.schema.child(ns, "sha", false)
	subjNodes := c.schema.child(ns, "subject", false)
	if !slices.Contains(formatsOf(shaNodes), FormatGitSHA) || !slices.Contains(typesOf(subjNodes), "string") {
		return nil
	}
	sha, ok1 := v.Get("sha")
	subj, ok2 := v.Get("subject")
	if !ok1 || !ok2 || sha.Kind != KindString || subj.Kind != KindString || !ValidSHA(sha.String) {
		return nil
	}
	r, err := c.commit(sha.String)
	if err != nil || r.reason != "" {
		return err // the unresolved SHA is reported on the sha value itself
	}
	if reason, bad := subjectMismatch(r, subj.String); bad {
		c.add(append(tokens[:len(tokens):len(tokens)], "subject"), subjNodes, reason, RuleRepoSubject)
	}
	return nil
}

func typesOf(ns []*Value) []string {
	var out []string
	for _, n := range ns {
		out = append(out, typeList(n)...)
	}
	return out
}

// subjectMismatch compares the trimmed claimed subject with the commit subject, the first message
// line without trailing white space.
func subjectMismatch(r commitResult, claimed string) (string, bool) {
	actual := strings.TrimRight(r.subject, " \t\r\n")
	if strings.TrimSpace(claimed) == actual {
		return "", false
	}
	short := r.oid
	if len(short) > 7 {
		short = short[:7]
	}
	return `subject does not match: commit ` + short + ` has "` + actual + `"`, true
}

func (c *repoChecker) commit(sha string) (commitResult, error) {
	if r, ok := c.commits[sha]; ok {
		return r, nil
	}
	oid, subject, err := c.repo.ResolveCommit(c.ctx, sha)
	var r commitResult
	var amb *gitscope.AmbiguousError
	switch {
	case err == nil:
		r = commitResult{oid: oid, subject: subject}
	case errors.As(err, &amb):
		reason := "is ambiguous"
		if amb.Matches > 0 {
			reason += " (matches " + strconv.Itoa(amb.Matches) + " objects)"
		}
		r = commitResult{reason: reason, rule: RuleRepoSHAAmbiguous}
	case errors.Is(err, gitscope.ErrAmbiguous):
		r = commitResult{reason: "is ambiguous", rule: RuleRepoSHAAmbiguous}
	case errors.Is(err, gitscope.ErrCommitNotFound):
		r = commitResult{reason: reasonUnresolved, rule: RuleRepoSHAUnresolved}
	default:
		return r, err
	}
	c.commits[sha] = r
	return r, nil
}

func cleanPath(s string) (string, error) {
	if !ValidRepoPath(s) {
		return "", errors.New("invalid path")
	}
	pl, _ := ParsePathLine(s + ":1")
	return pl.Path, nil
}

// lineCount returns the number of lines of the regular file rel inside the repository: the
// number of "\n", plus 1 when the file is non-empty and does not end with "\n". It returns -1
// for a missing path, a symlink in the path, or a non-regular file; other I/O errors are
// operational.
func (c *repoChecker) lineCount(rel string) (int, error) {
	if n, ok := c.lines[rel]; ok {
		return n, nil
	}
	n, err := countLines(c.repo.Root(), rel)
	if err != nil {
		return 0, err
	}
	c.lines[rel] = n
	return n, nil
}

func countLines(root, rel string) (int, error) {
	if err := fsx.CheckNoSymlink(root, rel); err != nil {
		if fsx.ReasonOf(err) != "" {
			return -1, nil
		}
		return 0, err
	}
	f, err := os.OpenFile(filepath.Join(root, filepath.FromSlash(rel)), os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		if os.IsNotExist(err) || errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.ENXIO) || errors.Is(err, syscall.EISDIR) {
			return -1, nil
		}
		return 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	if !fi.Mode().IsRegular() {
		return -1, nil
	}
	r := bufio.NewReaderSize(f, 64<<10)
	n, size := 0, 0
	var last byte
	buf := make([]byte, 64<<10)
	for {
		k, err := r.Read(buf)
		for _, b := range buf[:k] {
			if b == '\n' {
				n++
			}
		}
		if k > 0 {
			last = buf[k-1]
			size += k
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, err
		}
	}
	if size > 0 && last != '\n' {
		n++
	}
	return n, nil
}
