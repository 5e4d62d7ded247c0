package publication

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"

	"github.com/docforge/docforge/source/golang"
	"github.com/docforge/docforge/source/project"
)

// Adapter names the built-in extraction that produced the graph; an index built by another
// adapter version is rebuilt. 0.2: the built-in Go adapter and Logic; 0.3: variables and
// constants.
const (
	AdapterName    = "docforge-core"
	AdapterVersion = "0.3.0"
)

// Staleness states of a published generation against the current sources.
const (
	Current = "current" // the published index was built from exactly the current sources
	Stale   = "stale"   // a source, the descriptor or the binding changed since publication
	Unknown = "unknown" // no verifiable publication to compare with
)

// ReceiptSchemaVersion is the version of every receipt file (publication and generation diff).
const ReceiptSchemaVersion = 1

// Paths are the files of one project's index state.
type Paths struct {
	Dir, Index, Publication, Diff, Lock string
}

// PathsFor returns the index paths of a project under an adapter policy. Each policy has its
// own published index (the no-AST one in index-no-ast), so sessions of both policies on one
// project never rebuild each other's index or stale each other's cursors.
func PathsFor(d *project.Descriptor, policy string) Paths {
	dir := d.StatePath("index")
	if policy == golang.PolicyNoAST {
		dir = d.StatePath("index-" + golang.PolicyNoAST)
	}
	return Paths{
		Dir:         dir,
		Index:       filepath.Join(dir, "manifest.json"), // the generation's manifest (index.Manifest)
		Publication: filepath.Join(dir, "publication.json"),
		Diff:        filepath.Join(dir, "generation-diff.json"),
		Lock:        filepath.Join(dir, "lock"),
	}
}

// Signature identifies one published index file exactly. Health checks compare it with a stat
// of the published file, without opening SQLite.
type Signature struct {
	Device     uint64 `json:"device"`
	Inode      uint64 `json:"inode"`
	Size       int64  `json:"size"`
	MtimeNs    int64  `json:"mtime_ns"`
	Generation int64  `json:"generation"`
}

// SameFile reports whether two signatures name the same file in the same state (the
// generation aside).
func (s Signature) SameFile(o Signature) bool {
	return s.Device == o.Device && s.Inode == o.Inode && s.Size == o.Size && s.MtimeNs == o.MtimeNs
}

// Stat returns the signature of the file at path, without a generation.
func Stat(path string) (Signature, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return Signature{}, err
	}
	return Signature{Device: uint64(st.Dev), Inode: st.Ino, Size: st.Size, MtimeNs: st.Mtim.Nano()}, nil
}

// GraphState summarises one generation of the primary graph.
type GraphState struct {
	Generation     int64  `json:"generation"`
	SourceIdentity string `json:"source_identity"`
	SourceHash     string `json:"source_hash"`
	NodeHash       string `json:"node_hash"`
	EdgeHash       string `json:"edge_hash"`
	NodeCount      int64  `json:"node_count"`
	EdgeCount      int64  `json:"edge_count"`
}

// Publication is the publication receipt, written after every publication.
type Publication struct {
	ReceiptSchemaVersion int        `json:"receipt_schema_version"`
	ProjectID            string     `json:"project_id"`
	ProjectRoot          string     `json:"project_root"`
	IndexSchemaVersion   int        `json:"index_schema_version"`
	Adapter              string     `json:"adapter"`
	Policy               string     `json:"policy"`
	DescriptorHash       string     `json:"descriptor_hash"`
	Index                Signature  `json:"index"`
	Graph                GraphState `json:"graph"`
	Build                string     `json:"build"`
	ReceiptHash          string     `json:"receipt_hash"`
}

// Fields gives a receipt's schema version and self-hash for Seal and ReadVerified.
func (p *Publication) Fields() (version *int, hash *string) {
	return &p.ReceiptSchemaVersion, &p.ReceiptHash
}

// Receipt is a receipt file: a schema version and a self-hash field.
type Receipt interface {
	Fields() (version *int, hash *string)
}

