package index

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"
)

// Ranking a delta's matches with the generation's statistics.
//
// FTS5's BM25 of a match is a sum over the query's phrases of idf * f*(k1+1) / (f + K): idf
// from how many rows of the table hold the phrase, f the row's weighted frequency of it, K
// from the row's length against the table's average. A delta's table holds a few rows, so
// its own IDFs are nonsense next to the base's: a phrase in most of them gets FTS5's floor
// of 1e-6. deltaRanks computes a delta match's rank again, with FTS5's formula and
// arithmetic, from the generation's live rows: the base's and every delta's, less those
// later segments replaced. What it needs and FTS5 does not expose is read back from FTS5:
//
//   - a delta row's frequency of each phrase, from two ranks of the phrase alone, under the
//     column weights and under twice them: their ratio depends on the frequency and the
//     row's length only (a delta is small, so all its matches are read);
//   - how many base rows hold a phrase, from the same two ranks of any one row that holds it,
//     checked by computing that rank again; FTS5 floors the IDF of a phrase in over half
//     the rows, and then the rows are counted unless the generation's IDF is the floor too.
//
// The logarithm is SQLite's ln, the C library's, which FTS5 calls.

// bm25 holds FTS5's BM25 constants as variables, so that the arithmetic below runs in
// float64 at run time, step by step, as FTS5's does, and the column weights twice over for a
// phrase's second rank.
type bm25 struct {
	k1, b   float64
	doubled string
}

func newBM25() bm25 { return bm25{k1: 1.2, b: 0.75, doubled: doubledWeights()} }

// lengthNorm is FTS5's k1*(1 - b + b*D/avgdl) for a row of size tokens.
func (p bm25) lengthNorm(size int64, avgdl float64) float64 {
	return float64(p.k1 * (1 - p.b + float64(p.b*float64(size))/avgdl))
}

// term is one phrase's part of a score, as FTS5 adds it.
func (p bm25) term(idf, freq, norm float64) float64 {
	return float64(idf * (float64(freq*(p.k1+1)) / (freq + norm)))
}

