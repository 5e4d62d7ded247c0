package index

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"

	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"

	"github.com/docforge/docforge/base/lexicon"
	"github.com/docforge/docforge/index/fts5seg"
)

// segmentRanks are the best n matches over a generation of several segments (with every
// match tied with the n-th), every one ranked with the generation's statistics, as a cold
// build of the same sources ranks it (deltarank.go). The base's are read best first by the
// base's ranks, until the first not read cannot reach the n-th best.
func (s *Snapshot) segmentRanks(rd *reader, expr string, n int) ([]rankedRow, error) {
	conn := rd.conn
	schemas := segmentNames("main", len(s.segments))
	g, err := s.textStats(conn, schemas)
	if err != nil || g.rows <= 0 {
		return nil, err
	}
	tree, phrases := parseExpr(expr)
	if tree == nil {
		return nil, fmt.Errorf("rank %s: not an expression this package builds", expr)
	}
	p := newBM25()
	r := &layeredRanking{conn: conn, p: p, g: g, expr: expr, phrases: phrases, tree: tree, counter: newPhraseCounter(phrases, p.columns),
		scratch: &rd.scratch, memo: s.memo, segments: s.segments, freqs: map[int64]*rowFreqs{}}
	if err := r.deltaMatches(); err != nil {
		return nil, err
	}
	t := &g.segs[0]
	for m := 2*n + 8 + len(t.dead); ; m *= 2 {
		// The base's rows the deltas replaced are few after a few edits: they are dropped here
		// from a longer list, where a condition on every match looked each one up in every
		// delta (search p50 at 100k over 5 deltas, docs/benchmarks.md). After a large change
		// the condition is cheaper than the longer list.
		var read, base []rankedRow
		if len(t.dead) <= maxDroppedRanks {
			read, err = collectRanks(conn, baseRanksQuery("", m), expr)
			base = slices.DeleteFunc(slices.Clone(read), func(r rankedRow) bool { return t.dead[r.key] })
		} else {
			read, err = collectRanks(conn, baseRanksQuery(t.live, m), expr)
			base = slices.Clone(read)
		}
		if err != nil {
			return nil, err
		}
		if r.idf == nil {
			// The best of the base's rows are ranked again first; they are also the evidence of
			// the base's IDFs.
			if err := r.setIDFs(base[:min(n, len(base))]); err != nil {
				return nil, err
			}
		}
		rows, err := r.rankBase(base, n)
		if err != nil {
			return nil, err
		}
		// Done when every match was read, or when the last row read, at its most, still ranks
		// below the n-th: no row not read can reach or tie it. Past maxRankedBase rows the
		// order stands as read (a phrase whose IDF FTS5 floored in the base but not in the
		// generation; docs/architecture.md).
		if len(read) < m || len(rows) >= n && -read[len(read)-1].rank*r.growth < -rows[n-1].rank || m >= maxRankedBase {
			return cutTies(rows, n), nil
		}
	}
}

// maxRankedBase bounds how many of the base's matches one ranking reads and ranks again.
const maxRankedBase = 4096

// layeredRanking ranks one query's matches over a generation of several segments with the
// generation's statistics.
type layeredRanking struct {
	conn    *sqlite.Conn
	p       bm25
	g       *textStats
	expr    string
	phrases []string
	// tree is expr parsed, with phrases: which phrases count in a row's rank (ftsexpr.go).
	tree *exprNode
	// deltas are the deltas' live matches and deltaHits how many of their live rows hold
	// each phrase.
	deltas    map[int64]*rowFreqs
	deltaHits []int64
	// idf holds each phrase's IDF in the generation, and base its IDF in the base's table (0
	// when no base row holds it): what the base's ranks were computed with. fresh are the
	// deltas' matches ranked with them, and growth bounds how much more a base row scores
	// with the generation's IDFs than with the base's.
	idf, base []float64
	fresh     []rankedRow
	growth    float64
	// freqs are the base rows' frequencies read so far, by key, and memo what is known of the
	// base, by its segment's name: how many of its rows hold a phrase, and its rows analyzed
	// again.
	freqs map[int64]*rowFreqs
	memo  *BaseMemo
	// segments are the generation's segment files, the base first: the memo knows a segment
	// by its name.
	segments []Segment
	// counter counts the phrases in a row's text where it is ASCII (nil when a phrase is not);
	// scratch is the state of the connection's scratch tables, for the other rows.
	counter *phraseCounter
	scratch *scratchState
	lex     *lexicon.Analyzer
}

