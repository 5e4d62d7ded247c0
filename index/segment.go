package index

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"

	"github.com/docforge/docforge/index/publication"
	"github.com/docforge/docforge/source/project"
)

// A generation is a manifest naming immutable segment files: one base and up to maxDeltas
// deltas, oldest first. A delta holds the rows of what changed since the segment before it and
// the dead keys of what those rows replace or remove; a row of a segment is live unless a later
// segment names its key dead (DESIGN.md section 4). Every table of a segment is keyed so that
// "later wins" is decided by the key alone:
//
//   - node-owned rows (the node, its body, tags, capabilities, stamps, Logic and full-text
//     row) by the node key, in dead_nodes: a delta that touches a node rewrites all of them;
//   - edges and their link anchors by (src, rel, dst), in dead_edges;
//   - relation candidates and link keys by the file that declared them, in dead_refs;
//   - files by path, in dead_files.
//
// Interned names only grow, relations come from the base, and the metadata is the newest
// segment's.
const segmentSchema = `
CREATE TABLE dead_nodes (key INTEGER PRIMARY KEY);
CREATE TABLE dead_edges (src INTEGER NOT NULL, rel INTEGER NOT NULL, dst INTEGER NOT NULL, PRIMARY KEY (src, rel, dst)) WITHOUT ROWID;
CREATE TABLE dead_refs (origin INTEGER PRIMARY KEY);
CREATE TABLE dead_files (path TEXT PRIMARY KEY) WITHOUT ROWID;
`

// deadSet is one dead table and its key columns.
type deadSet struct {
	table string
	cols  []string
}

// deadSets are the dead tables of segmentSchema: nodes, edges, relation candidates, files.
func deadSets() (nodes, edges, refs, files deadSet) {
	return deadSet{"dead_nodes", []string{"key"}}, deadSet{"dead_edges", []string{"src", "rel", "dst"}},
		deadSet{"dead_refs", []string{"origin"}}, deadSet{"dead_files", []string{"path"}}
}

// layeredTable says how the rows of one table of a segment are shadowed by later segments.
type layeredTable struct {
	name string
	dead deadSet // the zero deadSet when rows are never shadowed
	// on are this table's columns that hold the dead table's key columns, in their order.
	on []string
	// indexes are the column lists an overlay's copy of the table is indexed by: the lookups
	// queries make (the table's primary key and schemaIndexes).
	indexes []string
	// listedBy, when set, is the nodes column that lists a node's rows here (its tags, its
	// capabilities): the table is keyed (value, key), the first of indexes, so a dead node's
	// rows are found through that list rather than by the key alone, which is no key prefix.
	listedBy string
}

// layeredTables are the tables a generation's views join across segments.
func layeredTables() []layeredTable {
	deadNodes, deadEdges, deadRefs, deadFiles := deadSets()
	node := func(name, col string, indexes ...string) layeredTable {
		return layeredTable{name: name, dead: deadNodes, on: []string{col}, indexes: indexes}
	}
	edge := func(name string, indexes ...string) layeredTable {
		return layeredTable{name: name, dead: deadEdges, on: deadEdges.cols, indexes: indexes}
	}
	return []layeredTable{
		node("nodes", "key", "key", "id", "source_path", "family, kind, id"),
		node("bodies", "key", "key"),
		node("node_tags", "key", "tag, key", "key").listing("tags"),
		node("node_caps", "key", "cap, key", "key").listing("capabilities"),
		node("stamps", "src", "src, target"),
		node("logic", "owner", "owner"),
		edge("edges", "src, rel, dst", "dst, rel, src"),
		edge("edge_anchors", "src, rel, dst"),
		{name: "refs", dead: deadRefs, on: deadRefs.cols, indexes: []string{"origin", "src, rel, dst", "dst"}},
		{name: "link_keys", dead: deadRefs, on: deadRefs.cols, indexes: []string{"origin, name", "name"}},
		{name: "files", dead: deadFiles, on: deadFiles.cols, indexes: []string{"path"}},
		{name: "ref_names", indexes: []string{"id", "name"}},
	}
}

// listing says the nodes column list lists the table's rows of a node (layeredTable.listedBy).
func (t layeredTable) listing(list string) layeredTable {
	t.listedBy = list
	return t
}

