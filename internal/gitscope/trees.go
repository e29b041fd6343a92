package gitscope

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Tree entry modes as git canonicalizes them.
const (
	modeTree    = 0o040000
	modeBlob    = 0o100644
	modeExec    = 0o100755
	modeLink    = 0o120000
	modeGitlink = 0o160000
)

// objectSource reads verified objects: the content of oid, which must be of type typ ("tree",
// "blob", "commit"), hashed as it was read.
type objectSource interface {
	object(ctx context.Context, oid, typ string) ([]byte, error)
}

// catFileSource is an objectSource over a catFile.
type catFileSource struct{ c *catFile }

func (s catFileSource) object(ctx context.Context, oid, typ string) ([]byte, error) {
	t, data, err := s.c.read(ctx, oid, limitFor(typ))
	if err != nil {
		return nil, err
	}
	if t != typ {
		return nil, fmt.Errorf("object %s is a %s, not a %s", oid, t, typ)
	}
	return data, nil
}

// treeEntry is one entry of a tree object; mode is canonical (canonMode).
type treeEntry struct {
	name string
	mode uint32
	oid  string
}

func (e treeEntry) isTree() bool { return e.mode == modeTree }

// canonMode is git's canon_mode: any regular-file mode is 100644 or 100755.
func canonMode(m uint32) uint32 {
	switch m & 0o170000 {
	case 0o040000:
		return modeTree
	case 0o120000:
		return modeLink
	case 0o160000:
		return modeGitlink
	}
	if m&0o100 != 0 {
		return modeExec
	}
	return modeBlob
}

// parseTree splits a tree object into its entries, sorted as git sorts them whatever order the
// object holds them in: a tree's name compares as if it ended in '/'.
func parseTree(oid string, data []byte) ([]treeEntry, error) {
	var out []treeEntry
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		if sp <= 0 {
			return nil, fmt.Errorf("tree %s is malformed (entry mode)", oid)
		}
		m, err := strconv.ParseUint(string(data[:sp]), 8, 32)
		if err != nil {
			return nil, fmt.Errorf("tree %s is malformed (mode %q)", oid, truncateForMessage(data[:sp]))
		}
		data = data[sp+1:]
		nul := bytes.IndexByte(data, 0)
		if nul <= 0 || len(data) < nul+21 {
			return nil, fmt.Errorf("tree %s is malformed (entry name)", oid)
		}
		out = append(out, treeEntry{name: string(data[:nul]), mode: canonMode(uint32(m)), oid: hex.EncodeToString(data[nul+1 : nul+21])})
		data = data[nul+21:]
	}
	slices.SortStableFunc(out, func(a, b treeEntry) int { return strings.Compare(a.key(), b.key()) })
	return out, nil
}

// key is the entry's name as git orders and pairs it.
func (e treeEntry) key() string {
	if e.isTree() {
		return e.name + "/"
	}
	return e.name
}

// treeReader reads trees through a source, each once.
type treeReader struct {
	src objectSource

	mu    sync.Mutex
	trees map[string][]treeEntry
}

func newTreeReader(src objectSource) *treeReader {
	return &treeReader{src: src, trees: map[string][]treeEntry{}}
}

// tree returns the entries of tree oid (none for EmptyTreeOID).
func (t *treeReader) tree(ctx context.Context, oid string) ([]treeEntry, error) {
	if oid == EmptyTreeOID {
		return nil, nil
	}
	t.mu.Lock()
	es, ok := t.trees[oid]
	t.mu.Unlock()
	if ok {
		return es, nil
	}
	data, err := t.src.object(ctx, oid, "tree")
	if err != nil {
		return nil, err
	}
	es, err = parseTree(oid, data)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	t.trees[oid] = es
	t.mu.Unlock()
	return es, nil
}

// rootTree returns the tree of commit (EmptyTreeOID for itself).
func (t *treeReader) rootTree(ctx context.Context, commit string) (string, error) {
	if commit == EmptyTreeOID {
		return EmptyTreeOID, nil
	}
	data, err := t.src.object(ctx, commit, "commit")
	if err != nil {
		return "", err
	}
	line, _, _ := bytes.Cut(data, []byte{'\n'})
	tree, ok := bytes.CutPrefix(line, []byte("tree "))
	if !ok || !IsFullOID(string(tree)) {
		return "", fmt.Errorf("commit %s is malformed (no tree line)", commit)
	}
	return string(tree), nil
}