// phraseHits is how many of the base's rows hold a phrase; floored says FTS5 floored its
// IDF, so that hits is only the least it can be (half the rows).
type phraseHits struct {
	hits    int64
	floored bool
}

// baseName is the name of the generation's base segment.
func (r *layeredRanking) baseName() string { return r.segments[0].Name }

// rowFreqs is a row's frequency of each phrase and its size.
type rowFreqs struct {
	size int64
	freq []float64
}

// deltaMatches reads the live matches of the query in the deltas (segments 1 and on) and
// their frequencies of each phrase, and counts each phrase's live holders there.
func (r *layeredRanking) deltaMatches() error {
	r.deltas = map[int64]*rowFreqs{}
	for i := 1; i < len(r.g.segs); i++ {
		t := &r.g.segs[i]
		rows, err := r.deltaRows(i, false, r.expr)
		if err != nil {
			return err
		}
		for _, x := range rows {
			if !t.dead[x.key] {
				r.deltas[x.key] = &rowFreqs{size: x.size, freq: make([]float64, len(r.phrases))}
			}
		}
	}
	r.deltaHits = make([]int64, len(r.phrases))
	for j, ph := range r.phrases {
		for i := 1; i < len(r.g.segs); i++ {
			t := &r.g.segs[i]
			rows, err := r.deltaRows(i, true, ph)
			if err != nil {
				return err
			}
			for _, x := range rows {
				if t.dead[x.key] {
					continue
				}
				r.deltaHits[j]++
				if m := r.deltas[x.key]; m != nil {
					m.freq[j] = x.freq
				}
			}
		}
	}
	return nil
}

// deltaRows returns every row of delta i that matches text (an expression), or that holds it
// (a phrase) with its frequency of it, replaced or not: remembered by the memo, which keeps
// them for every generation the delta is in, or read from FTS5.
func (r *layeredRanking) deltaRows(i int, phrase bool, text string) ([]deltaRow, error) {
	t, q := &r.g.segs[i], deltaQuery{delta: r.segments[i].Name, phrase: phrase, text: text}
	if rows, ok := r.memo.deltaRows(r.baseName(), q); ok {
		return rows, nil
	}
	var rows []deltaRow
	query := "SELECT f.rowid, (SELECT sz FROM " + t.schema + ".search_docsize WHERE id = f.rowid) FROM " + t.schema + ".search f WHERE f.search MATCH ?1"
	if phrase {
		query = r.p.phraseRanks(t.schema, "search", "")
	}
	err := sqlitex.Execute(r.conn, query, &sqlitex.ExecOptions{Args: []any{text}, ResultFunc: func(st *sqlite.Stmt) error {
		x := deltaRow{key: st.ColumnInt64(0)}
		if phrase {
			x.freq, x.size = r.p.phraseFreq(st, t.avgdl())
		} else {
			x.size = rowSize(st, 1)
		}
		rows = append(rows, x)
		return nil
	}})
	if err != nil {
		return nil, fmt.Errorf("%s in %s: %w", text, t.schema, err)
	}
	r.memo.keepDeltaRows(r.baseName(), q, rows)
	return rows, nil
}

