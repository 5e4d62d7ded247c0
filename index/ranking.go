package index

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"
)

// Ranking a full-text query exactly as a cold build would.
//
// FTS5 ranks a match by BM25 over its own table's statistics: the row count, the average row
// length and each phrase's document frequency. A generation of one segment has a cold build's
// statistics (a merge writes them back exact: fixFullTextTotals), so FTS5's rank is the
// answer. Over deltas each segment would rank against its own rows, so the ranks are
// recomputed here over the live rows of every segment, with FTS5's own formula and
// arithmetic, so that they equal a cold build's to the last bit:
//
//   - what BM25 needs of a row, its weighted frequency of each phrase, is read back from two
//     FTS5 ranks of the phrase alone, under the column weights and under twice them, whose
//     ratio no longer depends on the phrase's statistics; the column weights are multiples
//     of 1/8, so the frequency, a sum of weights, is exact once rounded to 1/8;
//   - the same ranks give the phrase's document frequency in the segment, checked by
//     reproducing the rank from it (SQLite's ln is the logarithm FTS5 calls);
//   - the rows that later segments replaced are taken out of every statistic.
//
// Only the best matches of each segment are read: a segment whose statistics are close to
// the generation's (the base) ranks its rows nearly as the generation does, within a factor
// bounded from the two sets of statistics, so reading stops once that bound falls below the
// last rank kept.

// bm25 holds FTS5's BM25 constants as variables, so that the arithmetic below is done in
// float64 at run time, step by step, as FTS5's is (constant folding would round differently).
type bm25 struct{ k1, b float64 }

func newBM25() bm25 { return bm25{k1: 1.2, b: 0.75} }

// lengthNorm is FTS5's k1*(1 - b + b*D/avgdl) for a row of size tokens.
func (p bm25) lengthNorm(size int64, avgdl float64) float64 {
	return float64(p.k1 * (1 - p.b + float64(p.b*float64(size))/avgdl))
}

// term is one phrase's contribution, as FTS5 adds it.
func (p bm25) term(idf, freq, norm float64) float64 {
	return float64(idf * (float64(freq*(p.k1+1)) / (freq + norm)))
}

// idfArg is the argument of FTS5's logarithm for a phrase in hits of rows.
func idfArg(rows, hits int64) float64 {
	return (float64(rows-hits) + 0.5) / (float64(hits) + 0.5)
}

// minIDF is FTS5's floor for the IDF of a phrase in more than half the rows.
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

// rankedRow is one full-text match: its node key and its rank (FTS5's: lower is better).
type rankedRow struct {
	key  int64
	rank float64
}

// ftsPhrases lists the phrases of an FTS5 expression built by this package, in FTS5's order
// (left to right), each as a query of that phrase alone: its column filter, the quoted text
// and its prefix star.
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
			word := expr[i:j]
			k := j
			for k < len(expr) && expr[k] == ' ' {
				k++
			}
			if k < len(expr) && expr[k] == ':' {
				filter = word + " : "
				i = k + 1
				continue
			}
			i = j // AND, OR, NOT
		default:
			i++
		}
	}
	return out
}

// segmentText is what ranking needs of one segment's full-text table.
type segmentText struct {
	schema string
	// rows and tokens are FTS5's own statistics of the table (its averages record): what
	// its ranks were computed with.
	rows, tokens int64
	// dead are the keys of this segment's full-text rows that later segments replaced, and
	// deadTokens their total size.
	dead       []int64
	deadTokens int64
	// later is the condition that keeps a row f of this segment that no later segment replaced.
	later string
}

func (t *segmentText) avgdl() float64 { return float64(t.tokens) / float64(t.rows) }

// textStats are the full-text statistics of a generation of several segments.
type textStats struct {
	segs []segmentText
	// rows and tokens count the live rows and their tokens: a cold build's statistics.
	rows, tokens int64
}

func (g *textStats) avgdl() float64 { return float64(g.tokens) / float64(g.rows) }

