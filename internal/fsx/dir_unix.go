//go:build unix

package fsx

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Dir is an open directory handle through which every operation below it is an *at(2) call
// with O_NOFOLLOW, so a component swapped for a symbolic link cannot redirect it (trust-model.md
// I4). Every write checks before and after that the directory was not moved or replaced. Its
// methods may run concurrently, but not with Close.
type Dir struct {
	f    *os.File
	fd   int
	path string // the path the handle was opened at, for messages and Check
	dev  uint64
	ino  uint64
	// temps names this handle's temporary files when set (SetTempNames).
	temps TempNamer
}

// TempNamer names the temporary files of atomic writes so that their writer, and nobody else,
// can recognise the ones a killed run left behind.
type TempNamer interface {
	// TempName returns a new temporary name for an atomic write of the entry name.
	TempName(name string) string
	// IsTemp reports whether entry is a name TempName gave.
	IsTemp(entry string) bool
}

// SetTempNames makes n name the temporary files of this handle's atomic writes (instead of
// ".<name><digits>").
func (d *Dir) SetTempNames(n TempNamer) { d.temps = n }

// RemoveTemps removes every regular file of the directory that the handle's TempNamer
// recognises, what an interrupted atomic write of its own left behind, and returns their
// names. Without a TempNamer it removes nothing.
func (d *Dir) RemoveTemps() ([]string, error) {
	if d.temps == nil {
		return nil, nil
	}
	names, err := d.Names()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, n := range names {
		if !d.temps.IsTemp(n) {
			continue
		}
		if fi, err := d.Lstat(n); err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if err := d.Remove(n, false); err != nil {
			return out, err
		}
		out = append(out, n)
	}
	return out, nil
}

// OpenDir opens the directory root/rel without following a symbolic link in any component of the
// slash-separated rel; root, the caller's trusted starting point, is resolved normally and ""
// opens it. A failure is a *PathError with a typed reason.
func OpenDir(root, rel string) (*Dir, error) {
	fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, classifyOpenError(root, &os.PathError{Op: "open", Path: root, Err: err})
	}
	d, err := newDir(fd, root)
	if err != nil {
		return nil, err
	}
	if rel == "" || rel == "." {
		return d, nil
	}
	if filepath.IsAbs(rel) {
		d.Close()
		return nil, &PathError{Path: rel, Reason: ReasonOutsideRoot}
	}
	parts := strings.Split(rel, "/")
	for i, p := range parts {
		sub, err := d.Sub(p)
		d.Close()
		if err != nil {
			var pe *PathError
			if errors.As(err, &pe) {
				pe.Path = rel
				if pe.Reason == ReasonSymlink && i < len(parts)-1 {
					pe.Reason, pe.Detail = ReasonSymlinkedAncestor, strings.Join(parts[:i+1], "/")
				}
			}
			return nil, err
		}
		d = sub
	}
	return d, nil
}

// newDir wraps an open directory descriptor.
func newDir(fd int, path string) (*Dir, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, &os.PathError{Op: "fstat", Path: path, Err: err}
	}
	return &Dir{f: os.NewFile(uintptr(fd), path), fd: fd, path: path, dev: uint64(st.Dev), ino: uint64(st.Ino)}, nil
}

// Path returns the path the directory was opened at.
func (d *Dir) Path() string { return d.path }

// Close releases the handle.
func (d *Dir) Close() error { return d.f.Close() }

// join is the display path of an entry.
func (d *Dir) join(name string) string { return filepath.Join(d.path, name) }

// checkName refuses anything but one plain directory entry name.
func (d *Dir) checkName(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\x00") {
		return &PathError{Path: d.join(name), Reason: ReasonOutsideRoot, Detail: "not a single entry name"}
	}
	return nil
}

// Check verifies that Path still names the directory this handle holds: Lstat of the path must be
// a directory (not a symbolic link) with the device and inode the handle was opened with.
// Otherwise it returns a *PathError with ReasonReplaced.
func (d *Dir) Check() error {
	var st unix.Stat_t
	err := unix.Lstat(d.path, &st)
	if err == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR && uint64(st.Dev) == d.dev && uint64(st.Ino) == d.ino {
		return nil
	}
	detail := "it no longer exists"
	switch {
	case err == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK:
		detail = "a symbolic link is there now"
	case err == nil:
		detail = "another file or directory is there now"
	case !errors.Is(err, unix.ENOENT):
		detail = err.Error()
	}
	return &PathError{Path: d.path, Reason: ReasonReplaced, Detail: detail}
}

