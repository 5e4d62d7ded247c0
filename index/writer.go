package index

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"

	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/base/lexicon"
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
}

func (w *writer) insertFile(f source.File, fileHash string) error {
	s := w.conn.Prep(`INSERT OR REPLACE INTO files(path, format, size, mtime_ns, ctime_ns, ino, dev, file_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
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
	return s.Reset()
}

func (w *writer) deleteFile(path string) error {
	return sqlitex.Execute(w.conn, `DELETE FROM files WHERE path = ?`, &sqlitex.ExecOptions{Args: []any{path}})
}

func jsonList(s []string) string {
	if len(s) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(s) // a []string always marshals
	return string(b)
}

// insertNode writes a node row at key (replacing any row with that key) and its tag,
// capability and search rows, and adds it to the node digest.
func (w *writer) insertNode(key int64, n *graph.Node) error {
	headings, err := json.Marshal(n.Headings)
	if err != nil {
		return fmt.Errorf("insert node %s: encode headings: %w", n.ID, err)
	}
	if n.Headings == nil {
		headings = []byte("[]")
	}
	record := graph.RecordHash(n)
	s := w.conn.Prep(`INSERT INTO nodes(key, id, kind, family, title, status, authority, tags, language,
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
	s.BindText(16, string(headings))
	s.BindText(17, n.Parts.Head)
	s.BindText(18, n.Parts.Body)
	s.BindInt64(19, int64(n.EndLine))
	if _, err := s.Step(); err != nil {
		return fmt.Errorf("insert node %s: %w", n.ID, err)
	}
	if err := s.Reset(); err != nil {
		return fmt.Errorf("insert node %s: %w", n.ID, err)
	}
	if err := w.insertStamps(key, n); err != nil {
		return err
	}
	body := w.conn.Prep(`INSERT INTO bodies(key, body, code) VALUES (?, ?, ?)`)
	body.BindInt64(1, key)
	body.BindText(2, n.Body)
	body.BindText(3, n.CodeTerms)
	if _, err := body.Step(); err != nil {
		return fmt.Errorf("insert node %s body: %w", n.ID, err)
	}
	if err := body.Reset(); err != nil {
		return fmt.Errorf("insert node %s body: %w", n.ID, err)
	}
	for _, t := range n.Tags {
		if err := w.keyed(`INSERT OR IGNORE INTO node_tags(tag, key) VALUES (?, ?)`, t, key); err != nil {
			return fmt.Errorf("insert node %s tag: %w", n.ID, err)
		}
	}
	for _, c := range n.Capabilities {
		if err := w.keyed(`INSERT OR IGNORE INTO node_caps(cap, key) VALUES (?, ?)`, c, key); err != nil {
			return fmt.Errorf("insert node %s capability: %w", n.ID, err)
		}
	}
	fts := w.conn.Prep(`INSERT INTO search(rowid, id, name, title, tags, body, code) VALUES (?, ?, ?, ?, ?, ?, ?)`)
	fts.BindInt64(1, key)
	fts.BindText(2, lexicon.Names(n.ID))
	fts.BindText(3, lexicon.Names(NameOf(n.ID, n.Kind)))
	if w.lex == nil {
		w.lex = lexicon.NewAnalyzer()
	}
	fts.BindText(4, w.lex.Text(n.Title))
	fts.BindText(5, w.lex.Text(strings.Join(n.Tags, " ")))
	fts.BindText(6, w.lex.Text(n.Body))
	fts.BindText(7, n.CodeTerms)
	if _, err := fts.Step(); err != nil {
		return fmt.Errorf("index node %s text: %w", n.ID, err)
	}
	if err := fts.Reset(); err != nil {
		return fmt.Errorf("index node %s text: %w", n.ID, err)
	}
	if n.Logic != nil {
		if err := w.insertLogic(key, n.Logic); err != nil {
			return fmt.Errorf("insert node %s logic: %w", n.ID, err)
		}
	}
	w.st.nodes.Add(record)
	return nil
}

func (w *writer) insertLogic(owner int64, l *graph.Logic) error {
	step := w.conn.Prep(`INSERT INTO logic_steps(owner, step, kind, label, line) VALUES (?, ?, ?, ?, ?)`)
	for _, s := range l.Steps {
		step.BindInt64(1, owner)
		step.BindInt64(2, int64(s.ID))
		step.BindText(3, s.Kind)
		step.BindText(4, s.Label)
		step.BindInt64(5, int64(s.Line))
		if _, err := step.Step(); err != nil {
			return err
		}
		if err := step.Reset(); err != nil {
			return err
		}
	}
	edge := w.conn.Prep(`INSERT OR IGNORE INTO logic_edges(owner, from_step, to_step, kind) VALUES (?, ?, ?, ?)`)
	for _, e := range l.Edges {
		edge.BindInt64(1, owner)
		edge.BindInt64(2, int64(e.From))
		edge.BindInt64(3, int64(e.To))
		edge.BindText(4, e.Kind)
		if _, err := edge.Step(); err != nil {
			return err
		}
		if err := edge.Reset(); err != nil {
			return err
		}
	}
	return nil
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
		ins := w.conn.Prep(`INSERT INTO ref_names(name) VALUES (?)`)
		ins.BindText(1, name)
		if _, err := ins.Step(); err != nil {
			return 0, false, fmt.Errorf("intern name %s: %w", name, err)
		}
		if err := ins.Reset(); err != nil {
			return 0, false, err
		}
		id = w.conn.LastInsertRowID()
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
	s := w.conn.Prep(`INSERT OR IGNORE INTO refs(origin, src, rel, dst) VALUES (?, ?, ?, ?)`)
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
		s.BindInt64(1, o)
		s.BindInt64(2, src)
		s.BindInt64(3, rel)
		s.BindInt64(4, dst)
		if _, err := s.Step(); err != nil {
			return fmt.Errorf("insert relation candidate of %s: %w", origin, err)
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
		err := sqlitex.Execute(w.conn, `INSERT OR REPLACE INTO stamps(src, target, hash, head, body, path) VALUES (?, ?, ?, ?, ?, ?)`,
			&sqlitex.ExecOptions{Args: []any{key, st.Target, st.Hash, st.Parts.Head, st.Parts.Body, st.Path}})
		if err != nil {
			return fmt.Errorf("insert node %s stamp: %w", n.ID, err)
		}
	}
	return nil
}

// replaceStamps rewrites the stamps of a node whose record did not change: a re-review
// touches only the stamps.
func (w *writer) replaceStamps(key int64, n *graph.Node) error {
	if err := sqlitex.Execute(w.conn, `DELETE FROM stamps WHERE src = ?`, &sqlitex.ExecOptions{Args: []any{key}}); err != nil {
		return fmt.Errorf("replace node %s stamps: %w", n.ID, err)
	}
	return w.insertStamps(key, n)
}

// deleteNode removes the node row at key with its tag, capability and search rows, and takes
// its record hash out of the digest. Edges are the caller's business.
func (w *writer) deleteNode(key int64, recordHash string) error {
	for _, q := range []string{
		// The tag tables are keyed (tag, key): enumerate the node's own tags to use that key.
		`DELETE FROM node_tags WHERE key = ?1 AND tag IN (SELECT value FROM json_each((SELECT tags FROM nodes WHERE key = ?1)))`,
		`DELETE FROM node_caps WHERE key = ?1 AND cap IN (SELECT value FROM json_each((SELECT capabilities FROM nodes WHERE key = ?1)))`,
		`DELETE FROM search WHERE rowid = ?1`,
		`DELETE FROM bodies WHERE key = ?1`,
		`DELETE FROM logic_steps WHERE owner = ?1`,
		`DELETE FROM logic_edges WHERE owner = ?1`,
		`DELETE FROM stamps WHERE src = ?1`,
		`DELETE FROM nodes WHERE key = ?1`,
	} {
		if err := sqlitex.Execute(w.conn, q, &sqlitex.ExecOptions{Args: []any{key}}); err != nil {
			return fmt.Errorf("delete node key %d: %w", key, err)
		}
	}
	w.st.nodes.Remove(recordHash)
	return nil
}

func (w *writer) insertEdge(src, rel, dst int64, e graph.Edge) error {
	s := w.conn.Prep(`INSERT OR IGNORE INTO edges(src, rel, dst) VALUES (?, ?, ?)`)
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
		w.st.edges.Add(graph.EdgeHash(e))
	}
	return nil
}

// setAnchor records (or, for "", clears) the anchor a link named in an edge's target.
func (w *writer) setAnchor(src, rel, dst int64, anchor string) error {
	q := `DELETE FROM edge_anchors WHERE src = ? AND rel = ? AND dst = ?`
	args := []any{src, rel, dst}
	if anchor != "" {
		q = `INSERT OR REPLACE INTO edge_anchors(src, rel, dst, anchor) VALUES (?, ?, ?, ?)`
		args = append(args, anchor)
	}
	if err := sqlitex.Execute(w.conn, q, &sqlitex.ExecOptions{Args: args}); err != nil {
		return fmt.Errorf("record link anchor: %w", err)
	}
	return nil
}

func (w *writer) deleteEdge(src, rel, dst int64, e graph.Edge) error {
	err := sqlitex.Execute(w.conn, `DELETE FROM edges WHERE src = ? AND rel = ? AND dst = ?`,
		&sqlitex.ExecOptions{Args: []any{src, rel, dst}})
	if err != nil {
		return fmt.Errorf("delete edge %s -%s-> %s: %w", e.Source, e.Relation, e.Target, err)
	}
	if w.conn.Changes() > 0 {
		w.st.edges.Remove(graph.EdgeHash(e))
	}
	return w.setAnchor(src, rel, dst, "")
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
		err := sqlitex.Execute(w.conn, `INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)`,
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

func readMeta(conn *sqlite.Conn) (map[string]string, error) {
	m := map[string]string{}
	err := sqlitex.Execute(conn, `SELECT key, value FROM meta`, &sqlitex.ExecOptions{
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