// notDead is the condition that the row x of table t is not named dead in deadTable.
func (t layeredTable) notDead(deadTable string) string {
	var eq []string
	for i, c := range t.dead.cols {
		eq = append(eq, "d."+c+" = x."+t.on[i])
	}
	return "NOT EXISTS (SELECT 1 FROM " + deadTable + " d WHERE " + strings.Join(eq, " AND ") + ")"
}

// createOverlay makes the temporary tables and views under which unqualified queries read a
// generation: base is the schema its base is attached under, deltas those of its deltas
// (oldest first), and top the schema of a delta being written over them ("" for none). With
// only, just those tables are joined (nil for all).
//
// However many deltas there are, a view joins at most three parts: the base's rows that no
// delta names dead, the deltas' live rows, copied at open into an indexed temporary table
// (overlay_<table>, left out when no delta has rows of the table), and the top's rows. Views
// with one part per segment cost the planner a join of every part of one with every part of
// the other: with 7 deltas a search on a 40-node project took 56 ms, and under the race
// detector over 5 s. Opening costs a statement or a few per table, so the copies are filled
// by one statement each.
func createOverlay(conn *sqlite.Conn, base string, deltas []string, top string, only []string) error {
	var stmts []string
	// One delta is read where it is: its tables carry the same indexes as an overlay's copy,
	// and copying them costs every open in proportion to the delta (docs/benchmarks.md).
	overlay := func(table string) string { return "temp.overlay_" + table }
	if len(deltas) == 1 {
		overlay = func(table string) string { return deltas[0] + "." + table }
	}
	if len(deltas) > 1 {
		nodes, edges, refs, files := deadSets()
		for _, ds := range []deadSet{nodes, edges, refs, files} {
			cols := strings.Join(ds.cols, ", ")
			var fill []string
			for _, d := range deltas {
				fill = append(fill, "SELECT "+cols+" FROM "+d+"."+ds.table)
			}
			stmts = append(stmts, "CREATE TEMP TABLE overlay_"+ds.table+" AS SELECT "+cols+" FROM "+base+"."+ds.table+" WHERE 0",
				"CREATE UNIQUE INDEX temp.overlay_"+ds.table+"_key ON overlay_"+ds.table+"("+cols+")",
				"INSERT OR IGNORE INTO temp.overlay_"+ds.table+" "+strings.Join(fill, " UNION ALL "))
		}
	}
	if len(deltas) > 0 && top == "" {
		stmts = append(stmts, "CREATE TEMP VIEW meta AS SELECT * FROM "+deltas[len(deltas)-1]+".meta")
	}
	stmts = append(stmts, "CREATE TEMP VIEW relations AS SELECT * FROM "+base+".relations")
	for _, t := range layeredTables() {
		if only != nil && !slices.Contains(only, t.name) {
			continue
		}
		parts := []string{"SELECT * FROM " + base + "." + t.name + " x"}
		var baseConds, liveConds []string
		if t.dead.table != "" && len(deltas) > 0 {
			baseConds = append(baseConds, t.notDead(overlay(t.dead.table)))
		}
		if t.dead.table != "" && top != "" {
			baseConds = append(baseConds, t.notDead(top+"."+t.dead.table))
			liveConds = append(liveConds, t.notDead(top+"."+t.dead.table))
		}
		parts[0] += where(baseConds)
		rows, err := anyRows(conn, deltas, t.name)
		if err != nil {
			return err
		}
		if rows {
			if len(deltas) > 1 {
				stmts = append(stmts, overlayTable(t, base, deltas)...)
			}
			parts = append(parts, "SELECT * FROM "+overlay(t.name)+" x"+where(liveConds))
		}
		if top != "" {
			parts = append(parts, "SELECT * FROM "+top+"."+t.name)
		}
		stmts = append(stmts, "CREATE TEMP VIEW "+t.name+" AS "+strings.Join(parts, " UNION ALL "))
	}
	for _, q := range stmts {
		if err := sqlitex.ExecuteTransient(conn, q, nil); err != nil {
			return fmt.Errorf("join segments: %w", err)
		}
	}
	return nil
}

// anyRows reports whether any of the deltas holds rows of table.
func anyRows(conn *sqlite.Conn, deltas []string, table string) (bool, error) {
	if len(deltas) == 0 {
		return false, nil
	}
	var probes []string
	for _, d := range deltas {
		probes = append(probes, "EXISTS (SELECT 1 FROM "+d+"."+table+")")
	}
	var n int64
	if err := execInt(conn, "SELECT "+strings.Join(probes, " OR "), &n); err != nil {
		return false, fmt.Errorf("join segments: %w", err)
	}
	return n == 1, nil
}

