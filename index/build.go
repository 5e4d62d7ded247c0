package index

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"slices"
	"sync"

	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"

	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/index/fts5seg"
	"github.com/docforge/docforge/source"
	"github.com/docforge/docforge/source/project"
)

// Progress receives the number of source files processed so far and the total.
type Progress func(done, total int)

// buildCacheMiB is the page cache of a building connection; with the full-text postings
// pending (buildHashBytes, a segment each, coldText) it bounds build memory. Both were sized
// on the 100k-node benchmark: the C allocator under the pure-Go SQLite rounds each 8 KB page
// up to its size class (16 KB when they were sized, 10 KB since modernc.org/memory v1.13.0),
// so the cache costs more than its nominal size, and 64 MiB measured no faster than 32. Smaller flushes leave more segments, which cost search or a merge (docs/benchmarks.md).
const (
	buildCacheMiB  = 32
	buildHashBytes = 32 << 20
)

// coldBuild builds a complete index from every source into the new file at path. Problems
// are all problems found; when any is an error the file is left incomplete and must not be
// published. The full text it returns is written but not yet recorded: finishCold does that,
// on a connection of its own. clk marks its phases: build (parsing and inserting rows),
// indexes, edges.
func coldBuild(ctx context.Context, path string, d *project.Descriptor, inv *source.Inventory, b binding, st *state, opts Options, clk *clock) (probs []problem.Problem, text *coldText, retErr error) {
	progress := opts.Progress
	conn, err := openWrite(ctx, path, buildCacheMiB)
	if err != nil {
		return nil, nil, err
	}
	defer func() {
		if cerr := conn.Close(); cerr != nil && retErr == nil {
			retErr = fmt.Errorf("close %s: %w", path, cerr)
		}
	}()
	if err := createSegment(conn, false); err != nil {
		return nil, nil, err
	}
	if err := configureColdFullText(conn); err != nil {
		return nil, nil, err
	}

	commit, err := beginBuild(conn)
	if err != nil {
		return nil, nil, fmt.Errorf("begin build: %w", err)
	}
	defer func() {
		if retErr == nil {
			if err := commit(); err != nil {
				retErr = fmt.Errorf("commit build: %w", err)
			}
		}
	}()

	var candidates []candidate
	w := &writer{conn: conn, st: st, names: map[string]int64{}, namesComplete: true, candidates: &candidates, labels: &labelRows{}}
	// The full text is written by this process only with the SQLite and table configuration
	// its segments are proven against; otherwise through FTS5's own inserts.
	own := !opts.FTS5Inserts && fts5seg.Check(conn, searchTable("main")) == nil
	if own {
		w.fullText = newColdText()
	}
	if w.rels, err = insertRelations(conn, d.Relations.Allowed); err != nil {
		return nil, nil, err
	}
	rows := &coldRows{w: w, st: st, check: source.NewChecker(d), keys: make(map[string]int64, len(inv.Files)),
		progress: progress, total: len(inv.Files)}
	rows.list.AddAll(inv.Problems)
	analyzers := &sync.Pool{New: newAnalyzers(own)}
	err = source.NewLoader(d, b.policy).CountWork(b.work).WithFiles(inv.Files).Then(prepareNodes(analyzers)).Each(ctx, inv.Files, rows.add)
	if err != nil {
		return nil, nil, fmt.Errorf("build index: %w", err)
	}
	if err := w.fullText.flush(conn); err != nil { // nil-safe
		return nil, nil, err
	}
	rows.list.AddAll(rows.check.Problems())
	if rows.list.Errors() > 0 {
		return rows.list.Problems(), nil, nil
	}
	if err := rows.finish(conn, &candidates, clk); err != nil {
		return nil, nil, err
	}
	st.sources.Add(fileItem(project.FileName, d.Hash))
	if err := w.writeMeta(b); err != nil {
		return nil, nil, err
	}
	return rows.list.Problems(), w.fullText, nil
}

// configureColdFullText sizes FTS5's term buffer for a bulk load and leaves merging for the
// end: merging while inserting costs more than one merge at the end.
func configureColdFullText(conn *sqlite.Conn) error {
	for _, cfg := range []string{
		fmt.Sprintf("INSERT INTO search(search, rank) VALUES ('hashsize', %d)", buildHashBytes),
		"INSERT INTO search(search, rank) VALUES ('automerge', 0)",
	} {
		if err := sqlitex.ExecuteTransient(conn, cfg, nil); err != nil {
			return fmt.Errorf("configure full-text index: %w", err)
		}
	}
	return nil
}

// coldRows inserts a cold build's parsed files as they come, each node under the next key,
// and collects every file's problems; once any is an error it only collects.
type coldRows struct {
	w        *writer
	st       *state
	check    *source.Checker
	list     problem.List
	keys     map[string]int64
	next     int64
	progress func(done, total int)
	done     int
	total    int
}

