package index

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"golang.org/x/sys/unix"
	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"

	"github.com/docforge/docforge/base/safefile"
	"github.com/docforge/docforge/index/publication"
	"github.com/docforge/docforge/source/project"
)

// MergeDeltas is the number of delta segments from which a merge into a new base is due: the
// worker merges in the background once a sync reports as many (Result.Deltas).
const MergeDeltas = 4

// smallBase is the size of a base segment up to which a merge is due after every delta, once
// the edits pause. Every answer over deltas is a cold build's (docs/architecture.md,
// "Ranking over segments"), but a generation of one segment answers fastest, and a merge
// writes about its base's size: at the median 45 ms for go-sdk and for Hugo, 213 ms and
// 165 MB for GOROOT/src's 156 MiB (docs/benchmarks.md, "Exact ranking after a pause, up to
// 256 MiB"). Above this size, which the synthetic 100k-node project passes (a 510 MB base),
// the count rule alone bounds the deltas.
const smallBase = 256 << 20

// mergeDue says whether and why a merge is due over the generation m names, whose newest
// delta was widened (read many files again for their links) or not.
func mergeDue(m *Manifest, widened bool) MergeReason {
	switch deltas := m.Deltas(); {
	case deltas >= MergeDeltas:
		return MergeCount
	case deltas > 0 && (widened || m.Segments[0].Size <= smallBase):
		return MergeQuiet
	}
	return MergeNone
}

// maxDeltas bounds a generation's deltas: a sync merges before it writes one more. A reader
// attaches one database per delta, and SQLite attaches at most ten.
const maxDeltas = 8

// MergeResult says what a Merge did.
type MergeResult struct {
	Merged     int   `json:"merged"` // deltas folded into the new base; 0 when none was due
	Generation int64 `json:"generation"`
	// Superseded is set when a cold build replaced the segments while the merge ran: its
	// result was discarded.
	Superseded bool `json:"superseded,omitempty"`
}

// Merge folds the deltas of the published generation of d into a new base, without holding
// the publisher lock while it builds: the merged base is the published base with each delta
// applied in order, so it holds exactly the generation's rows. It then publishes, under the
// lock, a manifest naming the new base and any delta published since, and retires the merged
// segments (readers that opened them keep them). The generation and every answer stay the
// same; the manifest, and so the index signature in both receipts, changes.
func Merge(ctx context.Context, d *project.Descriptor, opts MergeOptions) (*MergeResult, error) {
	paths := publication.PathsFor(d, opts.Policy)
	m, err := ReadManifest(paths.Index)
	if err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	if m.Deltas() == 0 {
		return &MergeResult{Generation: m.Generation}, nil
	}
	mb, err := buildMerge(ctx, paths, m, opts.Fault)
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

// mergeBuild is a merged base written but not yet published: the segments it replaces.
type mergeBuild struct {
	tmp, name string
	merged    []Segment
}

// buildMerge writes the base that folds m's deltas into m's base, at low priority.
func buildMerge(ctx context.Context, paths publication.Paths, m *Manifest, hook func(string) error) (mb *mergeBuild, err error) {
	lowPriority(func() { mb, err = writeMerge(ctx, paths, m, hook) })
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

// writeMerge writes the merged base, at whatever priority its thread has.
func writeMerge(ctx context.Context, paths publication.Paths, m *Manifest, hook func(string) error) (mb *mergeBuild, retErr error) {
	name := newSegmentName(basePrefix, m.Generation)
	tmp := filepath.Join(paths.Dir, name+tmpSuffix)
	defer func() {
		if retErr != nil {
			os.Remove(tmp)
		}
	}()
	mb = &mergeBuild{tmp: tmp, name: name, merged: m.Segments}
	if err := fault(hook, StepMergeBuild); err != nil {
		return nil, err
	}
	if err := copyFile(mb.tmp, filepath.Join(paths.Dir, m.Segments[0].Name)); err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	conn, err := openWrite(ctx, mb.tmp, 16)
	if err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	defer conn.Close()
	schemas := segmentNames("main", len(m.Segments))
	if err := attachEach(conn, paths.Dir, m.Segments, schemas); err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	// What the merged base must hold: the generation its newest segment describes.
	meta, err := readMetaFrom(conn, schemas[len(schemas)-1]+".meta")
	if err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	want, err := stateFromMeta(meta)
	if err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	if want.generation != m.Generation {
		return nil, fmt.Errorf("merge: the segments hold generation %d, the manifest %d", want.generation, m.Generation)
	}
	commit, err := beginBuild(conn)
	if err != nil {
		return nil, fmt.Errorf("merge: begin: %w", err)
	}
	totals, err := readFullTextTotals(conn, "main", searchColumns)
	if err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	w := &writer{conn: conn}
	for _, schema := range schemas[1:] {
		sizesOf := func(keys string) string {
			return "SELECT sz FROM main.search_docsize WHERE id IN (SELECT key FROM " + schema + "." + keys + ")"
		}
		if err := totals.count(conn, sizesOf("dead_nodes"), true); err != nil {
			return nil, fmt.Errorf("merge: %w", err)
		}
		if err := applyDelta(w, schema); err != nil {
			return nil, fmt.Errorf("merge: %w", err)
		}
		if err := totals.count(conn, sizesOf("nodes"), false); err != nil {
			return nil, fmt.Errorf("merge: %w", err)
		}
	}
	if err := commit(); err != nil {
		return nil, fmt.Errorf("merge: commit: %w", err)
	}
	if err := totals.write(conn, "main"); err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	if err := conn.Close(); err != nil {
		return nil, fmt.Errorf("merge: close: %w", err)
	}
	if err := fault(hook, StepMergeVerify); err != nil {
		return nil, err
	}
	if err := verify(ctx, mb.tmp, want, meta[metaPolicy], true); err != nil {
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

// applyDelta applies the delta attached as schema to the base being merged in main: the rows
// it names dead go, its rows come in, and its nodes' full-text rows are written again from
// their stored fields (a contentless full-text table cannot be read back).
func applyDelta(w *writer, schema string) error {
	tables := layeredTables()
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

// publishMerge publishes a merged base, under the publisher lock: the manifest must still
// begin with the segments merged (deltas published since stay on top of the new base, whose
// keys are theirs).
func publishMerge(paths publication.Paths, mb *mergeBuild, opts MergeOptions) (*MergeResult, error) {
	cur, err := ReadManifest(paths.Index)
	if err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	res := &MergeResult{Merged: len(mb.merged) - 1, Generation: cur.Generation}
	if len(cur.Segments) < len(mb.merged) {
		res.Merged, res.Superseded = 0, true
		return res, nil
	}
	for i, s := range mb.merged {
		if cur.Segments[i].Name != s.Name {
			res.Merged, res.Superseded = 0, true
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
		return nil, fmt.Errorf("merge: publish the base: %w", err)
	}
	if err := fault(opts.Fault, StepMergeManifest); err != nil {
		return nil, err
	}
	base := Segment{Name: mb.name}
	base.Generation = mb.merged[len(mb.merged)-1].Generation
	segs := append([]Segment{base}, cur.Segments[len(mb.merged):]...)
	m, err := writeManifest(paths, cur.Generation, segs)
	if err != nil {
		return nil, err
	}
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