// overlayTable creates the temporary copy of the deltas' live rows of t: each delta's rows
// that no later delta names dead.
func overlayTable(t layeredTable, base string, deltas []string) []string {
	name := "overlay_" + t.name
	stmts := []string{"CREATE TEMP TABLE " + name + " AS SELECT * FROM " + base + "." + t.name + " WHERE 0"}
	for i, cols := range t.indexes {
		stmts = append(stmts, "CREATE INDEX temp."+name+"_"+strconv.Itoa(i)+" ON "+name+"("+cols+")")
	}
	var fill []string
	for i, d := range deltas {
		var conds []string
		for _, later := range deltas[i+1:] {
			if t.dead.table != "" {
				conds = append(conds, t.notDead(later+"."+t.dead.table))
			}
		}
		fill = append(fill, "SELECT * FROM "+d+"."+t.name+" x"+where(conds))
	}
	return append(stmts, "INSERT INTO temp."+name+" "+strings.Join(fill, " UNION ALL "))
}

func where(conds []string) string {
	if len(conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(conds, " AND ")
}

// Manifest is the published file of a generation: its segments, oldest first, each with the
// identity of its file, and the manifest's own hash.
type Manifest struct {
	ReceiptSchemaVersion int       `json:"receipt_schema_version"`
	Generation           int64     `json:"generation"`
	Segments             []Segment `json:"segments"`
	ManifestHash         string    `json:"manifest_hash"`
}

// Segment is one segment file of a generation: its name in the index directory and the stat
// identity it had when published (Generation is the generation that wrote it).
type Segment struct {
	Name string `json:"name"`
	publication.Signature
}

// Fields gives the manifest's schema version and self-hash for publication.Seal.
func (m *Manifest) Fields() (version *int, hash *string) {
	return &m.ReceiptSchemaVersion, &m.ManifestHash
}

// Deltas counts the manifest's delta segments.
func (m *Manifest) Deltas() int { return max(len(m.Segments)-1, 0) }

// Segment name prefixes. A segment's name is never reused (it carries the writing process and
// random bytes), so a name that opens is the file the manifest meant.
const (
	basePrefix  = "base-"
	deltaPrefix = "delta-"
	segmentExt  = ".db"
)

// newSegmentName names a new segment file of generation gen.
func newSegmentName(prefix string, gen int64) string {
	return prefix + strconv.FormatInt(gen, 10) + "-" + randomSuffix() + segmentExt
}

// isSegmentName reports whether name is a plain segment file name, never a path: a manifest
// can only name files inside its own directory.
func isSegmentName(name string) bool {
	return name == filepath.Base(name) && !strings.ContainsAny(name, `/\`) &&
		(strings.HasPrefix(name, basePrefix) || strings.HasPrefix(name, deltaPrefix)) && strings.HasSuffix(name, segmentExt)
}

// ReadManifest reads and verifies the manifest at path.
func ReadManifest(path string) (*Manifest, error) {
	m, err := publication.ReadVerified(path, &Manifest{})
	if err != nil {
		return nil, err
	}
	if len(m.Segments) == 0 {
		return nil, fmt.Errorf("manifest %s: %w: it names no segment", path, publication.ErrCorrupt)
	}
	for _, s := range m.Segments {
		if !isSegmentName(s.Name) {
			return nil, fmt.Errorf("manifest %s: %w: %q is not a segment file name", path, publication.ErrCorrupt, s.Name)
		}
	}
	return m, nil
}

// statSegment stats a segment named in dir; it must be a regular file, never a link.
func statSegment(dir, name string) (publication.Signature, error) {
	p := filepath.Join(dir, name)
	fi, err := os.Lstat(p)
	if err != nil {
		return publication.Signature{}, err
	}
	if !fi.Mode().IsRegular() {
		return publication.Signature{}, fmt.Errorf("segment %s is not a regular file", p)
	}
	return publication.Stat(p)
}

// errSegmentMoved means a segment is not the file its manifest names: it was retired between
// reading the manifest and opening it (the caller reads the manifest again) or replaced.
var errSegmentMoved = errors.New("a segment is not the file its manifest names")

// openSegments opens a generation's segments for reading: the base as the main database, each
// delta attached after it, and views that read them together. A generation of one segment
// is read directly.
//
// A merge may retire a segment between the reading of the manifest and its opening, so the
// segments are stat'ed after they are opened: whatever the open did, a segment that is not
// the manifest's file any more is errSegmentMoved (read the manifest again), and a
// connection whose segments all still match holds exactly the manifest's files (a segment
// name is never reused).
func openSegments(ctx context.Context, dir string, segs []Segment, only []string) (*sqlite.Conn, error) {
	conn, err := attachSegments(ctx, dir, segs, only)
	for _, s := range segs {
		if sig, serr := statSegment(dir, s.Name); serr != nil || !sig.SameFile(s.Signature) {
			if conn != nil {
				conn.Close()
			}
			return nil, fmt.Errorf("%w: %s", errSegmentMoved, s.Name)
		}
	}
	return conn, err
}

func attachSegments(ctx context.Context, dir string, segs []Segment, only []string) (*sqlite.Conn, error) {
	conn, err := openRead(ctx, filepath.Join(dir, segs[0].Name))
	if err != nil || len(segs) == 1 {
		return conn, err
	}
	schemas := segmentNames("main", len(segs))
	if err := attachEach(conn, dir, segs, schemas); err != nil {
		conn.Close()
		return nil, err
	}
	if err := createOverlay(conn, schemas[0], schemas[1:], "", only); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}

// attachSegment attaches a published segment read-only and immutable under schema.
func attachSegment(conn *sqlite.Conn, path, schema string) error {
	if err := sqlitex.Execute(conn, `ATTACH DATABASE ? AS `+schema, &sqlitex.ExecOptions{Args: []any{immutableURI(path)}}); err != nil {
		return fmt.Errorf("attach segment %s: %w", path, err)
	}
	return nil
}

// generation is a published generation opened for reading: its manifest, the stat of the
// manifest file, and a connection that reads its segments together.
type generation struct {
	conn     *sqlite.Conn
	manifest *Manifest
	sig      publication.Signature
	meta     map[string]string // the newest segment's metadata
	st       *state            // what meta records
}

// openGeneration opens the generation published at paths. Stat before and after reading the
// manifest: equal signatures prove which manifest was read, and the segments are checked
// against it, so the reported signature is the generation's own even if a publication raced
// the open. With only, just those tables (and the metadata and relations) read the whole
// generation; the connection must not query any other, which would read the base alone.
func openGeneration(ctx context.Context, paths publication.Paths, only ...string) (*generation, error) {
	var lastErr error
	for attempt := 0; attempt < 5; attempt++ {
		before, err := publication.Stat(paths.Index)
		if err != nil {
			return nil, err
		}
		m, err := ReadManifest(paths.Index)
		if err != nil {
			return nil, err
		}
		after, err := publication.Stat(paths.Index)
		if err != nil || !before.SameFile(after) {
			lastErr = errSegmentMoved
			continue
		}
		conn, err := openSegments(ctx, paths.Dir, m.Segments, only)
		if errors.Is(err, errSegmentMoved) {
			lastErr = err
			continue
		}
		if err != nil {
			return nil, err
		}
		before.Generation = m.Generation
		g := &generation{conn: conn, manifest: m, sig: before}
		if err := g.readState(); err != nil {
			conn.Close()
			return nil, err
		}
		return g, nil
	}
	return nil, lastErr
}

// readState reads the generation's metadata and the state it records, which must be the
// manifest's generation.
func (g *generation) readState() (err error) {
	if g.meta, err = readMeta(g.conn); err != nil {
		return err
	}
	if g.st, err = stateFromMeta(g.meta); err != nil {
		return fmt.Errorf("index metadata: %w", err)
	}
	if g.st.generation != g.manifest.Generation {
		return fmt.Errorf("the manifest names generation %d, its segments hold %d", g.manifest.Generation, g.st.generation)
	}
	return nil
}

// maxKeyAcross is the largest key column value of table in any of the schemas, live or dead,
// so that a new key never names a row an older segment still holds.
func maxKeyAcross(conn *sqlite.Conn, schemas []string, table, col string) (int64, error) {
	var top int64
	for _, s := range schemas {
		var v int64
		if err := execInt(conn, "SELECT coalesce(max("+col+"), 0) FROM "+s+"."+table, &v); err != nil {
			return 0, fmt.Errorf("read the largest %s of %s.%s: %w", col, s, table, err)
		}
		top = max(top, v)
	}
	return top, nil
}

// retireSegments unlinks the segment files of dir that m does not name and that no live
// process is still writing. Readers that opened a retired segment keep their open file.
func retireSegments(dir string, m *Manifest) {
	keep := map[string]bool{}
	for _, s := range m.Segments {
		keep[s.Name] = true
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		if keep[name] || !isSegmentName(strings.TrimSuffix(name, tmpSuffix)) || writerAlive(name) {
			continue
		}
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			continue // the next sync tries again
		}
	}
}

// tmpSuffix marks a segment still being written.
const tmpSuffix = ".tmp"

// writerAlive reports whether the segment being written under name (prefix-gen-pid-hex.db.tmp)
// belongs to a process that still runs, other than a finished segment.
func writerAlive(name string) bool {
	if !strings.HasSuffix(name, tmpSuffix) {
		return false
	}
	parts := strings.Split(name, "-")
	if len(parts) < 4 {
		return false
	}
	pid, err := strconv.Atoi(parts[2])
	if err != nil || pid <= 0 {
		return false
	}
	return processAlive(pid)
}

// segmentNames names a generation's n segments as they are attached: the base as base, the
// deltas d1, d2... A reader and a merge open the base as main; a build attaches it as s0
// beside the delta it writes.
func segmentNames(base string, n int) []string {
	out := []string{base}
	for i := 1; i < n; i++ {
		out = append(out, "d"+strconv.Itoa(i))
	}
	return out
}

// attachEach attaches segs under names, but for one named main (already open).
func attachEach(conn *sqlite.Conn, dir string, segs []Segment, names []string) error {
	for i, s := range segs {
		if names[i] == "main" {
			continue
		}
		if err := attachSegment(conn, filepath.Join(dir, s.Name), names[i]); err != nil {
			return err
		}
	}
	return nil
}

// processAlive reports whether a process with this ID runs (or exists under another user).
func processAlive(pid int) bool {
	err := unix.Kill(pid, 0)
	return err == nil || errors.Is(err, unix.EPERM)
}

// createSegment creates the tables of a new segment on conn: the graph's, the dead keys', and
// the full-text configuration.
func createSegment(conn *sqlite.Conn, withIndexes bool) error {
	if err := sqlitex.ExecuteTransient(conn, fmt.Sprintf("PRAGMA page_size = %d", pageSize), nil); err != nil {
		return fmt.Errorf("set index page size: %w", err)
	}
	script := schema + segmentSchema
	if withIndexes {
		script += schemaIndexes
	}
	if err := sqlitex.ExecuteScript(conn, script, nil); err != nil {
		return fmt.Errorf("create index schema: %w", err)
	}
	// The rank column is then bm25 with the column weights: a delta's rows are ranked again
	// from it (deltarank.go), and searches call the same function by name (ownRanks).
	if err := sqlitex.ExecuteTransient(conn, "INSERT INTO search(search, rank) VALUES ('rank', 'bm25("+searchWeights+")')", nil); err != nil {
		return fmt.Errorf("configure full-text index: %w", err)
	}
	return nil
}

// openDelta prepares conn, a new delta file, to be written over the segments segs of dir: its
// schema, the segments attached read-only as s0, s1..., and views that read them and the delta
// together. Writes name the delta's tables (main.) themselves (writer). It returns the
// segments' schemas.
func openDelta(conn *sqlite.Conn, dir string, segs []Segment) ([]string, error) {
	if err := createSegment(conn, true); err != nil {
		return nil, err
	}
	schemas := segmentNames("s0", len(segs))
	if err := attachEach(conn, dir, segs, schemas); err != nil {
		return nil, err
	}
	// An incremental build reads nodes, edges, relation candidates and link keys (and their
	// names) through the views; every other table it writes in the delta alone (writer).
	if err := createOverlay(conn, schemas[0], schemas[1:], "main", []string{"nodes", "edges", "refs", "link_keys", "ref_names"}); err != nil {
		return nil, err
	}
	return schemas, nil
}

// BaseSegment is the path of the base segment of the generation published for d under policy:
// the file a read-only tool (the benchmark's samplers) may open on its own.
func BaseSegment(d *project.Descriptor, policy string) (string, error) {
	paths := publication.PathsFor(d, policy)
	m, err := ReadManifest(paths.Index)
	if err != nil {
		return "", err
	}
	return filepath.Join(paths.Dir, m.Segments[0].Name), nil
}
