package fts5seg

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"
)

var testTable = Table{Schema: "main", Name: "s", Columns: 3}

// openTable makes a file holding the FTS5 table the package writes, configured as a cold
// build configures its own: a term buffer large enough for one flush, no merging.
func openTable(t *testing.T, path string) *sqlite.Conn {
	t.Helper()
	conn, err := sqlite.OpenConn(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() }) // the error of a second close is of no interest
	for _, q := range []string{
		`CREATE VIRTUAL TABLE s USING fts5(a, b, c, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 2')`,
		`INSERT INTO s(s, rank) VALUES ('hashsize', 268435456)`,
		`INSERT INTO s(s, rank) VALUES ('automerge', 0)`,
	} {
		if err := sqlitex.ExecuteTransient(conn, q, nil); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return conn
}

type testRow struct {
	key  int64
	cols []string
}

// testRows are rows of words from a skewed vocabulary, with a few very long rows whose
// position lists run over pages, and one word in nearly every row, whose doclist runs over
// enough pages to get a doclist index.
func testRows(n int, seed uint64, words int) []testRow {
	r := rand.New(rand.NewPCG(seed, 7))
	vocab := make([]string, words)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%dx%s", i, strings.Repeat("q", r.IntN(12)))
	}
	vocab[3] = "Common" // case is folded
	var rows []testRow
	key := int64(0)
	for i := 0; i < n; i++ {
		key += 1 + int64(r.IntN(300)) // rowid gaps, some of them wide varints
		cols := make([]string, 3)
		for c := range cols {
			words := r.IntN(40)
			if c == 1 && i%97 == 5 {
				words = 3000 // a position list longer than a page
			}
			var b strings.Builder
			for k := 0; k < words; k++ {
				x := r.Float64()
				b.WriteString(vocab[int(x*x*x*float64(len(vocab)))])
				b.WriteString([]string{" ", ", ", ".", "-", "\n"}[r.IntN(5)])
			}
			if c == 2 && r.IntN(3) > 0 {
				b.WriteString(" common")
			}
			cols[c] = b.String()
		}
		rows = append(rows, testRow{key, cols})
	}
	return rows
}

func insertThroughFTS5(t *testing.T, conn *sqlite.Conn, rows []testRow) {
	t.Helper()
	end, err := sqlitex.ImmediateTransaction(conn)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		err := sqlitex.Execute(conn, `INSERT INTO s(rowid, a, b, c) VALUES (?, ?, ?, ?)`,
			&sqlitex.ExecOptions{Args: []any{r.key, r.cols[0], r.cols[1], r.cols[2]}})
		if err != nil {
			t.Fatal(err)
		}
	}
	end(&err)
	if err != nil {
		t.Fatal(err)
	}
}

// insertThroughBuilder writes rows with a Builder in one transaction, flushing whenever
// flushAt bytes are pending (0: once, at the end), and records them (Finish).
func insertThroughBuilder(t *testing.T, conn *sqlite.Conn, rows []testRow, flushAt int) {
	t.Helper()
	b := NewBuilder(testTable, Numbering{})
	build(t, conn, b, rows, flushAt, func(int) bool { return false })
	if err := b.Finish(conn); err != nil {
		t.Fatal(err)
	}
}

