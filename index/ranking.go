package index

import (
	"fmt"
	"strconv"

	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"

	"github.com/docforge/docforge/index/fts5seg"
)

// Ranking full-text matches as a cold build does.
//
// FTS5 ranks a match by BM25 over its own table's statistics: the row count, the average row
// length and each phrase's document frequency. A cold build's table holds exactly the live
// rows. A merge deletes rows from a copy of the base, and FTS5 cannot subtract a deleted row
// of a contentless table from its totals, so the merge writes them back from the rows' sizes
// (fullTextTotals): a generation of one segment then ranks, to the last bit, as a cold
// build of the same sources. Over deltas a delta's matches are ranked again with the
// generation's statistics (deltarank.go); the base's keep the base's until the next merge
// (docs/architecture.md, "Ranking over segments").

// rankedRow is one full-text match: its node key and its rank (FTS5's: lower is better).
type rankedRow struct {
	key  int64
	rank float64
}

// decodeVarints decodes SQLite's varints (big-endian groups of seven bits, the ninth byte
// whole), as FTS5 writes its records.
func decodeVarints(b []byte) []uint64 {
	var out []uint64
	for len(b) > 0 {
		v, n := fts5seg.ReadVarint(b)
		out = append(out, v)
		b = b[n:]
	}
	return out
}

// searchColumns is the number of columns of the full-text table.
const searchColumns = 6

// fullTextTotals is a full-text table's averages record: its row count and each column's
// token total. FTS5 cannot subtract a deleted row of a contentless table from its totals, so
// a merge keeps them itself: the base's record (exact, as a cold build or the merge before
// left it), less the sizes of the rows each delta replaces, plus those of the rows it brings;
// written back, the merged base ranks as a cold build of the same rows. Reading only the
// delta's rows, where summing every row's size cost 22 of GOROOT/src's 220 ms a merge.
type fullTextTotals struct {
	rows    uint64
	columns []uint64
}

// readFullTextTotals reads the averages record of schema's full-text table.
func readFullTextTotals(conn *sqlite.Conn, schema string, columns int) (*fullTextTotals, error) {
	t := &fullTextTotals{columns: make([]uint64, columns)}
	found := false
	err := sqlitex.Execute(conn, "SELECT block FROM "+schema+".search_data WHERE id = 1", &sqlitex.ExecOptions{
		ResultFunc: func(st *sqlite.Stmt) error {
			rec := make([]byte, st.ColumnLen(0))
			st.ColumnBytes(0, rec)
			vals := decodeVarints(rec)
			if len(vals) != columns+1 {
				return fmt.Errorf("the full-text averages record holds %d values, want %d", len(vals), columns+1)
			}
			t.rows, found = vals[0], true
			copy(t.columns, vals[1:])
			return nil
		}})
	if err == nil && !found {
		err = fmt.Errorf("the full-text table has no averages record")
	}
	if err != nil {
		return nil, fmt.Errorf("read the full-text totals: %w", err)
	}
	return t, nil
}

// count adds to the totals (or, when remove, takes out of them) the rows whose size records
// query selects from a search_docsize table.
func (t *fullTextTotals) count(conn *sqlite.Conn, query string, remove bool) error {
	err := sqlitex.Execute(conn, query, &sqlitex.ExecOptions{
		ResultFunc: func(st *sqlite.Stmt) error {
			rec := make([]byte, st.ColumnLen(0))
			st.ColumnBytes(0, rec)
			for i, v := range decodeVarints(rec) {
				if i >= len(t.columns) {
					break
				}
				if remove {
					t.columns[i] -= v
				} else {
					t.columns[i] += v
				}
			}
			if remove {
				t.rows--
			} else {
				t.rows++
			}
			return nil
		}})
	if err != nil {
		return fmt.Errorf("count the full-text row sizes: %w", err)
	}
	return nil
}

// write stores the totals as schema's averages record. It must run outside any transaction
// that changed the table: FTS5 writes its cached totals when that commits.
func (t *fullTextTotals) write(conn *sqlite.Conn, schema string) error {
	rec := fts5seg.AppendVarint(nil, t.rows)
	for _, c := range t.columns {
		rec = fts5seg.AppendVarint(rec, c)
	}
	if err := sqlitex.Execute(conn, "UPDATE "+schema+".search_data SET block = ? WHERE id = 1", &sqlitex.ExecOptions{Args: []any{rec}}); err != nil {
		return fmt.Errorf("write the full-text totals: %w", err)
	}
	return nil
}