// add takes one parsed file.
func (c *coldRows) add(p source.Parsed) error {
	c.done++
	if c.progress != nil && (c.done%512 == 0 || c.done == c.total) {
		c.progress(c.done, c.total)
	}
	c.list.AddAll(p.Fragment.Problems)
	c.check.Add(p.Fragment)
	if c.list.Errors() > 0 {
		return nil // keep collecting problems; the build will not be published
	}
	if err := c.w.insertFile(p.File, p.FileHash); err != nil {
		return err
	}
	if len(p.Fragment.Refs) > 0 {
		if err := c.w.insertRefs(p.File.Path, p.Fragment.Refs); err != nil {
			return err
		}
	}
	if err := c.w.insertLinkKeys(p.File.Path, p.Fragment.Links); err != nil {
		return err
	}
	c.st.sources.Add(fileItem(p.File.Path, p.FileHash))
	prepared := p.Prepared.([]preparedNode)
	for i := range p.Fragment.Nodes {
		n := &p.Fragment.Nodes[i]
		if _, dup := c.keys[n.ID]; dup {
			continue // reported by the checker
		}
		c.next++
		c.keys[n.ID] = c.next
		if err := c.w.insertNode(c.next, n, &prepared[i]); err != nil {
			return err
		}
	}
	return nil
}

// finish writes what needs every node first: labels, the node and candidate indexes, the
// edges, and their indexes.
func (c *coldRows) finish(conn *sqlite.Conn, candidates *[]candidate, clk *clock) error {
	w, keys := c.w, c.keys
	if err := w.insertLabels(); err != nil {
		return err
	}
	// Hashing the declared edges and resolving the relation candidates into hashed edges is
	// Go's work; it runs while SQLite creates the node and candidate indexes, on the core the
	// parsing left idle. keys and rels are only read from here on; the channels are buffered,
	// so a build that fails before reading them leaves no goroutine blocked.
	declared, resolved := make(chan []hashedEdge, 1), make(chan []hashedEdge, 1)
	go func() { declared <- hashEdges(c.check.EdgeRuns(), keys, w.rels) }()
	go func() {
		resolved <- hashEdges([][]graph.EdgeAt{resolvedRefs(keys, w.names, w.rels, *candidates)}, keys, w.rels)
	}()
	clk.mark("build")
	if err := sqlitex.ExecuteScript(conn, nodeIndexes, nil); err != nil {
		return fmt.Errorf("create index schema: %w", err)
	}
	clk.mark("indexes")
	if err := insertEdges(w, <-declared, <-resolved); err != nil {
		return err
	}
	if err := sqlitex.ExecuteScript(conn, edgeIndexes, nil); err != nil {
		return fmt.Errorf("create index schema: %w", err)
	}
	return nil
}

// maxColdSegments is how many full-text segments (one for each buildHashBytes of pending
// terms) a cold build leaves as they are: searches over them measured within 4% of one merged
// segment, where merging them was an eighth of the 100k benchmark's cold sync, on one core
// (docs/benchmarks.md). The first merge into the base that replaces rows rewrites them as one
// (applyRun, merge.go).
const maxColdSegments = 8

// finishFullText merges the full-text segments into one when a cold build left more than
// maxColdSegments, and restores incremental merging for the small deltas later builds apply.
// It runs after the build transaction commits.
func finishFullText(conn *sqlite.Conn) error {
	var segments int64
	if err := execInt(conn, "SELECT count(DISTINCT segid) FROM search_idx", &segments); err != nil {
		return fmt.Errorf("count full-text segments: %w", err)
	}
	if segments > maxColdSegments {
		if err := sqlitex.ExecuteTransient(conn, "INSERT INTO search(search) VALUES ('optimize')", nil); err != nil {
			return fmt.Errorf("optimize full-text index: %w", err)
		}
	}
	if err := sqlitex.ExecuteTransient(conn, "INSERT INTO search(search, rank) VALUES ('automerge', 4)", nil); err != nil {
		return fmt.Errorf("configure full-text index: %w", err)
	}
	return nil
}

func insertRelations(conn *sqlite.Conn, allowed []string) (map[string]int64, error) {
	names := slices.Sorted(slices.Values(allowed))
	rels := make(map[string]int64, len(names))
	for i, name := range names {
		err := sqlitex.Execute(conn, `INSERT INTO relations(rel, name) VALUES (?, ?)`,
			&sqlitex.ExecOptions{Args: []any{i + 1, name}})
		if err != nil {
			return nil, fmt.Errorf("insert relation %s: %w", name, err)
		}
		rels[name] = int64(i + 1)
	}
	return rels, nil
}

