package store

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/mastermind-controller/mastermind/internal/fsx"
	"github.com/mastermind-controller/mastermind/internal/repopath"
)

// Files of a repository's store folder besides repo.json and tasks/.
const (
	registryFile = "written.json"
	repoLockFile = "lock"
	tempKeyFile  = "temp.key"
)

// RegistryVersion is the registry_version this package reads and writes.
const RegistryVersion = 1

// maxRegistryBytes bounds the registry file.
const maxRegistryBytes = 4 << 20

// RegistryLockWait bounds the wait for a repository's registry lock.
var RegistryLockWait = 10 * time.Second

// Registry is what the controller wrote into a work tree besides a task's state.json and
// audit.md mirrors (which the task's Record keeps), the repository's written.json:
//
//	{"registry_version": 1,
//	 "files": {"<repository-relative path>": {"sha256": "…", "earlier": ["…", …]}, …},
//	 "current": "<task>", "updated_at": <unix seconds>}
//
// Files holds, for each controller name of trust-model.md I3 that the controller wrote (release
// notes, _lessons.md, an archived history review, a pending history review, a dispatch counter,
// the current pointer), the SHA-256 of the last version ("" when the controller removed it) and
// of the versions before it. Current is the task the last approved pre-flight was for ("" after its
// completion): the current pointer in the work tree is only its mirror (I4).
type Registry struct {
	RegistryVersion int               `json:"registry_version"`
	Files           map[string]Mirror `json:"files"`
	Current         string            `json:"current"`
	UpdatedAt       int64             `json:"updated_at"`
}

// SetFile records that the controller is about to write data to the repository-relative path
// rel, or remove it when data is nil.
func (g *Registry) SetFile(rel string, data []byte) {
	if g.Files == nil {
		g.Files = map[string]Mirror{}
	}
	h := ""
	if data != nil {
		h = fsx.SHA256Hex(data)
	}
	m, ok := g.Files[rel]
	g.Files[rel] = m.next(ok, h)
}

// Wrote reports whether h, the lowercase hex SHA-256 of rel as it is now or "" when it does not
// exist, is the last or an earlier version the controller wrote there.
func (g *Registry) Wrote(rel, h string) bool {
	if g == nil {
		return false
	}
	m, ok := g.Files[rel]
	if !ok {
		return false
	}
	st := m.check(h, h != "")
	return st == MirrorMatches || st == MirrorStale
}

// validate checks a registry read back.
func (g *Registry) validate() error {
	if g.RegistryVersion != RegistryVersion {
		return fmt.Errorf("registry_version %d is not supported; expected %d", g.RegistryVersion, RegistryVersion)
	}
	for p, m := range g.Files {
		if c := repopath.ClassifyControl(p); c.Kind != repopath.ControlWritten && (c.Kind != repopath.ControlContract || c.Name != "history-review.md") {
			return fmt.Errorf("file %q is not a controller name", p)
		}
		if err := m.validate(); err != nil {
			return fmt.Errorf("file %s: %w", p, err)
		}
	}
	if g.Current != "" && !repopath.TaskNamePattern.MatchString(g.Current) {
		return fmt.Errorf("current %q is not a task folder name", g.Current)
	}
	return nil
}

// Repo is one work tree's store folder, open: its registry, its lock and the key of its
// temporary file names.
type Repo struct {
	dir *fsx.Dir
	id  string
}

// OpenRepo opens the store folder of the work tree repo, creating it with mode 0700 when missing.
func (s *Store) OpenRepo(repo RepoRef) (*Repo, error) {
	repo, id, err := s.resolveRepo(repo)
	if err != nil {
		return nil, err
	}
	rd, err := s.makeRepoDir(repo, id)
	if err != nil {
		return nil, err
	}
	return &Repo{dir: rd, id: id}, nil
}

// FindRepo opens the store folder of the work tree whose git directory is gitDir without creating
// anything, for readers. A work tree the store has no folder for is (nil, nil).
func (s *Store) FindRepo(gitDir string) (*Repo, error) {
	id, err := RepoID(gitDir)
	if err != nil {
		return nil, wrap("resolve", gitDir, err)
	}
	d, err := s.findRepoDirIn(id, "")
	if d == nil {
		return nil, err
	}
	return &Repo{dir: d, id: id}, nil
}

// Path returns the repository's store folder.
func (r *Repo) Path() string { return r.dir.Path() }

// Close releases the folder handle.
func (r *Repo) Close() error { return r.dir.Close() }

// Lock takes the registry lock, waiting at most RegistryLockWait.
func (r *Repo) Lock() (*fsx.Lock, error) {
	l, err := r.dir.LockWait(repoLockFile, RegistryLockWait)
	if err != nil {
		return nil, wrap("lock", filepath.Join(r.Path(), repoLockFile), err)
	}
	return l, nil
}

