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

// indexIsSparse reports whether the index file at p has the sparse-directory extension
// ("sdir"). It walks the entries (versions 2 to 4) to reach the extensions; anything it cannot
// parse is an error.
func indexIsSparse(p string) (bool, error) {
	sparse, _, err := indexKinds(p)
	return sparse, err
}

// indexKinds reports whether the index file at p is sparse (the "sdir" extension) and whether it
// is split (the "link" extension: its shared part is a .git/sharedindex.* file, which git reads
// from the git directory and does not verify, so a snapshot must never be one; hardening.md A-O1).
func indexKinds(p string) (sparse, split bool, err error) {
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
		return false, false, fmt.Errorf("the index %s has no index header", p)
	}
	version := binary.BigEndian.Uint32(hdr[4:8])
	count := binary.BigEndian.Uint32(hdr[8:12])
	if version < 2 || version > 4 {
		return false, false, fmt.Errorf("the index %s has version %d", p, version)
	}
	pos := int64(12)
	skip := func(n int64) error {
		_, err := br.Discard(int(n))
		pos += n
		return err
	}
	for i := uint32(0); i < count; i++ {
		var fixed [62]byte
		if _, err := io.ReadFull(br, fixed[:]); err != nil {
			return false, false, fmt.Errorf("the index %s ends in entry %d", p, i)
		}
		pos += 62
		flags := binary.BigEndian.Uint16(fixed[60:62])
		entryLen := int64(62)
		if flags&0x4000 != 0 {
			if version < 3 {
				return false, false, fmt.Errorf("the index %s has extended flags in version 2", p)
			}
			if err := skip(2); err != nil {
				return false, false, err
			}
			entryLen += 2
		}
		if version == 4 {
			// The name is a varint counting the bytes of the previous name to drop, then a
			// NUL-terminated suffix; entries are not padded.
			for {
				b, err := br.ReadByte()
				if err != nil {
					return false, false, fmt.Errorf("the index %s ends in entry %d", p, i)
				}
				pos++
				if b&0x80 == 0 {
					break
				}
			}
			suffix, err := br.ReadSlice(0)
			if err != nil {
				return false, false, fmt.Errorf("the index %s ends in entry %d", p, i)
			}
			pos += int64(len(suffix))
			continue
		}
		name, err := br.ReadSlice(0)
		if err != nil {
			return false, false, fmt.Errorf("the index %s ends in entry %d", p, i)
		}
		pos += int64(len(name))
		entryLen += int64(len(name)) // the name and its first NUL
		// Entries are padded with 1 to 8 NULs after the name to a multiple of 8 bytes.
		if pad := (8 - entryLen%8) % 8; pad > 0 {
			if err := skip(pad); err != nil {
				return false, false, fmt.Errorf("the index %s ends in entry %d", p, i)
			}
		}
	}
	for pos+8 <= fi.Size()-20 {
		var ext [8]byte
		if _, err := io.ReadFull(br, ext[:]); err != nil {
			return false, false, fmt.Errorf("the index %s ends in its extensions", p)
		}
		pos += 8
		sparse = sparse || bytes.Equal(ext[:4], []byte("sdir"))
		split = split || bytes.Equal(ext[:4], []byte("link"))
		if err := skip(int64(binary.BigEndian.Uint32(ext[4:8]))); err != nil {
			return false, false, fmt.Errorf("the index %s ends in its extensions", p)
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
