package index

import (
	"fmt"
	"slices"
	"testing"

	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"

	"github.com/docforge/docforge/base/lexicon"
	"github.com/docforge/docforge/index/fts5seg"
)

// The frequencies counted in Go are FTS5's, to the bit: each row is also written into a
// scratch table, and each phrase's frequency read back from FTS5's ranks there.
func TestPhraseCountsAgreeWithFTS5(t *testing.T) {
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	conn, err := sqlite.OpenConn(":memory:", 0)
	must(err)
	defer conn.Close()
	lex := lexicon.NewAnalyzer()
	bodies := []string{
		"The write-ahead log writes the log before the page; WAL mode.",
		"maxBytesReader wraps a reader: max bytes, then EOF. MaxBytesReader!",
		"storage storage storage of the storage_engine, stored in STORAGE/v2",
		"Logs, logging and loggers log to log.txt at 10:30 on 2024-01-02.",
		"a a a a b a a",
		"quo quokka quorum quota quoted QUOTE",
	}
	var rows []storedText
	for i, b := range bodies {
		id := fmt.Sprintf("doc/n%02d", i)
		text := analyzeSearch(lex, id, "component", fmt.Sprintf("Node %d log", i), []string{"storage", "wal"}, b, "func write log log quota quote quorum x_y")
		rows = append(rows, storedText{key: int64(i + 1), text: text})
	}
	var made bool
	must(fillScratch(conn, "rank_text", &made, rows))
	tot, _, err := fts5seg.ReadTotals(conn, fts5seg.Table{Schema: "temp", Name: "rank_text", Columns: searchColumns})
	must(err)
	n := int64(tot.Rows)
	var tokens int64
	for _, v := range tot.Columns {
		tokens += int64(v)
	}
	avg := float64(tokens) / float64(n)
	p := newBM25()
	for _, expr := range []string{
		`"log"`, `"storag"*`, `"quo"*`, `name : "log"`, `title : "log" AND "node"`, `"a a"`, `"a a"*`,
		`"write" OR "log" OR "page"`, `("maxbytesread" OR ("max" AND "byte" AND "reader")) AND "eof"`,
		`"storage_engine"`, `"x_y"`, `"10"`, `code : "quot"*`, `"wal"`, `tags : "wal"`,
	} {
		_, phrases := parseExpr(expr)
		c := newPhraseCounter(phrases, p.columns)
		if c == nil {
			t.Fatalf("%s: not countable", expr)
		}
		for j, ph := range phrases {
			fts := map[int64]float64{}
			ftsSize := map[int64]int64{}
			err := sqlitex.Execute(conn, p.phraseRanks("temp", "rank_text", ""), &sqlitex.ExecOptions{Args: []any{ph}, ResultFunc: func(st *sqlite.Stmt) error {
				fts[st.ColumnInt64(0)], ftsSize[st.ColumnInt64(0)] = p.phraseFreq(st, avg)
				return nil
			}})
			must(err)
			for _, x := range rows {
				size, freq, ok := c.count(&x.text)
				if !ok {
					t.Fatalf("row %d is ASCII but was not counted", x.key)
				}
				if want, held := fts[x.key]; freq[j] != want || held && size != ftsSize[x.key] {
					t.Errorf("%s, phrase %s, row %d: counted %.17g (size %d), FTS5 %.17g (size %d)", expr, ph, x.key, freq[j], size, want, ftsSize[x.key])
				}
			}
		}
	}
	if newPhraseCounter([]string{`"café"`}, p.columns) != nil {
		t.Errorf("a phrase that is not ASCII was taken as countable")
	}
	if _, _, ok := (&phraseCounter{}).count(&searchText{body: "naïve"}); ok {
		t.Errorf("a row that is not ASCII was counted")
	}
	if got := asciiTokens("Foo_bar-BAZ 42x", nil); !slices.Equal(got, []string{"foo", "bar", "baz", "42x"}) {
		t.Errorf("asciiTokens = %q", got)
	}
}