// Sub opens the subdirectory name without following a symbolic link.
func (d *Dir) Sub(name string) (*Dir, error) {
	if err := d.checkName(name); err != nil {
		return nil, err
	}
	fd, err := unix.Openat(d.fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		p := d.join(name)
		if errors.Is(err, unix.ENOTDIR) {
			// O_NOFOLLOW|O_DIRECTORY on a symlink gives ELOOP on Linux and ENOTDIR on some
			// systems: tell them apart with fstatat.
			fi, serr := d.Lstat(name)
			switch {
			case serr == nil && fi.Mode()&fs.ModeSymlink != 0:
				return nil, &PathError{Path: p, Reason: ReasonSymlink}
			case serr == nil && !fi.IsDir():
				return nil, &PathError{Path: p, Reason: ReasonNotRegular, Detail: "not a directory"}
			}
			// A directory again, or gone: it was swapped while being opened.
			return nil, &PathError{Path: p, Reason: ReasonReplaced, Detail: "it changed while being opened"}
		}
		return nil, classifyOpenError(p, &os.PathError{Op: "openat", Path: p, Err: err})
	}
	return newDir(fd, d.join(name))
}

// MkdirSub creates the subdirectory name with perm (less the umask) when it is missing and opens
// it as Sub does. An existing symlink or non-directory at name is refused.
func (d *Dir) MkdirSub(name string, perm fs.FileMode) (*Dir, error) {
	if err := d.checkName(name); err != nil {
		return nil, err
	}
	if err := unix.Mkdirat(d.fd, name, uint32(perm.Perm())); err != nil && !errors.Is(err, unix.EEXIST) {
		return nil, &os.PathError{Op: "mkdirat", Path: d.join(name), Err: err}
	}
	return d.Sub(name)
}

// Mkdir creates the subdirectory name with perm (less the umask); an existing entry there is an
// error for which errors.Is(err, fs.ErrExist) holds.
func (d *Dir) Mkdir(name string, perm fs.FileMode) error {
	if err := d.checkName(name); err != nil {
		return err
	}
	if err := unix.Mkdirat(d.fd, name, uint32(perm.Perm())); err != nil {
		return &os.PathError{Op: "mkdirat", Path: d.join(name), Err: err}
	}
	return nil
}

// Lstat returns the entry's file information without following a symbolic link (fstatat with
// AT_SYMLINK_NOFOLLOW). A missing entry is a *PathError with ReasonMissing.
func (d *Dir) Lstat(name string) (fs.FileInfo, error) {
	if err := d.checkName(name); err != nil {
		return nil, err
	}
	var st unix.Stat_t
	if err := unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		if errors.Is(err, unix.ENOENT) {
			return nil, &PathError{Path: d.join(name), Reason: ReasonMissing}
		}
		return nil, &os.PathError{Op: "fstatat", Path: d.join(name), Err: err}
	}
	return &statInfo{name: name, st: st}, nil
}

// Readlink returns the target of the symbolic link name (readlinkat on the handle).
func (d *Dir) Readlink(name string) (string, error) {
	if err := d.checkName(name); err != nil {
		return "", err
	}
	for n := 256; ; n *= 2 {
		buf := make([]byte, n)
		m, err := unix.Readlinkat(d.fd, name, buf)
		if err != nil {
			return "", &os.PathError{Op: "readlinkat", Path: d.join(name), Err: err}
		}
		if m < n {
			return string(buf[:m]), nil
		}
	}
}

