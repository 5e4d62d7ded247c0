package index

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io/fs"
	"os"

	"github.com/docforge/docforge/index/graph"
)

// ReceiptSchemaVersion is the version of both receipt files.
const ReceiptSchemaVersion = 1

// Retention limits of the generation-diff receipt: details beyond either are omitted for
// good; counts and the full collection hash still cover them.
const (
	DiffMaxItems = 1000
	DiffMaxBytes = 1 << 20
)

// Signature identifies one published index file exactly. Health checks compare it with a stat
// of the published file, without opening SQLite.
type Signature struct {
	Device     uint64 `json:"device"`
	Inode      uint64 `json:"inode"`
	Size       int64  `json:"size"`
	MtimeNs    int64  `json:"mtime_ns"`
	Generation int64  `json:"generation"`
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

func graphState(st *state) GraphState {
	s, n, e := st.Hashes()
	return GraphState{st.generation, st.identity, s, n, e, st.nodes.Count(), st.edges.Count()}
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

// DiffSummary holds the exact counts of one transition.
type DiffSummary struct {
	NodesAdded   int64 `json:"nodes_added"`
	NodesRemoved int64 `json:"nodes_removed"`
	NodesChanged int64 `json:"nodes_changed"`
	EdgesAdded   int64 `json:"edges_added"`
	EdgesRemoved int64 `json:"edges_removed"`
}

// DiffItem is one node or edge change. Node changes carry the core records before and after
// and the names of the changed fields; edge changes carry the exact triple.
type DiffItem struct {
	Type   string        `json:"type"`   // "node" or "edge"
	Change string        `json:"change"` // "added", "removed" or "changed"
	NodeID string        `json:"node_id,omitempty"`
	Fields []string      `json:"fields,omitempty"`
	Before *graph.Record `json:"before,omitempty"`
	After  *graph.Record `json:"after,omitempty"`
	Edge   *graph.Edge   `json:"edge,omitempty"`
}

// Retention says how much of the transition's detail the receipt kept.
type Retention struct {
	MaxItems      int   `json:"max_items"`
	MaxBytes      int   `json:"max_bytes"`
	TotalItems    int64 `json:"total_items"`
	RetainedItems int   `json:"retained_items"`
	Omitted       int64 `json:"omitted_items"`
	// OmittedBy names the limit that stopped retention: "max_items" or "max_bytes".
	OmittedBy string `json:"omitted_by,omitempty"`
}

// GenerationDiff is the latest primary-graph transition receipt.
type GenerationDiff struct {
	ReceiptSchemaVersion int         `json:"receipt_schema_version"`
	Kind                 string      `json:"kind"`
	ProjectID            string      `json:"project_id"`
	ProjectRoot          string      `json:"project_root"`
	Adapter              string      `json:"adapter"`
	IndexSchemaVersion   int         `json:"index_schema_version"`
	From                 *GraphState `json:"from"`
	To                   GraphState  `json:"to"`
	Index                Signature   `json:"index"`
	Summary              DiffSummary `json:"summary"`
	Retention            Retention   `json:"retention"`
	RetainedItemsHash    string      `json:"retained_items_hash"`
	FullItemsHash        string      `json:"full_items_hash"`
	Items                []DiffItem  `json:"items"`
	ReceiptHash          string      `json:"receipt_hash"`
}

// diffCollector receives a transition's items in their final order, hashes all of them and
// keeps those that fit the retention limits.
type diffCollector struct {
	summary   DiffSummary
	items     []DiffItem
	bytes     int
	total     int64
	full      hash.Hash
	retained  hash.Hash
	stoppedBy string // the retention limit reached ("max_items", "max_bytes"): later items are hashed, never kept
}

func newDiffCollector() *diffCollector {
	c := &diffCollector{full: sha256.New(), retained: sha256.New()}
	c.full.Write([]byte("docforge.diff.items.v1\n"))
	c.retained.Write([]byte("docforge.diff.items.v1\n"))
	return c
}

func (c *diffCollector) add(it DiffItem) error {
	b, err := json.Marshal(it)
	if err != nil {
		return fmt.Errorf("encode diff item: %w", err)
	}
	c.total++
	switch {
	case it.Type == "node" && it.Change == "added":
		c.summary.NodesAdded++
	case it.Type == "node" && it.Change == "removed":
		c.summary.NodesRemoved++
	case it.Type == "node":
		c.summary.NodesChanged++
	case it.Change == "added":
		c.summary.EdgesAdded++
	default:
		c.summary.EdgesRemoved++
	}
	c.full.Write(b)
	c.full.Write([]byte{'\n'})
	switch {
	case c.stoppedBy != "":
	case len(c.items) >= DiffMaxItems:
		c.stoppedBy = "max_items"
	case c.bytes+len(b)+1 > DiffMaxBytes:
		c.stoppedBy = "max_bytes"
	default:
		c.items = append(c.items, it)
		c.bytes += len(b) + 1
		c.retained.Write(b)
		c.retained.Write([]byte{'\n'})
	}
	return nil
}

func (c *diffCollector) receipt(b binding, from *GraphState, to GraphState) *GenerationDiff {
	items := c.items
	if items == nil {
		items = []DiffItem{}
	}
	return &GenerationDiff{
		ReceiptSchemaVersion: ReceiptSchemaVersion,
		Kind:                 "primary_graph_transition",
		ProjectID:            b.projectID,
		ProjectRoot:          b.root,
		Adapter:              AdapterName + "@" + AdapterVersion,
		IndexSchemaVersion:   SchemaVersion,
		From:                 from,
		To:                   to,
		Summary:              c.summary,
		Retention: Retention{MaxItems: DiffMaxItems, MaxBytes: DiffMaxBytes, TotalItems: c.total,
			RetainedItems: len(c.items), Omitted: c.total - int64(len(c.items)), OmittedBy: c.stoppedBy},
		RetainedItemsHash: "sha256:" + hex.EncodeToString(c.retained.Sum(nil)),
		FullItemsHash:     "sha256:" + hex.EncodeToString(c.full.Sum(nil)),
		Items:             items,
	}
}

// sealed returns the JSON of a receipt whose ReceiptHash field is set to the hash of the
// receipt with that field empty. set stores the hash into the receipt.
func sealed(v any, set func(string)) ([]byte, error) {
	set("")
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode receipt: %w", err)
	}
	sum := sha256.Sum256(b)
	set("sha256:" + hex.EncodeToString(sum[:]))
	out, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		return nil, fmt.Errorf("encode receipt: %w", err)
	}
	return append(out, '\n'), nil
}

