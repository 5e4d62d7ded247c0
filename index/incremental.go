package index

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"

	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/source"
	"github.com/docforge/docforge/source/code"
	"github.com/docforge/docforge/source/project"
)

// errNeedsValidation means the delta broke a rule (an error in a changed file, a duplicate ID,
// a dangling target). The caller validates the whole project to report every problem with its
// position; the incremental copy is discarded.
var errNeedsValidation = errors.New("delta does not validate")

// errNeedsColdBuild means that, in a project whose links are relations, the nodes a delta
// adds, removes or moves would widen it past an incremental build's bound (widenForLinks):
// the caller builds from scratch instead.
var errNeedsColdBuild = errors.New("delta moves link targets")

// deltaOutcome is what an incremental build reports besides the index it writes: how many
// files it parsed, and the warnings of the files it re-read (the other files' warnings were
// reported when they last changed).
type deltaOutcome struct {
	parsed   int
	warnings []problem.Problem
	reread   []fileRow // the file rows the delta wrote
}

// delta is the set of files an incremental build re-reads or drops.
type delta struct {
	changed []source.File // new or different stat
	added   []string      // of changed, the new
	removed []string
	// all are the inventory's files, which the loader resolves imports across.
	all []source.File
}

func (dl delta) size() int { return len(dl.changed) + len(dl.removed) }

// movesLayout reports whether the delta changes a file that the layouts of Python or
// TypeScript and JavaScript read, or removes a module their resolution chose
// (source.AffectsLayout, source.RemovalAffectsLayout), or adds a file whose name others'
// names resolve by (source.AdditionAffectsLayout): how every file of that language resolves
// its imports may change with it, so only a cold build is exact.
func (dl delta) movesLayout() bool {
	return slices.ContainsFunc(dl.changed, func(f source.File) bool { return source.AffectsLayout(f.Path) }) ||
		slices.ContainsFunc(dl.removed, source.RemovalAffectsLayout) ||
		slices.ContainsFunc(dl.added, source.AdditionAffectsLayout)
}

type fileRow struct {
	file source.File
	hash string
}

// fileTable is a generation's file rows sorted by path (byte order, as an inventory's): an
// edit's delta is then one merge of two sorted lists, and a row is found by binary search.
// nil is no table; a table of no files is empty, not nil.
type fileTable []fileRow

// get returns the row of path.
func (t fileTable) get(path string) (fileRow, bool) {
	i, found := slices.BinarySearchFunc(t, path, comparePath)
	if !found {
		return fileRow{}, false
	}
	return t[i], true
}

// with returns t without the removed paths and with the re-read rows in place. An edit that
// only changed files already in the table (the usual one) replaces their rows in t itself,
// which its caller owns; otherwise a new table is merged from the sorted lists. Sorting or
// hashing 100,000 rows was 10 ms of every edit's sync at 100k files.
func (t fileTable) with(removed []string, reread []fileRow) fileTable {
	if len(removed) == 0 {
		inPlace := true
		for _, r := range reread {
			if _, ok := slices.BinarySearchFunc(t, r.file.Path, comparePath); !ok {
				inPlace = false
				break
			}
		}
		if inPlace {
			for _, r := range reread {
				i, _ := slices.BinarySearchFunc(t, r.file.Path, comparePath)
				t[i] = r
			}
			return t
		}
	}
	reread = slices.SortedFunc(slices.Values(reread), func(a, b fileRow) int { return strings.Compare(a.file.Path, b.file.Path) })
	removed = slices.Sorted(slices.Values(removed))
	out := make(fileTable, 0, len(t)+len(reread))
	for _, r := range t {
		p := r.file.Path
		for len(reread) > 0 && reread[0].file.Path < p {
			out, reread = append(out, reread[0]), reread[1:]
		}
		for len(removed) > 0 && removed[0] < p {
			removed = removed[1:]
		}
		switch {
		case len(removed) > 0 && removed[0] == p:
		case len(reread) > 0 && reread[0].file.Path == p:
			out, reread = append(out, reread[0]), reread[1:]
		default:
			out = append(out, r)
		}
	}
	return append(out, reread...)
}

// comparePath orders a row against a path, for binary search.
func comparePath(r fileRow, path string) int { return strings.Compare(r.file.Path, path) }

// readFiles loads the files table of a published index.
func readFiles(conn *sqlite.Conn) (fileTable, error) {
	out := fileTable{}
	err := sqlitex.Execute(conn, `SELECT path, format, size, mtime_ns, ctime_ns, ino, dev, file_hash FROM files`, &sqlitex.ExecOptions{
		ResultFunc: func(s *sqlite.Stmt) error {
			f := source.File{Path: s.ColumnText(0), Format: source.Format(s.ColumnInt64(1)), Size: s.ColumnInt64(2),
				MtimeNs: s.ColumnInt64(3), CtimeNs: s.ColumnInt64(4), Ino: uint64(s.ColumnInt64(5)), Dev: uint64(s.ColumnInt64(6))}
			out = append(out, fileRow{f, s.ColumnText(7)})
			return nil
		},
	})
	if err != nil {
		return nil, fmt.Errorf("read indexed files: %w", err)
	}
	slices.SortFunc(out, func(a, b fileRow) int { return strings.Compare(a.file.Path, b.file.Path) })
	return out, nil
}

