package index

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"

	"github.com/docforge/docforge/index/fts5seg"
)

// Ranking every match of a layered generation with the generation's statistics.
//
// FTS5's BM25 of a match is a sum over the query's phrases of idf * f*(k1+1) / (f + K): idf
// from how many rows of the table hold the phrase, f the row's weighted frequency of it, K
// from the row's length against the table's average. Each segment's table knows only its own
// rows. A delta's holds a few, so its own IDFs are nonsense next to the base's: a phrase in
// most of them gets FTS5's floor of 1e-6. The base's differ from the generation's by the
// rows the deltas changed, which moves every score a little and can swap close ones.
// segmentRanks (layerrank.go) computes every rank it returns again, with FTS5's formula and
// arithmetic, from the generation's live rows: the base's and every delta's, less those later
// segments replaced. What it needs and FTS5 does not expose:
//
//   - a row's frequency of each phrase. A delta is small: its matches' are read back from
//     the ranks of the phrase alone in its own table, under the column weights and under
//     twice them (their ratio depends on the frequency and the row's length only). The
//     base's best matches are analyzed again from their stored fields and the phrases
//     counted in Go (phrasecount.go), or in a scratch table of the same tokenizer, since
//     ranking a phrase in the base's table costs a pass over every row that holds it; and
//     a phrase under a branch of the expression that fails the row does not count
//     (ftsexpr.go);
//   - how many base rows hold a phrase, from FTS5's rank of a base row that holds it alone,
//     checked by computing that rank again; FTS5 floors the IDF of a phrase in over half
//     the rows, and then the rows are counted unless the generation's IDF is the floor too.
//
// The base's matches are read best first by the base's ranks. Between the two statistics a
// score grows at most by the largest ratio of a phrase's IDFs times that of the average
// lengths (growth), so the matches not read cannot reach the n-th best once the last one read,
// grown so, still ranks below it. The logarithm is SQLite's ln, the C library's, which FTS5
// calls.

// bm25 holds FTS5's BM25 constants as variables, so that the arithmetic below runs in
// float64 at run time, step by step, as FTS5's does, and the column weights of a phrase's
// ranks: as searched, twice them, and both again without the code column.
type bm25 struct {
	k1, b float64
	// columns are searchWeights' values; code is the code column's, the only one not whole.
	// weights are the four lists of a phrase's ranks.
	columns [searchColumns]float64
	code    float64
	weights [4]string
}

func newBM25() bm25 {
	p := bm25{k1: 1.2, b: 0.75}
	for i, w := range strings.Split(searchWeights, ",") {
		p.columns[i], _ = strconv.ParseFloat(strings.TrimSpace(w), 64)
	}
	p.code = p.columns[searchColumns-1]
	format := func(scale float64, code bool) string {
		out := make([]string, searchColumns)
		for i, w := range p.columns {
			if i == searchColumns-1 && !code {
				w = 0
			}
			out[i] = strconv.FormatFloat(scale*w, 'f', -1, 64)
		}
		return strings.Join(out, ", ")
	}
	p.weights = [4]string{format(1, true), format(2, true), format(1, false), format(2, false)}
	return p
}

// lengthNorm is FTS5's k1*(1 - b + b*D/avgdl) for a row of size tokens.
func (p bm25) lengthNorm(size int64, avgdl float64) float64 {
	return float64(p.k1 * (1 - p.b + float64(p.b*float64(size))/avgdl))
}

// term is one phrase's part of a score, as FTS5 adds it.
func (p bm25) term(idf, freq, norm float64) float64 {
	return float64(idf * (float64(freq*(p.k1+1)) / (freq + norm)))
}

// score is a row's BM25 score from its frequency of each phrase, the phrases' IDFs and its
// length norm, summed in FTS5's order.
func (p bm25) score(idf, freq []float64, norm float64) float64 {
	s := 0.0
	for j := range freq {
		if freq[j] > 0 {
			s += p.term(idf[j], freq[j], norm)
		}
	}
	return s
}

// phraseRanks is the query, with a phrase as ?1, of the rows of the full-text table
// schema.name that hold it: (rowid, then its four ranks of the phrase alone (phraseFreq), then
// its docsize record), then tail.
func (p bm25) phraseRanks(schema, name, tail string) string {
	q := "SELECT f.rowid"
	for _, w := range p.weights {
		q += ", bm25(f." + name + ", " + w + ")"
	}
	return q + ", (SELECT sz FROM " + schema + "." + name + "_docsize WHERE id = f.rowid) FROM " +
		schema + "." + name + " f WHERE f." + name + " MATCH ?1" + tail
}

// phraseFreq reads a row's weighted frequency of a phrase and its size back from a row of
// phraseRanks, in a table of average row length avgdl. FTS5 adds a row's weight for each hit,
// column by column, so the code column's (0.4, not whole) last: the sum is rebuilt so, to the
// bit, from the frequency without the code column and the code column's hits.
func (p bm25) phraseFreq(st *sqlite.Stmt, avgdl float64) (freq float64, size int64) {
	size = rowSize(st, 5)
	norm := p.lengthNorm(size, avgdl)
	total := p.freq(-st.ColumnFloat(1), -st.ColumnFloat(2), norm)
	whole := 0.0
	if s := -st.ColumnFloat(3); s > 0 {
		whole = math.Round(p.freq(s, -st.ColumnFloat(4), norm))
	}
	return p.withCode(whole, total), size
}

