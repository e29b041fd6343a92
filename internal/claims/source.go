package claims

import (
	"errors"

	"github.com/mastermind-controller/mastermind/internal/fsx"
)

// RootSource is a Source over a repository work tree: Current reads Root/path with
// fsx.ReadInRoot, following no symlink. Baseline and List are the caller's, typically closures
// over gitscope.Repo.
type RootSource struct {
	Root     string                                  // absolute, clean work-tree root
	Baseline func(path string) ([]byte, bool, error) // blob at the baseline; ok=false when absent
	List     func() ([]string, error)                // tracked + untracked non-ignored files
}

var errNoBaseline = errors.New("claims: RootSource has no Baseline function")

// Source returns the Source view of s.
func (s RootSource) Source() Source { return rootSource{s} }

type rootSource struct{ s RootSource }

func (r rootSource) Current(path string) ([]byte, error) {
	return fsx.ReadInRoot(r.s.Root, path, MaxFileBytes)
}

func (r rootSource) Baseline(path string) ([]byte, bool, error) {
	if r.s.Baseline == nil {
		return nil, false, errNoBaseline
	}
	return r.s.Baseline(path)
}

func (r rootSource) ListFiles() ([]string, error) {
	if r.s.List == nil {
		return nil, errors.New("claims: RootSource has no List function")
	}
	return r.s.List()
}