// setIDFs sets every phrase's IDFs, ranks the deltas' matches with them and sets the growth
// bound. best are the base's best live matches, with the base's ranks: a row among them that
// holds one phrase alone tells from its rank how many base rows hold that phrase, where
// asking FTS5 costs a pass over them.
func (r *layeredRanking) setIDFs(best []rankedRow) error {
	if err := r.readFreqs(best); err != nil {
		return err
	}
	r.idf, r.base = make([]float64, len(r.phrases)), make([]float64, len(r.phrases))
	for j := range r.phrases {
		if err := r.phraseIDF(j, best); err != nil {
			return err
		}
	}
	r.fresh = make([]rankedRow, 0, len(r.deltas))
	for key, m := range r.deltas {
		r.fresh = append(r.fresh, rankedRow{key: key, rank: r.rank(m)})
	}
	// How much a base row's score can grow from the base's statistics to the generation's: by
	// the largest ratio of a phrase's IDFs, the generation's to the base's, and by the ratio
	// of the average row lengths when the generation's is longer (K shrinks, at most by that
	// ratio, and f/(f+K) grows at most as much). A little more, for rounding.
	r.growth = 1
	for j, b := range r.base {
		if b > 0 {
			r.growth = max(r.growth, r.idf[j]/b)
		}
	}
	if gen, base := r.g.avgdl(), r.g.segs[0].avgdl(); gen > base {
		r.growth *= gen / base
	}
	r.growth *= 1 + 1e-9
	return nil
}

// phraseIDF sets the j-th phrase's IDFs: in the base, and in the generation, where the
// deltas' live holders are added and the base's rows they replaced taken out.
func (r *layeredRanking) phraseIDF(j int, best []rankedRow) error {
	t, phrase := &r.g.segs[0], r.phrases[j]
	c, err := r.baseCount(j, best)
	if err != nil {
		return err
	}
	hits := c.hits
	if hits > 0 {
		r.base[j] = minIDF
		if !c.floored {
			if r.base[j], err = sqlLn(r.conn, idfArg(t.rows, hits)); err != nil {
				return err
			}
		}
	}
	dead, err := r.deadHolders(phrase)
	if err != nil {
		return err
	}
	if c.floored {
		// Over half the base's rows hold it. Enough of them still do for the generation's IDF
		// to be the floor too, or they are counted.
		if 2*(hits-dead+r.deltaHits[j]) >= r.g.rows {
			r.idf[j] = minIDF
			return nil
		}
		if hits, err = countHolders(r.conn, t.schema, phrase); err != nil {
			return err
		}
	}
	idf, err := sqlLn(r.conn, idfArg(r.g.rows, hits-dead+r.deltaHits[j]))
	if err != nil {
		return err
	}
	if idf <= 0 {
		idf = minIDF
	}
	r.idf[j] = idf
	return nil
}

// baseCount is how many base rows hold the j-th phrase: remembered by the snapshot, or read
// back from the rank of a row of best that holds that phrase alone, or from FTS5.
func (r *layeredRanking) baseCount(j int, best []rankedRow) (phraseHits, error) {
	phrase := r.phrases[j]
	if c, ok := r.memo.hit(r.baseName(), phrase); ok {
		return c, nil
	}
	t := &r.g.segs[0]
	for _, x := range best {
		f := r.freqs[x.key]
		if f == nil || !holdsOnly(f.freq, j) {
			continue
		}
		hits, floored, ok, err := hitsFromScore(r.conn, r.p, t, -x.rank, f.freq[j], f.size)
		if err != nil {
			return phraseHits{}, err
		}
		if ok {
			r.memo.keepHit(r.baseName(), phrase, phraseHits{hits, floored})
			return phraseHits{hits, floored}, nil
		}
	}
	hits, floored, err := baseHits(r.conn, r.p, t, phrase)
	if err != nil {
		return phraseHits{}, err
	}
	r.memo.keepHit(r.baseName(), phrase, phraseHits{hits, floored})
	return phraseHits{hits, floored}, nil
}

// holdsOnly says whether freq is zero but for its j-th phrase.
func holdsOnly(freq []float64, j int) bool {
	for i, v := range freq {
		if (i == j) != (v != 0) {
			return false
		}
	}
	return true
}