// build writes rows in one transaction: with b, flushing whenever flushAt bytes are pending,
// and through FTS5 those that viaFTS5 picks; it flushes the last rows but records nothing.
func build(t *testing.T, conn *sqlite.Conn, b *Builder, rows []testRow, flushAt int, viaFTS5 func(i int) bool) {
	t.Helper()
	end, err := sqlitex.ImmediateTransaction(conn)
	if err != nil {
		t.Fatal(err)
	}
	lex := NewAnalyzer()
	for i, r := range rows {
		if viaFTS5(i) {
			err := sqlitex.Execute(conn, `INSERT INTO s(rowid, a, b, c) VALUES (?, ?, ?, ?)`,
				&sqlitex.ExecOptions{Args: []any{r.key, r.cols[0], r.cols[1], r.cols[2]}})
			if err != nil {
				t.Fatal(err)
			}
			continue
		}
		row, ok := lex.Analyze(r.cols)
		if !ok {
			t.Fatalf("row %d refused", r.key)
		}
		if err := b.Add(r.key, row); err != nil {
			t.Fatal(err)
		}
		if flushAt > 0 && b.Pending() >= flushAt {
			if err := b.Flush(conn); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err = b.Flush(conn); err != nil {
		t.Fatal(err)
	}
	end(&err)
	if err != nil {
		t.Fatal(err)
	}
}

func dump(t *testing.T, conn *sqlite.Conn, q string) []string {
	t.Helper()
	var out []string
	err := sqlitex.ExecuteTransient(conn, q, &sqlitex.ExecOptions{ResultFunc: func(st *sqlite.Stmt) error {
		var b strings.Builder
		for i := 0; i < st.ColumnCount(); i++ {
			switch st.ColumnType(i) {
			case sqlite.TypeBlob:
				buf := make([]byte, st.ColumnLen(i))
				st.ColumnBytes(i, buf)
				fmt.Fprintf(&b, "x'%x' ", buf)
			case sqlite.TypeNull:
				b.WriteString("NULL ")
			default:
				fmt.Fprintf(&b, "%s(%d) ", st.ColumnText(i), st.ColumnType(i))
			}
		}
		out = append(out, b.String())
		return nil
	}})
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return out
}

func sameRows(t *testing.T, what string, want, got []string) {
	t.Helper()
	if len(want) != len(got) {
		t.Errorf("%s: FTS5 wrote %d rows, the builder %d", what, len(want), len(got))
	}
	for i := range min(len(want), len(got)) {
		if want[i] != got[i] {
			t.Errorf("%s row %d:\nFTS5:    %.400s\nbuilder: %.400s", what, i, want[i], got[i])
			return
		}
	}
}

func TestOneSegmentIsWhatFTS5Writes(t *testing.T) {
	var dlidx, rowidFirst int
	// Several sizes and seeds, so that doclists end at many places on a page and run over
	// every number of pages, around the doclist index's threshold too.
	for i, tc := range []struct{ rows, words int }{{40, 600}, {300, 600}, {1200, 600}, {2500, 600}, {2600, 600}, {4000, 600}, {1000, 100000}} {
		t.Run(fmt.Sprint(tc.rows, " rows ", tc.words, " words"), func(t *testing.T) {
			rows := testRows(tc.rows, uint64(i+1), tc.words)
			dir := t.TempDir()
			fts, built := openTable(t, filepath.Join(dir, "fts5.db")), openTable(t, filepath.Join(dir, "built.db"))
			insertThroughFTS5(t, fts, rows)
			insertThroughBuilder(t, built, rows, 0)
			for _, q := range []string{
				`SELECT id, block FROM s_data ORDER BY id`,
				`SELECT segid, term, pgno FROM s_idx ORDER BY segid, term`,
				`SELECT id, sz, origin FROM s_docsize ORDER BY id`,
				`SELECT k, v FROM s_config ORDER BY k`,
			} {
				sameRows(t, q, dump(t, fts, q), dump(t, built, q))
			}
			err := sqlitex.ExecuteTransient(built, `SELECT id, hex(substr(block, 1, 2)) FROM s_data WHERE id > 10`, &sqlitex.ExecOptions{ResultFunc: func(st *sqlite.Stmt) error {
				if st.ColumnInt64(0)>>(pageBits+heightBits)&1 == 1 {
					dlidx++
				} else if st.ColumnText(1) != "0000" {
					rowidFirst++
				}
				return nil
			}})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
	// The rows must exercise what is hard to get right: pages that begin inside a doclist,
	// position lists split over pages, and doclist indexes.
	if dlidx == 0 || rowidFirst == 0 {
		t.Errorf("the rows made %d doclist index pages and %d pages that begin with a rowid; want some of each", dlidx, rowidFirst)
	}
}

func TestSegmentsAnswerAsFTS5(t *testing.T) {
	rows := testRows(3000, 2, 600)
	dir := t.TempDir()
	fts, built := openTable(t, filepath.Join(dir, "fts5.db")), openTable(t, filepath.Join(dir, "built.db"))
	insertThroughFTS5(t, fts, rows)
	insertThroughBuilder(t, built, rows, 60000) // several segments
	// FTS5 keeps the structure it read on a connection; a fresh one reads what Finish wrote.
	built = reopen(t, built, filepath.Join(dir, "built.db"))
	if got := dump(t, built, `SELECT count(DISTINCT segid) FROM s_idx`); len(got) != 1 || strings.HasPrefix(got[0], "1(") {
		t.Fatalf("segments: %v; want several", got)
	}
	if err := sqlitex.ExecuteTransient(built, `INSERT INTO s(s) VALUES ('integrity-check')`, nil); err != nil {
		t.Fatalf("integrity-check: %v", err)
	}
	for _, q := range []string{"common", "w1x*", "w2xqq OR w5x", phraseOf(rows[5].cols[1]), "b : common", "w5x* NOT w6x*", "NEAR(w0x* w1x*, 3)"} {
		want := dump(t, fts, `SELECT rowid, bm25(s) FROM s WHERE s MATCH '`+strings.ReplaceAll(q, "'", "''")+`' ORDER BY bm25(s), rowid`)
		got := dump(t, built, `SELECT rowid, bm25(s) FROM s WHERE s MATCH '`+strings.ReplaceAll(q, "'", "''")+`' ORDER BY bm25(s), rowid`)
		if len(want) == 0 {
			t.Errorf("%s matches nothing; the test wants matches", q)
		}
		sameRows(t, q, want, got)
	}
	// Deleting rows (a merge does, from a contentless_delete table) works on the segments.
	for _, conn := range []*sqlite.Conn{fts, built} {
		for _, r := range rows[:200] {
			if err := sqlitex.Execute(conn, `DELETE FROM s WHERE rowid = ?`, &sqlitex.ExecOptions{Args: []any{r.key}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	q := `SELECT rowid, bm25(s) FROM s WHERE s MATCH 'common' ORDER BY bm25(s), rowid`
	sameRows(t, "after deletes", dump(t, fts, q), dump(t, built, q))
	if err := sqlitex.ExecuteTransient(built, `INSERT INTO s(s) VALUES ('integrity-check')`, nil); err != nil {
		t.Fatalf("integrity-check after deletes: %v", err)
	}
}

// reopen closes conn and opens its file again.
func reopen(t *testing.T, conn *sqlite.Conn, path string) *sqlite.Conn {
	t.Helper()
	if err := conn.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := sqlite.OpenConn(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { again.Close() })
	return again
}

// phraseOf is a phrase query of the first two words of text.
func phraseOf(text string) string {
	words := strings.FieldsFunc(text, func(r rune) bool { return !isAlnum(byte(r)) })
	return `"` + words[0] + " " + words[1] + `"`
}

func TestAnalyzeRefusesWhatUnicode61AloneHandles(t *testing.T) {
	for _, tc := range []struct {
		cols []string
		ok   bool
	}{
		{[]string{"plain words", "", "x"}, true},
		{[]string{"café", "", ""}, false},
		{[]string{"", strings.Repeat("a", MaxToken), ""}, true},
		{[]string{"", strings.Repeat("a", MaxToken+1), ""}, false},
	} {
		if _, ok := NewAnalyzer().Analyze(tc.cols); ok != tc.ok {
			t.Errorf("Analyze(%.40q) ok = %v, want %v", tc.cols, ok, tc.ok)
		}
	}
}

func TestVarintsAsSQLite(t *testing.T) {
	for _, v := range []uint64{0, 1, 127, 128, 16383, 16384, 1 << 21, 1<<28 - 1, 1 << 35, 1<<56 - 1, 1 << 56, 1<<64 - 1} {
		b := AppendVarint(nil, v)
		got, n := ReadVarint(b)
		if got != v || n != len(b) {
			t.Errorf("%d: encoded %x, read back %d in %d bytes", v, b, got, n)
		}
	}
	if !bytes.Equal(AppendVarint(nil, 300), []byte{0x82, 0x2c}) {
		t.Errorf("300 encodes as %x, want 822c", AppendVarint(nil, 300))
	}
}

// With shared numbering, FTS5 inserts some rows into the table while the Builder writes the
// others, in the same transaction; after Finish the table answers as if FTS5 had inserted
// them all, and FTS5 goes on writing to it.
func TestSharedTableAnswersAsFTS5(t *testing.T) {
	rows := testRows(3000, 3, 600)
	dir := t.TempDir()
	fts, built := openTable(t, filepath.Join(dir, "fts5.db")), openTable(t, filepath.Join(dir, "built.db"))
	for _, conn := range []*sqlite.Conn{fts, built} {
		// A small term buffer, so that FTS5 flushes segments of its own during the build.
		if err := sqlitex.ExecuteTransient(conn, `INSERT INTO s(s, rank) VALUES ('hashsize', 20000)`, nil); err != nil {
			t.Fatal(err)
		}
	}
	insertThroughFTS5(t, fts, rows)
	b := NewBuilder(testTable, Numbering{Shared: true})
	build(t, built, b, rows, 100000, func(i int) bool { return i%7 == 3 }) // as rows that are not ASCII go
	built = reopen(t, built, filepath.Join(dir, "built.db"))
	if err := b.Finish(built); err != nil {
		t.Fatal(err)
	}
	built = reopen(t, built, filepath.Join(dir, "built.db"))
	segs := dump(t, built, `SELECT segid < 1000, count(DISTINCT segid) FROM s_idx GROUP BY 1 ORDER BY 1`)
	if len(segs) != 2 {
		t.Fatalf("segments by writer: %v; want some of FTS5's and some of the builder's", segs)
	}
	check := func(when string) {
		t.Helper()
		if err := sqlitex.ExecuteTransient(built, `INSERT INTO s(s) VALUES ('integrity-check')`, nil); err != nil {
			t.Fatalf("%s: integrity-check: %v", when, err)
		}
		for _, q := range []string{"common", "w1x*", "w2xqq OR w5x", phraseOf(rows[5].cols[1]), "b : common", "w5x* NOT w6x*"} {
			query := `SELECT rowid, bm25(s) FROM s WHERE s MATCH '` + strings.ReplaceAll(q, "'", "''") + `' ORDER BY bm25(s), rowid`
			sameRows(t, when+": "+q, dump(t, fts, query), dump(t, built, query))
		}
	}
	check("after Finish")
	// FTS5 goes on: deletes, inserts, and a merge of everything.
	for _, conn := range []*sqlite.Conn{fts, built} {
		for _, r := range rows[100:400] {
			if err := sqlitex.Execute(conn, `DELETE FROM s WHERE rowid = ?`, &sqlitex.ExecOptions{Args: []any{r.key}}); err != nil {
				t.Fatal(err)
			}
		}
		for _, r := range testRows(50, 9, 600) {
			err := sqlitex.Execute(conn, `INSERT INTO s(rowid, a, b, c) VALUES (?, ?, ?, ?)`,
				&sqlitex.ExecOptions{Args: []any{r.key + 1<<30, r.cols[0], r.cols[1], r.cols[2]}})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	check("after deletes and inserts")
	for _, conn := range []*sqlite.Conn{fts, built} {
		if err := sqlitex.ExecuteTransient(conn, `INSERT INTO s(s) VALUES ('optimize')`, nil); err != nil {
			t.Fatal(err)
		}
	}
	check("after optimize")
}
