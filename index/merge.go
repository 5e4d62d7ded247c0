package index

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"

	"github.com/docforge/docforge/base/safefile"
	"github.com/docforge/docforge/index/fts5seg"
	"github.com/docforge/docforge/index/publication"
	"github.com/docforge/docforge/source/project"
)

// The merge policy (docs/architecture.md, "Merging by cost"). A merge folds a run of a
// generation's newest segments into one. Most merges fold deltas into one delta, writing
// about the size of the deltas; the base, the bulk of the index, is rewritten only once the
// deltas together reach 1/baseShare of its size, so the bytes an edit costs follow the edit,
// not the project.
const (
	// MergeDeltas is the number of deltas from which a merge is due at once (MergeCount):
	// every delta costs each reader's open a little (an overlay of the deltas' rows).
	MergeDeltas = 4
	// maxDeltas bounds a generation's deltas: a sync merges before it writes one more. A
	// reader attaches one database per delta, and SQLite attaches at most ten.
	maxDeltas = 8
	// baseShare: the base is rewritten once the deltas' bytes reach 1/baseShare of its own.
	// A query over deltas costs about what one over the base does (docs/benchmarks.md), so
	// what bounds them is the space and the overlay a reader builds, both in proportion to
	// the deltas.
	baseShare = 8
	// tierRatio: a delta joins the run of newer deltas merged with it while it is at most
	// tierRatio times their bytes together. Deltas then grow in size from newest to oldest,
	// and a delta's rows are rewritten about log2 of the deltas' total in units of one edit
	// times: a binary counter's carries.
	tierRatio = 2
)

// mergeRun chooses the run a merge of m folds: the segments from m.Segments[from] to the
// newest. from 0 rewrites the base; ok is false when no merge is worth its writes.
func mergeRun(m *Manifest) (from int, ok bool) {
	n := len(m.Segments)
	if n < 2 {
		return 0, false
	}
	var deltas int64
	for _, s := range m.Segments[1:] {
		deltas += s.Size
	}
	if deltas*baseShare >= m.Segments[0].Size {
		return 0, true
	}
	from = n - 1
	run := m.Segments[from].Size
	for from > 1 && m.Segments[from-1].Size <= tierRatio*run {
		from--
		run += m.Segments[from].Size
	}
	switch {
	case from < n-1:
		return from, true
	case n-1 >= MergeDeltas:
		return 1, true // deltas grown apart in size: all of them, so that their count stays bounded
	}
	return 0, false
}

// mergeDue says whether and why a merge is due over the generation m names.
func mergeDue(m *Manifest) MergeReason {
	if _, ok := mergeRun(m); !ok {
		return MergeNone
	}
	if m.Deltas() >= MergeDeltas {
		return MergeCount
	}
	return MergeQuiet
}

// MergeResult says what a Merge did.
type MergeResult struct {
	Merged int `json:"merged"` // deltas folded into the base or into one delta; 0 when no merge was due
	// Base is set when the merge rewrote the base; Deltas is how many deltas the generation
	// has after the merge.
	Base       bool  `json:"base,omitempty"`
	Deltas     int   `json:"deltas"`
	Generation int64 `json:"generation"`
	// Superseded is set when a cold build replaced the segments while the merge ran: its
	// result was discarded.
	Superseded bool `json:"superseded,omitempty"`
}

// Merge folds a run of the published generation's newest segments into one (mergeRun, or
// every segment with opts.Full), without holding the publisher lock while it builds: the
// merged segment is the run's oldest with each later one applied in order, so it holds
// exactly the run's rows (and, for a run of deltas, the dead keys they name in the segments
// before it). It then publishes, under the lock, a manifest naming the merged segment in the
// run's place and any delta published since, and retires the run (readers that opened them
// keep them). The generation and every answer stay the same; the manifest, and so the index
// signature in both receipts, changes.
func Merge(ctx context.Context, d *project.Descriptor, opts MergeOptions) (*MergeResult, error) {
	run := mergeRun
	if opts.Full {
		run = func(m *Manifest) (int, bool) { return 0, m.Deltas() > 0 }
	}
	return mergeWith(ctx, d, opts, run)
}

