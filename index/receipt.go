package index

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"hash"
	"io/fs"

	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/base/jsonenc"
	"github.com/docforge/docforge/index/publication"
)

// Retention limits of the generation-diff receipt: details beyond either are omitted for
// good; counts and the full collection hash still cover them.
const (
	DiffMaxItems = 1000
	DiffMaxBytes = 1 << 20
)

func graphState(st *state) publication.GraphState {
	s, n, e := st.Hashes()
	return publication.GraphState{Generation: st.generation, SourceIdentity: st.identity, SourceHash: s, NodeHash: n, EdgeHash: e,
		NodeCount: st.nodes.Count(), EdgeCount: st.edges.Count()}
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
	ReceiptSchemaVersion int                     `json:"receipt_schema_version"`
	Kind                 string                  `json:"kind"`
	ProjectID            string                  `json:"project_id"`
	ProjectRoot          string                  `json:"project_root"`
	Adapter              string                  `json:"adapter"`
	IndexSchemaVersion   int                     `json:"index_schema_version"`
	From                 *publication.GraphState `json:"from"`
	To                   publication.GraphState  `json:"to"`
	Index                publication.Signature   `json:"index"`
	Summary              DiffSummary             `json:"summary"`
	Retention            Retention               `json:"retention"`
	RetainedItemsHash    string                  `json:"retained_items_hash"`
	FullItemsHash        string                  `json:"full_items_hash"`
	Items                []DiffItem              `json:"items"`
	ReceiptHash          string                  `json:"receipt_hash"`
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
	buf       []byte
}

// appendJSON appends json.Marshal's encoding of it, written without reflection: a first cold
// build's diff encodes every node and edge, and json.Marshal was most of its time
// (docs/benchmarks.md). TestDiffItemJSONIsEncodingJSONs holds the two together.
func (it *DiffItem) appendJSON(dst []byte) []byte {
	o := jsonenc.NewObject(dst)
	o.Str("type", it.Type)
	o.Str("change", it.Change)
	if it.NodeID != "" {
		o.Str("node_id", it.NodeID)
	}
	if len(it.Fields) > 0 {
		o.List("fields", it.Fields, false)
	}
	if it.Before != nil {
		o.Value("before", it.Before.AppendJSON)
	}
	if it.After != nil {
		o.Value("after", it.After.AppendJSON)
	}
	if it.Edge != nil {
		o.Value("edge", it.Edge.AppendJSON)
	}
	return o.End()
}

func newDiffCollector() *diffCollector {
	c := &diffCollector{full: sha256.New(), retained: sha256.New()}
	c.full.Write([]byte("docforge.diff.items.v1\n"))
	c.retained.Write([]byte("docforge.diff.items.v1\n"))
	return c
}

func (c *diffCollector) add(it DiffItem) error {
	c.buf = it.appendJSON(c.buf[:0])
	b := c.buf
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

func (c *diffCollector) receipt(b binding, from *publication.GraphState, to publication.GraphState) *GenerationDiff {
	items := c.items
	if items == nil {
		items = []DiffItem{}
	}
	return &GenerationDiff{
		ReceiptSchemaVersion: publication.ReceiptSchemaVersion,
		Kind:                 "primary_graph_transition",
		ProjectID:            b.projectID,
		ProjectRoot:          b.root,
		Adapter:              publication.AdapterName + "@" + publication.AdapterVersion,
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

// ReadGenerationDiff reads and verifies the generation-diff receipt at path.
func ReadGenerationDiff(path string) (*GenerationDiff, error) {
	return publication.ReadVerified(path, &GenerationDiff{})
}

// Fields gives the receipt's schema version and self-hash (publication.Receipt).
func (d *GenerationDiff) Fields() (version *int, hash *string) {
	return &d.ReceiptSchemaVersion, &d.ReceiptHash
}

func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