// computeDelta compares the inventory with the indexed files, both sorted by path.
func computeDelta(inv *source.Inventory, old fileTable) delta {
	dl := delta{all: inv.Files}
	files := inv.Files
	for len(files) > 0 || len(old) > 0 {
		switch {
		case len(old) == 0 || len(files) > 0 && files[0].Path < old[0].file.Path:
			dl.changed = append(dl.changed, files[0])
			dl.added = append(dl.added, files[0].Path)
			files = files[1:]
		case len(files) == 0 || old[0].file.Path < files[0].Path:
			dl.removed = append(dl.removed, old[0].file.Path)
			old = old[1:]
		default:
			if f, o := files[0], old[0].file; !o.SameVersion(f) || o.Format != f.Format {
				dl.changed = append(dl.changed, f)
			}
			files, old = files[1:], old[1:]
		}
	}
	return dl
}

type oldNode struct {
	key    int64
	record graph.Record
	hash   string
}

// incrementalBuild writes dl as a new delta segment at path, over the previous generation's
// segments segs in dir, and records the transition in c. It reads the generation through
// views that join the segments and writes through them into the delta (openDelta). st arrives holding the previous state and leaves holding
// the new one. The work is a sequence of phases of a deltaBuild, each reading what the ones
// before it learnt; any phase may find that only a cold build or a validation is exact
// (errNeedsColdBuild, errNeedsValidation).
func incrementalBuild(ctx context.Context, path, dir string, segs []Segment, d *project.Descriptor, dl delta, old fileTable, b binding, st *state, c *diffCollector) (out deltaOutcome, retErr error) {
	conn, err := openWrite(ctx, path, 16)
	if err != nil {
		return out, err
	}
	segSchemas, err := openDelta(conn, dir, segs)
	if err != nil {
		conn.Close()
		return out, err
	}
	defer func() {
		if cerr := conn.Close(); cerr != nil && retErr == nil {
			retErr = fmt.Errorf("close %s: %w", path, cerr)
		}
	}()
	commit, err := beginBuild(conn)
	if err != nil {
		return out, fmt.Errorf("begin incremental build: %w", err)
	}
	defer func() {
		if retErr == nil {
			if err := commit(); err != nil {
				retErr = fmt.Errorf("commit incremental build: %w", err)
			}
		}
	}()
	nextName, err := maxKeyAcross(conn, segSchemas, "ref_names", "id")
	if err != nil {
		return out, err
	}
	db := &deltaBuild{conn: conn, d: d, dl: dl, old: old, b: b, st: st, segs: segSchemas,
		w: &writer{conn: conn, st: st, rels: map[string]int64{}, nextName: nextName + 1, delta: true}, anchors: map[graph.Edge]string{}}
	for _, phase := range []func() error{
		func() error { return db.parse(ctx) }, db.readOldNodes, func() error { return db.widenForLinks(ctx) }, db.readRelations,
		db.resolveLinks, db.readOldEdges,
		db.applyNodes, db.removeNodes, db.applyRefs, db.applyEdges, db.checkRemovedTargets, db.applyFiles,
	} {
		if err := phase(); err != nil {
			return db.out, err
		}
	}
	if err := db.w.writeMeta(b); err != nil {
		return db.out, err
	}
	sortItems(db.items)
	for _, it := range db.items {
		if err := c.add(it); err != nil {
			return db.out, err
		}
	}
	return db.out, nil
}

// edgeKeys are the integer keys an edge row is stored under.
type edgeKeys struct{ src, rel, dst int64 }

// deltaBuild is one incremental build in progress: the delta, the write connection, and
// what each phase has learnt so far.
type deltaBuild struct {
	conn *sqlite.Conn
	d    *project.Descriptor
	dl   delta
	old  fileTable
	b    binding
	st   *state
	w    *writer
	segs []string // the schemas the previous generation's segments are attached under

	parsed   []source.Parsed
	paths    []string // the removed and re-read files: the ones whose old nodes are replaced
	olds     map[string]oldNode
	oldFiles map[string][]source.FileNode // the nodes each file of paths held, in line order
	oldEdges map[graph.Edge]edgeKeys
	anchors  map[graph.Edge]string
	newIDs   map[string]bool
	newEdges map[graph.Edge]bool
	removed  map[string]int64 // node ID -> key, of the nodes the delta removed
	moved    *linkTargets     // what the delta changes of the link targets (links projects only)
	items    []DiffItem
	out      deltaOutcome
}