// ReadFile reads the regular file name with the checks and limit of the package-level ReadFile,
// opening it relative to the handle with O_NOFOLLOW|O_NONBLOCK.
func (d *Dir) ReadFile(name string, limit int64) ([]byte, error) {
	if err := d.checkName(name); err != nil {
		return nil, err
	}
	f, err := d.openEntry(name, 0, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readOpen(f, f.Name(), limit)
}

// openEntry opens the entry name (already checked) read-only relative to the handle with
// O_NOFOLLOW|O_NONBLOCK|O_CLOEXEC plus flags; open(2) failures are classified as ReadFile's.
func (d *Dir) openEntry(name string, flags int, perm uint32) (*os.File, error) {
	p := d.join(name)
	fd, err := unix.Openat(d.fd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC|flags, perm)
	if err != nil {
		return nil, classifyOpenError(p, &os.PathError{Op: "openat", Path: p, Err: err})
	}
	return os.NewFile(uintptr(fd), p), nil
}

// CheckWritable refuses, as WriteFileAtomic would, an entry name that is a symbolic link or not a
// regular file, so a caller can refuse it before recording the write.
func (d *Dir) CheckWritable(name string) error {
	if err := d.checkName(name); err != nil {
		return err
	}
	_, err := d.checkWritable(name)
	return err
}

// checkWritable is CheckWritable relative to the handle.
func (d *Dir) checkWritable(name string) (fs.FileInfo, error) {
	fi, err := d.Lstat(name)
	if ReasonOf(err) == ReasonMissing {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return nil, &PathError{Path: d.join(name), Reason: ReasonSymlink}
	}
	if !fi.Mode().IsRegular() {
		return nil, &PathError{Path: d.join(name), Reason: ReasonNotRegular, Detail: describeMode(fi.Mode())}
	}
	return fi, nil
}

// WriteFileAtomic replaces the entry name with data atomically as the package-level
// WriteFileAtomic does, but entirely relative to the handle. A directory moved or replaced
// meanwhile is ReasonReplaced.
func (d *Dir) WriteFileAtomic(name string, data []byte, perm fs.FileMode) error {
	return d.writeAtomic(name, bytes.NewReader(data), perm, false)
}

// WriteFileAtomicMode is WriteFileAtomic with the file's mode set to exactly perm.
func (d *Dir) WriteFileAtomicMode(name string, data []byte, perm fs.FileMode) error {
	return d.writeAtomic(name, bytes.NewReader(data), perm, true)
}

// WriteAtomicFrom is WriteFileAtomic with the content streamed from r rather than held in
// memory. A read error from r leaves the previous file.
func (d *Dir) WriteAtomicFrom(name string, r io.Reader, perm fs.FileMode) error {
	return d.writeAtomic(name, r, perm, false)
}

func (d *Dir) writeAtomic(name string, r io.Reader, perm fs.FileMode, exact bool) error {
	af, err := d.createAtomic(name, perm, exact)
	if err != nil {
		return err
	}
	if _, err := io.Copy(af.f, r); err != nil {
		af.Abort()
		return err
	}
	return af.Commit()
}

// AtomicFile is a streamed replacement of one directory entry: the content goes to a temporary
// file beside it, which Commit renames over the entry and Abort removes, so a reader never sees
// a part. It is not safe for concurrent use.
type AtomicFile struct {
	d         *Dir
	name, tmp string
	f         *os.File
	done      bool
}

// CreateAtomic starts replacing the entry name with the rules of WriteFileAtomic: an existing
// symlink or non-regular file at name is refused now, a new file gets perm (less the umask), a
// replaced file keeps its permissions. Write the content, then Commit or Abort; until then name
// is unchanged.
func (d *Dir) CreateAtomic(name string, perm fs.FileMode) (*AtomicFile, error) {
	return d.createAtomic(name, perm, false)
}

func (d *Dir) createAtomic(name string, perm fs.FileMode, exact bool) (*AtomicFile, error) {
	if err := d.checkName(name); err != nil {
		return nil, err
	}
	if err := d.Check(); err != nil {
		return nil, err
	}
	old, err := d.checkWritable(name)
	if err != nil {
		return nil, err
	}
	mode := perm.Perm()
	chmod := exact
	if old != nil && !exact {
		mode, chmod = old.Mode().Perm(), true
	}
	tmp, f, err := d.createTemp(name, mode)
	if err != nil {
		return nil, err
	}
	af := &AtomicFile{d: d, name: name, tmp: tmp, f: f}
	if chmod {
		if err := f.Chmod(mode); err != nil {
			af.Abort()
			return nil, err
		}
	}
	return af, nil
}

// Write writes to the temporary file.
func (a *AtomicFile) Write(p []byte) (int, error) { return a.f.Write(p) }

// CreateAtomicUnnamed is CreateAtomic for an entry whose name is known only once the content is
// written, such as a copy stored under its hash; CommitAs names the entry.
func (d *Dir) CreateAtomicUnnamed(prefix string, perm fs.FileMode) (*AtomicFile, error) {
	if err := d.checkName(prefix); err != nil {
		return nil, err
	}
	if err := d.Check(); err != nil {
		return nil, err
	}
	tmp, f, err := d.createTemp(prefix, perm.Perm())
	if err != nil {
		return nil, err
	}
	return &AtomicFile{d: d, tmp: tmp, f: f}, nil
}

// Commit fsyncs the temporary file, renames it over the entry and fsyncs the directory, then
// checks that the directory is still the one the handle opened (ReasonReplaced otherwise). A
// failure before the rename removes the temporary file and leaves the entry as it was.
func (a *AtomicFile) Commit() error {
	if a.name == "" {
		a.Abort()
		return errors.New("fsx: unnamed atomic file committed without a name")
	}
	return a.CommitAs(a.name)
}

// CommitAs is Commit with the entry name given now; an existing symlink or non-regular file at
// name is refused and the temporary file removed.
func (a *AtomicFile) CommitAs(name string) error {
	if a.done {
		return errors.New("fsx: atomic file already committed or aborted")
	}
	ok := false
	defer func() {
		if !ok {
			a.Abort()
		}
	}()
	if err := a.d.checkName(name); err != nil {
		return err
	}
	if name != a.name {
		if _, err := a.d.checkWritable(name); err != nil {
			return err
		}
	}
	a.name = name
	if err := a.f.Sync(); err != nil {
		return err
	}
	if err := a.f.Close(); err != nil {
		return err
	}
	d := a.d
	if err := unix.Renameat(d.fd, a.tmp, d.fd, a.name); err != nil {
		return &os.PathError{Op: "renameat", Path: d.join(a.name), Err: err}
	}
	ok, a.done = true, true
	if err := unix.Fsync(d.fd); err != nil && !errors.Is(err, unix.EINVAL) {
		return &os.PathError{Op: "fsync", Path: d.path, Err: err}
	}
	return d.Check()
}

// Abort removes the temporary file; the entry keeps its previous content. After Commit it does
// nothing.
func (a *AtomicFile) Abort() {
	if a.done {
		return
	}
	a.done = true
	a.f.Close()
	_ = unix.Unlinkat(a.d.fd, a.tmp, 0)
}

// createTemp creates ".<name><digits>" in the directory, exclusively and without following links.
func (d *Dir) createTemp(name string, mode fs.FileMode) (string, *os.File, error) {
	for attempt := 0; attempt < 10000; attempt++ {
		tmp := "." + name + strconv.FormatInt(rand.Int64(), 10)
		if d.temps != nil {
			tmp = d.temps.TempName(name)
		}
		fd, err := unix.Openat(d.fd, tmp, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(mode))
		if errors.Is(err, unix.EEXIST) {
			continue
		}
		if err != nil {
			return "", nil, &os.PathError{Op: "openat", Path: d.join(tmp), Err: err}
		}
		return tmp, os.NewFile(uintptr(fd), d.join(tmp)), nil
	}
	return "", nil, &os.PathError{Op: "tempfile", Path: d.join(name), Err: os.ErrExist}
}

// Remove deletes the file name, or the empty directory name when dir is true. A missing entry is
// not an error.
func (d *Dir) Remove(name string, dir bool) error {
	if err := d.checkName(name); err != nil {
		return err
	}
	flags := 0
	if dir {
		flags = unix.AT_REMOVEDIR
	}
	if err := unix.Unlinkat(d.fd, name, flags); err != nil && !errors.Is(err, unix.ENOENT) {
		return &os.PathError{Op: "unlinkat", Path: d.join(name), Err: err}
	}
	return nil
}

// Rename renames the entry oldName to newName within the directory (renameat).
func (d *Dir) Rename(oldName, newName string) error {
	if err := d.checkName(oldName); err != nil {
		return err
	}
	if err := d.checkName(newName); err != nil {
		return err
	}
	if err := unix.Renameat(d.fd, oldName, d.fd, newName); err != nil {
		return &os.PathError{Op: "renameat", Path: d.join(oldName), Err: err}
	}
	return nil
}

// Names lists the directory's entry names, unsorted.
func (d *Dir) Names() ([]string, error) {
	fd, err := unix.Openat(d.fd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "openat", Path: d.path, Err: err}
	}
	f := os.NewFile(uintptr(fd), d.path)
	defer f.Close()
	return f.Readdirnames(-1)
}

