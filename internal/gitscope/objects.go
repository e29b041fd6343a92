package gitscope

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
)

// ErrObjectStoreModified: an object the audit reads does not hold the object its id names, in a
// file written since pre-flight (trust-model.md §4.5). The repository cannot be read honestly:
// exit 3, never a verdict. The message names the object.
var ErrObjectStoreModified = errors.New("the object store was modified since pre-flight")

// maxLooseObjectBytes bounds one loose object re-hashed by verifyLoose (inflated size).
const maxLooseObjectBytes = 1 << 30

// objectDirSnap is one object directory at pre-flight: the inodes of the directory, its pack/
// directory and its fan-out directories. A directory with another inode at post-flight was
// renamed into place, so every file in it counts as written since pre-flight.
type objectDirSnap struct {
	Path   string            `json:"path"`
	Ino    uint64            `json:"ino"`
	Pack   uint64            `json:"pack,omitempty"`
	Fanout map[string]uint64 `json:"fanout,omitempty"`
}

// objectDirs returns the object directories git reads for the repository whose common directory
// is commonDir: its objects/ and, as git follows them (five levels deep), the directories each
// info/alternates file names, relative ones against the directory that names them.
func objectDirs(commonDir string) ([]string, error) {
	root := filepath.Join(commonDir, "objects")
	dirs := []string{root}
	seen := map[string]bool{root: true}
	var walk func(od string, depth int) error
	walk = func(od string, depth int) error {
		if depth > 5 {
			return nil
		}
		b, err := readRegular(filepath.Join(od, "info", "alternates"), maxInputFileBytes)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
				return nil
			}
			return err
		}
		for _, l := range strings.Split(string(b), "\n") {
			l = strings.TrimSpace(l)
			if l == "" || strings.HasPrefix(l, "#") {
				continue
			}
			if !filepath.IsAbs(l) {
				l = filepath.Join(od, l)
			}
			l = filepath.Clean(l)
			if seen[l] {
				continue
			}
			seen[l] = true
			dirs = append(dirs, l)
			if err := walk(l, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	return dirs, walk(root, 0)
}

// inodeOf is the inode number of the directory p, followed as git follows it; 0 when absent.
func inodeOf(p string) uint64 {
	fi, err := os.Stat(p)
	if err != nil || !fi.IsDir() {
		return 0
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ino
	}
	return 0
}

// snapObjectDirs records the object directories of commonDir for objectDirSnap.
func snapObjectDirs(commonDir string) ([]objectDirSnap, error) {
	dirs, err := objectDirs(commonDir)
	if err != nil {
		return nil, err
	}
	out := []objectDirSnap{}
	for _, od := range dirs {
		ino := inodeOf(od)
		if ino == 0 {
			continue
		}
		s := objectDirSnap{Path: od, Ino: ino, Pack: inodeOf(filepath.Join(od, "pack")), Fanout: map[string]uint64{}}
		ents, err := os.ReadDir(od)
		if err != nil {
			return nil, fmt.Errorf("object store %s: %w", od, err)
		}
		for _, de := range ents {
			if n := de.Name(); len(n) == 2 && isHex(n) {
				if i := inodeOf(filepath.Join(od, n)); i != 0 {
					s.Fanout[n] = i
				}
			}
		}
		out = append(out, s)
	}
	return out, nil
}

// objectLocations are the object files written since pre-flight: loose objects by id, and
// packs (as .pack paths) whose .pack or .idx is new. Objects elsewhere are as they were at
// pre-flight, when they were trusted (trust-model.md §1).
type objectLocations struct {
	loose map[string][]string
	packs []string
}

func (l *objectLocations) empty() bool { return l == nil || len(l.loose) == 0 && len(l.packs) == 0 }

// scanObjects lists objectLocations for the repository whose common directory is commonDir,
// against the pre-flight time and object directories of s, opening nothing. A special file
// where git would read an object is ErrUnsafeRepository at once.
func scanObjects(ctx context.Context, commonDir string, s *inputsSnapshot) (*objectLocations, error) {
	dirs, err := objectDirs(commonDir)
	if err != nil {
		return nil, err
	}
	tracked := s.ObjectDirs != nil
	loc := &objectLocations{loose: map[string][]string{}}
	for _, od := range dirs {
		var rec *objectDirSnap
		for i := range s.ObjectDirs {
			if s.ObjectDirs[i].Path == od {
				rec = &s.ObjectDirs[i]
			}
		}
		ino := inodeOf(od)
		if ino == 0 {
			continue
		}
		dirNew := tracked && (rec == nil || rec.Ino != ino)
		ents, err := os.ReadDir(od)
		if err != nil {
			return nil, fmt.Errorf("object store %s: %w", od, err)
		}
		for _, de := range ents {
			name := de.Name()
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			switch {
			case len(name) == 2 && isHex(name):
				p := filepath.Join(od, name)
				fanNew := dirNew || tracked && rec.Fanout[name] != inodeOf(p)
				if err := looseSince(p, name, s.PreflightNs, fanNew, loc.loose); err != nil {
					return nil, err
				}
			case name == "pack":
				p := filepath.Join(od, name)
				packNew := dirNew || tracked && rec.Pack != inodeOf(p)
				ps, err := packsSince(p, s.PreflightNs, packNew)
				if err != nil {
					return nil, err
				}
				loc.packs = append(loc.packs, ps...)
			}
		}
	}
	return loc, nil
}

// isHex reports whether s is all lowercase hex digits (true for "").
func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// looseSince adds to out the loose objects of one fan-out directory written since
// preflightNs, or all of them when all is set.
func looseSince(dir, prefix string, preflightNs int64, all bool, out map[string][]string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return nil
		}
		return fmt.Errorf("object store %s: %w", dir, err)
	}
	for _, de := range ents {
		name := de.Name()
		p := filepath.Join(dir, name)
		fi, err := os.Lstat(p)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return err
		}
		if len(name) != 38 || !isHex(name) {
			continue // not an object git would read
		}
		if !fi.Mode().IsRegular() {
			if fi.IsDir() {
				continue
			}
			return fmt.Errorf("%s: %w (%s)", p, ErrUnsafeRepository, describeType(fi.Mode()))
		}
		if all || ctimeOf(fi) >= preflightNs {
			out[prefix+name] = append(out[prefix+name], p)
		}
	}
	return nil
}