// parse reads the changed files, skipping those whose content did not change; a file with an
// error means the project needs a validation.
func (db *deltaBuild) parse(ctx context.Context) error {
	loader := source.NewLoader(db.d, db.b.policy).CountWork(db.b.work).WithFiles(db.dl.all)
	known := make(map[string]string, len(db.dl.changed))
	for _, f := range db.dl.changed {
		if o, ok := db.old.get(f.Path); ok && o.file.Format == f.Format {
			known[f.Path] = o.hash
		}
	}
	loader.SkipUnchanged(known)
	var reparsed []string // changed files whose content changed too
	err := loader.Each(ctx, db.dl.changed, func(p source.Parsed) error {
		if !p.Unchanged {
			reparsed = append(reparsed, p.File.Path)
		}
		for _, pr := range p.Fragment.Problems {
			if pr.Severity == problem.SeverityError {
				return errNeedsValidation
			}
			if !p.Unchanged {
				db.out.warnings = append(db.out.warnings, pr)
			}
		}
		db.parsed = append(db.parsed, p)
		return nil
	})
	db.out.parsed = len(reparsed)
	db.paths = append(slices.Clone(db.dl.removed), reparsed...)
	return err
}

// widenForLinks lets an edit change which nodes exist without a cold build in a project
// whose links are relations: a link or a backticked mention elsewhere may now name a node, a
// file or a declaration that appeared, or no longer name one that went. The files whose links
// look up anything the delta changes (linkHolders) are read again and their links resolved
// against the generation the delta makes (linkTargets); the delta is then as exact as for
// any edit. A delta that would grow past an incremental build's bound is left to a cold
// build.
func (db *deltaBuild) widenForLinks(ctx context.Context) error {
	if !db.d.Sources.Links.On() {
		return nil
	}
	moved := newLinkTargets()
	for _, p := range db.parsed {
		if !p.Unchanged && p.Fragment != nil {
			moved.replace(p.File.Path, db.oldFiles[p.File.Path], p.Fragment.Nodes, db.wasUnexported)
		}
	}
	for _, path := range db.dl.removed {
		moved.replace(path, db.oldFiles[path], nil, db.wasUnexported)
	}
	db.moved = moved
	holders, err := db.linkHolders()
	if err != nil || len(holders) == 0 {
		return err
	}
	inDelta := make(map[string]bool, len(db.paths)+len(db.dl.changed))
	for _, p := range db.paths {
		inDelta[p] = true
	}
	for _, f := range db.dl.changed {
		inDelta[f.Path] = true
	}
	var linking []source.File
	for _, path := range holders {
		if row, ok := db.old.get(path); ok && !inDelta[path] {
			linking = append(linking, row.file)
		}
	}
	if len(linking) == 0 {
		return nil
	}
	if len(db.dl.changed)+len(linking) > deltaBound(len(db.old)) {
		return errNeedsColdBuild
	}
	// Read whole, not skipped as unchanged: it is their links that are wanted.
	var paths []string
	loader := source.NewLoader(db.d, db.b.policy).CountWork(db.b.work).WithFiles(db.dl.all)
	err = loader.Each(ctx, linking, func(p source.Parsed) error {
		if len(problem.Errors(p.Fragment.Problems)) > 0 {
			return errNeedsValidation
		}
		db.out.warnings = append(db.out.warnings, p.Fragment.Problems...)
		db.parsed = append(db.parsed, p)
		paths = append(paths, p.File.Path)
		return nil
	})
	if err != nil {
		return err
	}
	db.paths = append(db.paths, paths...)
	db.out.parsed += len(linking)
	return db.readOldNodesOf(paths)
}

// linkHolders are the files whose links look up a link key the delta changes: a node ID
// that appeared or went (source.NodeKeys) or a file whose nodes changed (source.FileKeys),
// found by the keys each file's links were recorded under (link_keys).
func (db *deltaBuild) linkHolders() ([]string, error) {
	moved := db.moved
	set := map[string]bool{}
	for _, ids := range []map[string]bool{moved.gone, moved.added} {
		for id := range ids {
			if !(moved.gone[id] && moved.added[id]) { // moved between files: still there
				for _, k := range source.NodeKeys(id) {
					set[k] = true
				}
			}
		}
	}
	for id := range moved.flipped {
		for _, k := range source.NodeKeys(id) {
			set[k] = true
		}
	}
	for path := range moved.changed {
		for _, k := range source.FileKeys(path) {
			set[k] = true
		}
	}
	holders := map[string]bool{}
	for k := range set {
		err := sqlitex.Execute(db.conn, `SELECT o.name FROM ref_names n JOIN link_keys k ON k.name = n.id JOIN ref_names o ON o.id = k.origin WHERE n.name = ?`,
			&sqlitex.ExecOptions{Args: []any{k}, ResultFunc: func(s *sqlite.Stmt) error {
				holders[s.ColumnText(0)] = true
				return nil
			}})
		if err != nil {
			return nil, fmt.Errorf("find the links that look up %s: %w", k, err)
		}
	}
	return slices.Sorted(maps.Keys(holders)), nil
}

// deltaBound is the most files an incremental build reads again in a project of files files;
// past it a cold build is the cheaper one.
func deltaBound(files int) int { return max(256, files/4) }