// TryLock takes without waiting the same exclusive flock(2) lock on the entry name that
// gofrs/flock takes, creating the file 0600 when missing and opening it read-only so that a
// read-only file system still locks. A non-regular file is refused; a busy lock wraps ErrLockBusy.
func (d *Dir) TryLock(name string) (*Lock, error) {
	if err := d.checkName(name); err != nil {
		return nil, err
	}
	f, err := d.openEntry(name, unix.O_CREAT, 0o600)
	if err != nil {
		return nil, err
	}
	if f, err = regularOrClose(f); err != nil {
		return nil, err
	}
	return flockFile(f)
}

// TryLockDir takes the exclusive lock on the directory itself without waiting (flock(2) on a new
// descriptor of it), so that a lock needs no file in the directory: nothing an executor could
// fill or delete (trust-model.md I3). Two TryLockDir calls exclude each other even within one
// process. A busy lock wraps ErrLockBusy.
func (d *Dir) TryLockDir() (*Lock, error) {
	fd, err := unix.Openat(d.fd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "openat", Path: d.path, Err: err}
	}
	return flockFile(os.NewFile(uintptr(fd), d.path))
}

// LockDirWait is TryLockDir retried every 20 ms for at most timeout.
func (d *Dir) LockDirWait(timeout time.Duration) (*Lock, error) {
	return retryBusy(timeout, d.TryLockDir)
}

