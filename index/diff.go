package index

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"

	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/index/publication"
)

const recordColumns = `id, kind, family, title, status, authority, tags, language, capabilities, source_path, anchor, content_hash, record_hash`

// recordColumnCount is how many columns recordColumns names: a query that selects more after
// them finds the first extra one at this index.
const recordColumnCount = 13

// storedRecord is a node's record as the index stores it and a diff reports it, whichever
// build made it: lists are never null there.
func storedRecord(r graph.Record) graph.Record {
	if r.Tags == nil {
		r.Tags = []string{}
	}
	if r.Capabilities == nil {
		r.Capabilities = []string{}
	}
	return r
}

func scanRecord(s *sqlite.Stmt) (graph.Record, string) {
	r := graph.Record{
		ID: s.ColumnText(0), Kind: s.ColumnText(1), Family: s.ColumnText(2), Title: s.ColumnText(3),
		Status: s.ColumnText(4), Authority: s.ColumnText(5), Language: s.ColumnText(7),
		SourcePath: s.ColumnText(9), Anchor: s.ColumnText(10), ContentHash: s.ColumnText(11),
	}
	r.Tags, _ = jsonListOf(s.ColumnText(6)) // written by this package (jsonList)
	r.Capabilities, _ = jsonListOf(s.ColumnText(8))
	return r, s.ColumnText(12)
}

// jsonListOf reads a list of strings that jsonList wrote. Most nodes have none, and "[]" is
// read without the decoder, which was a sixth of reading every record for a diff.
func jsonListOf(text string) ([]string, error) {
	if text == "[]" {
		return []string{}, nil
	}
	var out []string
	err := json.Unmarshal([]byte(text), &out)
	return out, err
}

// unchangedSets says which of a cold build's sets, its nodes' records and its edges, have the
// digest of the previous generation's (state): those are the same sets, so have no diff items,
// and the diff need not read them from either file. A forced rebuild of unchanged sources at
// 100k nodes spent 0.9 to 1.1 s diffing to find nothing; now 2 to 3 ms (docs/benchmarks.md).
type unchangedSets struct{ nodes, edges bool }

// fullDiff compares the complete graph in conn's main database with the previous generation
// read through old (nil for none) by merging both, ordered by ID and by edge triple, into c;
// the nodes only when diffNodes. The edges of both arrive on edges, read on connections of
// their own (readEdgeLists) while the nodes are merged here.
func fullDiff(conn, old *sqlite.Conn, diffNodes bool, edges <-chan edgeLists, c *diffCollector) error {
	// The collector encodes and hashes each item on a goroutine of its own, in order, while
	// this one reads and merges the rows: a third of a cold diff's time, on a core the
	// build's single-threaded end leaves idle.
	items, added := make(chan DiffItem, 256), make(chan error, 1)
	go func() {
		var err error
		for it := range items {
			if err == nil {
				err = c.add(it)
			}
		}
		added <- err
	}()
	emit := func(it DiffItem) { items <- it }
	var err error
	if diffNodes {
		err = mergeNodes(conn, old, emit)
	}
	if err == nil {
		e := <-edges
		if err = e.err; err == nil {
			mergeEdges(e.cur, e.prev, emit)
		}
	}
	close(items)
	if aerr := <-added; err == nil {
		err = aerr
	}
	return err
}

// edgeLists are the edges of a built file and of the generation before it, in triple order.
type edgeLists struct {
	cur, prev []graph.Edge
	err       error
}

// readEdgeLists reads the edges of the complete build at path and of the previous generation
// at prev (when havePrev), each on a connection of its own. The build is opened immutable:
// it no longer changes, and its writer holds it exclusively.
func readEdgeLists(ctx context.Context, path string, prev publication.Paths, havePrev bool) edgeLists {
	var out edgeLists
	conn, err := openRead(ctx, path)
	if err != nil {
		return edgeLists{err: err}
	}
	defer conn.Close()
	if out.cur, err = edgeTriples(conn); err != nil {
		return edgeLists{err: fmt.Errorf("diff edges: %w", err)}
	}
	if havePrev {
		g, err := openGeneration(ctx, prev, "nodes", "edges")
		if err != nil {
			return edgeLists{err: fmt.Errorf("open the previous generation to diff: %w", err)}
		}
		defer g.conn.Close()
		if out.prev, err = edgeTriples(g.conn); err != nil {
			return edgeLists{err: fmt.Errorf("diff edges of the previous generation: %w", err)}
		}
	}
	return out
}

