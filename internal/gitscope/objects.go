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
	"path/filepath"
	"slices"
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
)

// ErrObjectStoreModified: an object file written since pre-flight does not hold the object its
// name says (trust-model.md §4.5). The baseline cannot be read honestly: exit 3, never a verdict.
var ErrObjectStoreModified = errors.New("the object store was modified since pre-flight")

// maxLooseObjectBytes bounds one loose object re-hashed by verifyObjects (inflated size).
const maxLooseObjectBytes = 1 << 30

// verifyObjects is trust-model.md §4.5: every file of the object stores (the common
// directory's objects/ and each directory objects/info/alternates names) whose change time is
// at or after preflightNs is checked before the baseline is read — a loose object is inflated
// and re-hashed (its content must hash to its name), a pack is verified against its index with
// `git index-pack --verify` (no git: refused, the built-in reader cannot verify packs). A file
// that is not a regular file or directory is ErrUnsafeRepository at once (a FIFO would block
// git's read). Cost without changes: one directory read per fan-out directory and one lstat per
// loose object or pack file.
func (r *Repo) verifyObjects(ctx context.Context, commonDir string, preflightNs int64) error {
	dirs := []string{filepath.Join(commonDir, "objects")}
	if b, err := readRegular(filepath.Join(commonDir, "objects", "info", "alternates"), maxInputFileBytes); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			l = strings.TrimSpace(l)
			if l == "" || strings.HasPrefix(l, "#") {
				continue
			}
			if !filepath.IsAbs(l) {
				l = filepath.Join(commonDir, "objects", l)
			}
			dirs = append(dirs, l)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	var packs []string
	for _, od := range dirs {
		ents, err := os.ReadDir(od)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return fmt.Errorf("object store %s: %w", od, err)
		}
		for _, de := range ents {
			name := de.Name()
			if err := ctx.Err(); err != nil {
				return err
			}
			switch {
			case len(name) == 2 && isHex(name):
				if err := r.verifyLooseDir(filepath.Join(od, name), name, preflightNs); err != nil {
					return err
				}
			case name == "pack":
				ps, err := changedPacks(filepath.Join(od, name), preflightNs)
				if err != nil {
					return err
				}
				packs = append(packs, ps...)
			}
		}
	}
	for _, p := range packs {
		if err := r.verifyPack(ctx, p); err != nil {
			return err
		}
	}
	return nil
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

// verifyLooseDir checks the loose objects of one fan-out directory.
func (r *Repo) verifyLooseDir(dir, prefix string, preflightNs int64) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
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
		if !fi.Mode().IsRegular() {
			if fi.IsDir() || len(name) != 38 || !isHex(name) {
				continue // not an object git would read
			}
			return fmt.Errorf("%s: %w (%s)", p, ErrUnsafeRepository, describeType(fi.Mode()))
		}
		if len(name) != 38 || !isHex(name) || ctimeOf(fi) < preflightNs {
			continue
		}
		if err := verifyLoose(p, prefix+name); err != nil {
			return err
		}
	}
	return nil
}

// verifyLoose inflates one loose object and checks that "<type> <size>\0<content>" hashes to
// oid.
func verifyLoose(p, oid string) error {
	f, err := openRegular(p)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := zlib.NewReader(bufio.NewReader(f))
	if err != nil {
		return fmt.Errorf("%w: loose object %s cannot be inflated (%v)", ErrObjectStoreModified, oid, err)
	}
	defer zr.Close()
	h := sha1.New()
	n, err := io.Copy(h, io.LimitReader(zr, maxLooseObjectBytes+64))
	if err != nil {
		return fmt.Errorf("%w: loose object %s cannot be inflated (%v)", ErrObjectStoreModified, oid, err)
	}
	if n > maxLooseObjectBytes+64 {
		return fmt.Errorf("loose object %s is larger than %d bytes", oid, int64(maxLooseObjectBytes))
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != oid {
		return fmt.Errorf("%w: the file of object %s holds object %s", ErrObjectStoreModified, oid, got)
	}
	return nil
}

// changedPacks lists the packs of a pack directory whose .pack or .idx changed since
// preflightNs (as .pack paths). A non-regular file there is ErrUnsafeRepository.
func changedPacks(dir string, preflightNs int64) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
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
		if !ok || ctimeOf(fi) < preflightNs {
			continue
		}
		out = append(out, filepath.Join(dir, base+".pack"))
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// verifyPack checks a pack against its index: `git index-pack --verify` recomputes every
// object id from the pack's content and compares the result with the .idx.
func (r *Repo) verifyPack(ctx context.Context, pack string) error {
	if _, err := os.Lstat(pack); errors.Is(err, fs.ErrNotExist) {
		// An index without its pack: git does not use it.
		return nil
	}
	if !r.gitUsable() {
		return fmt.Errorf("%w: pack %s was written since pre-flight and cannot be verified without git", ErrObjectStoreModified, filepath.Base(pack))
	}
	_, err := r.runSimple(ctx, r.root, "index-pack", "--verify", pack)
	if err != nil {
		var gf *ErrGitFailed
		if errors.As(err, &gf) {
			return fmt.Errorf("%w: pack %s does not match its index (%s)", ErrObjectStoreModified, filepath.Base(pack), firstLine(gf.Stderr))
		}
		return err
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
