package index

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"

	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/base/jsonenc"
	"github.com/docforge/docforge/base/lexicon"
	"github.com/docforge/docforge/index/fts5seg"
	"github.com/docforge/docforge/index/publication"
	"github.com/docforge/docforge/source"
)

// state is the running summary of an index being written: the set digests and counts that
// meta stores, so that the next incremental build can resume them.
type state struct {
	generation int64
	identity   string
	sources    graph.SetDigest
	nodes      graph.SetDigest
	edges      graph.SetDigest
}

// Hashes returns the published hash strings.
func (s *state) Hashes() (sourceHash, nodeHash, edgeHash string) {
	return s.sources.Sum(), s.nodes.Sum(), s.edges.Sum()
}

func fileItem(path, fileHash string) string { return path + "\x00" + fileHash }

// writer inserts and deletes graph rows on a read-write connection inside a transaction.
type writer struct {
	conn  *sqlite.Conn
	rels  map[string]int64 // relation name -> rel
	st    *state
	names map[string]int64 // interned ref_names, as far as looked up
	// namesComplete says names holds every interned name (a cold build, which interns them
	// all itself), so a miss is a new name and needs no lookup.
	namesComplete bool
	// lex analyzes full-text columns, remembering tokens across the nodes of one build.
	lex *lexicon.Analyzer
	// nextName, when set, is the ID the next interned name gets: a delta numbers its names
	// after every older segment's.
	nextName int64
	// delta says the connection writes a delta segment: rows go to its main database, reads
	// see the whole generation through views (segment.go), and every write names the key it
	// replaces dead for the older segments.
	delta bool
	// candidates, when not nil, collects every relation candidate insertRefs writes, by
	// interned name: a cold build resolves them once every node is known.
	candidates *[]candidate
	// fullText, when not nil, takes the full-text rows a cold build's nodes bring prepared
	// (coldText); others go through FTS5.
	fullText *coldText
	// labels, when not nil, gathers a cold build's tag and capability rows, which
	// insertLabels writes in order once every node is in: inserted a node at a time, each row
	// was a search of its B-tree and, often, a split of a page amid it (docs/benchmarks.md).
	labels *labelRows
}

// labelRows are the rows of node_tags and node_caps.
type labelRows struct{ tags, caps []labelRow }

type labelRow struct {
	label string
	key   int64
}

// candidate is a relation candidate by the interned names of its ends and its relation key.
type candidate struct{ src, rel, dst int64 }

func (a candidate) compare(b candidate) int {
	return cmp.Or(cmp.Compare(a.src, b.src), cmp.Compare(a.rel, b.rel), cmp.Compare(a.dst, b.dst))
}

// markDead names a key dead for the older segments, when writing a delta.
func (w *writer) markDead(table string, key ...any) error {
	if !w.delta {
		return nil
	}
	marks := strings.TrimSuffix(strings.Repeat("?, ", len(key)), ", ")
	if err := sqlitex.Execute(w.conn, `INSERT OR IGNORE INTO main.`+table+` VALUES (`+marks+`)`, &sqlitex.ExecOptions{Args: key}); err != nil {
		return fmt.Errorf("mark %s dead: %w", table, err)
	}
	return nil
}

// edgeLive reports whether the generation being written holds the edge.
func (w *writer) edgeLive(src, rel, dst int64) (bool, error) {
	var n int64
	if err := execInt(w.conn, `SELECT count(*) FROM edges WHERE src = ? AND rel = ? AND dst = ?`, &n, src, rel, dst); err != nil {
		return false, fmt.Errorf("check edge: %w", err)
	}
	return n > 0, nil
}