// readTextStats reads the statistics of every segment of a layered generation.
func readTextStats(conn *sqlite.Conn, schemas []string) (*textStats, error) {
	g := &textStats{}
	for i, sc := range schemas {
		t := segmentText{schema: sc}
		rows, sizes, err := readTotals(conn, sc)
		if err != nil {
			return nil, err
		}
		t.rows = rows
		for _, n := range sizes {
			t.tokens += n
		}
		var conds, later []string
		for _, l := range schemas[i+1:] {
			conds = append(conds, "NOT EXISTS (SELECT 1 FROM "+l+".dead_nodes d WHERE d.key = f.rowid)")
			later = append(later, "SELECT key FROM "+l+".dead_nodes")
		}
		t.later = strings.Join(conds, " AND ")
		if len(later) > 0 {
			err := sqlitex.Execute(conn, "SELECT id, sz FROM "+sc+".search_docsize WHERE id IN ("+strings.Join(later, " UNION ")+")", &sqlitex.ExecOptions{
				ResultFunc: func(st *sqlite.Stmt) error {
					t.dead = append(t.dead, st.ColumnInt64(0))
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
	return int64(vals[0]), toInt64s(vals[1:]), nil
}

// rowSize is the total size in tokens of a docsize record in column col.
func rowSize(st *sqlite.Stmt, col int) int64 {
	rec := make([]byte, st.ColumnLen(col))
	st.ColumnBytes(col, rec)
	var n int64
	for _, v := range decodeVarints(rec) {
		n += int64(v)
	}
	return n
}

func toInt64s(v []uint64) []int64 {
	out := make([]int64, len(v))
	for i, x := range v {
		out[i] = int64(x)
	}
	return out
}

// decodeVarints decodes SQLite's varints (big-endian groups of seven bits, the ninth byte
// whole), as FTS5 writes its records.
func decodeVarints(b []byte) []uint64 {
	var out []uint64
	for len(b) > 0 {
		var v uint64
		i := 0
		for ; i < 8 && i < len(b); i++ {
			v = v<<7 | uint64(b[i]&0x7f)
			if b[i]&0x80 == 0 {
				break
			}
		}
		if i == 8 && i < len(b) {
			v = v<<8 | uint64(b[8])
		}
		out = append(out, v)
		b = b[min(i+1, len(b)):]
	}
	return out
}

// appendVarint appends v as an SQLite varint.
func appendVarint(b []byte, v uint64) []byte {
	if v > 1<<56-1 {
		var buf [9]byte
		buf[8] = byte(v)
		v >>= 8
		for i := 7; i >= 0; i-- {
			buf[i] = byte(v&0x7f) | 0x80
			v >>= 7
		}
		return append(b, buf[:]...)
	}
	var buf [8]byte
	i := len(buf) - 1
	buf[i] = byte(v & 0x7f)
	for v >>= 7; v > 0; v >>= 7 {
		i--
		buf[i] = byte(v&0x7f) | 0x80
	}
	return append(b, buf[i:]...)
}

// fixFullTextTotals rewrites the averages record of the full-text table in schema from its
// rows' sizes. FTS5 cannot subtract a deleted row of a contentless table from its totals, so
// after a merge's deletions it would rank with the statistics of rows that are gone; written
// back, the merged base ranks as a cold build of the same rows. It must run outside any
// transaction that changed the table: FTS5 writes its cached totals when that commits.
func fixFullTextTotals(conn *sqlite.Conn, schema string, columns int) error {
	var rows uint64
	totals := make([]uint64, columns)
	err := sqlitex.Execute(conn, "SELECT sz FROM "+schema+".search_docsize", &sqlitex.ExecOptions{
		ResultFunc: func(st *sqlite.Stmt) error {
			rec := make([]byte, st.ColumnLen(0))
			st.ColumnBytes(0, rec)
			for i, v := range decodeVarints(rec) {
				if i < columns {
					totals[i] += v
				}
			}
			rows++
			return nil
		}})
	if err != nil {
		return fmt.Errorf("sum the full-text row sizes: %w", err)
	}
	rec := appendVarint(nil, rows)
	for _, t := range totals {
		rec = appendVarint(rec, t)
	}
	if err := sqlitex.Execute(conn, "UPDATE "+schema+".search_data SET block = ? WHERE id = 1", &sqlitex.ExecOptions{Args: []any{rec}}); err != nil {
		return fmt.Errorf("write the full-text totals: %w", err)
	}
	return nil
}

// searchColumns is the number of columns of the full-text table.
const searchColumns = 6

// phraseStats are a phrase's statistics in one segment.
type phraseStats struct {
	known     bool
	idf       float64 // FTS5's IDF of the phrase in the segment
	hits      int64   // rows of the segment holding it
	deadHits  int64   // of those, rows later segments replaced
	freqKnown map[int64]float64
}

// candidate is a live match of one segment.
type candidate struct {
	key   int64
	seg   int
	local float64 // the segment's own BM25 score (positive)
	size  int64
	rank  float64 // the generation's rank, FTS5's sign
}

// exactRanks ranks the matches of expr over every segment as a cold build would, and returns
// at least the best n (all the matches when fewer), with every match tied with the n-th.
func (s *Snapshot) exactRanks(conn *sqlite.Conn, expr string, n int) ([]rankedRow, error) {
	if s.text == nil {
		st, err := readTextStats(conn, segmentNames("main", len(s.segments)))
		if err != nil {
			return nil, err
		}
		s.text = st
	}
	g := s.text
	if g.rows <= 0 {
		return nil, nil
	}
	p := newBM25()
	phrases := ftsPhrases(expr)
	stats := make([][]phraseStats, len(g.segs))
	for i := range stats {
		stats[i] = make([]phraseStats, len(phrases))
		for j := range stats[i] {
			stats[i][j].freqKnown = map[int64]float64{}
		}
	}
	var cands []*candidate
	fetched := make([]int, len(g.segs))
	exhausted := make([]bool, len(g.segs))
	limit := make([]int, len(g.segs))
	for i := range limit {
		limit[i] = 2*n + 8
		if i > 0 {
			limit[i] = -1 // a delta is small: all its matches
		}
	}
	idfG := make([]float64, len(phrases))
	for {
		// Read each unfinished segment's next matches and what ranking them needs.
		for i := range g.segs {
			if exhausted[i] {
				continue
			}
			t := &g.segs[i]
			fresh, err := segmentMatches(conn, t, expr, limit[i], fetched[i])
			if err != nil {
				return nil, err
			}
			for _, c := range fresh {
				c.seg = i
			}
			if limit[i] < 0 || len(fresh) < limit[i]-fetched[i] {
				exhausted[i] = true
			}
			fetched[i] += len(fresh)
			keys := make([]int64, 0, len(fresh)+len(t.dead))
			for _, c := range fresh {
				keys = append(keys, c.key)
			}
			for j, ph := range phrases {
				first := !stats[i][j].known
				probe := keys
				if first {
					probe = append(slices.Clone(keys), t.dead...)
				}
				if err := phraseFrequencies(conn, p, t, ph, probe, first, &stats[i][j]); err != nil {
					return nil, err
				}
			}
			cands = append(cands, fresh...)
		}
		// The generation's statistics of each phrase, then every candidate's rank.
		for j := range phrases {
			var hits int64
			for i := range g.segs {
				hits += stats[i][j].hits - stats[i][j].deadHits
			}
			idf, err := sqlLn(conn, idfArg(g.rows, hits))
			if err != nil {
				return nil, err
			}
			if idf <= 0 {
				idf = minIDF
			}
			idfG[j] = idf
		}
		avg := g.avgdl()
		for _, c := range cands {
			norm := p.lengthNorm(c.size, avg)
			score := 0.0
			for j := range phrases {
				if f := stats[c.seg][j].freqKnown[c.key]; f > 0 {
					score += p.term(idfG[j], f, norm)
				}
			}
			c.rank = float64(-1 * score)
		}
		slices.SortFunc(cands, func(a, b *candidate) int {
			if a.rank != b.rank {
				if a.rank < b.rank {
					return -1
				}
				return 1
			}
			return 0
		})
		done := true
		if len(cands) >= n {
			theta := -cands[n-1].rank // the n-th best score
			for i := range g.segs {
				if exhausted[i] {
					continue
				}
				// No row the segment has not returned scores above bound times its own score.
				bound := boundFactor(&g.segs[i], g, stats[i], idfG)
				last := lastLocal(cands, i)
				if bound*last*(1+1e-9) >= theta {
					done = false
					limit[i] *= 2
				}
			}
		} else {
			for i := range g.segs {
				if !exhausted[i] {
					done = false
					limit[i] *= 2
				}
			}
		}
		if done {
			break
		}
	}
	out := make([]rankedRow, 0, min(len(cands), n))
	for k, c := range cands {
		if k >= n && c.rank != cands[n-1].rank {
			break
		}
		out = append(out, rankedRow{key: c.key, rank: c.rank})
	}
	return out, nil
}

// boundFactor bounds how much higher the generation scores a row of segment t than t itself
// does: the most any phrase's IDF grows, times the most the length normalisation can.
func boundFactor(t *segmentText, g *textStats, ph []phraseStats, idfG []float64) float64 {
	f := 1.0
	for j := range ph {
		if ph[j].idf > 0 {
			f = max(f, idfG[j]/ph[j].idf)
		}
	}
	return f * max(1, g.avgdl()/t.avgdl())
}

// lastLocal is the lowest own score among the candidates of segment seg.
func lastLocal(cands []*candidate, seg int) float64 {
	last := math.Inf(1)
	for _, c := range cands {
		if c.seg == seg {
			last = min(last, c.local)
		}
	}
	if math.IsInf(last, 1) {
		return 0
	}
	return last
}

// segmentMatches returns the live matches of expr in segment t after the first skip of them,
// best first by the segment's own rank, up to limit in all (-1: every one), with their sizes.
func segmentMatches(conn *sqlite.Conn, t *segmentText, expr string, limit, skip int) ([]*candidate, error) {
	q := "SELECT f.rowid, f.rank, (SELECT sz FROM " + t.schema + ".search_docsize WHERE id = f.rowid) FROM " + t.schema + ".search f WHERE f.search MATCH ?1"
	if t.later != "" {
		q += " AND " + t.later
	}
	if limit >= 0 {
		limit -= skip
	}
	q += " ORDER BY f.rank LIMIT " + strconv.Itoa(limit) + " OFFSET " + strconv.Itoa(skip)
	var out []*candidate
	err := sqlitex.Execute(conn, q, &sqlitex.ExecOptions{Args: []any{expr}, ResultFunc: func(st *sqlite.Stmt) error {
		out = append(out, &candidate{key: st.ColumnInt64(0), local: -st.ColumnFloat(1), size: rowSize(st, 2)})
		return nil
	}})
	if err != nil {
		return nil, fmt.Errorf("match %s: %w", t.schema, err)
	}
	return out, nil
}

// phraseFrequencies reads the weighted frequency of phrase in each of keys that holds it, from
// its two ranks alone in segment t. With first, it also learns the phrase's statistics in the
// segment: its IDF and hits (from any row that holds it, reproduced exactly or counted), and
// how many of the replaced rows (keys holds them then) hold it.
func phraseFrequencies(conn *sqlite.Conn, p bm25, t *segmentText, phrase string, keys []int64, first bool, ps *phraseStats) error {
	if first {
		// Any one row that holds the phrase gives its statistics.
		err := sqlitex.Execute(conn, "SELECT rowid FROM "+t.schema+".search WHERE search MATCH ?1 LIMIT 1", &sqlitex.ExecOptions{
			Args: []any{phrase}, ResultFunc: func(st *sqlite.Stmt) error {
				keys = append(keys, st.ColumnInt64(0))
				return nil
			}})
		if err != nil {
			return fmt.Errorf("match %s in %s: %w", phrase, t.schema, err)
		}
	}
	list, err := json.Marshal(keys)
	if err != nil {
		return err
	}
	q := "SELECT f.rowid, f.rank, bm25(f.search, " + doubledWeights() + "), (SELECT sz FROM " + t.schema + ".search_docsize WHERE id = f.rowid) FROM " +
		t.schema + ".search f WHERE f.search MATCH ?1 AND f.rowid IN (SELECT value FROM json_each(?2))"
	dead := map[int64]bool{}
	if first {
		for _, k := range t.dead {
			dead[k] = true
		}
	}
	type sample struct{ s1, freq, norm float64 }
	var samples []sample
	err = sqlitex.Execute(conn, q, &sqlitex.ExecOptions{Args: []any{phrase, string(list)}, ResultFunc: func(st *sqlite.Stmt) error {
		key := st.ColumnInt64(0)
		s1, s2 := -st.ColumnFloat(1), -st.ColumnFloat(2)
		norm := p.lengthNorm(rowSize(st, 3), t.avgdl())
		r := s2 / s1
		freq := math.Round(norm*(2-r)/(2*(r-1))*8) / 8
		if !(freq > 0) || math.IsInf(freq, 0) {
			return fmt.Errorf("the frequency of %s in row %d of %s does not follow from its ranks %g and %g", phrase, key, t.schema, s1, s2)
		}
		ps.freqKnown[key] = freq
		if dead[key] {
			ps.deadHits++
		}
		if first && len(samples) < 1 {
			samples = append(samples, sample{s1, freq, norm})
		}
		return nil
	}})
	if err != nil {
		return fmt.Errorf("frequencies of %s in %s: %w", phrase, t.schema, err)
	}
	if !first {
		return nil
	}
	ps.known = true
	if len(samples) == 0 {
		ps.hits, ps.idf = 0, 0 // no row holds it
		return nil
	}
	// The IDF the rank was computed with; the hits it came from, checked by computing the
	// rank again from them.
	sm := samples[0]
	idf := sm.s1 * (sm.freq + sm.norm) / (sm.freq * (p.k1 + 1))
	rows := t.rows
	e := math.Exp(idf)
	guess := int64(math.Round((float64(rows) + 0.5 - 0.5*e) / (e + 1)))
	if idf > 2*minIDF {
		for _, h := range []int64{guess, guess - 1, guess + 1} {
			if h < 1 || h > rows {
				continue
			}
			exact, err := sqlLn(conn, idfArg(rows, h))
			if err != nil {
				return err
			}
			if exact > 0 && p.term(exact, sm.freq, sm.norm) == sm.s1 {
				ps.hits, ps.idf = h, exact
				return nil
			}
		}
	}
	// The IDF is FTS5's floor (the phrase is in over half the rows), or the guess did not
	// reproduce the rank: count.
	if err := sqlitex.Execute(conn, "SELECT count(*) FROM "+t.schema+".search WHERE search MATCH ?1", &sqlitex.ExecOptions{
		Args: []any{phrase}, ResultFunc: func(st *sqlite.Stmt) error { ps.hits = st.ColumnInt64(0); return nil }}); err != nil {
		return fmt.Errorf("count %s in %s: %w", phrase, t.schema, err)
	}
	exact, err := sqlLn(conn, idfArg(rows, ps.hits))
	if err != nil {
		return err
	}
	if exact <= 0 {
		exact = minIDF
	}
	if p.term(exact, sm.freq, sm.norm) != sm.s1 {
		return fmt.Errorf("the rank of %s in %s does not follow from its %d hits: ranking cannot be made exact", phrase, t.schema, ps.hits)
	}
	ps.idf = exact
	return nil
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

// rankedMatches fills the connection's ranked-matches table with the best n matches of expr
// (more when matches tie with the n-th), ranked as a cold build ranks them, and returns the
// FROM-clause subquery over it: (rowid, rank) like FTS5's. Its LIMIT (the row count, rounded
// up to a power of two so that few statements are prepared) tells the planner how few rows
// it holds, so a join reads it first and probes the nodes, as it did FTS5's matches.
func (s *Snapshot) rankedMatches(conn *sqlite.Conn, expr string, n int) (string, error) {
	var rows []rankedRow
	var err error
	if len(s.segments) <= 1 {
		rows, err = ownRanks(conn, expr, n)
	} else {
		rows, err = s.exactRanks(conn, expr, n)
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
			return "", err
		}
	}
	bound := 1
	for bound < len(rows) {
		bound *= 2
	}
	return "(SELECT rowid, rank FROM temp.ranked_matches ORDER BY rank LIMIT " + strconv.Itoa(bound) + ")", nil
}

// ownRanks are FTS5's ranks of a generation of one segment, whose statistics are a cold
// build's: the best n, and every match tied with the n-th (FTS5 would keep the ones first by
// key, and keys differ between builds of the same sources).
func ownRanks(conn *sqlite.Conn, expr string, n int) ([]rankedRow, error) {
	for m := n + 1; ; m *= 2 {
		var rows []rankedRow
		err := sqlitex.Execute(conn, "SELECT rowid, rank FROM search WHERE search MATCH ?1 ORDER BY rank LIMIT "+strconv.Itoa(m), &sqlitex.ExecOptions{
			Args: []any{expr}, ResultFunc: func(st *sqlite.Stmt) error {
				rows = append(rows, rankedRow{key: st.ColumnInt64(0), rank: st.ColumnFloat(1)})
				return nil
			}})
		if err != nil {
			return nil, err
		}
		if len(rows) <= n {
			return rows, nil
		}
		if len(rows) < m || rows[n-1].rank != rows[m-1].rank {
			cut := len(rows)
			for k := n; k < len(rows); k++ {
				if rows[k].rank != rows[n-1].rank {
					cut = k
					break
				}
			}
			return rows[:cut], nil
		}
	}
}