// rankedMatches fills the connection's ranked-matches table with the best n matches of expr
// (and every match tied with the n-th) and returns a FROM-clause subquery over it: (rowid,
// rank) like FTS5's. Its LIMIT (the row count, rounded up to a power of two so that few
// statements are prepared) tells the planner how few rows it holds, so a join reads it first
// and probes the nodes, as it did FTS5's matches.
func (s *Snapshot) rankedMatches(conn *sqlite.Conn, expr string, n int) (string, error) {
	var rows []rankedRow
	var err error
	if len(s.segments) <= 1 {
		rows, err = ownRanks(conn, expr, n)
	} else {
		rows, err = s.segmentRanks(conn, expr, n)
	}
	if err != nil {
		return "", err
	}
	if !s.rankTable {
		if err := sqlitex.ExecuteTransient(conn, "CREATE TEMP TABLE ranked_matches (rowid INTEGER PRIMARY KEY, rank REAL NOT NULL)", nil); err != nil {
			return "", fmt.Errorf("ranked matches: %w", err)
		}
		s.rankTable = true
	}
	if err := sqlitex.ExecuteTransient(conn, "DELETE FROM temp.ranked_matches", nil); err != nil {
		return "", fmt.Errorf("ranked matches: %w", err)
	}
	ins := conn.Prep("INSERT INTO temp.ranked_matches (rowid, rank) VALUES (?1, ?2)")
	for _, r := range rows {
		ins.BindInt64(1, r.key)
		ins.BindFloat(2, r.rank)
		if _, err := ins.Step(); err != nil {
			ins.Reset()
			return "", fmt.Errorf("ranked matches: %w", err)
		}
		if err := ins.Reset(); err != nil {
			return "", fmt.Errorf("ranked matches: %w", err)
		}
	}
	bound := 1
	for bound < len(rows) {
		bound *= 2
	}
	return "(SELECT rowid, rank FROM temp.ranked_matches ORDER BY rank LIMIT " + strconv.Itoa(bound) + ")", nil
}

// laterLive is the condition, on a full-text row f of segment i, that no later segment
// replaced it.
func laterLive(schemas []string, i int) string {
	var out string
	for _, later := range schemas[i+1:] {
		out += " AND NOT EXISTS (SELECT 1 FROM " + later + ".dead_nodes d WHERE d.key = f.rowid)"
	}
	return out
}

// cutTies keeps the first n of rows sorted by rank, and every later one tied with the n-th.
func cutTies(rows []rankedRow, n int) []rankedRow {
	if len(rows) <= n {
		return rows
	}
	cut := n
	for cut < len(rows) && rows[cut].rank == rows[n-1].rank {
		cut++
	}
	return rows[:cut]
}

// maxDroppedRanks is how many replaced rows of the base a search drops from a longer list of
// matches rather than excluding them by a condition on every match.
const maxDroppedRanks = 256

// collectRanks runs a query of (rowid, rank) with expr bound as ?1.
func collectRanks(conn *sqlite.Conn, q, expr string) ([]rankedRow, error) {
	var rows []rankedRow
	err := sqlitex.Execute(conn, q, &sqlitex.ExecOptions{Args: []any{expr}, ResultFunc: func(st *sqlite.Stmt) error {
		rows = append(rows, rankedRow{key: st.ColumnInt64(0), rank: st.ColumnFloat(1)})
		return nil
	}})
	if err != nil {
		return nil, fmt.Errorf("rank matches: %w", err)
	}
	return rows, nil
}

// ownRanks are FTS5's ranks of the matches of expr in a generation of one segment: the best
// n, and every match tied with the n-th. FTS5 would keep the tied rows first by key, and
// keys differ between builds of the same sources.
//
// The rank is bm25 with the table's weights, called by name rather than ordered by the rank
// column: ORDER BY rank makes FTS5 sort every match in a statement of its own, without the
// LIMIT, where SQLite's own sort keeps only the best m (the same scores; common-term p95 at
// 100k 214 against 190 ms, docs/benchmarks.md).
func ownRanks(conn *sqlite.Conn, expr string, n int) ([]rankedRow, error) {
	// Twice as many as asked for: a tie across the n-th match usually ends within them, and
	// a longer LIMIT costs next to nothing (every match is ranked either way); a tie that
	// does not end is read again with twice the limit.
	for m := 2*n + 8; ; m *= 2 {
		rows, err := collectRanks(conn, baseRanksQuery("", m), expr)
		if err != nil {
			return nil, err
		}
		// Done when every match was read, or when the last row read ranks below the n-th, so
		// that every row tied with it was read.
		if len(rows) < m || rows[n-1].rank != rows[len(rows)-1].rank {
			return cutTies(rows, n), nil
		}
	}
}

// baseRanksQuery is the query of the base's best m matches, with FTS5's ranks, under the
// condition cond on each.
func baseRanksQuery(cond string, m int) string {
	return "SELECT f.rowid, bm25(f.search, " + searchWeights + ") AS r FROM main.search f WHERE f.search MATCH ?1" + cond + " ORDER BY r LIMIT " + strconv.Itoa(m)
}
