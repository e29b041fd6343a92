package gitscope

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"slices"
	"time"
)

// A sparse index holds whole directories as single entries naming a tree, which git commands
// such as diff-files expand on read from the object store, writing the trees again.
// Post-flight must do neither, so pre-flight stores the index snapshot expanded.

// fullIndexArgs go with every command of a snapshot run that reads the private index (always
// full): with index.sparse=true from the configuration, a sparse-aware command would convert it
// to a sparse one in memory, writing the trees of every collapsed directory.
var fullIndexArgs = []string{"-c", "index.sparse=false"}

// indexKinds reports whether the index file at p is sparse (the "sdir" extension) and whether it
// is split (the "link" extension, whose shared part git reads unverified; hardening.md A-O1). It
// walks the entries as git's create_from_disk does, sizing each by its flags' name length, so a
// NUL placed inside a name cannot shift the walk; anything it cannot parse is an error.
func indexKinds(p string) (sparse, split bool, err error) {
	fail := func(format string, args ...any) (bool, bool, error) {
		return false, false, fmt.Errorf("the index %s "+format, append([]any{p}, args...)...)
	}
	f, err := openRegular(p)
	if err != nil {
		return false, false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return false, false, err
	}
	br := bufio.NewReaderSize(io.LimitReader(f, maxIndexBytes), 256<<10)
	var hdr [12]byte
	if _, err := io.ReadFull(br, hdr[:]); err != nil || !bytes.Equal(hdr[:4], []byte("DIRC")) {
		return fail("has no index header")
	}
	version := binary.BigEndian.Uint32(hdr[4:8])
	count := binary.BigEndian.Uint32(hdr[8:12])
	if version < 2 || version > 4 {
		return fail("has version %d; git writes versions 2 to 4", version)
	}
	const (
		fixedLen     = 62 // stat data, mode, ids, size, object id, flags
		nameMask     = 0x0fff
		extendedFlag = 0x4000
		knownExtBits = 0x6000 // skip-worktree and intent-to-add: git refuses any other
	)
	pos := int64(12)
	discard := func(n int64) error {
		_, err := br.Discard(int(n))
		pos += n
		return err
	}
	prevLen := int64(0)
	fixed := make([]byte, fixedLen) // reused: one allocation, not one per entry
	xflags := make([]byte, 2)
	for i := uint32(0); i < count; i++ {
		if _, err := io.ReadFull(br, fixed); err != nil {
			return fail("ends in entry %d", i)
		}
		pos += fixedLen
		flags := binary.BigEndian.Uint16(fixed[60:62])
		head := int64(fixedLen)
		if flags&extendedFlag != 0 {
			if version < 3 {
				return fail("has extended flags in version 2")
			}
			if _, err := io.ReadFull(br, xflags); err != nil {
				return fail("ends in entry %d", i)
			}
			pos += 2
			head += 2
			xf := binary.BigEndian.Uint16(xflags)
			if xf&^knownExtBits != 0 {
				return fail("has unknown extended flags 0x%04x in entry %d", xf, i)
			}
		}
		nameLen := int64(flags & nameMask)
		if version == 4 {
			// A varint counting the bytes of the previous name to drop, then the rest of the
			// name and a NUL; entries are not padded.
			strip, n := int64(0), 0
			for {
				b, err := br.ReadByte()
				if err != nil || n > 8 {
					return fail("ends in entry %d", i)
				}
				pos++
				n++
				strip = strip<<7 | int64(b&0x7f)
				if b&0x80 == 0 {
					break
				}
				strip++ // git's offset varint
			}
			if strip > prevLen {
				return fail("has a malformed name field in entry %d", i)
			}
			kept := prevLen - strip
			if nameLen == nameMask {
				suffix, err := br.ReadSlice(0)
				if err != nil {
					return fail("ends in entry %d", i)
				}
				pos += int64(len(suffix))
				nameLen = kept + int64(len(suffix)) - 1
			} else {
				if nameLen < kept {
					return fail("has a malformed name field in entry %d", i)
				}
				if err := discard(nameLen - kept + 1); err != nil {
					return fail("ends in entry %d", i)
				}
			}
			prevLen = nameLen
			continue
		}
		if nameLen == nameMask {
			name, err := br.ReadSlice(0)
			if err != nil {
				return fail("ends in entry %d", i)
			}
			pos += int64(len(name))
			nameLen = int64(len(name)) - 1
			if err := discard((head+nameLen+8)&^7 - head - nameLen - 1); err != nil {
				return fail("ends in entry %d", i)
			}
			continue
		}
		// The name, then 1 to 8 NULs to a multiple of 8 bytes.
		if err := discard((head+nameLen+8)&^7 - head); err != nil {
			return fail("ends in entry %d", i)
		}
	}
	for pos+8 <= fi.Size()-20 {
		var ext [8]byte
		if _, err := io.ReadFull(br, ext[:]); err != nil {
			return fail("ends in its extensions")
		}
		pos += 8
		switch string(ext[:4]) {
		case "sdir":
			sparse = true
		case "link":
			split = true
		}
		if err := discard(int64(binary.BigEndian.Uint32(ext[4:8]))); err != nil {
			return fail("ends in its extensions")
		}
	}
	return sparse, split, nil
}

// expandSnapshotIndex replaces the index snapshot in store by its expanded form when it is
// sparse: `git -c index.sparse=false update-index --force-write-index` on a private copy,
// which keeps every entry's stat data, given back the pre-flight index's modification time.
func (r *Repo) expandSnapshotIndex(ctx context.Context, store SnapshotStore, s *inputsSnapshot) error {
	pi, err := r.snapshotIndex(store, s)
	if err != nil {
		return err
	}
	defer pi.cleanup()
	sparse, split, err := indexKinds(pi.path)
	if err != nil || !sparse && !split {
		return err
	}
	args := slices.Concat(globalArgs, indexGuardArgs, []string{"-c", "index.sparse=false", "update-index", "--force-write-index"})
	if split {
		args = append(args, "--no-split-index")
	}
	if _, err := r.runSmall(ctx, r.root, nil, pi.env(), args...); err != nil {
		return err
	}
	f, err := openRegular(pi.path)
	if err != nil {
		return err
	}
	err = store.Put(SnapshotIndex, io.LimitReader(f, maxIndexBytes))
	f.Close()
	if err != nil {
		return err
	}
	if ls, ok := store.(LocalSnapshotStore); ok {
		if p, err := ls.SnapshotPath(SnapshotIndex); err == nil {
			mt := time.Unix(0, s.IndexMtimeNs)
			_ = os.Chtimes(p, mt, mt)
		}
	}
	return nil
}