// Registry reads the registry; none yet is an empty one. A registry that does not parse is an
// *Error of KindCorrupt, left as it is.
func (r *Repo) Registry() (*Registry, error) {
	p := filepath.Join(r.Path(), registryFile)
	data, err := r.dir.ReadFile(registryFile, maxRegistryBytes)
	if fsx.ReasonOf(err) == fsx.ReasonMissing {
		return &Registry{RegistryVersion: RegistryVersion, Files: map[string]Mirror{}}, nil
	}
	if err != nil {
		if rs := fsx.ReasonOf(err); rs == fsx.ReasonTooLarge || rs == fsx.ReasonUnstable {
			return nil, &Error{Kind: KindCorrupt, Op: "read", Path: p, Err: err}
		}
		return nil, wrap("read", p, err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var g Registry
	if err := dec.Decode(&g); err != nil {
		return nil, &Error{Kind: KindCorrupt, Op: "read", Path: p, Err: fmt.Errorf("not a registry: %v", err)}
	}
	if !atEOF(dec) {
		return nil, &Error{Kind: KindCorrupt, Op: "read", Path: p, Err: errors.New("trailing data after the registry")}
	}
	if err := g.validate(); err != nil {
		return nil, &Error{Kind: KindCorrupt, Op: "read", Path: p, Err: err}
	}
	if g.Files == nil {
		g.Files = map[string]Mirror{}
	}
	return &g, nil
}

// Update changes the registry under its lock: fn gets the current registry, and what it leaves
// there is saved atomically (fsynced) before Update returns. A failure leaves the previous
// registry. Callers record a file here before they write it to the work tree, so that a kill
// between the two leaves a version the registry already names.
func (r *Repo) Update(now time.Time, fn func(*Registry) error) error {
	l, err := r.Lock()
	if err != nil {
		return err
	}
	defer l.Unlock()
	g, err := r.Registry()
	if err != nil {
		return err
	}
	if err := fn(g); err != nil {
		return err
	}
	g.RegistryVersion, g.UpdatedAt = RegistryVersion, now.Unix()
	if err := g.validate(); err != nil {
		return &Error{Kind: KindCorrupt, Op: "write", Path: filepath.Join(r.Path(), registryFile), Err: fmt.Errorf("internal error: refusing to write an invalid registry: %w", err)}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(g); err != nil {
		return &Error{Kind: KindIO, Op: "write", Path: filepath.Join(r.Path(), registryFile), Err: err}
	}
	return wrap("write", filepath.Join(r.Path(), registryFile), r.dir.WriteFileAtomic(registryFile, b.Bytes(), 0o600))
}

// FileWrite is one work-tree file the controller is about to write: Data, or a removal when
// Data is nil.
type FileWrite struct {
	Rel  string
	Data []byte
}

// Record records that the controller is about to write data to rel (nil: remove it).
func (r *Repo) Record(rel string, data []byte, now time.Time) error {
	return r.RecordAll(now, FileWrite{Rel: rel, Data: data})
}

// RecordAll is Record for several files in one registry update, so that the files one step
// writes together cost one locked, fsynced rewrite of the registry.
func (r *Repo) RecordAll(now time.Time, files ...FileWrite) error {
	return r.Update(now, func(g *Registry) error {
		for _, f := range files {
			g.SetFile(f.Rel, f.Data)
		}
		return nil
	})
}

// TempNames returns the namer of the temporary files task's controller writes in the work tree
// (fsx.Dir.SetTempNames): their names carry a MAC under a key only the store holds, so the
// controller can find and remove what a killed run of its own left behind, and nothing else.
func (r *Repo) TempNames(task string) (*TempNames, error) {
	key, err := r.dir.ReadFile(tempKeyFile, 1024)
	if fsx.ReasonOf(err) == fsx.ReasonMissing {
		key = make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return nil, err
		}
		if err := r.dir.WriteFileAtomic(tempKeyFile, key, 0o600); err != nil {
			return nil, wrap("write", filepath.Join(r.Path(), tempKeyFile), err)
		}
		// Another controller may have written its key first: use whichever is there.
		if key, err = r.dir.ReadFile(tempKeyFile, 1024); err != nil {
			return nil, wrap("read", filepath.Join(r.Path(), tempKeyFile), err)
		}
	} else if err != nil {
		return nil, wrap("read", filepath.Join(r.Path(), tempKeyFile), err)
	}
	if len(key) != 32 {
		return nil, &Error{Kind: KindCorrupt, Op: "read", Path: filepath.Join(r.Path(), tempKeyFile), Err: errors.New("not a 32-byte key")}
	}
	return &TempNames{key: key, task: task}, nil
}

// TempNames names the temporary files of one task's controller: ".<name>.<nonce><mac>", with a
// random 8-byte nonce and the first 8 bytes of HMAC-SHA256(key, task, name, nonce), both in hex.
// It implements fsx.TempNamer.
type TempNames struct {
	key  []byte
	task string
}

// TempName returns a new temporary name for an atomic write of name.
func (n *TempNames) TempName(name string) string {
	nonce := make([]byte, 8)
	_, _ = rand.Read(nonce)
	return "." + name + "." + hex.EncodeToString(nonce) + hex.EncodeToString(n.mac(name, nonce))
}

// IsTemp reports whether entry is a temporary file this task's controller named.
func (n *TempNames) IsTemp(entry string) bool {
	if len(entry) < 35 || entry[0] != '.' || entry[len(entry)-33] != '.' {
		return false
	}
	name, tail := entry[1:len(entry)-33], entry[len(entry)-32:]
	raw, err := hex.DecodeString(tail)
	if err != nil || strings.ToLower(tail) != tail || name == "" {
		return false
	}
	return hmac.Equal(raw[8:], n.mac(name, raw[:8]))
}

func (n *TempNames) mac(name string, nonce []byte) []byte {
	m := hmac.New(sha256.New, n.key)
	m.Write([]byte(n.task + "\x00" + name + "\x00"))
	m.Write(nonce)
	return m.Sum(nil)[:8]
}
