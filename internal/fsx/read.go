package fsx

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// ReadFile reads the regular file at path without following a symlink at the last component or
// blocking on a FIFO, as executor-report-v1.md §1.1 checks 3–5 require. More than limit bytes,
// a file that changes during the read and a file that is not regular are *PathErrors with a
// typed reason; any other failure is wrapped as an operational error.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, classifyOpenError(path, err)
	}
	defer f.Close()
	return readOpen(f, path, limit)
}

// ReadFollow is ReadFile for a file that may be reached through symbolic links, as git reaches
// its configuration: links are followed and every other rule holds. A missing file is
// ReasonMissing, which is also fs.ErrNotExist.
func ReadFollow(path string, limit int64) ([]byte, error) {
	f, err := OpenFollow(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readOpen(f, path, limit)
}

// OpenFollow opens path for reading without blocking on a FIFO, following symbolic links, and
// returns it only if it is a regular file; anything else is ReasonNotRegular, and a missing
// file ReasonMissing.
func OpenFollow(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, classifyOpenError(path, err)
	}
	return regularOrClose(f)
}

// regularOrClose returns f when fstat says it is a regular file; otherwise it closes f and
// returns the fstat error or a *PathError with ReasonNotRegular naming f.Name().
func regularOrClose(f *os.File) (*os.File, error) {
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, &PathError{Path: f.Name(), Reason: ReasonNotRegular, Detail: describeMode(fi.Mode())}
	}
	return f, nil
}

// readOpen is the bounded, stable read of ReadFile on an open file.
func readOpen(f *os.File, path string, limit int64) ([]byte, error) {
	before, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !before.Mode().IsRegular() {
		return nil, &PathError{Path: path, Reason: ReasonNotRegular, Detail: describeMode(before.Mode())}
	}
	data, err := readSized(io.LimitReader(f, limit+1), min(before.Size(), limit)+1)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(data)) > limit {
		return nil, &PathError{Path: path, Reason: ReasonTooLarge, Size: int64(len(data)),
			Detail: fmt.Sprintf("more than %d bytes", limit)}
	}
	after, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if after.Size() != before.Size() || !after.ModTime().Equal(before.ModTime()) || after.Size() != int64(len(data)) {
		return nil, &PathError{Path: path, Reason: ReasonUnstable}
	}
	return data, nil
}

// classifyOpenError maps an open(2) failure to a refusal where it is one.
func classifyOpenError(path string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		// O_NOFOLLOW on a dangling link gives ELOOP, so ENOENT means the path is truly absent.
		return &PathError{Path: path, Reason: ReasonMissing}
	}
	if errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.EMLINK) {
		return &PathError{Path: path, Reason: ReasonSymlink}
	}
	if errors.Is(err, syscall.ENXIO) {
		// O_NONBLOCK open of a FIFO for reading succeeds; ENXIO comes from sockets and some devices.
		return &PathError{Path: path, Reason: ReasonNotRegular, Detail: "socket or device"}
	}
	if errors.Is(err, syscall.EISDIR) {
		return &PathError{Path: path, Reason: ReasonNotRegular, Detail: "directory"}
	}
	return fmt.Errorf("open %s: %w", path, err)
}

// describeMode names a non-regular file type for messages.
func describeMode(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "directory"
	case m&fs.ModeSymlink != 0:
		return "symlink"
	case m&fs.ModeNamedPipe != 0:
		return "FIFO"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return "special file"
}

// readSized is io.ReadAll with the buffer sized for the expected n bytes up front, so that a
// large audit.md is not copied through doubling buffers.
func readSized(r io.Reader, n int64) ([]byte, error) {
	b := make([]byte, 0, max(n, 512))
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		m, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+m]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}

// StableFile is a regular file read by streaming with the checks of ReadFile: at most limit
// bytes, and the same size and modification time before and after the read. The checks that
// need the whole file are made when the reader reaches the end, so Read returns io.EOF only for
// a file that passed them; a caller that stops earlier has not read a checked file. Close it.
type StableFile struct {
	f      *os.File
	r      io.Reader
	path   string
	limit  int64
	n      int64
	before fs.FileInfo
	err    error
}

// OpenStable opens the regular file name relative to the handle as OpenFile does, for a bounded,
// stable streaming read of a file too large to hold in memory.
func (d *Dir) OpenStable(name string, limit int64) (*StableFile, error) {
	f, err := d.OpenFile(name)
	if err != nil {
		return nil, err
	}
	before, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	return &StableFile{f: f, r: io.LimitReader(f, limit+1), path: d.join(name), limit: limit, before: before}, nil
}

// Read reads from the file. More than limit bytes is a *PathError with ReasonTooLarge; a file
// that changed while being read is ReasonUnstable, reported in place of io.EOF.
func (s *StableFile) Read(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.r.Read(p)
	s.n += int64(n)
	if s.n > s.limit {
		s.err = &PathError{Path: s.path, Reason: ReasonTooLarge, Size: s.n, Detail: fmt.Sprintf("more than %d bytes", s.limit)}
		return 0, s.err
	}
	switch {
	case err == io.EOF:
		after, serr := s.f.Stat()
		switch {
		case serr != nil:
			s.err = serr
		case after.Size() != s.before.Size() || !after.ModTime().Equal(s.before.ModTime()) || after.Size() != s.n:
			s.err = &PathError{Path: s.path, Reason: ReasonUnstable}
		default:
			s.err = io.EOF
		}
		return n, s.err
	case err != nil:
		s.err = fmt.Errorf("read %s: %w", s.path, err)
		return n, s.err
	}
	return n, nil
}

// Close closes the file.
func (s *StableFile) Close() error { return s.f.Close() }

// OpenNoFollow opens the regular file at path for a streaming read without following a symlink
// at the last component and without blocking on a FIFO, with ReadFile's refusals (ReasonMissing,
// ReasonSymlink, ReasonNotRegular). The caller bounds what it reads, for example to the size
// fstat gives at open for a file another process appends to.
func OpenNoFollow(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, classifyOpenError(path, err)
	}
	return regularOrClose(f)
}