func (w *writer) insertFile(f source.File, fileHash string) error {
	s := w.conn.Prep(`INSERT OR REPLACE INTO main.files(path, format, size, mtime_ns, ctime_ns, ino, dev, file_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
	s.BindText(1, f.Path)
	s.BindInt64(2, int64(f.Format))
	s.BindInt64(3, f.Size)
	s.BindInt64(4, f.MtimeNs)
	s.BindInt64(5, f.CtimeNs)
	s.BindInt64(6, int64(f.Ino))
	s.BindInt64(7, int64(f.Dev))
	s.BindText(8, fileHash)
	if _, err := s.Step(); err != nil {
		return fmt.Errorf("insert file %s: %w", f.Path, err)
	}
	if err := s.Reset(); err != nil {
		return err
	}
	return w.markDead("dead_files", f.Path)
}

func (w *writer) deleteFile(path string) error {
	if err := sqlitex.Execute(w.conn, `DELETE FROM main.files WHERE path = ?`, &sqlitex.ExecOptions{Args: []any{path}}); err != nil {
		return fmt.Errorf("delete file %s: %w", path, err)
	}
	return w.markDead("dead_files", path)
}

func jsonList(s []string) string {
	if len(s) == 0 {
		return "[]"
	}
	return string(jsonenc.Strings(make([]byte, 0, 16*len(s)), s))
}

// headingsJSON is json.Marshal's encoding of a node's headings, [] for none, written without
// reflection on the goroutine every node's insert passes through.
func headingsJSON(hs []graph.Heading) string {
	if len(hs) == 0 {
		return "[]"
	}
	b := append(make([]byte, 0, 64*len(hs)), '[')
	for i, h := range hs {
		if i > 0 {
			b = append(b, ',')
		}
		o := jsonenc.NewObject(b)
		o.Int("level", int64(h.Level))
		o.Str("text", h.Text)
		o.Str("anchor", h.Anchor)
		o.Int("line", int64(h.Line))
		b = o.End()
	}
	return string(append(b, ']'))
}

// insertNode writes a node row at key (replacing any row with that key) and its tag,
// capability, search and Logic rows, and adds it to the node digest. prep is what
// prepareNodes made of the node on the goroutine that parsed it, or nil.
func (w *writer) insertNode(key int64, n *graph.Node, prep *preparedNode) error {
	record := graph.RecordHash(n)
	s := w.conn.Prep(`INSERT INTO main.nodes(key, id, kind, family, title, status, authority, tags, language,
		capabilities, source_path, anchor, line, content_hash, record_hash, headings, head_digest, body_digest, end_line)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	s.BindInt64(1, key)
	s.BindText(2, n.ID)
	s.BindText(3, n.Kind)
	s.BindText(4, n.Family)
	s.BindText(5, n.Title)
	s.BindText(6, n.Status)
	s.BindText(7, n.Authority)
	s.BindText(8, jsonList(n.Tags))
	s.BindText(9, n.Language)
	s.BindText(10, jsonList(n.Capabilities))
	s.BindText(11, n.SourcePath)
	s.BindText(12, n.Anchor)
	s.BindInt64(13, int64(n.Line))
	s.BindText(14, n.ContentHash)
	s.BindText(15, record)
	s.BindText(16, headingsJSON(n.Headings))
	s.BindText(17, n.Parts.Head)
	s.BindText(18, n.Parts.Body)
	s.BindInt64(19, int64(n.EndLine))
	if _, err := s.Step(); err != nil {
		return fmt.Errorf("insert node %s: %w", n.ID, err)
	}
	if err := s.Reset(); err != nil {
		return fmt.Errorf("insert node %s: %w", n.ID, err)
	}
	if err := w.markDead("dead_nodes", key); err != nil {
		return err
	}
	if err := w.insertStamps(key, n); err != nil {
		return err
	}
	body := w.conn.Prep(`INSERT INTO main.bodies(key, body, code) VALUES (?, ?, ?)`)
	body.BindInt64(1, key)
	body.BindText(2, n.Body)
	body.BindText(3, n.CodeTerms)
	if _, err := body.Step(); err != nil {
		return fmt.Errorf("insert node %s body: %w", n.ID, err)
	}
	if err := body.Reset(); err != nil {
		return fmt.Errorf("insert node %s body: %w", n.ID, err)
	}
	if w.labels != nil {
		for _, t := range n.Tags {
			w.labels.tags = append(w.labels.tags, labelRow{t, key})
		}
		for _, c := range n.Capabilities {
			w.labels.caps = append(w.labels.caps, labelRow{c, key})
		}
	} else {
		for _, t := range n.Tags {
			if err := w.keyed(`INSERT OR IGNORE INTO main.node_tags(tag, key) VALUES (?, ?)`, t, key); err != nil {
				return fmt.Errorf("insert node %s tag: %w", n.ID, err)
			}
		}
		for _, c := range n.Capabilities {
			if err := w.keyed(`INSERT OR IGNORE INTO main.node_caps(cap, key) VALUES (?, ?)`, c, key); err != nil {
				return fmt.Errorf("insert node %s capability: %w", n.ID, err)
			}
		}
	}
	if prep == nil {
		prep = &preparedNode{text: w.analyze(n.ID, n.Kind, n.Title, n.Tags, n.Body, n.CodeTerms)}
		if n.Logic != nil {
			prep.logic = encodeLogic(n.Logic)
		}
	}
	if err := w.indexText(key, prep); err != nil {
		return fmt.Errorf("index node %s text: %w", n.ID, err)
	}
	if n.Logic != nil {
		if err := w.insertLogic(key, prep.logic); err != nil {
			return fmt.Errorf("insert node %s logic: %w", n.ID, err)
		}
	}
	w.st.nodes.Add(record)
	return nil
}

// searchText is a node's full-text row, its columns analyzed (base/lexicon).
type searchText struct{ id, name, title, tags, body, code string }

// analyzeSearch analyzes a node's full-text columns. A merge writes the rows of a delta's
// nodes again from their stored fields, so these are all a row depends on.
func analyzeSearch(lex *lexicon.Analyzer, id, kind, title string, tags []string, body, code string) searchText {
	return searchTextOf(lex, id, kind, title, tags, lex.Text(indexedBody(id, body)), code)
}

// indexedBody is the part of a node's body its full text holds: a declaration's doc comment
// without its fenced examples (a Rust or JSDoc comment's ``` blocks), whose calls of the API
// (Command::new("prog").arg(...)) repeat the same few names in every doc and say nothing of
// what the declaration does; a document's whole body.
func indexedBody(id, body string) string {
	if !graph.IsCode(id) || !strings.Contains(body, "```") {
		return body
	}
	var b strings.Builder
	fenced := false
	for line := range strings.Lines(body) {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			b.WriteString(line)
		}
	}
	return b.String()
}