// receipt is what both receipt types share: a schema version and a self-hash field.
type receipt interface {
	*Publication | *GenerationDiff
}

func receiptFields(v any) (version *int, hash *string) {
	switch r := v.(type) {
	case *Publication:
		return &r.ReceiptSchemaVersion, &r.ReceiptHash
	case *GenerationDiff:
		return &r.ReceiptSchemaVersion, &r.ReceiptHash
	}
	panic("index: not a receipt") // unreachable: the type set above is closed
}

// readVerified reads a receipt at path and checks its version and self-hash.
func readVerified[R receipt](path string, r R) (R, error) {
	if err := readReceipt(path, r); err != nil {
		return nil, err
	}
	version, hash := receiptFields(r)
	want := *hash
	*hash = ""
	b, err := json.Marshal(r)
	*hash = want
	sum := sha256.Sum256(b)
	if err != nil || *version != ReceiptSchemaVersion || want != "sha256:"+hex.EncodeToString(sum[:]) {
		return nil, fmt.Errorf("receipt %s: %w", path, errCorruptReceipt)
	}
	return r, nil
}

// ReadPublication reads and verifies the publication receipt at path.
func ReadPublication(path string) (*Publication, error) { return readVerified(path, &Publication{}) }

// ReadGenerationDiff reads and verifies the generation-diff receipt at path.
func ReadGenerationDiff(path string) (*GenerationDiff, error) {
	return readVerified(path, &GenerationDiff{})
}

var errCorruptReceipt = errors.New("receipt is corrupt or of another version")

// maxReceiptBytes bounds what a receipt reader loads; a larger file is foreign or corrupt.
const maxReceiptBytes = 4 << 20

func readReceipt(path string, v any) error {
	st, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() || st.Size() > maxReceiptBytes {
		return fmt.Errorf("receipt %s: %w", path, errCorruptReceipt)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("receipt %s: %w: %v", path, errCorruptReceipt, err)
	}
	return nil
}

func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