// phraseRanks is the query, with a phrase as ?1, of the rows of schema's full-text table that
// hold it: (rowid, rank, rank under twice the weights, docsize record), then tail.
func (p bm25) phraseRanks(schema, tail string) string {
	return "SELECT f.rowid, f.rank, bm25(f.search, " + p.doubled + "), (SELECT sz FROM " + schema + ".search_docsize WHERE id = f.rowid) FROM " +
		schema + ".search f WHERE f.search MATCH ?1" + tail
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

// freq reads a row's weighted frequency of a phrase back from its ranks alone under the
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

// doubledWeights are searchWeights times two: the weights of a phrase's second rank.
func doubledWeights() string {
	ws := strings.Split(searchWeights, ",")
	for i, w := range ws {
		f, _ := strconv.ParseFloat(strings.TrimSpace(w), 64)
		ws[i] = strconv.FormatFloat(2*f, 'f', -1, 64)
	}
	return strings.Join(ws, ", ")
}

// ftsPhrases lists the phrases of an FTS5 expression built by this package, in FTS5's order
// (left to right), each as a query of that phrase alone: its column filter, the quoted text
// and its prefix star. Every term this package puts in an expression is quoted.
func ftsPhrases(expr string) []string {
	var out []string
	filter := ""
	for i := 0; i < len(expr); {
		c := expr[i]
		switch {
		case c == '"':
			j := i + 1
			for j < len(expr) {
				if expr[j] == '"' {
					if j+1 < len(expr) && expr[j+1] == '"' {
						j += 2
						continue
					}
					break
				}
				j++
			}
			end := min(j+1, len(expr))
			if end < len(expr) && expr[end] == '*' {
				end++
			}
			out = append(out, filter+expr[i:end])
			filter = ""
			i = end
		case isWordByte(c):
			j := i
			for j < len(expr) && isWordByte(expr[j]) {
				j++
			}
			k := j
			for k < len(expr) && expr[k] == ' ' {
				k++
			}
			if k < len(expr) && expr[k] == ':' {
				filter = expr[i:j] + " : "
				i = k + 1
				continue
			}
			i = j // AND, OR
		default:
			i++
		}
	}
	return out
}

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
		rows, sizes, err := readTotals(conn, sc)
		if err != nil {
			return nil, err
		}
		t.rows = rows
		for _, n := range sizes {
			t.tokens += n
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

// readTotals reads a full-text table's averages record: its row count and each column's
// total size in tokens.
func readTotals(conn *sqlite.Conn, schema string) (rows int64, sizes []int64, err error) {
	var rec []byte
	err = sqlitex.Execute(conn, "SELECT block FROM "+schema+".search_data WHERE id = 1", &sqlitex.ExecOptions{
		ResultFunc: func(st *sqlite.Stmt) error {
			rec = make([]byte, st.ColumnLen(0))
			st.ColumnBytes(0, rec)
			return nil
		}})
	if err != nil {
		return 0, nil, fmt.Errorf("read the full-text totals of %s: %w", schema, err)
	}
	vals := decodeVarints(rec)
	if len(vals) == 0 {
		return 0, nil, nil // an empty table has no record yet
	}
	for _, v := range vals[1:] {
		sizes = append(sizes, int64(v))
	}
	return int64(vals[0]), sizes, nil
}

// rowSize is the size in tokens of the docsize record in column col.
func rowSize(st *sqlite.Stmt, col int) int64 {
	rec := make([]byte, st.ColumnLen(col))
	st.ColumnBytes(col, rec)
	var n int64
	for _, v := range decodeVarints(rec) {
		n += int64(v)
	}
	return n
}

// deltaMatch is a live match of a delta: its key, its size and its frequency of each phrase.
type deltaMatch struct {
	key  int64
	size int64
	freq []float64
}

// deltaRanks returns the live matches of expr in the deltas (segments 1 and on), ranked with
// the generation's statistics.
func (s *Snapshot) deltaRanks(conn *sqlite.Conn, schemas []string, expr string) ([]rankedRow, error) {
	g, err := s.textStats(conn, schemas)
	if err != nil {
		return nil, err
	}
	p := newBM25()
	phrases := ftsPhrases(expr)
	var matches []*deltaMatch
	for i := 1; i < len(g.segs); i++ {
		t := &g.segs[i]
		err := sqlitex.Execute(conn, "SELECT f.rowid, (SELECT sz FROM "+t.schema+".search_docsize WHERE id = f.rowid) FROM "+t.schema+".search f WHERE f.search MATCH ?1"+t.live,
			&sqlitex.ExecOptions{Args: []any{expr}, ResultFunc: func(st *sqlite.Stmt) error {
				matches = append(matches, &deltaMatch{key: st.ColumnInt64(0), size: rowSize(st, 1), freq: make([]float64, len(phrases))})
				return nil
			}})
		if err != nil {
			return nil, fmt.Errorf("match %s: %w", t.schema, err)
		}
	}
	if len(matches) == 0 || g.rows <= 0 {
		return nil, nil
	}
	byKey := make(map[int64]*deltaMatch, len(matches))
	for _, m := range matches {
		byKey[m.key] = m
	}
	idf := make([]float64, len(phrases))
	for j, ph := range phrases {
		var hits int64
		for i := 1; i < len(g.segs); i++ {
			h, err := deltaPhrase(conn, p, &g.segs[i], ph, j, byKey)
			if err != nil {
				return nil, err
			}
			hits += h
		}
		if !slices.ContainsFunc(matches, func(m *deltaMatch) bool { return m.freq[j] > 0 }) {
			continue // no match to rank holds it: its IDF is not needed (a pass over the base's holders saved)
		}
		v, err := baseIDF(conn, p, g, ph, hits)
		if err != nil {
			return nil, err
		}
		idf[j] = v
	}
	avg := g.avgdl()
	out := make([]rankedRow, 0, len(matches))
	for _, m := range matches {
		norm := p.lengthNorm(m.size, avg)
		score := 0.0
		for j := range phrases {
			if m.freq[j] > 0 {
				score += p.term(idf[j], m.freq[j], norm)
			}
		}
		out = append(out, rankedRow{key: m.key, rank: float64(-1 * score)})
	}
	return out, nil
}

// deltaPhrase reads every row of delta t that holds phrase (the j-th): the frequency of each
// live match of the query among them, and how many of them are live.
func deltaPhrase(conn *sqlite.Conn, p bm25, t *segmentText, phrase string, j int, byKey map[int64]*deltaMatch) (int64, error) {
	var live int64
	err := sqlitex.Execute(conn, p.phraseRanks(t.schema, ""), &sqlitex.ExecOptions{Args: []any{phrase}, ResultFunc: func(st *sqlite.Stmt) error {
		key := st.ColumnInt64(0)
		if t.dead[key] {
			return nil
		}
		live++
		if m := byKey[key]; m != nil {
			m.freq[j] = p.freq(-st.ColumnFloat(1), -st.ColumnFloat(2), p.lengthNorm(rowSize(st, 3), t.avgdl()))
		}
		return nil
	}})
	if err != nil {
		return 0, fmt.Errorf("%s in %s: %w", phrase, t.schema, err)
	}
	return live, nil
}

// baseIDF is the generation's IDF of phrase, held by deltaHits live rows of the deltas: the
// base's live rows that hold it are added, read back from the rank of any one of them.
func baseIDF(conn *sqlite.Conn, p bm25, g *textStats, phrase string, deltaHits int64) (float64, error) {
	t := &g.segs[0]
	hits, floored, err := baseHits(conn, p, t, phrase)
	if err != nil {
		return 0, err
	}
	dead, err := deadHolders(conn, t, phrase)
	if err != nil {
		return 0, err
	}
	if floored {
		// Over half the base's rows hold it. Enough of them still do for the generation's IDF
		// to be the floor too, or they are counted.
		if 2*(hits-dead+deltaHits) >= g.rows {
			return minIDF, nil
		}
		if hits, err = countHolders(conn, t.schema, phrase); err != nil {
			return 0, err
		}
	}
	idf, err := sqlLn(conn, idfArg(g.rows, hits-dead+deltaHits))
	if err != nil {
		return 0, err
	}
	if idf <= 0 {
		idf = minIDF
	}
	return idf, nil
}

// maxDeadLookups is how many replaced rows of the base deadHolders looks up one by one; past
// it, one pass over the phrase's holders is cheaper.
const maxDeadLookups = 64

// deadHolders counts the rows of segment t that later segments replaced and that hold phrase.
func deadHolders(conn *sqlite.Conn, t *segmentText, phrase string) (int64, error) {
	var n int64
	count := func(*sqlite.Stmt) error { n++; return nil }
	if len(t.dead) > maxDeadLookups {
		// The rows a large change replaced: one pass, the keys in a list.
		list, err := json.Marshal(slices.Collect(maps.Keys(t.dead)))
		if err != nil {
			return 0, err
		}
		err = sqlitex.Execute(conn, "SELECT 1 FROM "+t.schema+".search WHERE search MATCH ?1 AND rowid IN (SELECT value FROM json_each(?2))",
			&sqlitex.ExecOptions{Args: []any{phrase, string(list)}, ResultFunc: count})
		if err != nil {
			return 0, fmt.Errorf("%s in %s: %w", phrase, t.schema, err)
		}
		return n, nil
	}
	// A key lookup each: they are the rows of the few files the deltas changed.
	for k := range t.dead {
		err := sqlitex.Execute(conn, "SELECT 1 FROM "+t.schema+".search WHERE search MATCH ?1 AND rowid = ?2", &sqlitex.ExecOptions{
			Args: []any{phrase, k}, ResultFunc: count})
		if err != nil {
			return 0, fmt.Errorf("%s in %s: %w", phrase, t.schema, err)
		}
	}
	return n, nil
}

// baseHits is how many rows of the base hold phrase, read back from the two ranks of the
// first of them; floored says FTS5 floored its IDF, so that hits is only the least it can be
// (half the rows).
func baseHits(conn *sqlite.Conn, p bm25, t *segmentText, phrase string) (hits int64, floored bool, err error) {
	found := false
	var s1, s2 float64
	var size int64
	err = sqlitex.Execute(conn, p.phraseRanks(t.schema, " LIMIT 1"), &sqlitex.ExecOptions{Args: []any{phrase}, ResultFunc: func(st *sqlite.Stmt) error {
		found, s1, s2, size = true, -st.ColumnFloat(1), -st.ColumnFloat(2), rowSize(st, 3)
		return nil
	}})
	if err != nil || !found {
		return 0, false, err
	}
	norm := p.lengthNorm(size, t.avgdl())
	f := p.freq(s1, s2, norm)
	idf := s1 * (f + norm) / (f * (p.k1 + 1))
	if math.Abs(idf-minIDF) <= 1e-6*minIDF {
		return (t.rows + 1) / 2, true, nil // n >= rows/2 exactly when FTS5's IDF is not positive
	}
	e := math.Exp(idf)
	guess := int64(math.Round((float64(t.rows) + 0.5 - 0.5*e) / (e + 1)))
	for _, h := range []int64{guess, guess - 1, guess + 1} {
		if h < 1 || h > t.rows {
			continue
		}
		exact, err := sqlLn(conn, idfArg(t.rows, h))
		if err != nil {
			return 0, false, err
		}
		// The frequency was rounded to its exact value, FTS5 summed the weights in binary:
		// the rank agrees to rounding, a neighbouring count by far more.
		if exact > 0 && math.Abs(p.term(exact, f, norm)-s1) <= 1e-9*s1 {
			return h, false, nil
		}
	}
	// Not reproduced: count.
	hits, err = countHolders(conn, t.schema, phrase)
	return hits, false, err
}

// sqlLn is SQLite's natural logarithm: the C library's, which FTS5's ranks use.
func sqlLn(conn *sqlite.Conn, x float64) (float64, error) {
	var out float64
	err := sqlitex.Execute(conn, "SELECT ln(?1)", &sqlitex.ExecOptions{Args: []any{x}, ResultFunc: func(st *sqlite.Stmt) error {
		out = st.ColumnFloat(0)
		return nil
	}})
	if err != nil {
		return 0, fmt.Errorf("logarithm: %w", err)
	}
	return out, nil
}