// searchTextOf is analyzeSearch of a body already analyzed (bodyText).
func searchTextOf(lex *lexicon.Analyzer, id, kind, title string, tags []string, bodyText, code string) searchText {
	return searchText{id: lexicon.Names(id), name: lexicon.Names(NameOf(id, kind)), title: lex.Text(title),
		tags: lex.Text(strings.Join(tags, " ")), body: bodyText, code: code}
}

// analyze analyzes a node's full-text columns with the writer's analyzer, made on first use.
func (w *writer) analyze(id, kind, title string, tags []string, body, code string) searchText {
	if w.lex == nil {
		w.lex = lexicon.NewAnalyzer()
	}
	return analyzeSearch(w.lex, id, kind, title, tags, body, code)
}

// preparedNode is what a node's rows need beyond the node: its analyzed full-text row, that
// row's postings when a cold build writes the full text itself (ok says they were made), and
// its encoded Logic.
type preparedNode struct {
	text     searchText
	postings fts5seg.Row
	ok       bool
	logic    storedLogic
}

// prepareNodes analyzes the full-text rows, makes their postings (coldText) and encodes the
// Logic of a parsed file's nodes on the goroutine that parsed it (source.Loader.Then), with
// analyzers of the pool: the inserts run on one goroutine, and this is work it need not do.
func prepareNodes(pool *sync.Pool) func(*source.Parsed) {
	return func(p *source.Parsed) {
		a := pool.Get().(*analyzers)
		defer pool.Put(a)
		rows := make([]preparedNode, len(p.Fragment.Nodes))
		for i := range p.Fragment.Nodes {
			n := &p.Fragment.Nodes[i]
			a.prepare(n, &rows[i])
			if n.Logic != nil {
				rows[i].logic = encodeLogic(n.Logic)
			}
		}
		p.Prepared = rows
	}
}

// insertSearch writes a node's full-text row.
func (w *writer) insertSearch(key int64, t *searchText) error {
	fts := w.conn.Prep(`INSERT INTO main.search(rowid, id, name, title, tags, body, code) VALUES (?, ?, ?, ?, ?, ?, ?)`)
	fts.BindInt64(1, key)
	fts.BindText(2, t.id)
	fts.BindText(3, t.name)
	fts.BindText(4, t.title)
	fts.BindText(5, t.tags)
	fts.BindText(6, t.body)
	fts.BindText(7, t.code)
	if _, err := fts.Step(); err != nil {
		return err
	}
	return fts.Reset()
}