// mergeWith merges the run that run chooses over the published manifest.
func mergeWith(ctx context.Context, d *project.Descriptor, opts MergeOptions, run func(*Manifest) (from int, ok bool)) (*MergeResult, error) {
	paths := publication.PathsFor(d, opts.Policy)
	m, err := ReadManifest(paths.Index)
	if err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	from, ok := run(m)
	if !ok {
		return &MergeResult{Deltas: m.Deltas(), Generation: m.Generation}, nil
	}
	mb, err := buildMerge(ctx, paths, m, from, opts.Fault)
	if err != nil {
		return nil, err
	}
	defer os.Remove(mb.tmp) // a no-op once published
	unlock, err := lockFile(ctx, paths.Lock)
	if err != nil {
		return nil, err
	}
	defer unlock()
	return publishMerge(paths, mb, opts)
}

// MergeOptions tune one Merge.
type MergeOptions struct {
	// Policy is the adapter policy of the index ("ast" when empty).
	Policy string
	// Memory, if set, is the memory of the publisher that merges: it follows the merged
	// manifest, so that the publisher's next sync still starts from it.
	Memory *Memory
	// Fault, if set, runs before each merge step (MergeSteps); an error aborts the merge there.
	Fault func(step string) error
	// Full folds every delta into a new base whatever the policy says (mergeRun).
	Full bool
}

// Merge steps, in order, for fault tests.
const (
	StepMergeBuild    = "merge_build"
	StepMergeVerify   = "merge_verify"
	StepMergeFsync    = "merge_fsync"
	StepMergeRename   = "merge_rename"
	StepMergeManifest = "merge_manifest"
	StepMergeSyncDir  = "merge_sync_dir"
	StepMergeReceipts = "merge_receipts"
	StepMergeRetire   = "merge_retire"
)

// MergeSteps lists the merge steps in order.
func MergeSteps() []string {
	return []string{StepMergeBuild, StepMergeVerify, StepMergeFsync, StepMergeRename, StepMergeManifest, StepMergeSyncDir, StepMergeReceipts, StepMergeRetire}
}

// mergeBuild is a merged segment written but not yet published: the run it replaces, from
// m.Segments[from].
type mergeBuild struct {
	tmp, name string
	from      int
	merged    []Segment
}

// buildMerge writes the segment that folds m's segments from m.Segments[from] into one, at
// low priority.
func buildMerge(ctx context.Context, paths publication.Paths, m *Manifest, from int, hook func(string) error) (mb *mergeBuild, err error) {
	lowPriority(func() { mb, err = writeMerge(ctx, paths, m, from, hook) })
	return mb, err
}

// lowPriority runs fn on a thread of its own at nice 19, so that a merge yields to the work
// that answers: on Linux a thread's nice value is its own, and SQLite runs on the calling
// goroutine's thread. An unprivileged process may lower its priority but never raise it
// again, so the thread is not handed back to the scheduler: its goroutine ends still locked
// to it, and the runtime ends the thread.
func lowPriority(fn func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		_ = unix.Setpriority(unix.PRIO_PROCESS, unix.Gettid(), 19) // best effort
		fn()
	}()
	<-done
}

// mergedState is what the merged segment must hold: the generation its newest segment
// describes, which must be the manifest's, and that segment's meta.
func mergedState(conn *sqlite.Conn, schemas []string, m *Manifest) (map[string]string, *state, error) {
	meta, err := readMetaFrom(conn, schemas[len(schemas)-1]+".meta")
	if err != nil {
		return nil, nil, err
	}
	want, err := stateFromMeta(meta)
	if err != nil {
		return nil, nil, err
	}
	if want.generation != m.Generation {
		return nil, nil, fmt.Errorf("the segments hold generation %d, the manifest %d", want.generation, m.Generation)
	}
	return meta, want, nil
}

