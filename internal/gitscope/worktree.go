package gitscope

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The work-tree part of a snapshot run compares the baseline with the work tree without git
// reading a baseline object, as gitscope.md §4.6 "Index" describes: the recorded index diff,
// `git diff-files` on the private index and `git hash-object`.

// SnapshotIndexDiff is the snapshot blob holding `git diff-index --cached --raw -z` of the
// pre-flight index against the baseline.
const SnapshotIndexDiff = "indexdiff.snapshot"

// rawEntry is one record of git's --raw -z output: ":<src mode> <dst mode> <src oid> <dst oid>
// <status>\0<path>\0". A mode of 0 is an absent side; a zero id on the work-tree side is "not
// hashed". hashed and wt are the work-tree file's blob id once hashWorktree has hashed it.
type rawEntry struct {
	path             []byte
	srcMode, dstMode uint32
	src, dst         objectID
	status           byte
	hashed           bool
	wt               objectID
}

// objectID is a binary SHA-1 object id; the zero value is git's null id.
type objectID [20]byte

func (o objectID) String() string { return hex.EncodeToString(o[:]) }

func (o objectID) isNull() bool { return o == objectID{} }

// parseOID decodes a full 40-hex id.
func parseOID(s string) (objectID, bool) {
	var o objectID
	if !IsFullOID(s) {
		return o, false
	}
	_, err := hex.Decode(o[:], []byte(s))
	return o, err == nil
}

// parseRaw streams --raw -z records into fn; the paths share a few large blocks.
func parseRaw(nr *nulReader, fn func(rawEntry) error) error {
	var a arena
	for {
		meta, err := nr.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		f := strings.Fields(string(meta))
		if len(f) != 5 || !strings.HasPrefix(f[0], ":") || f[4] == "" {
			return shapef("raw diff record %q", truncateForMessage(meta))
		}
		src, ok1 := parseOID(f[2])
		dst, ok2 := parseOID(f[3])
		sm, err1 := strconv.ParseUint(f[0][1:], 8, 32)
		dm, err2 := strconv.ParseUint(f[1], 8, 32)
		if !ok1 || !ok2 || err1 != nil || err2 != nil {
			return shapef("raw diff record %q", truncateForMessage(meta))
		}
		switch f[4][0] {
		case 'A', 'D', 'M', 'T', 'U', 'X':
		default:
			return shapef("raw diff status %q", f[4])
		}
		p, err := nr.next()
		if err == io.EOF || (err == nil && len(p) == 0) {
			return shapef("raw diff record without a path")
		}
		if err != nil {
			return err
		}
		if err := fn(rawEntry{path: a.copy(p), srcMode: uint32(sm), dstMode: uint32(dm), src: src, dst: dst, status: f[4][0]}); err != nil {
			return err
		}
	}
}

// indexDiffArgs diff the index (GIT_INDEX_FILE) against a tree: objects only, no work tree.
var indexDiffArgs = []string{"diff-index", "--cached", "--raw", "-z", "--no-abbrev", "--no-renames", "--ignore-submodules=none"}

// snapIndexDiff stores SnapshotIndexDiff for s: the index snapshot (a private copy) against the
// baseline, at pre-flight, when the objects are the ones the planner approved.
func (r *Repo) snapIndexDiff(ctx context.Context, store SnapshotStore, s *inputsSnapshot) error {
	pi, err := r.snapshotIndex(store, s)
	if err != nil {
		return err
	}
	defer pi.cleanup()
	args := slices.Concat(globalArgs, indexGuardArgs, fullIndexArgs, indexDiffArgs, []string{s.Baseline, "--"})
	return r.runEnv(ctx, r.root, "diff-index", args, pi.env(), func(rd io.Reader) error {
		return store.Put(SnapshotIndexDiff, rd)
	})
}

// indexDiff is the pre-flight index against the baseline, by path.
type indexDiff map[string]rawEntry

// loadIndexDiff reads SnapshotIndexDiff. A snapshot from before it was recorded has none: the
// index snapshot is diffed now, after every baseline tree git may read was verified (legacy).
func (r *Repo) loadIndexDiff(ctx context.Context, store SnapshotStore, s *inputsSnapshot, pi *privateIndex, objs *auditObjects) (indexDiff, error) {
	out := indexDiff{}
	add := func(e rawEntry) error {
		out[string(e.path)] = e
		return nil
	}
	var total int64
	if s.IndexDiff {
		rc, err := store.Open(SnapshotIndexDiff)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, ErrNoSnapshot
			}
			return nil, err
		}
		defer rc.Close()
		if err := parseRaw(newNulReader(rc, &total), add); err != nil {
			return nil, fmt.Errorf("snapshot store: %s: %w; run pre-flight again", SnapshotIndexDiff, err)
		}
		return out, nil
	}
	if err := objs.verifyBaselineTrees(ctx); err != nil {
		return nil, err
	}
	args := slices.Concat(globalArgs, indexGuardArgs, fullIndexArgs, indexDiffArgs, []string{s.Baseline, "--"})
	err := r.runEnv(ctx, r.root, "diff-index", args, pi.env(), func(rd io.Reader) error {
		return parseRaw(newNulReader(rd, &total), add)
	})
	return out, err
}