func (w *writer) insertLogic(owner int64, l storedLogic) error {
	s := w.conn.Prep(`INSERT INTO main.logic(owner, steps, edges, encoded) VALUES (?, ?, ?, ?)`)
	s.BindInt64(1, owner)
	s.BindInt64(2, int64(l.steps))
	s.BindInt64(3, int64(l.edges))
	s.BindBytes(4, l.encoded)
	if _, err := s.Step(); err != nil {
		return err
	}
	return s.Reset()
}

// nameID returns the interned ID of a name, adding it unless lookupOnly.
func (w *writer) nameID(name string, lookupOnly bool) (int64, bool, error) {
	if id, ok := w.names[name]; ok {
		return id, true, nil
	}
	var id int64
	found := false
	if !w.namesComplete {
		s := w.conn.Prep(`SELECT id FROM ref_names WHERE name = ?`)
		s.BindText(1, name)
		var err error
		found, err = s.Step()
		if found {
			id = s.ColumnInt64(0)
		}
		if rerr := s.Reset(); err == nil {
			err = rerr
		}
		if err != nil {
			return 0, false, fmt.Errorf("look up name %s: %w", name, err)
		}
	}
	if !found {
		if lookupOnly {
			return 0, false, nil
		}
		ins := w.conn.Prep(`INSERT INTO main.ref_names(id, name) VALUES (?, ?)`)
		if w.nextName > 0 {
			ins.BindInt64(1, w.nextName)
		} else {
			ins.BindNull(1)
		}
		ins.BindText(2, name)
		if _, err := ins.Step(); err != nil {
			return 0, false, fmt.Errorf("intern name %s: %w", name, err)
		}
		if err := ins.Reset(); err != nil {
			return 0, false, err
		}
		id = w.conn.LastInsertRowID()
		if w.nextName > 0 {
			id = w.nextName
			w.nextName++
		}
	}
	if w.names == nil {
		w.names = map[string]int64{}
	}
	w.names[name] = id
	return id, true, nil
}

// insertRefs records a file's adapter-derived relation candidates. A relation the project does
// not allow cannot become an edge, so it is not kept.
func (w *writer) insertRefs(origin string, refs []graph.Edge) error {
	o, _, err := w.nameID(origin, false)
	if err != nil {
		return err
	}
	if err := w.markDead("dead_refs", o); err != nil {
		return err
	}
	cands := make([]candidate, 0, len(refs))
	for _, r := range refs {
		rel, ok := w.rels[r.Relation]
		if !ok {
			continue
		}
		src, _, err := w.nameID(r.Source, false)
		if err != nil {
			return err
		}
		dst, _, err := w.nameID(r.Target, false)
		if err != nil {
			return err
		}
		cands = append(cands, candidate{src, rel, dst})
	}
	if w.candidates != nil {
		*w.candidates = append(*w.candidates, cands...)
	}
	// In key order the rows go into the file's stretch of the table one after another: a
	// quarter cheaper than in the order the adapter found them (docs/benchmarks.md).
	slices.SortFunc(cands, candidate.compare)
	rows := make([]int64, 0, 4*len(cands))
	for _, c := range slices.Compact(cands) {
		rows = append(rows, o, c.src, c.rel, c.dst)
	}
	if err := insertInts(w.conn, `INSERT OR IGNORE INTO main.refs(origin, src, rel, dst)`, 4, rows); err != nil {
		return fmt.Errorf("insert relation candidates of %s: %w", origin, err)
	}
	return nil
}

// insertInts inserts rows of cols integers each, given one after another in vals.
func insertInts(conn *sqlite.Conn, insert string, cols int, vals []int64) error {
	return insertRows(conn, insert, cols, len(vals)/cols, func(s *sqlite.Stmt, param, row int) {
		for c := range cols {
			s.BindInt64(param+c, vals[row*cols+c])
		}
	})
}