// rankBase ranks again those of the base's live matches base (best first by the base's
// ranks) that can reach the n-th best with the generation's statistics: the first n, then
// each whose base score, grown as much as it can, reaches the n-th best found so far. It
// returns them with the deltas' matches, best first.
func (r *layeredRanking) rankBase(base []rankedRow, n int) ([]rankedRow, error) {
	var rows []rankedRow
	k := 0
	for next := min(n, len(base)); ; {
		if err := r.baseRanks(base[k:next]); err != nil {
			return nil, err
		}
		k = next
		rows = append(append(rows[:0], base[:k]...), r.fresh...)
		slices.SortFunc(rows, func(a, b rankedRow) int { return cmp.Compare(a.rank, b.rank) })
		for next < len(base) && (len(rows) < n || -base[next].rank*r.growth >= -rows[n-1].rank) {
			next++
		}
		if next == k {
			return rows, nil
		}
	}
}

// baseRanks ranks the base's live matches rows (keys and the base's ranks) again with the
// generation's statistics, in place; a row whose text did not analyze again to its indexed
// size keeps the base's rank.
func (r *layeredRanking) baseRanks(rows []rankedRow) error {
	if err := r.readFreqs(rows); err != nil {
		return err
	}
	for i := range rows {
		if f := r.freqs[rows[i].key]; f != nil {
			rows[i].rank = r.rank(f)
		}
	}
	return nil
}

// rank is FTS5's rank of a row of frequencies f with the generation's statistics, of the
// phrases that count in it (ftsexpr.go).
func (r *layeredRanking) rank(f *rowFreqs) float64 {
	return float64(-1 * r.p.score(r.idf, r.tree.counted(f.freq), r.p.lengthNorm(f.size, r.g.avgdl())))
}

