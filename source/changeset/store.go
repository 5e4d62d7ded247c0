package changeset

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/base/safefile"
	"github.com/docforge/docforge/source/project"
)

// Receipt records one lifecycle transition. Receipts are numbered; the newest is the state.
type Receipt struct {
	SchemaVersion int    `json:"schema_version"`
	Seq           int    `json:"seq"`
	ChangesetID   string `json:"changeset_id"`
	Transition    string `json:"transition"` // created, updated, validated, stale, rebased, abandoned, applied
	From          string `json:"from,omitempty"`
	To            string `json:"to"`
	ChangesetHash string `json:"changeset_hash"`
	Actor         string `json:"actor"` // the writer, applier or "docforge" for observed staleness
	At            string `json:"at"`
	Reason        string `json:"reason,omitempty"`
	Previous      string `json:"previous_receipt_hash,omitempty"`
}

// Record is a stored changeset: its current document, hash, state and receipts.
type Record struct {
	Changeset *Changeset `json:"changeset"`
	Hash      string     `json:"changeset_hash"`
	Status    string     `json:"status"`
	Receipts  []Receipt  `json:"receipts"`
	Chars     int        `json:"chars"` // length of the canonical document
}

// Store is the changeset folder of one project.
type Store struct {
	d        *project.Descriptor
	root     string // absolute changeset_root
	realRoot string // the project root, symlinks resolved
	// beforeCommit, when set, runs before each file of a commit is renamed into place. Tests
	// use it to stop a write at every step.
	beforeCommit func(step string) error
}

// OpenStore returns the store of d. It creates nothing; the first write creates the folder.
func OpenStore(d *project.Descriptor) (*Store, error) {
	real, err := filepath.EvalSymlinks(d.Root)
	if err != nil {
		return nil, fmt.Errorf("open changeset store: %w", err)
	}
	return &Store{d: d, root: filepath.Join(d.Root, filepath.FromSlash(d.Proposals.ChangesetRoot)), realRoot: real}, nil
}

// Confined checks that abs lies below root by name and that no symlink sits anywhere on its
// existing part: the deepest existing ancestor must resolve to itself. projectRoot is the
// symlink-resolved project root. Refusing every symlink, not only those that point outside,
// keeps the check free of races between resolving and writing. rootRel names the declared
// root in the error.
func Confined(projectRoot, root, abs, rootRel string) error {
	// Messages name paths relative to the project: a machine path says nothing to a client
	// and tells it about the host.
	shown := func(p string) string {
		if r, err := filepath.Rel(projectRoot, p); err == nil && !strings.HasPrefix(r, "..") {
			return filepath.ToSlash(r)
		}
		return filepath.Base(p)
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return escape("%s is outside %s", shown(abs), rootRel)
	}
	if rel, err := filepath.Rel(projectRoot, root); err != nil || strings.HasPrefix(rel, "..") {
		return escape("%s is outside the project", rootRel)
	}
	for p := abs; ; p = filepath.Dir(p) {
		real, err := filepath.EvalSymlinks(p)
		if errors.Is(err, fs.ErrNotExist) {
			if p == projectRoot || p == filepath.Dir(p) {
				return nil
			}
			continue
		}
		if errors.Is(err, syscall.ENOTDIR) {
			return problem.Errorf(problem.InvalidArgument, "%s passes through a file as if it were a folder", shown(abs))
		}
		if err != nil {
			return problem.Wrap(problem.InvalidArgument, err, "%s cannot be resolved", shown(p))
		}
		if real != p {
			return escape("%s resolves to %s through a symlink; %s must be a real directory", shown(p), shown(real), rootRel)
		}
		return nil
	}
}

func escape(format string, args ...any) error {
	pe := problem.Errorf(problem.PathEscape, format, args...)
	pe.Problem.Remediation = "keep changeset_root and preview_root real directories inside the project; remove the symlink"
	return pe
}

// ensureDir creates dir (mode 0755) with its parents and checks its confinement.
func (s *Store) ensureDir(dir string) error {
	if err := Confined(s.d.Root, s.root, dir, s.d.Proposals.ChangesetRoot); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	return Confined(s.d.Root, s.root, dir, s.d.Proposals.ChangesetRoot)
}

// Lock takes the project's changeset lock, serialising writers across processes.
func (s *Store) Lock(ctx context.Context) (func(), error) {
	if err := s.ensureDir(s.root); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	unlock, err := safefile.Lock(ctx, filepath.Join(s.root, ".lock"))
	if errors.Is(err, safefile.ErrLockBusy) {
		return nil, problem.Wrap(problem.IndexBusy, err, "another process holds the changeset lock")
	}
	return unlock, err
}

func (s *Store) dir(id string) string { return filepath.Join(s.root, id) }

// NewID returns a fresh changeset ID: the date and 8 random hex digits.
func NewID(now time.Time) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return "cs-" + now.UTC().Format("20060102") + "-" + hex.EncodeToString(b[:])
}

// Exists reports whether a changeset folder with id exists.
func (s *Store) Exists(id string) bool {
	_, err := os.Lstat(s.dir(id))
	return err == nil
}