// nodesByID reads every node's record in ID order. The unary plus keeps SQLite from walking
// the ID index, which visits the table's pages in no order and read one page per node through
// the page cache (600,000 read calls for the previous generation at 100k nodes); scanning the
// table and sorting reads each page once.
const nodesByID = `SELECT ` + recordColumns + ` FROM nodes ORDER BY +id`

func mergeNodes(conn, old *sqlite.Conn, emit func(DiffItem)) error {
	cur := conn.Prep(nodesByID)
	defer cur.Reset()
	var prev *sqlite.Stmt
	if old != nil {
		prev = old.Prep(nodesByID)
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
			emit(item)
		}
	}
	return nil
}

// edgeTriples returns every edge by its ends' IDs, in triple order. The tables are read in
// their own order and the triples sorted here: joining each edge to its ends' rows in triple
// order visited the nodes table at random, a read call per edge end. They are sorted by the
// ranks of their IDs and relation names, not by the strings, which compared half a million
// triples' strings some twenty times each at 100k nodes (docs/benchmarks.md).
func edgeTriples(conn *sqlite.Conn) ([]graph.Edge, error) {
	type named struct {
		key  int64
		name string
	}
	var nodes, rels []named
	type ranked struct{ src, rel, dst int32 }
	var rows [][3]int64
	for _, q := range []struct {
		sql string
		row func(*sqlite.Stmt)
	}{
		{`SELECT key, id FROM nodes`, func(s *sqlite.Stmt) { nodes = append(nodes, named{s.ColumnInt64(0), s.ColumnText(1)}) }},
		{`SELECT rel, name FROM relations`, func(s *sqlite.Stmt) { rels = append(rels, named{s.ColumnInt64(0), s.ColumnText(1)}) }},
		{`SELECT src, rel, dst FROM edges`, func(s *sqlite.Stmt) {
			rows = append(rows, [3]int64{s.ColumnInt64(0), s.ColumnInt64(1), s.ColumnInt64(2)})
		}},
	} {
		if err := sqlitex.Execute(conn, q.sql, &sqlitex.ExecOptions{
			ResultFunc: func(s *sqlite.Stmt) error { q.row(s); return nil },
		}); err != nil {
			return nil, err
		}
	}
	// rank numbers each key by its name's place in name order.
	rank := func(list []named) map[int64]int32 {
		slices.SortFunc(list, func(a, b named) int { return strings.Compare(a.name, b.name) })
		m := make(map[int64]int32, len(list))
		for i, n := range list {
			m[n.key] = int32(i)
		}
		return m
	}
	nodeRank, relRank := rank(nodes), rank(rels)
	ranks := make([]ranked, 0, len(rows))
	for _, r := range rows {
		src, srcOK := nodeRank[r[0]]
		rel, relOK := relRank[r[1]]
		dst, dstOK := nodeRank[r[2]]
		if srcOK && relOK && dstOK { // as the join did: an edge without its ends is no edge
			ranks = append(ranks, ranked{src, rel, dst})
		}
	}
	slices.SortFunc(ranks, func(a, b ranked) int {
		return cmp.Or(cmp.Compare(a.src, b.src), cmp.Compare(a.rel, b.rel), cmp.Compare(a.dst, b.dst))
	})
	edges := make([]graph.Edge, len(ranks))
	for i, r := range ranks {
		edges[i] = graph.Edge{Source: nodes[r.src].name, Relation: rels[r.rel].name, Target: nodes[r.dst].name}
	}
	return edges, nil
}

// mergeEdges emits the edges only cur holds as added and those only prev holds as removed.
func mergeEdges(cur, prev []graph.Edge, emit func(DiffItem)) {
	next := func(list *[]graph.Edge) *graph.Edge {
		if len(*list) == 0 {
			return nil
		}
		e := &(*list)[0]
		*list = (*list)[1:]
		return e
	}
	a, b := next(&cur), next(&prev)
	for a != nil || b != nil {
		var item DiffItem
		switch {
		case b == nil || (a != nil && a.Compare(*b) < 0):
			item = DiffItem{Type: "edge", Change: "added", Edge: a}
			a = next(&cur)
		case a == nil || b.Compare(*a) < 0:
			item = DiffItem{Type: "edge", Change: "removed", Edge: b}
			b = next(&prev)
		default:
			a, b = next(&cur), next(&prev)
		}
		if item.Type != "" {
			emit(item)
		}
	}
}