// retryBusy calls try every 20 ms until it returns anything but ErrLockBusy or timeout has
// passed, and returns its last result.
func retryBusy(timeout time.Duration, try func() (*Lock, error)) (*Lock, error) {
	deadline := time.Now().Add(timeout)
	for {
		l, err := try()
		if err == nil || !errors.Is(err, ErrLockBusy) || time.Now().After(deadline) {
			return l, err
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// flockFile takes flock(2) LOCK_EX|LOCK_NB on f, closing it on failure.
func flockFile(f *os.File) (*Lock, error) {
	p := f.Name()
	// Fd switches the descriptor to blocking mode, which changes nothing for a regular file.
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, fmt.Errorf("%s: %w", p, ErrLockBusy)
		}
		return nil, fmt.Errorf("lock %s: %w", p, err)
	}
	return &Lock{f: f}, nil
}

// statInfo is fs.FileInfo from fstatat.
type statInfo struct {
	name string
	st   unix.Stat_t
}

func (s *statInfo) Name() string { return s.name }
func (s *statInfo) Size() int64  { return s.st.Size }
func (s *statInfo) Mode() fs.FileMode {
	m := fs.FileMode(s.st.Mode & 0o777)
	switch s.st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		m |= fs.ModeDir
	case unix.S_IFLNK:
		m |= fs.ModeSymlink
	case unix.S_IFIFO:
		m |= fs.ModeNamedPipe
	case unix.S_IFSOCK:
		m |= fs.ModeSocket
	case unix.S_IFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		m |= fs.ModeDevice
	}
	return m
}
func (s *statInfo) ModTime() time.Time { return time.Unix(s.st.Mtim.Unix()) }
func (s *statInfo) IsDir() bool        { return s.Mode().IsDir() }
func (s *statInfo) Sys() any           { return &s.st }

// LockWait is TryLock retried every 20 ms for at most timeout; a lock still busy then wraps
// ErrLockBusy.
func (d *Dir) LockWait(name string, timeout time.Duration) (*Lock, error) {
	return retryBusy(timeout, func() (*Lock, error) { return d.TryLock(name) })
}

// OpenFile opens the regular file name for reading relative to the handle (O_NOFOLLOW,
// O_NONBLOCK); a symlink, FIFO or other non-regular file is refused as ReadFile refuses it. The
// caller closes the file.
func (d *Dir) OpenFile(name string) (*os.File, error) {
	if err := d.checkName(name); err != nil {
		return nil, err
	}
	f, err := d.openEntry(name, 0, 0)
	if err != nil {
		return nil, err
	}
	return regularOrClose(f)
}