// maxTreeDepth bounds the nesting the tree walks follow.
const maxTreeDepth = 1024

// diff returns the paths that differ between the trees a and b as git diff-tree -r
// --no-renames names them; a blob replaced by a tree is the blob deleted and the tree's files
// added. Subtrees with equal ids are never read.
func (t *treeReader) diff(ctx context.Context, a, b string) ([]Entry, error) {
	var out []Entry
	emit := func(p string, st Status) {
		out = append(out, Entry{Path: []byte(p), Status: st, UTF8: utf8.ValidString(p)})
	}
	var walk func(prefix, a, b string, depth int) error
	walk = func(prefix, a, b string, depth int) error {
		if a == b {
			return nil
		}
		if depth > maxTreeDepth {
			return fmt.Errorf("tree %s is nested deeper than %d levels", prefix, maxTreeDepth)
		}
		ea, err := t.tree(ctx, a)
		if err != nil {
			return err
		}
		eb, err := t.tree(ctx, b)
		if err != nil {
			return err
		}
		i, j := 0, 0
		for i < len(ea) || j < len(eb) {
			var x, y *treeEntry
			switch {
			case j >= len(eb) || i < len(ea) && ea[i].key() < eb[j].key():
				x = &ea[i]
				i++
			case i >= len(ea) || eb[j].key() < ea[i].key():
				y = &eb[j]
				j++
			default:
				x, y = &ea[i], &eb[j]
				i++
				j++
			}
			switch {
			case x != nil && y != nil:
				p := prefix + x.name
				if x.isTree() {
					if err := walk(p+"/", x.oid, y.oid, depth+1); err != nil {
						return err
					}
				} else if x.oid != y.oid || x.mode != y.mode {
					emit(p, StatusModified)
				}
			case x != nil:
				if x.isTree() {
					if err := walk(prefix+x.name+"/", x.oid, EmptyTreeOID, depth+1); err != nil {
						return err
					}
				} else {
					emit(prefix+x.name, StatusDeleted)
				}
			default:
				if y.isTree() {
					if err := walk(prefix+y.name+"/", EmptyTreeOID, y.oid, depth+1); err != nil {
						return err
					}
				} else {
					emit(prefix+y.name, StatusAdded)
				}
			}
		}
		return ctx.Err()
	}
	if err := walk("", a, b, 0); err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(x, y Entry) int { return bytes.Compare(x.Path, y.Path) })
	return out, nil
}

// lookup returns the entry of root at path p ('/'-separated), nil when the tree has no such
// path, and the ids of the trees read on the way (root first).
func (t *treeReader) lookup(ctx context.Context, root, p string) (*treeEntry, []string, error) {
	cur := root
	trees := []string{root}
	parts := strings.Split(p, "/")
	for i, name := range parts {
		es, err := t.tree(ctx, cur)
		if err != nil {
			return nil, trees, err
		}
		// Entries are sorted by key: a blob is found under its name, a tree under name + "/".
		var e *treeEntry
		byKey := func(e treeEntry, k string) int { return strings.Compare(e.key(), k) }
		if k, ok := slices.BinarySearchFunc(es, name, byKey); ok {
			e = &es[k]
		} else if k, ok := slices.BinarySearchFunc(es, name+"/", byKey); ok {
			e = &es[k]
		}
		if e == nil {
			return nil, trees, nil
		}
		if i == len(parts)-1 {
			return e, trees, nil
		}
		if !e.isTree() {
			return nil, trees, nil
		}
		cur = e.oid
		trees = append(trees, cur)
	}
	return nil, trees, nil
}

// walkAll calls fn with every tree id below root, root included: every tree git may read when it
// walks the whole tree.
func (t *treeReader) walkAll(ctx context.Context, root string, fn func(oid string) error) error {
	var walk func(oid string, depth int) error
	walk = func(oid string, depth int) error {
		if depth > maxTreeDepth {
			return fmt.Errorf("tree %s is nested deeper than %d levels", oid, maxTreeDepth)
		}
		if err := fn(oid); err != nil {
			return err
		}
		es, err := t.tree(ctx, oid)
		if err != nil {
			return err
		}
		for _, e := range es {
			if e.isTree() {
				if err := walk(e.oid, depth+1); err != nil {
					return err
				}
			}
		}
		return ctx.Err()
	}
	if root == EmptyTreeOID {
		return nil
	}
	return walk(root, 0)
}