// diffFilesArgs list the index entries whose work-tree file may differ from the index, and
// gitlinks by their checked-out commit only.
var diffFilesArgs = []string{"diff-files", "--raw", "-z", "--no-abbrev", "--no-renames", "--ignore-submodules=dirty"}

// worktreeEntries is the baseline against the work tree for the paths of the index snapshot, as
// git diff <baseline> names them, from d0, the pre-flight index against the baseline, and dirty,
// the diff-files records. For a path in neither, all three agree.
func worktreeEntries(d0 indexDiff, dirty []rawEntry) []Entry {
	var out []Entry
	emit := func(p []byte, st Status) {
		out = append(out, Entry{Path: p, Status: st, UTF8: utf8.Valid(p)})
	}
	seen := map[string]bool{} // the paths of d0 that dirty has
	for i := range dirty {
		w := &dirty[i]
		bmode, boid := w.srcMode, w.src
		if e, ok := d0[string(w.path)]; ok {
			seen[string(w.path)] = true
			if e.status == 'U' {
				emit(w.path, StatusModified)
				continue
			}
			bmode, boid = e.srcMode, e.src
		}
		switch {
		case w.status == 'U':
			emit(w.path, StatusModified)
		case w.status == 'D' || w.dstMode == 0:
			if bmode != 0 {
				emit(w.path, StatusDeleted)
			}
		case bmode == 0:
			emit(w.path, StatusAdded)
		case w.dstMode != bmode || w.dstMode == modeGitlink:
			emit(w.path, StatusModified)
		case !w.hashed || w.wt != boid:
			emit(w.path, StatusModified)
		}
	}
	for p, e := range d0 {
		if seen[p] {
			continue
		}
		switch {
		case e.status == 'U':
			emit(e.path, StatusModified)
		case e.srcMode == 0 && e.dstMode == 0:
		case e.srcMode == 0:
			emit(e.path, StatusAdded)
		case e.dstMode == 0:
			emit(e.path, StatusDeleted)
		case e.srcMode != e.dstMode || e.src != e.dst:
			emit(e.path, StatusModified)
		}
	}
	slices.SortFunc(out, func(a, b Entry) int { return bytes.Compare(a.Path, b.Path) })
	return out
}

// toHash lists the dirty records whose content decides whether the path changed: a file or
// symlink present in the work tree whose baseline side has the same mode.
func toHash(d0 indexDiff, dirty []rawEntry) []int {
	var out []int
	for i, w := range dirty {
		if w.status == 'U' || w.status == 'D' || w.dstMode == 0 || w.dstMode == modeGitlink {
			continue
		}
		mode := w.srcMode
		if e, ok := d0[string(w.path)]; ok {
			if e.status == 'U' {
				continue
			}
			mode = e.srcMode
		}
		if mode == w.dstMode {
			out = append(out, i)
		}
	}
	return out
}

// hashWorktree sets the blob ids of the work-tree files of dirty[idx] as git diff computes them,
// a regular file through `git hash-object --stdin-paths` with the filter guard in extra. A path
// that is now neither a file nor a symbolic link is left unhashed, which counts as changed.
func (r *Repo) hashWorktree(ctx context.Context, pi *privateIndex, extra []string, dirty []rawEntry, idx []int) error {
	var files []int
	var in bytes.Buffer
	for _, i := range idx {
		e := &dirty[i]
		abs := filepath.Join(r.root, filepath.FromSlash(string(e.path)))
		fi, err := os.Lstat(abs)
		if err != nil {
			continue
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			t, err := os.Readlink(abs)
			if err != nil {
				continue
			}
			e.wt, e.hashed = blobID([]byte(t)), true
		case fi.Mode().IsRegular():
			files = append(files, i)
			in.WriteString(quotePathLine(string(e.path)))
			in.WriteByte('\n')
		}
	}
	if len(files) == 0 {
		return nil
	}
	args := slices.Concat(globalArgs, fullIndexArgs, extra, []string{"hash-object", "--stdin-paths"})
	return r.runIn(ctx, r.root, "hash-object", args, pi.env(), &in, func(rd io.Reader) error {
		br := bufio.NewReader(rd)
		for _, i := range files {
			line, err := br.ReadString('\n')
			if err != nil {
				return shapef("hash-object ended before %q", truncateForMessage(dirty[i].path))
			}
			o, ok := parseOID(strings.TrimSuffix(line, "\n"))
			if !ok {
				return shapef("hash-object output %q", truncateForMessage([]byte(line)))
			}
			dirty[i].wt, dirty[i].hashed = o, true
		}
		_, err := io.Copy(io.Discard, br)
		return err
	})
}

// blobID is the id of a blob holding data.
func blobID(data []byte) objectID {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(data))
	h.Write(data)
	var o objectID
	copy(o[:], h.Sum(nil))
	return o
}

// quotePathLine writes p as git reads a path line: as is, or C-quoted when it starts with '"' or
// holds a line break, a backslash or a control byte.
func quotePathLine(p string) string {
	needs := strings.HasPrefix(p, `"`)
	for i := 0; i < len(p) && !needs; i++ {
		if c := p[i]; c < 0x20 || c == 0x7f || c == '\\' {
			needs = true
		}
	}
	if !needs {
		return p
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, "\\%03o", c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