// insertRows inserts rows rows of cols columns, rowsPerInsert rows a statement and the rest
// one by one: in the pure-Go SQLite a statement's bind, step and reset cost as much as a row's
// B-tree append (docs/benchmarks.md). bind binds row's columns from parameter param on.
func insertRows(conn *sqlite.Conn, insert string, cols, rows int, bind func(s *sqlite.Stmt, param, row int)) error {
	values := "(" + strings.TrimSuffix(strings.Repeat("?, ", cols), ", ") + ")"
	for done := 0; done < rows; {
		n := 1
		if rows-done >= rowsPerInsert {
			n = rowsPerInsert
		}
		s := conn.Prep(insert + " VALUES " + strings.TrimSuffix(strings.Repeat(values+", ", n), ", "))
		for i := range n {
			bind(s, 1+i*cols, done+i)
		}
		if _, err := s.Step(); err != nil {
			return err
		}
		if err := s.Reset(); err != nil {
			return err
		}
		done += n
	}
	return nil
}

// insertLabels writes the tag and capability rows gathered in w.labels, each table's in
// (label, key) order, several rows a statement, so that every row is an append.
func (w *writer) insertLabels() error {
	for _, t := range []struct {
		insert string
		rows   []labelRow
	}{
		{`INSERT OR IGNORE INTO main.node_tags(tag, key)`, w.labels.tags},
		{`INSERT OR IGNORE INTO main.node_caps(cap, key)`, w.labels.caps},
	} {
		// Keys ascend in the order the nodes came; a stable sort by label keeps them so.
		slices.SortStableFunc(t.rows, func(a, b labelRow) int { return strings.Compare(a.label, b.label) })
		err := insertRows(w.conn, t.insert, 2, len(t.rows), func(s *sqlite.Stmt, param, row int) {
			s.BindText(param, t.rows[row].label)
			s.BindInt64(param+1, t.rows[row].key)
		})
		if err != nil {
			return fmt.Errorf("insert tags and capabilities: %w", err)
		}
	}
	w.labels = nil
	return nil
}

// rowsPerInsert is how many rows insertRows puts in one statement.
const rowsPerInsert = 64

// insertLinkKeys records the keys of the links of the file at origin (source.LinkKeys). Its
// earlier keys are dead with its relation candidates (insertRefs).
func (w *writer) insertLinkKeys(origin string, links []graph.Link) error {
	if len(links) == 0 {
		return nil
	}
	keys := source.LinkKeys(links)
	o, _, err := w.nameID(origin, false)
	if err != nil {
		return err
	}
	s := w.conn.Prep(`INSERT OR IGNORE INTO main.link_keys(origin, name) VALUES (?, ?)`)
	for _, k := range keys {
		name, _, err := w.nameID(k, false)
		if err != nil {
			return err
		}
		s.BindInt64(1, o)
		s.BindInt64(2, name)
		if _, err := s.Step(); err != nil {
			return fmt.Errorf("insert link key of %s: %w", origin, err)
		}
		if err := s.Reset(); err != nil {
			return err
		}
	}
	return nil
}

func (w *writer) keyed(query, text string, key int64) error {
	s := w.conn.Prep(query)
	s.BindText(1, text)
	s.BindInt64(2, key)
	if _, err := s.Step(); err != nil {
		return err
	}
	return s.Reset()
}

func (w *writer) insertStamps(key int64, n *graph.Node) error {
	for _, st := range n.Stamps {
		err := sqlitex.Execute(w.conn, `INSERT OR REPLACE INTO main.stamps(src, target, hash, head, body, path) VALUES (?, ?, ?, ?, ?, ?)`,
			&sqlitex.ExecOptions{Args: []any{key, st.Target, st.Hash, st.Parts.Head, st.Parts.Body, st.Path}})
		if err != nil {
			return fmt.Errorf("insert node %s stamp: %w", n.ID, err)
		}
	}
	return nil
}

