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

// searchColumns is the number of columns of the full-text table.
const searchColumns = 6

// searchTable is the full-text table of the segment attached as schema.
func searchTable(schema string) fts5seg.Table {
	return fts5seg.Table{Schema: schema, Name: "search", Columns: searchColumns}
}

// countSizes adds to tot (or, when remove, takes out of it) the rows whose docsize records
// query selects. A merge keeps the merged segment's totals so: FTS5 cannot subtract a deleted
// row of a contentless table from them, and reading only the deltas' rows is cheap where
// summing every row's size cost 22 of GOROOT/src's 220 ms a merge.
func countSizes(conn *sqlite.Conn, tot *fts5seg.Totals, query string, remove bool) error {
	err := sqlitex.Execute(conn, query, &sqlitex.ExecOptions{
		ResultFunc: func(st *sqlite.Stmt) error {
			rec := make([]byte, st.ColumnLen(0))
			st.ColumnBytes(0, rec)
			if remove {
				tot.Sub(rec)
			} else {
				tot.Add(rec)
			}
			return nil
		}})
	if err != nil {
		return fmt.Errorf("count the full-text row sizes: %w", err)
	}
	return nil
}

// rankedMatches fills the connection's ranked-matches table with the best n matches of expr
// (and every match tied with the n-th) and returns a FROM-clause subquery over it: (rowid,
// rank) like FTS5's. Its LIMIT (the row count, rounded up to a power of two so that few
// statements are prepared) tells the planner how few rows it holds, so a join reads it first
// and probes the nodes, as it did FTS5's matches.
func (s *Snapshot) rankedMatches(r *reader, expr string, n int) (string, error) {
	conn := r.conn
	var rows []rankedRow
	var err error
	if len(s.segments) <= 1 {
		rows, err = ownRanks(conn, expr, n)
	} else {
		rows, err = s.segmentRanks(r, expr, n)
	}
	if err != nil {
		return "", err
	}
	if !r.rankTable {
		if err := sqlitex.ExecuteTransient(conn, "CREATE TEMP TABLE ranked_matches (rowid INTEGER PRIMARY KEY, rank REAL NOT NULL)", nil); err != nil {
			return "", fmt.Errorf("ranked matches: %w", err)
		}
		r.rankTable = true
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