// readFreqs reads the frequencies of those of rows not read yet: from the memo where an
// earlier ranking over the same base counted them for these phrases (a search's rows are
// mostly the last search's), else analyzed again.
func (r *layeredRanking) readFreqs(rows []rankedRow) error {
	var todo []int64
	for _, x := range rows {
		if _, ok := r.freqs[x.key]; !ok {
			todo = append(todo, x.key)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	count := r.memo.freqs(r.baseName(), todo, r.phrases, r.freqs)
	if len(count) == 0 {
		return nil
	}
	freqs, err := r.freqsOf(count)
	if err != nil {
		return err
	}
	for _, k := range count {
		r.freqs[k] = freqs[k] // nil: keeps the base's rank
	}
	r.memo.keepFreqs(r.baseName(), r.phrases, count, freqs)
	return nil
}

// freqsOf reads the base rows keys' stored fields and analyzes them again, and returns
// each one's size and frequency of each phrase: counted in Go where the row is ASCII
// (phrasecount.go), else read back from a scratch table. A row is left out when its size
// there is not its size in the base (an index another analyzer built).
func (r *layeredRanking) freqsOf(keys []int64) (map[int64]*rowFreqs, error) {
	rows, err := r.readStored(keys)
	if err != nil {
		return nil, err
	}
	out := make(map[int64]*rowFreqs, len(rows))
	if r.counter != nil {
		// Counted here where the row is ASCII (phrasecount.go); the others go to the table.
		left := rows[:0]
		for _, x := range rows {
			if size, freq, ok := r.counter.count(&x.text); ok && size == x.size {
				out[x.key] = &rowFreqs{size: size, freq: freq}
			} else {
				left = append(left, x)
			}
		}
		if rows = left; len(rows) == 0 {
			return out, nil
		}
	}
	if err := fillScratch(r.conn, "rank_text", &r.scratch.rankMade, rows); err != nil {
		return nil, err
	}
	tot, _, err := fts5seg.ReadTotals(r.conn, fts5seg.Table{Schema: "temp", Name: "rank_text", Columns: searchColumns})
	if err != nil || tot.Rows == 0 {
		return out, err
	}
	var tokens uint64
	for _, v := range tot.Columns {
		tokens += v
	}
	avg := float64(tokens) / float64(tot.Rows)
	scratch := make(map[int64]*rowFreqs, len(rows))
	for _, x := range rows {
		scratch[x.key] = &rowFreqs{size: x.size, freq: make([]float64, len(r.phrases))}
	}
	for j, ph := range r.phrases {
		err := sqlitex.Execute(r.conn, r.p.phraseRanks("temp", "rank_text", ""), &sqlitex.ExecOptions{Args: []any{ph}, ResultFunc: func(st *sqlite.Stmt) error {
			if m := scratch[st.ColumnInt64(0)]; m != nil {
				var size int64
				if m.freq[j], size = r.p.phraseFreq(st, avg); size != m.size {
					delete(scratch, st.ColumnInt64(0))
				}
			}
			return nil
		}})
		if err != nil {
			return nil, fmt.Errorf("%s in the scratch table: %w", ph, err)
		}
	}
	for k, f := range scratch {
		out[k] = f
	}
	return out, nil
}

// readStored reads the base's nodes keys and analyzes their full-text rows again from their
// stored fields, as a merge writes them.
func (r *layeredRanking) readStored(keys []int64) ([]storedText, error) {
	rows := make([]storedText, 0, len(keys))
	var todo []int64
	for _, k := range keys {
		if x, ok := r.memo.text(r.baseName(), k); ok {
			rows = append(rows, x)
		} else {
			todo = append(todo, k)
		}
	}
	if len(todo) == 0 {
		return rows, nil
	}
	list, err := json.Marshal(todo)
	if err != nil {
		return nil, err
	}
	if r.lex == nil {
		r.lex = lexicon.NewAnalyzer()
	}
	read := len(rows)
	err = sqlitex.Execute(r.conn, `SELECT n.key, n.id, n.kind, n.title, n.tags, b.body, b.code, (SELECT sz FROM main.search_docsize WHERE id = n.key)
		FROM main.nodes n JOIN main.bodies b ON b.key = n.key WHERE n.key IN (SELECT value FROM json_each(?1))`,
		&sqlitex.ExecOptions{Args: []any{string(list)}, ResultFunc: func(st *sqlite.Stmt) error {
			tags, err := jsonListOf(st.ColumnText(4))
			if err != nil {
				return fmt.Errorf("tags of %s: %w", st.ColumnText(1), err)
			}
			x := storedText{key: st.ColumnInt64(0), size: rowSize(st, 7),
				text: analyzeSearch(r.lex, st.ColumnText(1), st.ColumnText(2), st.ColumnText(3), tags, st.ColumnText(5), st.ColumnText(6))}
			rows = append(rows, x)
			return nil
		}})
	if err != nil {
		return nil, fmt.Errorf("read the stored fields of base rows: %w", err)
	}
	r.memo.keepTexts(r.baseName(), rows[read:])
	return rows, nil
}

// maxRememberedTexts bounds the base rows' analyzed texts a snapshot, or the base memo it
// shares, remembers: a search ranks the best rows of its name query, then of its text query,
// mostly the same nodes, and a capsule asked again after an edit its pool of 200.
const maxRememberedTexts = 1024

// maxRememberedFreqs bounds the rows' phrase frequencies the base memo remembers (a row and
// a phrase each, and a row each): a few megabytes.
const maxRememberedFreqs = 1 << 16

// maxRememberedDeltaRows bounds the deltas' rows the base memo remembers, in every list of
// them together.
const maxRememberedDeltaRows = 1 << 16

// storedText is a base row analyzed again from its node's stored fields: its key, its size in
// the base and its text.
type storedText struct {
	key  int64
	size int64
	text searchText
}

// scratchState is what a snapshot's connection holds of its scratch full-text tables:
// temp.rank_text, the base's best matches of one ranking, and temp.dead_text, the base's rows
// the deltas replaced.
type scratchState struct {
	rankMade, deadMade bool
	// dead is 0 until dead_text is filled, then 1, or -1 when a replaced row analyzed again
	// did not come out at its indexed size.
	dead int8
}

// fillScratch empties the scratch table temp.name (creating it unless made) and writes rows
// into it, in one transaction: FTS5 writes its pending terms out when a transaction commits.
func fillScratch(conn *sqlite.Conn, name string, made *bool, rows []storedText) (err error) {
	if !*made {
		if err := sqlitex.ExecuteTransient(conn, "CREATE VIRTUAL TABLE temp."+name+" USING fts5(id, name, title, tags, body, code, content = '', tokenize = '"+searchTokenizer+"')", nil); err != nil {
			return fmt.Errorf("scratch full-text table: %w", err)
		}
		*made = true
	}
	if err := sqlitex.ExecuteTransient(conn, "SAVEPOINT scratch", nil); err != nil {
		return fmt.Errorf("scratch full-text table: %w", err)
	}
	defer func() {
		if err == nil {
			err = sqlitex.ExecuteTransient(conn, "RELEASE scratch", nil)
		} else {
			// The table is emptied before every use: a failed fill leaves nothing to keep.
			sqlitex.ExecuteTransient(conn, "ROLLBACK TO scratch", nil)
			sqlitex.ExecuteTransient(conn, "RELEASE scratch", nil)
		}
		if err != nil {
			err = fmt.Errorf("fill the scratch full-text table: %w", err)
		}
	}()
	if err := sqlitex.ExecuteTransient(conn, "INSERT INTO temp."+name+"("+name+") VALUES ('delete-all')", nil); err != nil {
		return err
	}
	ins := conn.Prep("INSERT INTO temp." + name + "(rowid, id, name, title, tags, body, code) VALUES (?, ?, ?, ?, ?, ?, ?)")
	for _, x := range rows {
		ins.BindInt64(1, x.key)
		for i, v := range []string{x.text.id, x.text.name, x.text.title, x.text.tags, x.text.body, x.text.code} {
			ins.BindText(i+2, v)
		}
		_, err := ins.Step()
		if rerr := ins.Reset(); err == nil {
			err = rerr
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// deadScratch fills temp.dead_text with the base's rows the deltas replaced, once for the
// snapshot, and says whether it holds them all at their indexed sizes.
func (r *layeredRanking) deadScratch() (bool, error) {
	if r.scratch.dead == 0 {
		t := &r.g.segs[0]
		rows, err := r.readStored(slices.Collect(maps.Keys(t.dead)))
		if err != nil {
			return false, err
		}
		if err := fillScratch(r.conn, "dead_text", &r.scratch.deadMade, rows); err != nil {
			return false, err
		}
		r.scratch.dead = 1
		sizes := make(map[int64]int64, len(rows))
		for _, x := range rows {
			sizes[x.key] = x.size
		}
		err = sqlitex.Execute(r.conn, "SELECT id, sz FROM temp.dead_text_docsize", &sqlitex.ExecOptions{ResultFunc: func(st *sqlite.Stmt) error {
			if sizes[st.ColumnInt64(0)] != rowSize(st, 1) {
				r.scratch.dead = -1
			}
			delete(sizes, st.ColumnInt64(0))
			return nil
		}})
		if err != nil {
			return false, fmt.Errorf("read the scratch full-text sizes: %w", err)
		}
		if len(sizes) > 0 || len(rows) != len(t.dead) {
			r.scratch.dead = -1
		}
	}
	return r.scratch.dead == 1, nil
}

// maxDeadScratch is how many of the base's replaced rows deadHolders analyzes again into a
// scratch table, once a snapshot.
const maxDeadScratch = 512

// deadHolders counts the base's rows that later segments replaced and that hold phrase: in
// the scratch table of them when they are few enough to analyze again (looked up by key in
// the base, they took 18% of the CPU of searches at 100k over 8 deltas, docs/benchmarks.md),
// else in one pass over the phrase's holders, the keys in a list.
func (r *layeredRanking) deadHolders(phrase string) (int64, error) {
	conn, t := r.conn, &r.g.segs[0]
	if len(t.dead) == 0 {
		return 0, nil
	}
	var n int64
	count := func(*sqlite.Stmt) error { n++; return nil }
	if len(t.dead) <= maxDeadScratch {
		ok, err := r.deadScratch()
		if err != nil {
			return 0, err
		}
		if ok {
			err := sqlitex.Execute(conn, "SELECT 1 FROM temp.dead_text WHERE dead_text MATCH ?1", &sqlitex.ExecOptions{Args: []any{phrase}, ResultFunc: count})
			if err != nil {
				return 0, fmt.Errorf("%s in the replaced rows: %w", phrase, err)
			}
			return n, nil
		}
	}
	// The + keeps the list from FTS5, which would run the match once a key (a prefix's 752
	// times: 1.9 s on Hugo's repository).
	list, err := json.Marshal(slices.Collect(maps.Keys(t.dead)))
	if err != nil {
		return 0, err
	}
	err = sqlitex.Execute(conn, "SELECT 1 FROM "+t.schema+".search WHERE search MATCH ?1 AND +rowid IN (SELECT value FROM json_each(?2))",
		&sqlitex.ExecOptions{Args: []any{phrase, string(list)}, ResultFunc: count})
	if err != nil {
		return 0, fmt.Errorf("%s in %s: %w", phrase, t.schema, err)
	}
	return n, nil
}

// baseHits is how many rows of the base hold phrase, read back from the two ranks of the
// first of them; floored says FTS5 floored its IDF, so that hits is only the least it can be
// (half the rows).
func baseHits(conn *sqlite.Conn, p bm25, t *segmentText, phrase string) (hits int64, floored bool, err error) {
	found := false
	var s, f float64
	var size int64
	err = sqlitex.Execute(conn, p.phraseRanks(t.schema, "search", " LIMIT 1"), &sqlitex.ExecOptions{Args: []any{phrase}, ResultFunc: func(st *sqlite.Stmt) error {
		found, s = true, -st.ColumnFloat(1)
		f, size = p.phraseFreq(st, t.avgdl())
		return nil
	}})
	if err != nil || !found {
		return 0, false, err
	}
	hits, floored, ok, err := hitsFromScore(conn, p, t, s, f, size)
	if err != nil || ok {
		return hits, floored, err
	}
	// Not reproduced: count.
	hits, err = countHolders(conn, t.schema, phrase)
	return hits, false, err
}

// hitsFromScore is how many rows of the base hold a phrase, read back from the score s FTS5
// gave a base row of size tokens holding that phrase alone, with frequency f: the IDF, then
// the count, checked by computing the score again. ok is false when no count reproduces it.
func hitsFromScore(conn *sqlite.Conn, p bm25, t *segmentText, s, f float64, size int64) (hits int64, floored, ok bool, err error) {
	norm := p.lengthNorm(size, t.avgdl())
	idf := s * (f + norm) / (f * (p.k1 + 1))
	if math.Abs(idf-minIDF) <= 1e-6*minIDF {
		return (t.rows + 1) / 2, true, true, nil // n >= rows/2 exactly when FTS5's IDF is not positive
	}
	e := math.Exp(idf)
	guess := int64(math.Round((float64(t.rows) + 0.5 - 0.5*e) / (e + 1)))
	for _, h := range []int64{guess, guess - 1, guess + 1} {
		if h < 1 || h > t.rows {
			continue
		}
		exact, err := sqlLn(conn, idfArg(t.rows, h))
		if err != nil {
			return 0, false, false, err
		}
		// The score agrees to rounding; a neighbouring count's by far more.
		if exact > 0 && math.Abs(p.term(exact, f, norm)-s) <= 1e-9*s {
			return h, false, true, nil
		}
	}
	return 0, false, false, nil
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