// withCode is the weighted frequency total as FTS5 sums it: the whole columns' part, then
// the code column's weight once for each of its hits.
func (p bm25) withCode(whole, total float64) float64 {
	f := whole
	for n := math.Round((total - whole) / p.code); n > 0; n-- {
		f += p.code
	}
	return f
}

// countHolders counts the rows of schema's full-text table that hold phrase.
func countHolders(conn *sqlite.Conn, schema, phrase string) (int64, error) {
	var n int64
	err := sqlitex.Execute(conn, "SELECT count(*) FROM "+schema+".search WHERE search MATCH ?1", &sqlitex.ExecOptions{
		Args: []any{phrase}, ResultFunc: func(st *sqlite.Stmt) error { n = st.ColumnInt64(0); return nil }})
	if err != nil {
		return 0, fmt.Errorf("count %s in %s: %w", phrase, schema, err)
	}
	return n, nil
}

// freq reads a row's weighted frequency of a phrase back from its ranks alone under some
// column weights (s1) and twice them (s2), both as positive scores. Every weighted frequency
// is a multiple of 0.2 (the weights are multiples of 0.2 or whole).
func (p bm25) freq(s1, s2, norm float64) float64 {
	r := s2 / s1
	return math.Round(norm*(2-r)/(2*(r-1))*5) / 5
}

// idfArg is the argument of FTS5's logarithm for a phrase held by hits of rows.
func idfArg(rows, hits int64) float64 {
	return (float64(rows-hits) + 0.5) / (float64(hits) + 0.5)
}

// minIDF is FTS5's floor for the IDF of a phrase held by over half the rows.
const minIDF = 1e-6

// segmentText is what ranking needs of one segment's full-text table.
type segmentText struct {
	schema string
	// rows and tokens are FTS5's own statistics of the table (its averages record).
	rows, tokens int64
	// dead are the keys of this segment's full-text rows that later segments replaced, and
	// deadTokens their total size.
	dead       map[int64]bool
	deadTokens int64
	// live is the condition, on a row f of this segment, that no later segment replaced it.
	live string
}

func (t *segmentText) avgdl() float64 { return float64(t.tokens) / float64(t.rows) }

// textStats are the full-text statistics of a generation of several segments.
type textStats struct {
	segs []segmentText
	// rows and tokens count the live rows and their tokens: a cold build's statistics.
	rows, tokens int64
}

func (g *textStats) avgdl() float64 { return float64(g.tokens) / float64(g.rows) }

// textStats returns the full-text statistics of the snapshot's generation, read on first use.
func (s *Snapshot) textStats(conn *sqlite.Conn, schemas []string) (*textStats, error) {
	s.textMu.Lock()
	defer s.textMu.Unlock()
	if s.text == nil {
		g, err := readTextStats(conn, schemas)
		if err != nil {
			return nil, err
		}
		s.text = g
	}
	return s.text, nil
}

// readTextStats reads the full-text statistics of every segment of a layered generation.
func readTextStats(conn *sqlite.Conn, schemas []string) (*textStats, error) {
	g := &textStats{}
	for i, sc := range schemas {
		t := segmentText{schema: sc, live: laterLive(schemas, i), dead: map[int64]bool{}}
		tot, _, err := fts5seg.ReadTotals(conn, searchTable(sc)) // an empty table has no record yet
		if err != nil {
			return nil, err
		}
		t.rows = int64(tot.Rows)
		for _, n := range tot.Columns {
			t.tokens += int64(n)
		}
		var later []string
		for _, l := range schemas[i+1:] {
			later = append(later, "SELECT key FROM "+l+".dead_nodes")
		}
		if len(later) > 0 {
			err := sqlitex.Execute(conn, "SELECT id, sz FROM "+sc+".search_docsize WHERE id IN ("+strings.Join(later, " UNION ")+")", &sqlitex.ExecOptions{
				ResultFunc: func(st *sqlite.Stmt) error {
					t.dead[st.ColumnInt64(0)] = true
					t.deadTokens += rowSize(st, 1)
					return nil
				}})
			if err != nil {
				return nil, fmt.Errorf("read the replaced full-text rows of %s: %w", sc, err)
			}
		}
		g.rows += t.rows - int64(len(t.dead))
		g.tokens += t.tokens - t.deadTokens
		g.segs = append(g.segs, t)
	}
	return g, nil
}

// rowSize is the size in tokens of the docsize record in column col.
func rowSize(st *sqlite.Stmt, col int) int64 {
	rec := make([]byte, st.ColumnLen(col))
	st.ColumnBytes(col, rec)
	return fts5seg.RowSize(rec)
}