// linkTargets are what a delta changes of the targets links resolve to: the node IDs its
// files gave up and took on, and the nodes of each file it re-read or removed.
type linkTargets struct {
	gone, added map[string]bool
	// unexported holds the re-read files' unexported code nodes; flipped, the nodes that
	// stayed but were exported before and are not now, or the other way round: a mention
	// choosing the exported declaration among several may now choose another.
	unexported, flipped map[string]bool
	// files holds each re-read file's nodes as a cold build's checker lists them (none for a
	// file without nodes), and nil for each removed file; changed, the files whose list is
	// not the one they held.
	files   map[string][]source.FileNode
	changed map[string]bool
}

func newLinkTargets() *linkTargets {
	return &linkTargets{gone: map[string]bool{}, added: map[string]bool{}, unexported: map[string]bool{}, flipped: map[string]bool{},
		files: map[string][]source.FileNode{}, changed: map[string]bool{}}
}

// replace records that the file at path held the nodes old and now holds nodes;
// wasUnexported says whether an old node was declared unexported.
func (m *linkTargets) replace(path string, old []source.FileNode, nodes []graph.Node, wasUnexported func(id string) bool) {
	var now []source.FileNode
	ids := make(map[string]bool, len(nodes))
	for _, n := range nodes {
		now = append(now, source.FileNode{ID: n.ID, Anchor: n.Anchor})
		ids[n.ID] = true
		if source.IsUnexported(n) {
			m.unexported[n.ID] = true
		}
	}
	for _, n := range old {
		if ids[n.ID] && graph.IsCode(n.ID) && wasUnexported(n.ID) != m.unexported[n.ID] {
			m.flipped[n.ID] = true
		}
	}
	m.files[path] = now
	if slices.Equal(old, now) {
		return
	}
	m.changed[path] = true
	was := make(map[string]bool, len(old))
	for _, n := range old {
		was[n.ID] = true
		if !ids[n.ID] {
			m.gone[n.ID] = true
		}
	}
	for id := range ids {
		if !was[id] {
			m.added[id] = true
		}
	}
}

func (db *deltaBuild) readRelations() error {
	if err := sqlitex.Execute(db.conn, `SELECT rel, name FROM relations`, &sqlitex.ExecOptions{
		ResultFunc: func(s *sqlite.Stmt) error { db.w.rels[s.ColumnText(1)] = s.ColumnInt64(0); return nil },
	}); err != nil {
		return fmt.Errorf("read relations: %w", err)
	}
	return nil
}

// keyColumn is the column of the node key after recordColumns in readOldNodes' query.
const keyColumn = recordColumnCount

// wasUnexported reports whether a node the delta's files held before was declared
// unexported.
func (db *deltaBuild) wasUnexported(id string) bool {
	old, ok := db.olds[id]
	return ok && slices.Contains(old.record.Capabilities, code.CapUnexported)
}

// readOldNodes reads the nodes the delta's files held before.
func (db *deltaBuild) readOldNodes() error {
	db.olds, db.oldFiles = map[string]oldNode{}, map[string][]source.FileNode{}
	return db.readOldNodesOf(db.paths)
}

// readOldNodesOf adds the nodes the files at paths held before to olds and oldFiles.
func (db *deltaBuild) readOldNodesOf(paths []string) error {
	for _, p := range paths {
		if err := sqlitex.Execute(db.conn, `SELECT `+recordColumns+`, key FROM nodes WHERE source_path = ? ORDER BY line`, &sqlitex.ExecOptions{
			Args: []any{p},
			ResultFunc: func(s *sqlite.Stmt) error {
				r, h := scanRecord(s)
				db.olds[r.ID] = oldNode{key: s.ColumnInt64(keyColumn), record: r, hash: h}
				db.oldFiles[p] = append(db.oldFiles[p], source.FileNode{ID: r.ID, Anchor: r.Anchor})
				return nil
			},
		}); err != nil {
			return fmt.Errorf("read nodes of %s: %w", p, err)
		}
	}
	return nil
}

// resolveLinks resolves the re-read files' links against the index (a project whose links
// are relations).
func (db *deltaBuild) resolveLinks() error {
	if !db.d.Sources.Links.On() {
		return nil
	}
	warned, err := resolveDeltaLinks(db.conn, db.d, db.parsed, db.moved, db.anchors)
	db.out.warnings = append(db.out.warnings, warned...)
	return err
}

// readOldEdges reads the out-edges of the delta's old document nodes (a code node's edges
// all come from relation candidates: see applyRefs).
func (db *deltaBuild) readOldEdges() error {
	db.oldEdges = map[graph.Edge]edgeKeys{}
	for id, on := range db.olds {
		if graph.IsCode(id) && !strings.HasPrefix(id, graph.TextPrefix) {
			continue // a declaration's relations are candidates (refs); a text file's are its guide links
		}
		if err := sqlitex.Execute(db.conn, `SELECT e.rel, r.name, e.dst, t.id FROM edges e JOIN relations r ON r.rel = e.rel
			JOIN nodes t ON t.key = e.dst WHERE e.src = ?`, &sqlitex.ExecOptions{
			Args: []any{on.key},
			ResultFunc: func(s *sqlite.Stmt) error {
				e := graph.Edge{Source: id, Relation: s.ColumnText(1), Target: s.ColumnText(3)}
				db.oldEdges[e] = edgeKeys{src: on.key, rel: s.ColumnInt64(0), dst: s.ColumnInt64(2)}
				return nil
			},
		}); err != nil {
			return fmt.Errorf("read edges of %s: %w", id, err)
		}
	}
	return nil
}