// Load reads one changeset's newest complete state.
func (s *Store) Load(id string) (*Record, error) {
	if !ValidID(id) {
		return nil, problem.Errorf(problem.InvalidArgument, "changeset ID %q is malformed (expected something like cs-20261202-1a2b3c4d)", id)
	}
	dir := s.dir(id)
	if err := Confined(s.d.Root, s.root, dir, s.d.Proposals.ChangesetRoot); err != nil {
		return nil, err
	}
	receipts := filepath.Join(dir, "receipts")
	if err := Confined(s.d.Root, s.root, receipts, s.d.Proposals.ChangesetRoot); err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(receipts)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, problem.Errorf(problem.ChangesetNotFound, "no changeset %q under %s", id, s.d.Proposals.ChangesetRoot)
	}
	if err != nil {
		return nil, fmt.Errorf("read changeset %s: %w", id, err)
	}
	rec := &Record{}
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasSuffix(name, ".json") || strings.HasPrefix(name, ".") {
			continue // temporary files of an interrupted write
		}
		data, err := os.ReadFile(filepath.Join(dir, "receipts", name))
		if err != nil {
			return nil, fmt.Errorf("read receipt %s/%s: %w", id, name, err)
		}
		var r Receipt
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, corrupt(id, "receipt %s does not decode: %v", name, err)
		}
		rec.Receipts = append(rec.Receipts, r)
	}
	slices.SortFunc(rec.Receipts, func(a, b Receipt) int { return a.Seq - b.Seq })
	if len(rec.Receipts) == 0 {
		return nil, problem.Errorf(problem.ChangesetNotFound, "changeset %q has no receipt yet (an interrupted create); it does not exist", id)
	}
	last := rec.Receipts[len(rec.Receipts)-1]
	// Read only through real directories and a real file: a symlink could lead the read, and
	// what get, validate and diff show, anywhere.
	version := filepath.Join(dir, "versions", versionName(last.ChangesetHash))
	if err := Confined(s.d.Root, s.root, version, s.d.Proposals.ChangesetRoot); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(version)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, corrupt(id, "the version its last receipt names (%s) is missing", last.ChangesetHash)
	}
	if err != nil {
		return nil, fmt.Errorf("read changeset %s version %s: %w", id, last.ChangesetHash, err)
	}
	if got := HashBytes(data); got != last.ChangesetHash {
		return nil, corrupt(id, "its version file hashes to %s where its last receipt says %s", got, last.ChangesetHash)
	}
	cs, err := Decode(data)
	if err != nil {
		return nil, corrupt(id, "its version file does not decode: %v", err)
	}
	rec.Changeset, rec.Hash, rec.Status, rec.Chars = cs, last.ChangesetHash, last.To, len(data)
	return rec, nil
}

// corrupt is the error of a changeset whose stored files were changed or damaged outside
// DocForge: it says what was found, and the code says not to trust the changeset.
func corrupt(id, format string, args ...any) error {
	return problem.Errorf(problem.ChangesetCorrupt, "changeset %s was changed outside DocForge: %s", id, fmt.Sprintf(format, args...))
}

func versionName(hash string) string { return strings.TrimPrefix(hash, "sha256:") + ".json" }

// List reads every changeset, ordered by ID. A folder that cannot be read is skipped and
// reported, never fatal: one damaged changeset must not hide the others.
func (s *Store) List() ([]*Record, []error, error) {
	if err := Confined(s.d.Root, s.root, s.root, s.d.Proposals.ChangesetRoot); err != nil {
		return nil, nil, err
	}
	entries, err := os.ReadDir(s.root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("list changesets: %w", err)
	}
	var out []*Record
	var bad []error
	for _, e := range entries {
		if !e.IsDir() || !ValidID(e.Name()) {
			continue
		}
		rec, err := s.Load(e.Name())
		if problem.CodeOf(err) == problem.ChangesetNotFound {
			continue
		}
		if err != nil {
			bad = append(bad, err)
			continue
		}
		out = append(out, rec)
	}
	return out, bad, nil
}

// Commit stores cs as the changeset's new version and records the transition to state to;
// rec is the current record (nil for a new changeset). The caller holds the lock. The
// receipt is the commit point: until it is renamed into place the previous state stands.
func (s *Store) Commit(rec *Record, cs *Changeset, transition, to, actor, reason string, now time.Time) (*Record, error) {
	data, hash, err := cs.Encode()
	if err != nil {
		return nil, err
	}
	dir := s.dir(cs.ID)
	for _, sub := range []string{"versions", "receipts"} {
		if err := s.ensureDir(filepath.Join(dir, sub)); err != nil {
			return nil, err
		}
	}
	version := filepath.Join(dir, "versions", versionName(hash))
	if _, err := os.Stat(version); errors.Is(err, fs.ErrNotExist) {
		if err := safefile.WriteFileWith(version, data, 0o644, s.hook("version")); err != nil {
			return nil, fmt.Errorf("store changeset %s: %w", cs.ID, err)
		}
	}
	r := Receipt{SchemaVersion: SchemaVersion, Seq: 1, ChangesetID: cs.ID, Transition: transition, To: to,
		ChangesetHash: hash, Actor: actor, At: now.UTC().Format(time.RFC3339Nano), Reason: reason}
	next := &Record{Changeset: cs, Hash: hash, Status: to, Chars: len(data)}
	if rec != nil {
		last := rec.Receipts[len(rec.Receipts)-1]
		r.Seq, r.From = last.Seq+1, last.To
		prev, _ := Canonical(last)
		r.Previous = HashBytes(prev)
		next.Receipts = slices.Clone(rec.Receipts)
	}
	body, err := Canonical(r)
	if err != nil {
		return nil, err
	}
	name := fmt.Sprintf("%06d-%s.json", r.Seq, transition)
	if err := safefile.WriteFileWith(filepath.Join(dir, "receipts", name), body, 0o644, s.hook("receipt")); err != nil {
		return nil, fmt.Errorf("record %s of changeset %s: %w", transition, cs.ID, err)
	}
	next.Receipts = append(next.Receipts, r)
	return next, nil
}

func (s *Store) hook(step string) func() error {
	if s.beforeCommit == nil {
		return nil
	}
	return func() error { return s.beforeCommit(step) }
}
