package index

import (
	"encoding/json"
	"fmt"

	"zombiezen.com/go/sqlite"

	"github.com/docforge/docforge/base/graph"
)

const recordColumns = `id, kind, family, title, status, authority, tags, language, capabilities, source_path, anchor, content_hash, record_hash`

// recordColumnCount is how many columns recordColumns names: a query that selects more after
// them finds the first extra one at this index.
const recordColumnCount = 13

func scanRecord(s *sqlite.Stmt) (graph.Record, string) {
	r := graph.Record{
		ID: s.ColumnText(0), Kind: s.ColumnText(1), Family: s.ColumnText(2), Title: s.ColumnText(3),
		Status: s.ColumnText(4), Authority: s.ColumnText(5), Language: s.ColumnText(7),
		SourcePath: s.ColumnText(9), Anchor: s.ColumnText(10), ContentHash: s.ColumnText(11),
	}
	_ = json.Unmarshal([]byte(s.ColumnText(6)), &r.Tags) // written by this package as a JSON list
	_ = json.Unmarshal([]byte(s.ColumnText(8)), &r.Capabilities)
	return r, s.ColumnText(12)
}

// fullDiff compares the complete graph in conn's main database with the previous generation
// read through old (nil for none) by merging both, ordered by ID and by edge triple, into c.
func fullDiff(conn, old *sqlite.Conn, c *diffCollector) error {
	if err := mergeNodes(conn, old, c); err != nil {
		return err
	}
	return mergeEdges(conn, old, c)
}

func mergeNodes(conn, old *sqlite.Conn, c *diffCollector) error {
	cur := conn.Prep(`SELECT ` + recordColumns + ` FROM nodes ORDER BY id`)
	defer cur.Reset()
	var prev *sqlite.Stmt
	if old != nil {
		prev = old.Prep(`SELECT ` + recordColumns + ` FROM nodes ORDER BY id`)
		defer prev.Reset()
	}
	next := func(s *sqlite.Stmt) (*graph.Record, string, error) {
		if s == nil {
			return nil, "", nil
		}
		ok, err := s.Step()
		if err != nil || !ok {
			return nil, "", err
		}
		r, h := scanRecord(s)
		return &r, h, nil
	}
	a, ah, err := next(cur)
	if err != nil {
		return fmt.Errorf("diff nodes: %w", err)
	}
	b, bh, err := next(prev)
	if err != nil {
		return fmt.Errorf("diff nodes: %w", err)
	}
	for a != nil || b != nil {
		var item DiffItem
		switch {
		case b == nil || (a != nil && a.ID < b.ID):
			item = DiffItem{Type: "node", Change: "added", NodeID: a.ID, After: a}
			a, ah, err = next(cur)
		case a == nil || b.ID < a.ID:
			item = DiffItem{Type: "node", Change: "removed", NodeID: b.ID, Before: b}
			b, bh, err = next(prev)
		default:
			if ah != bh {
				item = DiffItem{Type: "node", Change: "changed", NodeID: a.ID, Fields: b.ChangedFields(*a), Before: b, After: a}
			}
			a, ah, err = next(cur)
			if err == nil {
				b, bh, err = next(prev)
			}
		}
		if err != nil {
			return fmt.Errorf("diff nodes: %w", err)
		}
		if item.Type != "" {
			if err := c.add(item); err != nil {
				return err
			}
		}
	}
	return nil
}

// edgeTriples selects every edge by its ends' IDs, in triple order.
const edgeTriples = `SELECT s.id, r.name, t.id FROM edges e
	JOIN nodes s ON s.key = e.src JOIN relations r ON r.rel = e.rel JOIN nodes t ON t.key = e.dst
	ORDER BY s.id, r.name, t.id`

func mergeEdges(conn, old *sqlite.Conn, c *diffCollector) error {
	cur := conn.Prep(edgeTriples)
	defer cur.Reset()
	var prev *sqlite.Stmt
	if old != nil {
		prev = old.Prep(edgeTriples)
		defer prev.Reset()
	}
	next := func(s *sqlite.Stmt) (*graph.Edge, error) {
		if s == nil {
			return nil, nil
		}
		ok, err := s.Step()
		if err != nil || !ok {
			return nil, err
		}
		return &graph.Edge{Source: s.ColumnText(0), Relation: s.ColumnText(1), Target: s.ColumnText(2)}, nil
	}
	a, err := next(cur)
	if err != nil {
		return fmt.Errorf("diff edges: %w", err)
	}
	b, err := next(prev)
	if err != nil {
		return fmt.Errorf("diff edges: %w", err)
	}
	for a != nil || b != nil {
		var item DiffItem
		switch {
		case b == nil || (a != nil && a.Compare(*b) < 0):
			item = DiffItem{Type: "edge", Change: "added", Edge: a}
			a, err = next(cur)
		case a == nil || b.Compare(*a) < 0:
			item = DiffItem{Type: "edge", Change: "removed", Edge: b}
			b, err = next(prev)
		default:
			a, err = next(cur)
			if err == nil {
				b, err = next(prev)
			}
		}
		if err != nil {
			return fmt.Errorf("diff edges: %w", err)
		}
		if item.Type != "" {
			if err := c.add(item); err != nil {
				return err
			}
		}
	}
	return nil
}