// applyNodes writes the re-read files' nodes: an unchanged record keeps its row (its stamps
// may change), a changed one is replaced under its key, a new one gets the next key.
func (db *deltaBuild) applyNodes() error {
	// A key dead in a delta is never given again: older segments may still hold its rows.
	maxKey, err := maxKeyAcross(db.conn, db.segs, "nodes", "key")
	if err != nil {
		return err
	}
	maxDead, err := maxKeyAcross(db.conn, db.segs, "dead_nodes", "key")
	if err != nil {
		return err
	}
	maxKey = max(maxKey, maxDead)
	db.newIDs, db.newEdges = map[string]bool{}, map[graph.Edge]bool{}
	for _, p := range db.parsed {
		for i := range p.Fragment.Nodes {
			n := &p.Fragment.Nodes[i]
			if db.newIDs[n.ID] {
				return errNeedsValidation // duplicate inside the delta
			}
			db.newIDs[n.ID] = true
			if on, ok := db.olds[n.ID]; ok {
				if err := db.replaceNode(on, n); err != nil {
					return err
				}
				continue
			}
			if _, exists := lookupKey(db.conn, n.ID); exists {
				return errNeedsValidation // duplicate of a node outside the delta
			}
			maxKey++
			if err := db.w.insertNode(maxKey, n, nil); err != nil {
				return err
			}
			rec := storedRecord(n.Record)
			db.items = append(db.items, DiffItem{Type: "node", Change: "added", NodeID: n.ID, After: &rec})
		}
		for _, e := range p.Fragment.Edges {
			db.newEdges[e.Edge] = true
		}
	}
	return nil
}

// replaceNode writes n over the rows of the node it was, under its key. A delta holds every
// row a node owns or none (segment.go), so an unchanged record is written again too: its
// stamps may have changed, and nothing else of it is reported.
func (db *deltaBuild) replaceNode(on oldNode, n *graph.Node) error {
	rec := storedRecord(n.Record)
	if err := db.w.deleteNode(on.key, on.hash); err != nil {
		return err
	}
	if err := db.w.insertNode(on.key, n, nil); err != nil {
		return err
	}
	if on.hash != rec.Hash() {
		db.items = append(db.items, DiffItem{Type: "node", Change: "changed", NodeID: n.ID, Fields: on.record.ChangedFields(rec), Before: &on.record, After: &rec})
	}
	return nil
}

// removeNodes deletes the old nodes no re-read file holds any more.
func (db *deltaBuild) removeNodes() error {
	db.removed = map[string]int64{}
	for id, on := range db.olds {
		if db.newIDs[id] {
			continue
		}
		if err := db.w.deleteNode(on.key, on.hash); err != nil {
			return err
		}
		db.removed[id] = on.key
		db.items = append(db.items, DiffItem{Type: "node", Change: "removed", NodeID: id, Before: &on.record})
	}
	return nil
}

// applyRefs brings the edges the delta's relation candidates derive up to date.
func (db *deltaBuild) applyRefs() error {
	var appeared []string
	for id := range db.newIDs {
		if _, ok := db.olds[id]; !ok {
			appeared = append(appeared, id)
		}
	}
	items, err := applyRefs(db.w, db.paths, db.parsed, appeared, db.removed)
	db.items = append(db.items, items...)
	return err
}

// applyEdges replaces the declared edges of the re-read documents and sets link anchors.
func (db *deltaBuild) applyEdges() error {
	for e, k := range db.oldEdges {
		if db.newEdges[e] {
			continue
		}
		if err := db.w.deleteEdge(k.src, k.rel, k.dst, e); err != nil {
			return err
		}
		db.items = append(db.items, DiffItem{Type: "edge", Change: "removed", Edge: &e})
	}
	for e := range db.newEdges {
		if _, ok := db.oldEdges[e]; ok {
			continue
		}
		src, ok1 := lookupKey(db.conn, e.Source)
		dst, ok2 := lookupKey(db.conn, e.Target)
		rel, ok3 := db.w.rels[e.Relation]
		if !ok1 || !ok2 || !ok3 {
			return errNeedsValidation // dangling target
		}
		if err := db.w.insertEdge(src, rel, dst, e, ""); err != nil {
			return err
		}
		db.items = append(db.items, DiffItem{Type: "edge", Change: "added", Edge: &e})
	}
	for e, anchor := range db.anchors {
		src, _ := lookupKey(db.conn, e.Source)
		dst, _ := lookupKey(db.conn, e.Target)
		if err := db.w.setAnchor(src, db.w.rels[e.Relation], dst, anchor); err != nil {
			return err
		}
	}
	return nil
}