// packsSince lists as .pack paths the packs of a pack directory whose .pack or .idx changed
// since preflightNs, or all of them when all is set. A non-regular file there is
// ErrUnsafeRepository.
func packsSince(dir string, preflightNs int64, all bool) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return nil, nil
		}
		return nil, err
	}
	var out []string
	for _, de := range ents {
		name := de.Name()
		p := filepath.Join(dir, name)
		fi, err := os.Lstat(p)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return nil, err
		}
		if !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("%s: %w (%s)", p, ErrUnsafeRepository, describeType(fi.Mode()))
		}
		base, ok := strings.CutSuffix(name, ".pack")
		if !ok {
			base, ok = strings.CutSuffix(name, ".idx")
		}
		if !ok || !all && ctimeOf(fi) < preflightNs {
			continue
		}
		pack := filepath.Join(dir, base+".pack")
		if _, err := os.Lstat(pack); err != nil {
			continue
		}
		if _, err := os.Lstat(filepath.Join(dir, base+".idx")); err != nil {
			continue
		}
		out = append(out, pack)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// verifyLoose inflates one loose object and checks that "<type> <size>\0<content>" hashes to
// oid.
func verifyLoose(p, oid string) error {
	_, _, err := readLoose(p, oid, -1)
	return err
}

// readLoose is verifyLoose that also returns the object's type and, for a limit >= 0, its
// content (at most limit bytes).
func readLoose(p, oid string, limit int64) (string, []byte, error) {
	f, err := openRegular(p)
	if err != nil {
		return "", nil, err
	}
	defer f.Close()
	zr, err := zlib.NewReader(bufio.NewReader(f))
	if err != nil {
		return "", nil, fmt.Errorf("%w: object %s (loose object file %s) cannot be inflated (%v)", ErrObjectStoreModified, oid, p, err)
	}
	defer zr.Close()
	h := sha1.New()
	br := bufio.NewReader(io.LimitReader(zr, maxLooseObjectBytes+64))
	hdr, err := br.ReadString(0)
	if err != nil {
		return "", nil, fmt.Errorf("%w: object %s (loose object file %s) has no header (%v)", ErrObjectStoreModified, oid, p, err)
	}
	h.Write([]byte(hdr))
	typ, _, _ := strings.Cut(strings.TrimSuffix(hdr, "\x00"), " ")
	var data []byte
	var n int64
	if limit >= 0 {
		data, err = io.ReadAll(io.LimitReader(br, limit+1))
		n = int64(len(data))
		if err == nil && n > limit {
			return "", nil, fmt.Errorf("object %s is larger than %d bytes", oid, limit)
		}
		h.Write(data)
	} else {
		n, err = io.Copy(h, br)
	}
	if err != nil {
		return "", nil, fmt.Errorf("%w: object %s (loose object file %s) cannot be inflated (%v)", ErrObjectStoreModified, oid, p, err)
	}
	if n > maxLooseObjectBytes {
		return "", nil, fmt.Errorf("loose object %s is larger than %d bytes", oid, int64(maxLooseObjectBytes))
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != oid {
		return "", nil, fmt.Errorf("%w: object %s (loose object file %s) holds object %s", ErrObjectStoreModified, oid, p, got)
	}
	return typ, data, nil
}

// objectVerifier checks, for objects git reads behind the audit's back, every copy written since
// pre-flight, so that whichever copy git picks holds the object its id names. It is safe for
// concurrent use and remembers the ids it checked.
type objectVerifier struct {
	r   *Repo
	loc *objectLocations

	mu      sync.Mutex
	ok      map[string]bool
	readers map[string]*catFile // by .pack path
	tmp     string
}

func newObjectVerifier(r *Repo, loc *objectLocations) *objectVerifier {
	return &objectVerifier{r: r, loc: loc, ok: map[string]bool{}, readers: map[string]*catFile{}}
}

// verify checks every copy of each of oids written since pre-flight.
func (v *objectVerifier) verify(ctx context.Context, oids ...string) error {
	if v == nil || v.loc.empty() {
		return nil
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, oid := range oids {
		if !v.ok[oid] {
			if _, _, _, err := v.check(ctx, oid, -1); err != nil {
				return err
			}
		}
	}
	return nil
}

// fetch is verify for one object that also returns its type and at most limit bytes of content
// when a copy written since pre-flight holds it; those bytes are then the object's whichever
// copy git would read.
func (v *objectVerifier) fetch(ctx context.Context, oid string, limit int64) (typ string, data []byte, found bool, err error) {
	if v == nil || v.loc.empty() {
		return "", nil, false, nil
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.check(ctx, oid, limit)
}

// check verifies every copy of oid written since pre-flight, returning the first one's type
// and, for a limit >= 0, its content; v.mu is held.
func (v *objectVerifier) check(ctx context.Context, oid string, limit int64) (typ string, data []byte, found bool, err error) {
	next := func() int64 {
		if found {
			return -1
		}
		return limit
	}
	for _, p := range v.loc.loose[oid] {
		t, d, err := readLoose(p, oid, next())
		if err != nil {
			return "", nil, false, err
		}
		if !found {
			typ, data, found = t, d, true
		}
	}
	for _, pack := range v.loc.packs {
		rd, err := v.packReader(pack)
		if err != nil {
			return "", nil, false, err
		}
		t, d, err := rd.read(ctx, oid, next())
		if errors.Is(err, errObjectMissing) {
			continue
		}
		if err != nil {
			return "", nil, false, err
		}
		if !found {
			typ, data, found = t, d, true
		}
	}
	v.ok[oid] = true
	return typ, data, found, nil
}

// packReader returns the one-pack reader of pack; v.mu is held.
func (v *objectVerifier) packReader(pack string) (*catFile, error) {
	if rd, ok := v.readers[pack]; ok {
		return rd, nil
	}
	if v.tmp == "" {
		gitDir, _, _ := gitDirOf(v.r.root)
		dir, err := os.MkdirTemp(v.r.privateIndexParent(filepath.Join(gitDir, "index")), "mastermind-objects-")
		if err != nil {
			return nil, fmt.Errorf("object verification: %w", err)
		}
		v.tmp = dir
	}
	od := filepath.Join(v.tmp, fmt.Sprint(len(v.readers)))
	if err := os.MkdirAll(filepath.Join(od, "pack"), 0o700); err != nil {
		return nil, fmt.Errorf("object verification: %w", err)
	}
	base := strings.TrimSuffix(filepath.Base(pack), ".pack")
	for _, ext := range []string{".pack", ".idx"} {
		if err := os.Symlink(strings.TrimSuffix(pack, ".pack")+ext, filepath.Join(od, "pack", base+ext)); err != nil {
			return nil, fmt.Errorf("object verification: %w", err)
		}
	}
	rd := &catFile{r: v.r, env: []string{"GIT_OBJECT_DIRECTORY=" + od}, where: "pack " + filepath.Base(pack)}
	v.readers[pack] = rd
	return rd, nil
}

// close stops the readers and removes their directories.
func (v *objectVerifier) close() {
	if v == nil {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, rd := range v.readers {
		rd.close()
	}
	v.readers = map[string]*catFile{}
	if v.tmp != "" {
		_ = os.RemoveAll(v.tmp)
		v.tmp = ""
	}
}

// degradedCheck is trust-model.md §4.5 without git: every loose object written since pre-flight
// is re-hashed before go-git reads anything, and a pack written since is refused.
func degradedCheck(ctx context.Context, loc *objectLocations) error {
	if len(loc.packs) > 0 {
		return fmt.Errorf("%w: pack %s was written since pre-flight and cannot be verified without git", ErrObjectStoreModified, filepath.Base(loc.packs[0]))
	}
	oids := make([]string, 0, len(loc.loose))
	for oid := range loc.loose {
		oids = append(oids, oid)
	}
	slices.Sort(oids)
	for _, oid := range oids {
		if err := ctx.Err(); err != nil {
			return err
		}
		for _, p := range loc.loose[oid] {
			if err := verifyLoose(p, oid); err != nil {
				return err
			}
		}
	}
	return nil
}

// goGitBlob reads one blob through go-git, at most limit bytes.
func goGitBlob(gg *git.Repository, oid string, limit int64) ([]byte, error) {
	b, err := gg.BlobObject(plumbing.NewHash(oid))
	if err != nil {
		return nil, fmt.Errorf("reading blob %s: %w", oid, err)
	}
	if b.Size > limit {
		return nil, fmt.Errorf("blob %s is %d bytes, over the %d-byte limit", oid, b.Size, limit)
	}
	rd, err := b.Reader()
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	var buf bytes.Buffer
	_, err = buf.ReadFrom(rd)
	return buf.Bytes(), err
}

// auditObjects are the object reads of one snapshot run of one repository: the scan of the
// object files written since pre-flight, made before any object is read, the hashing reader and
// the verifier of the copies git reads. It is safe for concurrent use.
type auditObjects struct {
	r *Repo
	s *inputsSnapshot

	mu      sync.Mutex
	scanned bool
	loc     *objectLocations
	scanErr error
	ver     *objectVerifier
	cat     *catFile
	trees   *treeReader
}

func newAuditObjects(r *Repo, s *inputsSnapshot) *auditObjects { return &auditObjects{r: r, s: s} }

// locations scans the object stores once (scanObjects); without a usable git, degradedCheck
// follows.
func (o *auditObjects) locations(ctx context.Context) (*objectLocations, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.scanned {
		_, commonDir, ok := gitDirOf(o.r.root)
		if !ok {
			return nil, fmt.Errorf("%s: cannot find the git directory: %w", o.r.root, ErrNotRepository)
		}
		o.loc, o.scanErr = scanObjects(ctx, commonDir, o.s)
		if o.scanErr == nil && !o.r.gitUsable() {
			o.scanErr = degradedCheck(ctx, o.loc)
		}
		if o.scanErr != nil && ctx.Err() != nil {
			return nil, o.scanErr // a cancelled scan is tried again
		}
		o.scanned = true
		if o.scanErr == nil {
			o.ver = newObjectVerifier(o.r, o.loc)
		}
	}
	return o.loc, o.scanErr
}

// reader returns the tree reader over the verified object reader, after the scan.
func (o *auditObjects) reader(ctx context.Context) (*treeReader, error) {
	if _, err := o.locations(ctx); err != nil {
		return nil, err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.trees == nil {
		if o.r.gitUsable() {
			o.cat = &catFile{r: o.r}
			o.trees = newTreeReader(verifiedSource{o})
		} else {
			o.trees = newTreeReader(goGitSource{o.r})
		}
	}
	return o.trees, nil
}

// verify checks every copy of oids written since pre-flight (objectVerifier), after the scan.
func (o *auditObjects) verify(ctx context.Context, oids ...string) error {
	if _, err := o.locations(ctx); err != nil {
		return err
	}
	return o.ver.verify(ctx, oids...)
}

// anyNew reports whether an object file was written since pre-flight (after the scan).
func (o *auditObjects) anyNew(ctx context.Context) (bool, error) {
	loc, err := o.locations(ctx)
	return !loc.empty(), err
}

// verifyBaselineTrees verifies the baseline commit and every tree of the baseline: all a walk
// of the whole baseline tree by git may read.
func (o *auditObjects) verifyBaselineTrees(ctx context.Context) error {
	if any, err := o.anyNew(ctx); err != nil || !any || o.s.Baseline == EmptyTreeOID {
		return err
	}
	t, err := o.reader(ctx)
	if err != nil {
		return err
	}
	root, err := t.rootTree(ctx, o.s.Baseline)
	if err != nil {
		return err
	}
	if err := o.verify(ctx, o.s.Baseline); err != nil {
		return err
	}
	return t.walkAll(ctx, root, func(oid string) error { return o.verify(ctx, oid) })
}

// verifyIndexBlobs verifies the blobs git may read from the index snapshot while it hashes the
// touched files of dirty: each dirty entry's index blob, and the attribute blobs of
// attrIndexBlobs.
func (o *auditObjects) verifyIndexBlobs(ctx context.Context, s *inputsSnapshot, d0 indexDiff, dirty []rawEntry) error {
	if any, err := o.anyNew(ctx); err != nil || !any {
		return err
	}
	var oids []string
	for _, e := range dirty {
		if e.srcMode != 0 && e.srcMode != modeGitlink && !e.src.isNull() {
			oids = append(oids, e.src.String())
		}
	}
	attrs, err := o.attrIndexBlobs(ctx, s, d0)
	if err != nil {
		return err
	}
	return o.verify(ctx, append(oids, attrs...)...)
}

// attrIndexBlobs are the index snapshot's .gitattributes blobs git may read instead of a
// work-tree file: with skip-worktree entries, those of every baseline directory that has one,
// and otherwise none.
func (o *auditObjects) attrIndexBlobs(ctx context.Context, s *inputsSnapshot, d0 indexDiff) ([]string, error) {
	if !s.SkipWorktree || len(s.AttrDirs) == 0 {
		return nil, nil
	}
	t, err := o.reader(ctx)
	if err != nil {
		return nil, err
	}
	root, err := t.rootTree(ctx, s.Baseline)
	if err != nil {
		return nil, err
	}
	var oids []string
	for _, d := range s.AttrDirs {
		p := path.Join(d, ".gitattributes")
		if e, ok := d0[p]; ok {
			if e.dstMode != 0 {
				oids = append(oids, e.dst.String())
			}
			continue
		}
		if e, _, err := t.lookup(ctx, root, p); err != nil {
			return nil, err
		} else if e != nil && !e.isTree() && e.mode != modeGitlink {
			oids = append(oids, e.oid)
		}
	}
	return oids, nil
}

// close stops the readers.
func (o *auditObjects) close() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.cat != nil {
		o.cat.close()
	}
	o.ver.close()
}

// verifiedSource is the objectSource of a snapshot run with git: every copy of the object
// written since pre-flight is verified first, and an object found in none is read through the
// hashing catFile.
type verifiedSource struct{ o *auditObjects }

func (s verifiedSource) object(ctx context.Context, oid, typ string) ([]byte, error) {
	t, data, found, err := s.o.ver.fetch(ctx, oid, limitFor(typ))
	if err != nil {
		return nil, err
	}
	if !found {
		return catFileSource{s.o.cat}.object(ctx, oid, typ)
	}
	if t != typ {
		return nil, fmt.Errorf("object %s is a %s, not a %s", oid, t, typ)
	}
	return data, nil
}

// goGitSource is an objectSource over go-git, for degraded mode: degradedCheck has re-hashed
// every loose object written since pre-flight and refused any new pack; each object is hashed
// again as it is read.
type goGitSource struct{ r *Repo }

func (s goGitSource) object(ctx context.Context, oid, typ string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	gg, release, err := s.r.goGit()
	defer release()
	if err != nil {
		return nil, s.r.layoutError(err)
	}
	obj, err := gg.Storer.EncodedObject(plumbing.AnyObject, plumbing.NewHash(oid))
	if err != nil {
		if errors.Is(err, plumbing.ErrObjectNotFound) {
			return nil, fmt.Errorf("object %s %w", oid, errObjectMissing)
		}
		return nil, fmt.Errorf("reading object %s: %w", oid, err)
	}
	if obj.Size() > limitFor(typ) {
		return nil, fmt.Errorf("object %s is %d bytes, over the %d-byte limit", oid, obj.Size(), limitFor(typ))
	}
	rd, err := obj.Reader()
	if err != nil {
		return nil, fmt.Errorf("reading object %s: %w", oid, err)
	}
	defer rd.Close()
	data, err := io.ReadAll(io.LimitReader(rd, limitFor(typ)+1))
	if err != nil {
		return nil, fmt.Errorf("%w: object %s cannot be read (%v)", ErrObjectStoreModified, oid, err)
	}
	t := obj.Type().String()
	h := sha1.New()
	fmt.Fprintf(h, "%s %d\x00", t, len(data))
	h.Write(data)
	if got := hex.EncodeToString(h.Sum(nil)); got != oid {
		return nil, fmt.Errorf("%w: object %s holds object %s", ErrObjectStoreModified, oid, got)
	}
	if t != typ {
		return nil, fmt.Errorf("object %s is a %s, not a %s", oid, t, typ)
	}
	return data, nil
}
