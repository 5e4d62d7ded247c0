package index

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"

	"github.com/docforge/docforge/index/publication"
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
//   - relation candidates by the file that declared them, in dead_refs;
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

// layeredTable says how the rows of one table of a segment are shadowed by later segments.
type layeredTable struct {
	name string
	dead string // the dead table, or "" when rows are never shadowed
	// on maps the dead table's key columns to this table's columns, in the dead table's order.
	on []string
}

// layeredTables are the tables a generation's views join across segments.
func layeredTables() []layeredTable {
	node := func(name, col string) layeredTable {
		return layeredTable{name: name, dead: "dead_nodes", on: []string{col}}
	}
	edge := func(name string) layeredTable {
		return layeredTable{name: name, dead: "dead_edges", on: []string{"src", "rel", "dst"}}
	}
	return []layeredTable{
		node("nodes", "key"), node("bodies", "key"), node("node_tags", "key"), node("node_caps", "key"),
		node("stamps", "src"), node("logic_steps", "owner"), node("logic_edges", "owner"),
		edge("edges"), edge("edge_anchors"),
		{name: "refs", dead: "dead_refs", on: []string{"origin"}},
		{name: "files", dead: "dead_files", on: []string{"path"}},
		{name: "ref_names"},
	}
}

// deadColumns are the key columns of each dead table.
func deadColumns(dead string) []string {
	switch dead {
	case "dead_nodes":
		return []string{"key"}
	case "dead_edges":
		return []string{"src", "rel", "dst"}
	case "dead_refs":
		return []string{"origin"}
	}
	return []string{"path"}
}

// layerView is the SELECT of a view that reads table t across the segments attached under
// schemas (oldest first): each segment's rows that no later segment names dead.
func layerView(t layeredTable, schemas []string) string {
	var parts []string
	for i, s := range schemas {
		q := "SELECT * FROM " + s + "." + t.name + " x"
		var conds []string
		if t.dead != "" {
			for _, later := range schemas[i+1:] {
				var eq []string
				for j, c := range deadColumns(t.dead) {
					eq = append(eq, "d."+c+" = x."+t.on[j])
				}
				conds = append(conds, "NOT EXISTS (SELECT 1 FROM "+later+"."+t.dead+" d WHERE "+strings.Join(eq, " AND ")+")")
			}
		}
		if len(conds) > 0 {
			q += " WHERE " + strings.Join(conds, " AND ")
		}
		parts = append(parts, q)
	}
	return strings.Join(parts, " UNION ALL ")
}

// createViews makes the temporary views under which unqualified queries read a generation
// whose segments are attached under schemas (oldest first). meta is read from metaSchema, or
// left to the main database when metaSchema is "".
func createViews(conn *sqlite.Conn, schemas []string, metaSchema string) error {
	stmts := []string{"CREATE TEMP VIEW relations AS SELECT * FROM " + schemas[0] + ".relations"}
	if metaSchema != "" {
		stmts = append(stmts, "CREATE TEMP VIEW meta AS SELECT * FROM "+metaSchema+".meta")
	}
	for _, t := range layeredTables() {
		stmts = append(stmts, "CREATE TEMP VIEW "+t.name+" AS "+layerView(t, schemas))
	}
	for _, q := range stmts {
		if err := sqlitex.ExecuteTransient(conn, q, nil); err != nil {
			return fmt.Errorf("join segments: %w", err)
		}
	}
	return nil
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
func openSegments(ctx context.Context, dir string, segs []Segment) (*sqlite.Conn, error) {
	for _, s := range segs {
		sig, err := statSegment(dir, s.Name)
		if err != nil || !sig.SameFile(s.Signature) {
			return nil, fmt.Errorf("%w: %s", errSegmentMoved, s.Name)
		}
	}
	conn, err := openRead(ctx, filepath.Join(dir, segs[0].Name))
	if err != nil {
		return nil, err
	}
	if len(segs) == 1 {
		return conn, nil
	}
	schemas := segmentSchemasOfSnapshot(len(segs))
	for i, s := range segs[1:] {
		if err := attachSegment(conn, filepath.Join(dir, s.Name), schemas[i+1]); err != nil {
			conn.Close()
			return nil, err
		}
	}
	if err := createViews(conn, schemas, schemas[len(schemas)-1]); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}

// attachSegment attaches a published segment read-only and immutable under schema.
func attachSegment(conn *sqlite.Conn, path, schema string) error {
	uri := (&url.URL{Scheme: "file", Path: path, RawQuery: "mode=ro&immutable=1"}).String()
	if err := sqlitex.Execute(conn, `ATTACH DATABASE ? AS `+schema, &sqlitex.ExecOptions{Args: []any{uri}}); err != nil {
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
}

// openGeneration opens the generation published at paths. Stat before and after reading the
// manifest: equal signatures prove which manifest was read, and the segments are checked
// against it, so the reported signature is the generation's own even if a publication raced
// the open.
func openGeneration(ctx context.Context, paths publication.Paths) (*generation, error) {
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
		conn, err := openSegments(ctx, paths.Dir, m.Segments)
		if errors.Is(err, errSegmentMoved) {
			lastErr = err
			continue
		}
		if err != nil {
			return nil, err
		}
		before.Generation = m.Generation
		return &generation{conn: conn, manifest: m, sig: before}, nil
	}
	return nil, lastErr
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

// segmentSchemas names segments attached for a build: s0 for the base, s1... for deltas.
func segmentSchemas(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "s" + strconv.Itoa(i)
	}
	return out
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
	// ORDER BY rank then ranks with the column weights and lets FTS5 sort internally.
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
	schemas := segmentSchemas(len(segs))
	for i, s := range segs {
		if err := attachSegment(conn, filepath.Join(dir, s.Name), schemas[i]); err != nil {
			return nil, err
		}
	}
	if err := createViews(conn, append(slices.Clone(schemas), "main"), ""); err != nil {
		return nil, err
	}
	return schemas, nil
}

// BaseSegment is the path of the base segment of the generation published in dir: the file a
// read-only tool (the benchmark's samplers) may open on its own once deltas are merged.
func BaseSegment(dir string) (string, error) {
	m, err := ReadManifest(filepath.Join(dir, manifestName))
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, m.Segments[0].Name), nil
}

// manifestName is the manifest's file name in an index directory (publication.PathsFor).
const manifestName = "manifest.json"