// applyRun applies each attached delta after the first segment onto it, in one transaction,
// keeping the full text's totals exact: the sizes of the rows a delta replaces out, its own
// in. A merged delta's full text is rewritten as one segment, and so is a base's that carries
// deletion marks.
func applyRun(conn *sqlite.Conn, schemas []string, base bool) error {
	commit, err := beginBuild(conn)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	totals, ok, err := fts5seg.ReadTotals(conn, searchTable("main"))
	if err != nil {
		return err
	}
	if !ok { // a delta that only removed rows holds none: its totals are nothing
		totals = fts5seg.Totals{Columns: make([]uint64, searchColumns)}
	}
	w := &writer{conn: conn}
	for _, schema := range schemas[1:] {
		sizesOf := func(keys string) string {
			return "SELECT sz FROM main.search_docsize WHERE id IN (SELECT key FROM " + schema + "." + keys + ")"
		}
		if err := countSizes(conn, &totals, sizesOf("dead_nodes"), true); err != nil {
			return err
		}
		if err := applyDelta(w, schema, !base); err != nil {
			return err
		}
		if err := countSizes(conn, &totals, sizesOf("nodes"), false); err != nil {
			return err
		}
	}
	// A segment merged again and again would keep the full-text segments and deletion marks
	// of every merge, and every query checks each posting against the marks in every
	// segment: a GOROOT/src base after a few hundred merges held 15 segments and 861 marks,
	// and its full-text query took 1.02 ms where the same index rewritten as one segment took
	// 0.47 (docs/benchmarks.md, "A merged base's full text is one segment"). A delta is
	// rewritten always, a base when the rows it replaced left marks.
	optimize := !base
	if base {
		shape, err := fts5seg.ReadShape(conn, searchTable("main"))
		if err != nil {
			return err
		}
		optimize = shape.Tombstones > 0
	}
	if optimize {
		if err := sqlitex.ExecuteTransient(conn, "INSERT INTO search(search) VALUES ('optimize')", nil); err != nil {
			return fmt.Errorf("optimize the full text: %w", err)
		}
	}
	if err := commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return totals.Write(conn, searchTable("main"))
}

// writeMerge writes the merged segment, at whatever priority its thread has.
func writeMerge(ctx context.Context, paths publication.Paths, m *Manifest, from int, hook func(string) error) (mb *mergeBuild, retErr error) {
	base := from == 0
	prefix := deltaPrefix
	if base {
		prefix = basePrefix
	}
	name := newSegmentName(prefix, m.Generation)
	tmp := filepath.Join(paths.Dir, name+tmpSuffix)
	defer func() {
		if retErr != nil {
			os.Remove(tmp)
		}
	}()
	run := m.Segments[from:]
	mb = &mergeBuild{tmp: tmp, name: name, from: from, merged: run}
	if err := fault(hook, StepMergeBuild); err != nil {
		return nil, err
	}
	if err := copyFile(mb.tmp, filepath.Join(paths.Dir, run[0].Name)); err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	conn, err := openWrite(ctx, mb.tmp, 16)
	if err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	defer conn.Close()
	schemas := segmentNames("main", len(run))
	if err := attachEach(conn, paths.Dir, run, schemas); err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	meta, want, err := mergedState(conn, schemas, m)
	if err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	if err := applyRun(conn, schemas, base); err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	if err := conn.Close(); err != nil {
		return nil, fmt.Errorf("merge: close: %w", err)
	}
	if err := fault(hook, StepMergeVerify); err != nil {
		return nil, err
	}
	if err := verify(ctx, mb.tmp, want, meta[metaPolicy], base); err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	if err := fault(hook, StepMergeFsync); err != nil {
		return nil, err
	}
	if err := safefile.Fsync(mb.tmp); err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	return mb, nil
}

