package index

import (
	"fmt"
	"slices"
	"testing"

	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"

	"github.com/docforge/docforge/base/graph"
)

// A cold build inserts its declared and resolved edges as one run, many rows a statement.
// Every distinct triple is one row and counts once in the edge digest; of a triple both
// lists hold, the declared edge is kept with its anchor.
func TestInsertEdgesOneRunOfDistinctTriples(t *testing.T) {
	chain := func(n int) []graph.EdgeAt {
		var out []graph.EdgeAt
		for i := range n {
			out = append(out, graph.EdgeAt{Edge: graph.Edge{Source: fmt.Sprint("n", i), Relation: "calls", Target: fmt.Sprint("n", i+1)}})
		}
		return out
	}
	link := graph.EdgeAt{Edge: graph.Edge{Source: "n1", Relation: "links_to", Target: "n0"}, Anchor: "wal"}
	for _, tc := range []struct {
		name               string
		declared, resolved []graph.EdgeAt
		want               []graph.EdgeAt // the distinct edges, with the anchor kept
	}{
		{name: "none"},
		{name: "one", resolved: chain(1), want: chain(1)},
		{name: "a statement's worth", resolved: chain(rowsPerInsert), want: chain(rowsPerInsert)},
		{name: "two statements and the rest", resolved: chain(2*rowsPerInsert + 22), want: chain(2*rowsPerInsert + 22)},
		{
			name:     "a triple in both lists, and repeats within one",
			declared: []graph.EdgeAt{link, chain(3)[2]},
			resolved: append(chain(3), graph.EdgeAt{Edge: link.Edge}, chain(3)[0]),
			want:     append(chain(3), link),
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn := newTestSegment(t)
			keys := map[string]int64{}
			for i := range 2*rowsPerInsert + 23 {
				keys[fmt.Sprint("n", i)] = int64(i + 1)
			}
			w := &writer{conn: conn, st: &state{}, rels: map[string]int64{"calls": 1, "links_to": 2}}
			if err := insertEdges(w, hashEdges([][]graph.EdgeAt{tc.declared}, keys, w.rels), hashEdges([][]graph.EdgeAt{tc.resolved[:len(tc.resolved)/2], tc.resolved[len(tc.resolved)/2:]}, keys, w.rels)); err != nil {
				t.Fatal(err)
			}

			var rows, anchored int64
			if err := execInt(conn, `SELECT count(*) FROM edges`, &rows); err != nil {
				t.Fatal(err)
			}
			if rows != int64(len(tc.want)) {
				t.Errorf("edges: %d rows, want %d", rows, len(tc.want))
			}
			var wantDigest graph.SetDigest
			for _, e := range tc.want {
				wantDigest.Add(graph.EdgeHash(e.Edge))
				var n int64
				if err := execInt(conn, `SELECT count(*) FROM edges WHERE src = ? AND rel = ? AND dst = ?`, &n, keys[e.Source], w.rels[e.Relation], keys[e.Target]); err != nil {
					t.Fatal(err)
				}
				if n != 1 {
					t.Errorf("edge %v: %d rows, want 1", e.Edge, n)
				}
				if e.Anchor == "" {
					continue
				}
				anchored++
				err := sqlitex.Execute(conn, `SELECT anchor FROM edge_anchors WHERE src = ? AND rel = ? AND dst = ?`, &sqlitex.ExecOptions{
					Args: []any{keys[e.Source], w.rels[e.Relation], keys[e.Target]},
					ResultFunc: func(s *sqlite.Stmt) error {
						if got := s.ColumnText(0); got != e.Anchor {
							t.Errorf("edge %v: anchor %q, want %q", e.Edge, got, e.Anchor)
						}
						return nil
					},
				})
				if err != nil {
					t.Fatal(err)
				}
			}
			var anchors int64
			if err := execInt(conn, `SELECT count(*) FROM edge_anchors`, &anchors); err != nil {
				t.Fatal(err)
			}
			if anchors != anchored {
				t.Errorf("%d anchors, want %d", anchors, anchored)
			}
			if got, want := w.st.edges.Sum(), wantDigest.Sum(); got != want {
				t.Errorf("edge digest %s, want %s (each distinct edge once)", got, want)
			}
		})
	}
}

// The diff reads edges in triple order: sorted by the ranks of IDs and relation names, that
// is the order of the strings, whatever order the keys were given in; an edge whose end is
// no node is no edge.
func TestEdgeTriplesComeInTripleOrder(t *testing.T) {
	conn := newTestSegment(t)
	ids := []string{"b", "a10", "é", "a9", "A", "a-b", "a", "go:x.Y"} // keys in this order, not the IDs'
	for i, id := range ids {
		err := sqlitex.Execute(conn, `INSERT INTO nodes(key, id, kind, family, title, status, authority, tags, language, capabilities,
			source_path, anchor, line, end_line, content_hash, record_hash, headings, head_digest, body_digest)
			VALUES (?, ?, '', '', '', '', '', '[]', '', '[]', '', '', 0, 0, '', '', '[]', '', '')`, &sqlitex.ExecOptions{Args: []any{i + 1, id}})
		if err != nil {
			t.Fatal(err)
		}
	}
	rels := []string{"links_to", "calls", "depends_on"}
	for i, r := range rels {
		if err := sqlitex.Execute(conn, `INSERT INTO relations(rel, name) VALUES (?, ?)`, &sqlitex.ExecOptions{Args: []any{i + 1, r}}); err != nil {
			t.Fatal(err)
		}
	}
	var want []graph.Edge
	for s := range ids {
		for r := range rels {
			for d := range ids {
				if (s*7+r*3+d)%4 != 0 {
					continue
				}
				if err := sqlitex.Execute(conn, `INSERT INTO edges(src, rel, dst) VALUES (?, ?, ?)`, &sqlitex.ExecOptions{Args: []any{s + 1, r + 1, d + 1}}); err != nil {
					t.Fatal(err)
				}
				want = append(want, graph.Edge{Source: ids[s], Relation: rels[r], Target: ids[d]})
			}
		}
	}
	if err := sqlitex.Execute(conn, `INSERT INTO edges(src, rel, dst) VALUES (1, 1, 99)`, nil); err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(want, graph.Edge.Compare)
	got, err := edgeTriples(conn)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("edgeTriples = %v\nwant %v", got, want)
	}
}