// Seal returns the JSON of r with its hash field set to the hash of r with that field empty.
func Seal(r Receipt) ([]byte, error) {
	_, hash := r.Fields()
	*hash = ""
	b, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("encode receipt: %w", err)
	}
	sum := sha256.Sum256(b)
	*hash = "sha256:" + hex.EncodeToString(sum[:])
	out, err := json.MarshalIndent(r, "", " ")
	if err != nil {
		return nil, fmt.Errorf("encode receipt: %w", err)
	}
	return append(out, '\n'), nil
}

// ErrCorrupt marks a receipt that is corrupt, foreign or of another version.
var ErrCorrupt = errors.New("receipt is corrupt or of another version")

// maxReceiptBytes bounds what a receipt reader loads; a larger file is foreign or corrupt.
const maxReceiptBytes = 4 << 20

// ReadVerified reads the receipt at path into r and checks its version and self-hash.
func ReadVerified[R Receipt](path string, r R) (R, error) {
	var zero R
	st, err := os.Lstat(path)
	if err != nil {
		return zero, err
	}
	if !st.Mode().IsRegular() || st.Size() > maxReceiptBytes {
		return zero, fmt.Errorf("receipt %s: %w", path, ErrCorrupt)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return zero, err
	}
	if err := json.Unmarshal(b, r); err != nil {
		return zero, fmt.Errorf("receipt %s: %w: %v", path, ErrCorrupt, err)
	}
	version, hash := r.Fields()
	want := *hash
	*hash = ""
	b, err = json.Marshal(r)
	*hash = want
	sum := sha256.Sum256(b)
	if err != nil || *version != ReceiptSchemaVersion || want != "sha256:"+hex.EncodeToString(sum[:]) {
		return zero, fmt.Errorf("receipt %s: %w", path, ErrCorrupt)
	}
	return r, nil
}

// Read reads and verifies the publication receipt at path.
func Read(path string) (*Publication, error) { return ReadVerified(path, &Publication{}) }

// Errors of Probe.
var (
	ErrNoPublication   = errors.New("no verifiable publication receipt")
	ErrReceiptMismatch = errors.New("the index file is not the one its receipt describes")
)

// Probe returns the five-field signature of a project's published index: the file's stat and
// the generation its receipt records for exactly that file. It never opens SQLite.
func Probe(d *project.Descriptor, policy string) (Signature, error) {
	o := Observe(PathsFor(d, policy))
	switch {
	case o.PubErr != nil:
		return Signature{}, fmt.Errorf("%w: %v", ErrNoPublication, o.PubErr)
	case o.SigErr != nil:
		return Signature{}, fmt.Errorf("%w: %v", ErrNoPublication, o.SigErr)
	case !o.Matches():
		return Signature{}, ErrReceiptMismatch
	}
	sig := o.Sig
	sig.Generation = o.Pub.Graph.Generation
	return sig, nil
}

// Observed is the publication receipt and the stat of the published manifest, as one reader
// saw them.
type Observed struct {
	Pub    *Publication
	PubErr error
	Sig    Signature
	SigErr error
}

// Matches reports whether the receipt describes the manifest that was stat'ed.
func (o Observed) Matches() bool {
	return o.PubErr == nil && o.SigErr == nil && o.Pub.Index.SameFile(o.Sig)
}

// settleWindow bounds how long Observe waits for a publisher to rewrite the receipt.
const settleWindow = 250 * time.Millisecond

// Observe reads the publication receipt and stats the published manifest. When both exist but
// disagree, it reads them again for a short while: a publisher (a sync, or a background merge)
// renames the manifest into place and rewrites the receipt right after, and a reader between
// the two steps would otherwise report a well-formed index as unknown. A receipt that still
// disagrees after the window is what a crash between the steps left, until the next sync.
func Observe(paths Paths) Observed {
	deadline := time.Now().Add(settleWindow)
	for {
		var o Observed
		o.Pub, o.PubErr = Read(paths.Publication)
		o.Sig, o.SigErr = Stat(paths.Index)
		if o.PubErr != nil || o.SigErr != nil || o.Matches() || time.Now().After(deadline) {
			return o
		}
		time.Sleep(10 * time.Millisecond)
	}
}