// deleteNode removes the node row at key with its tag, capability and search rows, and takes
// its record hash out of the digest. Edges are the caller's business.
func (w *writer) deleteNode(key int64, recordHash string) error {
	// The tag tables are keyed (tag, key): the node's own tags name its rows. They are read
	// here and deleted one by one, where a subquery over json_each made SQLite open a
	// temporary table, an mmap and munmap, twice for every node a delta replaced.
	var tags, caps []string
	err := sqlitex.Execute(w.conn, `SELECT tags, capabilities FROM main.nodes WHERE key = ?`, &sqlitex.ExecOptions{
		Args: []any{key},
		ResultFunc: func(s *sqlite.Stmt) (err error) {
			if tags, err = jsonListOf(s.ColumnText(0)); err != nil {
				return fmt.Errorf("tags: %w", err)
			}
			if caps, err = jsonListOf(s.ColumnText(1)); err != nil {
				return fmt.Errorf("capabilities: %w", err)
			}
			return nil
		},
	})
	if err != nil {
		return fmt.Errorf("delete node key %d: read its tags: %w", key, err)
	}
	for _, t := range tags {
		if err := w.keyed(`DELETE FROM main.node_tags WHERE tag = ? AND key = ?`, t, key); err != nil {
			return fmt.Errorf("delete node key %d tag: %w", key, err)
		}
	}
	for _, c := range caps {
		if err := w.keyed(`DELETE FROM main.node_caps WHERE cap = ? AND key = ?`, c, key); err != nil {
			return fmt.Errorf("delete node key %d capability: %w", key, err)
		}
	}
	for _, q := range []string{
		`DELETE FROM main.search WHERE rowid = ?1`,
		`DELETE FROM main.bodies WHERE key = ?1`,
		`DELETE FROM main.logic WHERE owner = ?1`,
		`DELETE FROM main.stamps WHERE src = ?1`,
		`DELETE FROM main.nodes WHERE key = ?1`,
	} {
		if err := sqlitex.Execute(w.conn, q, &sqlitex.ExecOptions{Args: []any{key}}); err != nil {
			return fmt.Errorf("delete node key %d: %w", key, err)
		}
	}
	w.st.nodes.Remove(recordHash)
	return w.markDead("dead_nodes", key)
}

// insertEdge writes an edge unless it exists, and adds hash (its graph.EdgeHash, made here
// when "") to the edge digest when it was written.
func (w *writer) insertEdge(src, rel, dst int64, e graph.Edge, hash string) error {
	s := w.conn.Prep(`INSERT OR IGNORE INTO main.edges(src, rel, dst) VALUES (?, ?, ?)`)
	s.BindInt64(1, src)
	s.BindInt64(2, rel)
	s.BindInt64(3, dst)
	if _, err := s.Step(); err != nil {
		return fmt.Errorf("insert edge %s -%s-> %s: %w", e.Source, e.Relation, e.Target, err)
	}
	if err := s.Reset(); err != nil {
		return err
	}
	if w.conn.Changes() > 0 {
		if hash == "" {
			hash = graph.EdgeHash(e)
		}
		w.st.edges.Add(hash)
	}
	return w.markDead("dead_edges", src, rel, dst)
}

// setAnchor records (or, for "", clears) the anchor a link named in an edge's target. A delta
// holds an edge's anchor only with the edge, so a live edge is written into it first.
func (w *writer) setAnchor(src, rel, dst int64, anchor string) error {
	if w.delta {
		live, err := w.edgeLive(src, rel, dst)
		if err != nil {
			return err
		}
		if live {
			if err := sqlitex.Execute(w.conn, `INSERT OR IGNORE INTO main.edges(src, rel, dst) VALUES (?, ?, ?)`, &sqlitex.ExecOptions{Args: []any{src, rel, dst}}); err != nil {
				return fmt.Errorf("record link anchor: %w", err)
			}
		}
		if err := w.markDead("dead_edges", src, rel, dst); err != nil {
			return err
		}
	}
	q := `DELETE FROM main.edge_anchors WHERE src = ? AND rel = ? AND dst = ?`
	args := []any{src, rel, dst}
	if anchor != "" {
		q = `INSERT OR REPLACE INTO main.edge_anchors(src, rel, dst, anchor) VALUES (?, ?, ?, ?)`
		args = append(args, anchor)
	}
	if err := sqlitex.Execute(w.conn, q, &sqlitex.ExecOptions{Args: args}); err != nil {
		return fmt.Errorf("record link anchor: %w", err)
	}
	return nil
}