// applyDelta applies the delta attached as schema to the segment being merged in main: the
// rows it names dead go, its rows come in, and its nodes' full-text rows are written again
// from their stored fields (a contentless full-text table cannot be read back). With keepDead
// main is a delta, and keeps the dead keys too: they name rows of the segments before it.
func applyDelta(w *writer, schema string, keepDead bool) error {
	tables := layeredTables()
	if keepDead {
		nodes, edges, refs, files := deadSets()
		for _, ds := range []deadSet{nodes, edges, refs, files} {
			if err := sqlitex.ExecuteTransient(w.conn, "INSERT OR IGNORE INTO main."+ds.table+" SELECT * FROM "+schema+"."+ds.table, nil); err != nil {
				return fmt.Errorf("keep the dead keys of %s: %w", schema, err)
			}
		}
	}
	// A table a node's own list keys (listedBy) loses a dead node's rows through that list,
	// before the node's row goes: a condition on the key alone read the whole table (12 of
	// GOROOT/src's 250 ms a merge).
	for _, t := range tables {
		if t.listedBy == "" {
			continue
		}
		q := "DELETE FROM main." + t.name + " WHERE (" + t.indexes[0] + ") IN (SELECT j.value, n.key FROM " +
			schema + ".dead_nodes d JOIN main.nodes n ON n.key = d.key, json_each(n." + t.listedBy + ") j)"
		if err := sqlitex.ExecuteTransient(w.conn, q, nil); err != nil {
			return fmt.Errorf("apply the dead keys of %s to %s: %w", schema, t.name, err)
		}
	}
	for _, t := range tables {
		if t.dead.table == "" || t.listedBy != "" {
			continue
		}
		cond := "(" + strings.Join(t.on, ", ") + ") IN (SELECT " + strings.Join(t.dead.cols, ", ") + " FROM " + schema + "." + t.dead.table + ")"
		if err := sqlitex.ExecuteTransient(w.conn, "DELETE FROM main."+t.name+" WHERE "+cond, nil); err != nil {
			return fmt.Errorf("apply the dead keys of %s to %s: %w", schema, t.name, err)
		}
	}
	err := sqlitex.Execute(w.conn, "SELECT key FROM "+schema+".dead_nodes", &sqlitex.ExecOptions{
		ResultFunc: func(s *sqlite.Stmt) error {
			return sqlitex.Execute(w.conn, "DELETE FROM main.search WHERE rowid = ?", &sqlitex.ExecOptions{Args: []any{s.ColumnInt64(0)}})
		},
	})
	if err != nil {
		return fmt.Errorf("remove the full-text rows %s replaces: %w", schema, err)
	}
	for _, t := range tables {
		if err := sqlitex.ExecuteTransient(w.conn, "INSERT INTO main."+t.name+" SELECT * FROM "+schema+"."+t.name, nil); err != nil {
			return fmt.Errorf("copy the %s of %s: %w", t.name, schema, err)
		}
	}
	if err := sqlitex.ExecuteTransient(w.conn, "INSERT OR REPLACE INTO main.meta SELECT * FROM "+schema+".meta", nil); err != nil {
		return fmt.Errorf("copy the metadata of %s: %w", schema, err)
	}
	return sqlitex.Execute(w.conn, "SELECT n.key, n.id, n.kind, n.title, n.tags, b.body, b.code FROM "+schema+".nodes n JOIN "+schema+".bodies b ON b.key = n.key", &sqlitex.ExecOptions{
		ResultFunc: func(s *sqlite.Stmt) error {
			tags, err := jsonListOf(s.ColumnText(4))
			if err != nil {
				return fmt.Errorf("tags of %s: %w", s.ColumnText(1), err)
			}
			text := w.analyze(s.ColumnText(1), s.ColumnText(2), s.ColumnText(3), tags, s.ColumnText(5), s.ColumnText(6))
			if err := w.insertSearch(s.ColumnInt64(0), &text); err != nil {
				return fmt.Errorf("index %s text: %w", s.ColumnText(1), err)
			}
			return nil
		},
	})
}