// checkRemovedTargets refuses the delta when an unchanged file still points at a node it
// removed: that relation now dangles, which only a validation reports.
func (db *deltaBuild) checkRemovedTargets() error {
	for _, k := range db.removed {
		var refs int64
		if err := sqlitex.Execute(db.conn, `SELECT count(*) FROM (SELECT 1 FROM edges WHERE dst = ? LIMIT 1)`, &sqlitex.ExecOptions{
			Args: []any{k}, ResultFunc: func(s *sqlite.Stmt) error { refs = s.ColumnInt64(0); return nil },
		}); err != nil {
			return fmt.Errorf("check references: %w", err)
		}
		if refs > 0 {
			return errNeedsValidation
		}
	}
	return nil
}

// applyFiles records the delta's files and their hashes in the files table and the source set.
func (db *deltaBuild) applyFiles() error {
	for _, p := range db.dl.removed {
		o, _ := db.old.get(p)
		db.st.sources.Remove(fileItem(p, o.hash))
		if err := db.w.deleteFile(p); err != nil {
			return err
		}
	}
	for _, p := range db.parsed {
		if o, ok := db.old.get(p.File.Path); ok {
			db.st.sources.Remove(fileItem(p.File.Path, o.hash))
		}
		db.st.sources.Add(fileItem(p.File.Path, p.FileHash))
		if err := db.w.insertFile(p.File, p.FileHash); err != nil {
			return err
		}
		db.out.reread = append(db.out.reread, fileRow{p.File, p.FileHash})
	}
	return nil
}

// applyRefs replaces the relation candidates of the delta's files and brings the edges they
// derive up to date: every candidate the delta touched (its files' old and new candidates,
// and those of nodes that appeared or disappeared) becomes an edge exactly when some file
// still declares it and both its ends are nodes.
func applyRefs(w *writer, paths []string, parsed []source.Parsed, appeared []string, removed map[string]int64) ([]DiffItem, error) {
	rs := &refSync{w: w, removed: removed, touched: map[graph.Edge]bool{}, relNames: make(map[int64]string, len(w.rels)), keys: map[string]nodeKey{}}
	for name, rel := range w.rels {
		rs.relNames[rel] = name
	}
	if err := rs.replaceFiles(paths, parsed); err != nil {
		return nil, err
	}
	ends := slices.Sorted(maps.Keys(removed))
	for _, id := range append(ends, appeared...) {
		if err := rs.collect(`r.src = ?1 UNION ALL `+namedRefs+`r.dst = ?1`, id); err != nil {
			return nil, fmt.Errorf("read relation candidates of %s: %w", id, err)
		}
	}
	var items []DiffItem
	for _, e := range slices.SortedFunc(maps.Keys(rs.touched), graph.Edge.Compare) {
		item, err := rs.settle(e)
		if err != nil {
			return nil, err
		}
		if item != nil {
			items = append(items, *item)
		}
	}
	return items, nil
}

// namedRefs selects relation candidates with their ends' names.
const namedRefs = `SELECT s.name, r.rel, d.name FROM refs r JOIN ref_names s ON s.id = r.src JOIN ref_names d ON d.id = r.dst WHERE `

// refSync is applyRefs at work: the candidates the delta touched, and the keys of the nodes
// it removed.
type refSync struct {
	w        *writer
	removed  map[string]int64
	touched  map[graph.Edge]bool
	relNames map[int64]string
	// keys remembers the nodes' keys looked up: a declaration's candidates share its ID and
	// many share a target, and the nodes no longer change while candidates are settled.
	keys map[string]nodeKey
}

// nodeKey is a node's key, and whether there is such a node.
type nodeKey struct {
	key int64
	ok  bool
}

// collect adds the candidates a query (on one name) selects to the touched set.
func (rs *refSync) collect(where, name string) error {
	id, ok, err := rs.w.nameID(name, true)
	if err != nil || !ok {
		return err
	}
	return sqlitex.Execute(rs.w.conn, namedRefs+where, &sqlitex.ExecOptions{
		Args: []any{id},
		ResultFunc: func(s *sqlite.Stmt) error {
			rs.touched[graph.Edge{Source: s.ColumnText(0), Relation: rs.relNames[s.ColumnInt64(1)], Target: s.ColumnText(2)}] = true
			return nil
		},
	})
}

