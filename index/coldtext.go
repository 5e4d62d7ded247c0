package index

import (
	"context"
	"fmt"
	"strings"

	"zombiezen.com/go/sqlite"

	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/base/lexicon"
	"github.com/docforge/docforge/index/fts5seg"
)

// analyzers are what a parsing goroutine analyzes nodes' full text with (prepareNodes): our
// analyzer, then, when the build writes its own full text (own), the tokenizing FTS5 would
// do of what it made.
type analyzers struct {
	lex *lexicon.Analyzer
	fts *fts5seg.Analyzer
	own bool
}

// newAnalyzers makes the analyzers of a sync.Pool.
func newAnalyzers(own bool) func() any {
	return func() any { return &analyzers{lexicon.NewAnalyzer(), fts5seg.NewAnalyzer(), own} }
}

// prepare makes a node's full-text row for a cold build: its postings for fts5seg, made from
// the terms our analyzer gives without joining them into the texts FTS5 would be given (FTS5
// would split those texts at the spaces between the terms, and at nothing else the terms
// hold); or, when fts5seg refuses the row, those texts (analyzeSearch), for FTS5's insert. The
// body, the long column, is analyzed once either way: into terms while the row can still be
// taken and the body is ASCII (so are its terms), else into the text, which fts5seg then
// tokenizes and FTS5 gets if the row is refused.
func (a *analyzers) prepare(n *graph.Node, p *preparedNode) {
	searched := indexedBody(n.ID, n.Body)
	if !a.own {
		p.text = searchTextOf(a.lex, n.ID, n.Kind, n.Title, n.Tags, a.lex.Text(searched), n.CodeTerms)
		return
	}
	f, ok := a.fts, true
	add := func(col int, text string) {
		if ok {
			ok = f.Add(col, text)
		}
	}
	f.Begin(searchColumns)
	add(0, lexicon.Names(n.ID))
	add(1, lexicon.Names(NameOf(n.ID, n.Kind)))
	a.lex.Terms(n.Title, func(t string) { add(2, t) })
	a.lex.Terms(strings.Join(n.Tags, " "), func(t string) { add(3, t) })
	body, analyzed := "", false
	if ok && lexicon.IsASCII(searched) {
		a.lex.Terms(searched, func(t string) { add(4, t) })
	} else {
		body, analyzed = a.lex.Text(searched), true
		add(4, body)
	}
	add(5, n.CodeTerms)
	if p.postings, p.ok = f.End(); p.ok {
		return
	}
	if !analyzed {
		body = a.lex.Text(searched)
	}
	p.text = searchTextOf(a.lex, n.ID, n.Kind, n.Title, n.Tags, body, n.CodeTerms)
}

// coldText is a cold build's full text, written by this process rather than through FTS5's
// insert, which was most of the CPU of the goroutine that inserts (docs/benchmarks.md): the
// postings are made on the parsing goroutines, gathered here per term and written as FTS5
// segments, each when buildHashBytes of them are pending, as FTS5 flushes its own. A row
// fts5seg does not take (text that is not ASCII) goes through FTS5's insert in the same
// table; the segments are numbered apart from FTS5's (fts5seg.Numbering).
type coldText struct {
	b *fts5seg.Builder
}

func newColdText() *coldText {
	return &coldText{b: fts5seg.NewBuilder(fts5seg.Table{Schema: "main", Name: "search", Columns: searchColumns}, fts5seg.Numbering{Shared: true})}
}

// indexText writes a node's full-text row: through FTS5, or into the cold build's own.
func (w *writer) indexText(key int64, prep *preparedNode) error {
	c := w.fullText
	if c == nil || !prep.ok {
		return w.insertSearch(key, &prep.text)
	}
	if err := c.b.Add(key, prep.postings); err != nil {
		return err
	}
	if c.b.Pending() >= buildHashBytes {
		return c.b.Flush(w.conn)
	}
	return nil
}

// flush writes the postings still pending as a segment, at the end of the build's inserts;
// without a cold build's own full text (nil) there are none.
func (c *coldText) flush(conn *sqlite.Conn) error {
	if c == nil {
		return nil
	}
	return c.b.Flush(conn)
}

// finish records the segments written (fts5seg.Builder.Finish) on conn, a connection that
// has not read the table's structure before, since FTS5 keeps what it read: not the one
// that built.
func (c *coldText) finish(conn *sqlite.Conn) (err error) {
	if c == nil {
		return nil // FTS5 wrote the full text and its records itself
	}
	commit, err := beginBuild(conn)
	if err != nil {
		return fmt.Errorf("begin full-text records: %w", err)
	}
	defer func() {
		if err == nil {
			err = commit()
		}
	}()
	return c.b.Finish(conn)
}

// FullTextWriter says how this process's cold builds write the full text: "fts5seg" (its own
// segment writer, proven byte for byte against the linked SQLite's FTS5 for the index's
// table), or "fts5" and why not, when the linked SQLite or the table's configuration is not
// the one the segment writer's tests pin (fts5seg.Check).
func FullTextWriter(ctx context.Context) (writer, reason string, err error) {
	conn, err := sqlite.OpenConn(":memory:", sqlite.OpenReadWrite|sqlite.OpenCreate|sqlite.OpenMemory)
	if err != nil {
		return "", "", fmt.Errorf("full-text writer: %w", err)
	}
	defer conn.Close()
	conn.SetInterrupt(ctx.Done())
	if err := createSegment(conn, false); err != nil {
		return "", "", fmt.Errorf("full-text writer: %w", err)
	}
	if err := fts5seg.Check(conn, searchTable("main")); err != nil {
		return "fts5", err.Error(), nil
	}
	return "fts5seg", "", nil
}