// resolvedRefs returns the distinct relation candidates whose ends are both nodes. The build
// keeps them by interned name (writer.candidates), three integers where an edge held three
// strings, and sorts them where it deduplicated edges through a map: on GOROOT/src's 343,612
// candidates the cold sync went from 10.99 to 10.30 s (docs/benchmarks.md).
func resolvedRefs(keys, names, rels map[string]int64, cands []candidate) []graph.EdgeAt {
	nodeName := make(map[int64]string, len(keys))
	for name, id := range names {
		if _, ok := keys[name]; ok {
			nodeName[id] = name
		}
	}
	relName := make(map[int64]string, len(rels))
	for name, rel := range rels {
		relName[rel] = name
	}
	slices.SortFunc(cands, candidate.compare)
	var out []graph.EdgeAt
	for _, c := range slices.Compact(cands) {
		src, ok := nodeName[c.src]
		dst, ok2 := nodeName[c.dst]
		if ok && ok2 {
			out = append(out, graph.EdgeAt{Edge: graph.Edge{Source: src, Relation: relName[c.rel], Target: dst}})
		}
	}
	return out
}

// insertEdges writes a cold build's declared and resolved edges as one run in key order,
// several rows a statement (insertInts): every row is a B-tree append, where two runs made
// the second one insert between the first's rows. A triple in both is one edge, the declared
// one with its anchor. The table is empty before, so a plain INSERT fails loudly on any
// duplicate that slipped through rather than leaving the edge digest wrong.
func insertEdges(w *writer, declared, resolved []hashedEdge) error {
	type keyed struct {
		src, rel, dst int64
		list          int // 0 declared, 1 resolved
		e             *hashedEdge
	}
	rows := make([]keyed, 0, len(declared)+len(resolved))
	for list, edges := range [][]hashedEdge{declared, resolved} {
		for i := range edges {
			e := &edges[i]
			rows = append(rows, keyed{e.src, e.rel, e.dst, list, e})
		}
	}
	// Of equal triples the declared one sorts first and is the one kept.
	slices.SortFunc(rows, func(a, b keyed) int {
		return cmp.Or(cmp.Compare(a.src, b.src), cmp.Compare(a.rel, b.rel), cmp.Compare(a.dst, b.dst), cmp.Compare(a.list, b.list))
	})
	rows = slices.CompactFunc(rows, func(a, b keyed) bool { return a.src == b.src && a.rel == b.rel && a.dst == b.dst })
	vals := make([]int64, 0, 3*len(rows))
	for _, r := range rows {
		vals = append(vals, r.src, r.rel, r.dst)
	}
	if err := insertInts(w.conn, `INSERT INTO main.edges(src, rel, dst)`, 3, vals); err != nil {
		return fmt.Errorf("insert edges: %w", err)
	}
	for _, r := range rows {
		w.st.edges.AddHash(r.e.item)
		if r.e.Anchor != "" {
			if err := w.setAnchor(r.src, r.rel, r.dst, r.e.Anchor); err != nil {
				return err
			}
		}
	}
	return nil
}

// hashedEdge is an edge with its ends' and relation's keys and what its hash (graph.EdgeHash)
// adds to the edge digest, made before it is inserted, off the goroutine that inserts.
type hashedEdge struct {
	*graph.EdgeAt
	src, rel, dst int64
	item          [32]byte
}

// hashEdges makes the hashed edges of the runs of edges, whose ends and relations keys and
// rels name.
func hashEdges(runs [][]graph.EdgeAt, keys, rels map[string]int64) []hashedEdge {
	n := 0
	for _, r := range runs {
		n += len(r)
	}
	out := make([]hashedEdge, 0, n)
	for _, r := range runs {
		for i := range r {
			e := &r[i]
			out = append(out, hashedEdge{e, keys[e.Source], rels[e.Relation], keys[e.Target], graph.DigestItem(graph.EdgeHash(e.Edge))})
		}
	}
	return out
}

// GoMemoryLimit is the soft limit for the Go heap of a process that builds indexes. Parsed
// nodes stream through a cold build, but the garbage collector's default pacing lets the heap
// reach twice its live size; with this limit a 100k-node cold build peaks at about 360 MiB of
// RSS in all, SQLite's page cache included. The cold build's full-text postings (up to
// buildHashBytes) live in the Go heap, where FTS5's term buffer lived outside it: under
// 192 MiB the collector ran so often that the 100k cold sync took 18 to 21 s against 16
// (docs/benchmarks.md).
const GoMemoryLimit = 224 << 20

// GoGCPercent paces the garbage collector below GoMemoryLimit: the heap may grow to five
// times its live size before a collection. A GOROOT/src cold build, whose live heap stays
// under 80 MiB, then collects a quarter as often and finishes about 0.3 s sooner; a 100k-node
// build meets the limit either way, at the same peak RSS (docs/benchmarks.md).
const GoGCPercent = 400

// ApplyMemorySettings sets the Go soft memory limit to GoMemoryLimit and the collector's pacing
// to GoGCPercent, each unless the user chose it with GOMEMLIMIT or GOGC. Commands call it
// once at start.
func ApplyMemorySettings() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(GoMemoryLimit)
	}
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(GoGCPercent)
	}
}