// replaceFiles swaps the candidates of the delta's files for those the re-read files declare,
// touching both.
func (rs *refSync) replaceFiles(paths []string, parsed []source.Parsed) error {
	for _, p := range paths {
		if err := rs.collect(`r.origin = ?`, p); err != nil {
			return fmt.Errorf("read relation candidates of %s: %w", p, err)
		}
		id, ok, err := rs.w.nameID(p, true)
		if err != nil {
			return err
		}
		if ok {
			if err := sqlitex.Execute(rs.w.conn, `DELETE FROM main.refs WHERE origin = ?`, &sqlitex.ExecOptions{Args: []any{id}}); err != nil {
				return fmt.Errorf("delete relation candidates of %s: %w", p, err)
			}
			if err := rs.w.markDead("dead_refs", id); err != nil {
				return err
			}
		}
	}
	for _, p := range parsed {
		if p.Unchanged {
			continue // the same bytes behind a new stat: its candidates stand
		}
		for _, r := range p.Fragment.Refs {
			rs.touched[r] = true
		}
		if err := rs.w.insertRefs(p.File.Path, p.Fragment.Refs); err != nil {
			return err
		}
		if err := rs.w.insertLinkKeys(p.File.Path, p.Fragment.Links); err != nil {
			return err
		}
	}
	return nil
}

// keyOf is a node's key, and whether it is a node now: a removed node's old key still names
// the edges to delete.
func (rs *refSync) keyOf(id string) (int64, bool) {
	if k, ok := rs.removed[id]; ok {
		return k, false
	}
	if k, ok := rs.keys[id]; ok {
		return k.key, k.ok
	}
	key, ok := lookupKey(rs.w.conn, id)
	rs.keys[id] = nodeKey{key, ok}
	return key, ok
}

// settle makes one touched candidate an edge exactly when some file still declares it and
// both its ends are nodes, and says what changed (nil for nothing).
func (rs *refSync) settle(e graph.Edge) (*DiffItem, error) {
	src, srcOK := rs.keyOf(e.Source)
	dst, dstOK := rs.keyOf(e.Target)
	rel, relOK := rs.w.rels[e.Relation]
	if !relOK || (src == 0 && !srcOK) || (dst == 0 && !dstOK) {
		return nil, nil // an end that never had a key cannot have an edge
	}
	declared, err := rs.declared(e, rel)
	if err != nil {
		return nil, err
	}
	var present int64
	if err := execInt(rs.w.conn, `SELECT count(*) FROM edges WHERE src = ? AND rel = ? AND dst = ?`, &present, src, rel, dst); err != nil {
		return nil, fmt.Errorf("check edge: %w", err)
	}
	want := declared && srcOK && dstOK
	switch {
	case present > 0 && !want:
		if err := rs.w.deleteEdge(src, rel, dst, e); err != nil {
			return nil, err
		}
		return &DiffItem{Type: "edge", Change: "removed", Edge: &e}, nil
	case present == 0 && want:
		if err := rs.w.insertEdge(src, rel, dst, e, ""); err != nil {
			return nil, err
		}
		return &DiffItem{Type: "edge", Change: "added", Edge: &e}, nil
	}
	return nil, nil
}

// declared reports whether some file still declares the candidate e.
func (rs *refSync) declared(e graph.Edge, rel int64) (bool, error) {
	srcName, ok1, err := rs.w.nameID(e.Source, true)
	if err != nil {
		return false, err
	}
	dstName, ok2, err := rs.w.nameID(e.Target, true)
	if err != nil || !ok1 || !ok2 {
		return false, err
	}
	var n int64
	if err := execInt(rs.w.conn, `SELECT count(*) FROM (SELECT 1 FROM refs WHERE src = ? AND rel = ? AND dst = ? LIMIT 1)`, &n, srcName, rel, dstName); err != nil {
		return false, fmt.Errorf("check relation candidate: %w", err)
	}
	return n > 0, nil
}

// sortItems orders diff items as fullDiff emits them: nodes by ID, then edges by triple.
func sortItems(items []DiffItem) {
	slices.SortFunc(items, func(a, b DiffItem) int {
		switch {
		case a.Type != b.Type && a.Type == "node":
			return -1
		case a.Type != b.Type:
			return 1
		case a.Type == "node":
			if a.NodeID < b.NodeID {
				return -1
			}
			if a.NodeID > b.NodeID {
				return 1
			}
			return 0
		}
		return a.Edge.Compare(*b.Edge)
	})
}

func lookupKey(conn *sqlite.Conn, id string) (int64, bool) {
	s := conn.Prep(`SELECT key FROM nodes WHERE id = ?`)
	defer s.Reset()
	s.BindText(1, id)
	ok, err := s.Step()
	if err != nil || !ok {
		return 0, false
	}
	return s.ColumnInt64(0), true
}

// resolveDeltaLinks resolves the links of the delta's reparsed files against the index and
// adds the edges to their fragments, recording each edge's anchor ("" for none) in anchors.
// The index answers with what the delta changes (moved, from widenForLinks) taken off and put
// on: the targets are the new generation's. A dangling link that the
// project counts as an error needs validation.
func resolveDeltaLinks(conn *sqlite.Conn, d *project.Descriptor, parsed []source.Parsed, moved *linkTargets, anchors map[graph.Edge]string) (warnings []problem.Problem, err error) {
	targets := &indexTargets{conn: conn, moved: moved}
	for _, p := range parsed {
		f := p.Fragment
		if p.Unchanged || f == nil {
			continue
		}
		for _, e := range f.Edges {
			anchors[e.Edge] = ""
		}
		if len(f.Links) == 0 {
			continue
		}
		edges, probs := source.ResolveLinks(d, f.Links, targets)
		if targets.err != nil {
			return nil, targets.err
		}
		if len(problem.Errors(probs)) > 0 {
			return nil, errNeedsValidation
		}
		for _, e := range edges {
			if _, declared := anchors[e.Edge]; !declared || e.Anchor != "" {
				anchors[e.Edge] = e.Anchor
			}
		}
		f.Edges = append(f.Edges, edges...)
		warnings = append(warnings, probs...)
	}
	return warnings, nil
}