func (w *writer) deleteEdge(src, rel, dst int64, e graph.Edge) error {
	live, err := w.edgeLive(src, rel, dst)
	if err != nil || !live {
		return err
	}
	for _, q := range []string{
		`DELETE FROM main.edges WHERE src = ? AND rel = ? AND dst = ?`,
		`DELETE FROM main.edge_anchors WHERE src = ? AND rel = ? AND dst = ?`,
	} {
		if err := sqlitex.Execute(w.conn, q, &sqlitex.ExecOptions{Args: []any{src, rel, dst}}); err != nil {
			return fmt.Errorf("delete edge %s -%s-> %s: %w", e.Source, e.Relation, e.Target, err)
		}
	}
	w.st.edges.Remove(graph.EdgeHash(e))
	return w.markDead("dead_edges", src, rel, dst)
}

// writeMeta stores the state and fixed bindings.
func (w *writer) writeMeta(b binding) error {
	text := func(d graph.SetDigest) string {
		t, _ := d.MarshalText()
		return string(t)
	}
	values := map[string]string{
		metaSchemaVersion:  strconv.Itoa(SchemaVersion),
		metaProjectID:      b.projectID,
		metaProjectRoot:    b.root,
		metaDescriptorHash: b.descriptorHash,
		metaAdapter:        publication.AdapterName + "@" + publication.AdapterVersion,
		metaPolicy:         b.policy,
		metaGeneration:     strconv.FormatInt(w.st.generation, 10),
		metaIdentity:       w.st.identity,
		metaSourceDigest:   text(w.st.sources),
		metaNodeDigest:     text(w.st.nodes),
		metaEdgeDigest:     text(w.st.edges),
		metaBuild:          b.build,
		metaFingerprint:    b.fingerprint,
	}
	for k, v := range values {
		err := sqlitex.Execute(w.conn, `INSERT OR REPLACE INTO main.meta(key, value) VALUES (?, ?)`,
			&sqlitex.ExecOptions{Args: []any{k, v}})
		if err != nil {
			return fmt.Errorf("write meta %s: %w", k, err)
		}
	}
	return nil
}

// binding is what an index is built for; a mismatch with the published index forces a cold
// build.
type binding struct {
	projectID      string
	root           string
	descriptorHash string
	policy         string
	build          string       // "cold" or "incremental", for diagnostics only
	fingerprint    string       // the implementation that built it, for diagnostics only
	work           *source.Work // where loaders add their parse and extraction time, or nil
}

func (b binding) sameAs(m map[string]string) bool {
	return m[metaSchemaVersion] == strconv.Itoa(SchemaVersion) &&
		m[metaProjectID] == b.projectID && m[metaProjectRoot] == b.root &&
		m[metaDescriptorHash] == b.descriptorHash && m[metaAdapter] == publication.AdapterName+"@"+publication.AdapterVersion &&
		m[metaPolicy] == b.policy
}

func readMeta(conn *sqlite.Conn) (map[string]string, error) { return readMetaFrom(conn, "meta") }

// readMetaFrom reads the metadata in table (a segment's, schema.meta).
func readMetaFrom(conn *sqlite.Conn, table string) (map[string]string, error) {
	m := map[string]string{}
	err := sqlitex.Execute(conn, `SELECT key, value FROM `+table, &sqlitex.ExecOptions{
		ResultFunc: func(s *sqlite.Stmt) error {
			m[s.ColumnText(0)] = s.ColumnText(1)
			return nil
		},
	})
	if err != nil {
		return nil, fmt.Errorf("read index meta: %w", err)
	}
	return m, nil
}

// stateFromMeta restores the digests of a published index.
func stateFromMeta(m map[string]string) (*state, error) {
	st := &state{identity: m[metaIdentity]}
	gen, err := strconv.ParseInt(m[metaGeneration], 10, 64)
	if err != nil {
		return nil, fmt.Errorf("index meta generation %q: %w", m[metaGeneration], err)
	}
	st.generation = gen
	for key, d := range map[string]*graph.SetDigest{metaSourceDigest: &st.sources, metaNodeDigest: &st.nodes, metaEdgeDigest: &st.edges} {
		if err := d.UnmarshalText([]byte(m[key])); err != nil {
			return nil, fmt.Errorf("index meta %s: %w", key, err)
		}
	}
	return st, nil
}