// publishMerge publishes a merged segment, under the publisher lock: the manifest must still
// hold the run merged where it was (deltas published since stay on top of the merged
// segment, whose keys are theirs).
func publishMerge(paths publication.Paths, mb *mergeBuild, opts MergeOptions) (*MergeResult, error) {
	cur, err := ReadManifest(paths.Index)
	if err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	// Merged counts the deltas folded: into the base, or into one delta.
	merged := len(mb.merged)
	if mb.from == 0 {
		merged--
	}
	res := &MergeResult{Merged: merged, Base: mb.from == 0, Generation: cur.Generation}
	if len(cur.Segments) < mb.from+len(mb.merged) {
		res.Merged, res.Base, res.Superseded = 0, false, true
		return res, nil
	}
	for i, s := range mb.merged {
		if cur.Segments[mb.from+i].Name != s.Name {
			res.Merged, res.Base, res.Superseded = 0, false, true
			return res, nil
		}
	}
	before, err := publication.Stat(paths.Index)
	if err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	if err := fault(opts.Fault, StepMergeRename); err != nil {
		return nil, err
	}
	if err := os.Rename(mb.tmp, filepath.Join(paths.Dir, mb.name)); err != nil {
		return nil, fmt.Errorf("merge: publish the merged segment: %w", err)
	}
	if err := fault(opts.Fault, StepMergeManifest); err != nil {
		return nil, err
	}
	seg := Segment{Name: mb.name}
	seg.Generation = mb.merged[len(mb.merged)-1].Generation
	segs := slices.Concat(cur.Segments[:mb.from], []Segment{seg}, cur.Segments[mb.from+len(mb.merged):])
	m, err := writeManifest(paths, cur.Generation, segs)
	if err != nil {
		return nil, err
	}
	res.Deltas = m.Deltas()
	if err := fault(opts.Fault, StepMergeSyncDir); err != nil {
		return nil, err
	}
	if err := safefile.SyncDir(paths.Dir); err != nil {
		return nil, err
	}
	if err := fault(opts.Fault, StepMergeReceipts); err != nil {
		return nil, err
	}
	now, err := resignReceipts(paths, before)
	if err != nil {
		return nil, err
	}
	opts.Memory.merged(before, now, m)
	if err := fault(opts.Fault, StepMergeRetire); err != nil {
		return nil, err
	}
	retireSegments(paths.Dir, m)
	return res, nil
}

// resignReceipts points both receipts at the new manifest of an unchanged generation, when
// they described the manifest it replaced; a receipt that did not stays as it was (the next
// sync rewrites it).
func resignReceipts(paths publication.Paths, was publication.Signature) (publication.Signature, error) {
	now, err := publication.Stat(paths.Index)
	if err != nil {
		return now, fmt.Errorf("merge: %w", err)
	}
	resign := func(path string, r publication.Receipt, sig *publication.Signature) error {
		if !sig.SameFile(was) {
			return nil
		}
		now.Generation = sig.Generation
		*sig = now
		if err := sealTo(path, r); err != nil {
			return fmt.Errorf("merge: rewrite %s: %w", path, err)
		}
		return nil
	}
	if pub, err := publication.Read(paths.Publication); err == nil {
		if err := resign(paths.Publication, pub, &pub.Index); err != nil {
			return now, err
		}
	}
	if diff, err := publication.ReadVerified(paths.Diff, &GenerationDiff{}); err == nil {
		return now, resign(paths.Diff, diff, &diff.Index)
	}
	return now, nil
}

// copyFile copies a segment to a new file. On Linux io.Copy between files uses
// copy_file_range, so the bytes never pass through user space.
func copyFile(dst, src string) (retErr error) {
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("copy index: %w", err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("copy index: %w", err)
	}
	defer func() {
		if err := out.Close(); err != nil && retErr == nil {
			retErr = fmt.Errorf("copy index: %w", err)
		}
	}()
	if _, err := io.Copy(out, in); err != nil {
		return fmt.Errorf("copy index to %s: %w", dst, err)
	}
	return nil
}