// indexTargets answers link resolution from an index being built, with what the delta
// changes taken off and put on.
type indexTargets struct {
	conn     *sqlite.Conn
	moved    *linkTargets
	err      error
	declared source.Declarations // code nodes by mention name, read once when first asked
	routes   source.RouteIndex   // files with nodes by route name, likewise
}

// Declared answers a mention from the index's code nodes, read once per build, with the
// delta's moves.
func (t *indexTargets) Declared(name string) []string {
	if t.declared == nil {
		var ids []string
		for _, prefix := range graph.CodePrefixes() {
			// A range on the ID ("go:" up to "go;") is a search of the primary key.
			err := sqlitex.Execute(t.conn, `SELECT id FROM nodes WHERE id >= ? AND id < ?`, &sqlitex.ExecOptions{
				Args: []any{prefix, prefix[:len(prefix)-1] + ";"},
				ResultFunc: func(s *sqlite.Stmt) error {
					if id := s.ColumnText(0); !t.moved.gone[id] {
						ids = append(ids, id)
					}
					return nil
				},
			})
			if err != nil && t.err == nil {
				t.err = fmt.Errorf("read code nodes: %w", err)
			}
		}
		for id := range t.moved.added {
			if graph.IsCode(id) {
				ids = append(ids, id)
			}
		}
		slices.Sort(ids)
		t.declared = source.Declarations{}
		for _, id := range ids {
			t.declared.Add(id)
		}
	}
	return t.declared[name]
}

// Unexported answers for a node of a file the delta re-read from the delta, else from the
// index's capabilities. Only an ambiguous mention asks, so one query a node is cheap enough.
func (t *indexTargets) Unexported(id string) bool {
	if t.moved.added[id] || t.moved.flipped[id] || t.moved.unexported[id] {
		return t.moved.unexported[id]
	}
	caps := ""
	err := sqlitex.Execute(t.conn, `SELECT capabilities FROM nodes WHERE id = ?`, &sqlitex.ExecOptions{
		Args:       []any{id},
		ResultFunc: func(s *sqlite.Stmt) error { caps = s.ColumnText(0); return nil },
	})
	if err != nil && t.err == nil {
		t.err = fmt.Errorf("read the capabilities of %s: %w", id, err)
	}
	var list []string
	_ = json.Unmarshal([]byte(caps), &list) // an empty or unreadable list: none
	return slices.Contains(list, code.CapUnexported)
}

// NodesIn answers with the delta's nodes of a file it re-read or removed, else the index's.
func (t *indexTargets) NodesIn(path string) []source.FileNode {
	if nodes, ok := t.moved.files[path]; ok {
		return nodes
	}
	var out []source.FileNode
	err := sqlitex.Execute(t.conn, `SELECT id, anchor FROM nodes WHERE source_path = ? ORDER BY line`, &sqlitex.ExecOptions{
		Args: []any{path},
		ResultFunc: func(s *sqlite.Stmt) error {
			out = append(out, source.FileNode{ID: s.ColumnText(0), Anchor: s.ColumnText(1)})
			return nil
		},
	})
	if err != nil && t.err == nil {
		t.err = fmt.Errorf("read nodes of %s: %w", path, err)
	}
	return out
}

// Routed answers a route lookup from the files with nodes, read once per build: the index's
// files the delta left alone, and the delta's files that hold nodes now.
func (t *indexTargets) Routed(name string) []string {
	if t.routes == nil {
		var paths []string
		err := sqlitex.Execute(t.conn, `SELECT DISTINCT source_path FROM nodes`, &sqlitex.ExecOptions{
			ResultFunc: func(s *sqlite.Stmt) error {
				if _, inDelta := t.moved.files[s.ColumnText(0)]; !inDelta {
					paths = append(paths, s.ColumnText(0))
				}
				return nil
			},
		})
		if err != nil && t.err == nil {
			t.err = fmt.Errorf("read node files: %w", err)
		}
		for p, nodes := range t.moved.files {
			if len(nodes) > 0 {
				paths = append(paths, p)
			}
		}
		t.routes = source.NewRouteIndex(paths)
	}
	return t.routes[name]
}

// Has answers from the index with the delta's moves.
func (t *indexTargets) Has(id string) bool {
	if t.moved.added[id] || t.moved.gone[id] {
		return t.moved.added[id]
	}
	_, ok := lookupKey(t.conn, id)
	return ok
}
