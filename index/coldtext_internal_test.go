package index

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"

	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/base/lexicon"
)

// A cold build's own full text, with a row that is not ASCII among the others, answers as
// the same rows inserted through FTS5: the same matches and the same scores.
func TestColdTextAnswersAsFTS5(t *testing.T) {
	type node struct {
		id, title, body string
		tags            []string
	}
	var nodes []node
	for i := range 300 {
		body := strings.Repeat(fmt.Sprintf("storage engine page%d cache ", i%17), 1+i%9)
		nodes = append(nodes, node{fmt.Sprintf("n%03d", i), fmt.Sprintf("Node %d of the storeEngine", i), body, []string{"t" + fmt.Sprint(i%5)}})
	}
	nodes[41].body = "Le café crème: a row FTS5 tokenizes itself" // not ASCII
	nodes[42].title = "Ünïcode title"

	rows := func(conn *sqlite.Conn, w *writer) {
		a := newAnalyzers(true)().(*analyzers)
		for i, n := range nodes {
			g := &graph.Node{Record: graph.Record{ID: n.id, Kind: "component", Title: n.title, Tags: n.tags}, Body: n.body}
			p := &preparedNode{}
			if a.prepare(g, p); w.fullText == nil {
				p.text = analyzeSearch(a.lex, n.id, "component", n.title, n.tags, n.body, "")
			}
			if err := w.indexText(int64(i+1), p); err != nil {
				panic(err)
			}
		}
	}
	dir := t.TempDir()
	ref := newTestSegment(t)
	own, err := openWrite(context.Background(), filepath.Join(dir, "own.db"), 2)
	if err != nil {
		t.Fatal(err)
	}
	if err := createSegment(own, false); err != nil {
		t.Fatal(err)
	}
	for _, conn := range []*sqlite.Conn{ref, own} {
		if err := sqlitex.ExecuteTransient(conn, "INSERT INTO search(search, rank) VALUES ('automerge', 0)", nil); err != nil {
			t.Fatal(err)
		}
	}
	rows(ref, &writer{conn: ref})
	text := newColdText()
	w := &writer{conn: own, fullText: text}
	rows(own, w)
	if err := text.b.Flush(own); err != nil {
		t.Fatal(err)
	}
	own.Close()
	// finish runs on a connection that has not read the table before, as finishCold's.
	own, err = openWrite(context.Background(), filepath.Join(dir, "own.db"), 2)
	if err != nil {
		t.Fatal(err)
	}
	defer own.Close()
	if err := text.finish(own); err != nil {
		t.Fatal(err)
	}
	if err := sqlitex.ExecuteTransient(own, "INSERT INTO search(search) VALUES ('integrity-check')", nil); err != nil {
		t.Fatalf("integrity-check: %v", err)
	}
	// The rows that are not ASCII went through FTS5, into a segment of its own.
	origins := queryRows(t, own, "SELECT origin < 1000, count(*) FROM search_docsize GROUP BY 1 ORDER BY 1")
	if want := []string{"0 298", "1 2"}; strings.Join(origins, ",") != strings.Join(want, ",") {
		t.Errorf("rows by origin (FTS5's below 1000) %v, want %v", origins, want)
	}
	// Queries of terms as our analyzer makes them (stems), as searches ask.
	term := func(word string) string { return `"` + lexicon.NewAnalyzer().Text(word) + `"` }
	for _, q := range []string{term("storage"), term("engine") + " OR " + term("café"), `"cr" * OR ` + term("crème"),
		"title : " + term("Ünïcode"), term("page3") + " " + term("cache"), term("storeEngine"), `"n04" *`} {
		query := "SELECT rowid, bm25(search, " + searchWeights + ") FROM search WHERE search MATCH '" + strings.ReplaceAll(q, "'", "''") + "' ORDER BY 2, 1"
		want, got := queryRows(t, ref, query), queryRows(t, own, query)
		if len(want) == 0 {
			t.Errorf("%s: no match; the test wants some", q)
		}
		if strings.Join(want, "\n") != strings.Join(got, "\n") {
			t.Errorf("%s: FTS5's rows answer\n%.300v\nthe cold build's own\n%.300v", q, want, got)
		}
	}
}

func queryRows(t *testing.T, conn *sqlite.Conn, q string) []string {
	t.Helper()
	var out []string
	err := sqlitex.ExecuteTransient(conn, q, &sqlitex.ExecOptions{ResultFunc: func(st *sqlite.Stmt) error {
		out = append(out, st.ColumnText(0)+" "+st.ColumnText(1))
		return nil
	}})
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return out
}

// A node's postings made from our analyzer's terms are those of the texts FTS5 would be given,
// and a refused node's texts are those.
func TestPostingsFromTermsAreThoseOfTheTexts(t *testing.T) {
	a := newAnalyzers(true)().(*analyzers)
	for _, n := range []graph.Node{
		{Record: graph.Record{ID: "n1", Kind: "component", Title: "Storage Engine", Tags: []string{"t1", "db/x"}}, Body: "The cache's pages: getID, HTTPServer and base64Encode_v2 -- 3.14 x2"},
		{Record: graph.Record{ID: "go:net/http.Server.ListenAndServe", Kind: "method", Title: "ListenAndServe"}, Body: "listens\n\ton the TCP address", CodeTerms: "srv ln Listen tcp addr"},
		{Record: graph.Record{ID: "req-7", Kind: "requirement", Title: ""}, Body: ""},
		{Record: graph.Record{ID: "n2", Kind: "component", Title: "Ünïcode"}, Body: "café"},
		{Record: graph.Record{ID: "n3", Kind: "component"}, Body: strings.Repeat("x", 300) + " long"},
		{Record: graph.Record{ID: "n4", Kind: "component", Title: "Crème"}, Body: "an ASCII body after a title that is not"},
		{Record: graph.Record{ID: "n5", Kind: "component", Title: "Quotes"}, Body: "it’s prose — with “curly” quotes only"},
	} {
		var got preparedNode
		a.prepare(&n, &got)
		tx := analyzeSearch(a.lex, n.ID, n.Kind, n.Title, n.Tags, n.Body, n.CodeTerms)
		want, wantOK := a.fts.Analyze([]string{tx.id, tx.name, tx.title, tx.tags, tx.body, tx.code})
		if got.ok != wantOK || fmt.Sprint(got.postings) != fmt.Sprint(want) {
			t.Errorf("%s: from terms %v %v, from texts %v %v", n.ID, got.ok, got.postings, wantOK, want)
		}
		// A refused row carries the texts FTS5 is given, the same as analyzeSearch makes.
		if !got.ok && got.text != tx || got.ok && got.text != (searchText{}) {
			t.Errorf("%s: texts %+v, want %+v", n.ID, got.text, tx)
		}
	}
}
