package index

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"zombiezen.com/go/sqlite"

	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/base/safefile"
	"github.com/docforge/docforge/index/publication"
	"github.com/docforge/docforge/source"
	"github.com/docforge/docforge/source/changeset"
	"github.com/docforge/docforge/source/golang"
	"github.com/docforge/docforge/source/project"
)

// Publication steps, in order. Options.Fault is called with each before it runs, so tests can
// stop a publication at every point.
const (
	StepBuild              = "build"
	StepVerify             = "verify"
	StepFsync              = "fsync"
	StepRename             = "rename"
	StepSyncDir            = "sync_dir"
	StepPublicationReceipt = "publication_receipt"
	StepDiffReceipt        = "diff_receipt"
)

// Steps lists the publication steps in order.
func Steps() []string {
	return []string{StepBuild, StepVerify, StepFsync, StepRename, StepSyncDir, StepPublicationReceipt, StepDiffReceipt}
}

// Options tune one Sync.
type Options struct {
	// Rebuild forces a cold build even when the index is current.
	Rebuild bool
	// Progress, if set, is told how many source files a cold build has processed.
	Progress Progress
	// Fault, if set, runs before each publication step; an error aborts the publication there.
	Fault func(step string) error
	// Policy is the adapter policy bound into the index ("ast" when empty).
	Policy string
	// Implementation, if set, is the process's implementation; a build records its fingerprint
	// in the index metadata. It is read only when something is built, so a sync that finds the
	// index current never waits for the executable's hash.
	Implementation *Implementation
	// FTS5Inserts makes a cold build write the full text through FTS5's own inserts even where
	// its segment writer is proven (fts5seg.Check): what it does with another SQLite, and what
	// the tests compare the two with.
	FTS5Inserts bool
	// Tracker, if set, lists the sources instead of a full walk: a long-lived process whose
	// watch tells it which folders changed (source.Tracker).
	Tracker *source.Tracker
	// Memory, if set, is what this publisher remembers of the generation it last published,
	// so that an incremental build need not read the file table back (Memory).
	Memory *Memory
}

// Build kinds reported by Sync.
const (
	BuildNone        = "none"        // the published index was current
	BuildReceipt     = "receipt"     // the index was current; only its receipt was rewritten
	BuildCold        = "cold"        // built from every source
	BuildIncremental = "incremental" // the published index plus a per-file delta
)

// Result describes one Sync.
type Result struct {
	Build        string                   `json:"build"`
	Generation   int64                    `json:"generation"`
	Publication  *publication.Publication `json:"publication"`
	Summary      *DiffSummary             `json:"diff,omitempty"`
	FilesChanged int                      `json:"files_changed"`
	// FilesParsed counts the files actually parsed: a changed stat with unchanged content is
	// not parsed again, since extraction is keyed by content hash.
	FilesParsed int `json:"files_parsed"`
	// Warnings are the first MaxResultWarnings warnings of the sources read; WarningCount
	// counts them all.
	Warnings     []problem.Problem `json:"warnings"`
	WarningCount int               `json:"warning_count"`
	// WarningCodes counts the warnings by code, all of them.
	WarningCodes map[problem.Code]int `json:"warning_codes,omitempty"`
	// Timings says where the time went, phase by phase, so a slow sync explains itself.
	Timings []Timing `json:"timings"`
	// Attempts is how many times the sync ran: more than 1 when sources changed under it.
	Attempts int `json:"attempts"`
	// ParseTime and ExtractTime are the time its loaders spent parsing documents and records
	// and extracting code (summed over goroutines, so they may exceed Elapsed).
	ParseTime   time.Duration `json:"-"`
	ExtractTime time.Duration `json:"-"`
	// Recovered is the interrupted application the sync finished before reading the sources.
	Recovered *changeset.Recovery `json:"recovered_application,omitempty"`
	// Published is when, from the start, the new generation was published (renamed into place
	// with both receipts written); the rest of Elapsed is unlinking the replaced file.
	Published time.Duration `json:"-"`
	Elapsed   time.Duration `json:"-"`
	// Deltas is how many delta segments the published generation has.
	Deltas int `json:"-"`
	// MergeDue says whether a merge is due (Merge), and why.
	MergeDue MergeReason `json:"-"`
}

// MergeReason says why a merge of a generation's segments is due.
type MergeReason string

const (
	// MergeNone: no merge is due.
	MergeNone MergeReason = ""
	// MergeCount: the generation has MergeDeltas deltas, and each costs every reader's open
	// a little; merge now.
	MergeCount MergeReason = "count"
	// MergeQuiet: a merge is worth its writes (mergeRun), once the edits pause: an edit burst
	// needs one merge, not one per edit.
	MergeQuiet MergeReason = "quiet"
)

// Phases a caller may look for in Result.Timings.
const (
	// PhaseRescan: the sources were listed from the folders the tracker was told changed.
	PhaseRescan = "rescan"
	// PhaseRecall: the sync started from the publisher's memory of the published generation.
	PhaseRecall = "recall"
)

// Ran reports whether the sync went through phase.
func (r *Result) Ran(phase string) bool {
	return slices.ContainsFunc(r.Timings, func(t Timing) bool { return t.Phase == phase })
}

// Timing is the wall time of one phase of a sync.
type Timing struct {
	Phase string  `json:"phase"`
	Ms    float64 `json:"ms"`
}

// clock records consecutive phase durations.
type clock struct {
	start, last time.Time
	marks       []Timing
	published   time.Duration // from start to the new generation's receipts being written
}

func newClock() *clock { now := time.Now(); return &clock{start: now, last: now} }

// mark ends the current phase under the given name.
func (c *clock) mark(phase string) {
	now := time.Now()
	c.marks = append(c.marks, Timing{phase, float64(now.Sub(c.last).Microseconds()) / 1000})
	c.last = now
}

func bindingFor(d *project.Descriptor, policy, build string) binding {
	if policy == "" {
		policy = "ast"
	}
	return binding{projectID: d.Project.ID, root: d.Root, descriptorHash: d.Hash, policy: policy, build: build}
}

// Sync brings the published index up to date with the sources: it does nothing when the cheap
// source identity matches the publication receipt, applies a per-file delta when few files
// changed, and builds from scratch otherwise. A project with validation errors publishes
// nothing and returns a *problem.Error with code project_invalid listing every problem; the
// previous index stays published.
func Sync(ctx context.Context, d *project.Descriptor, opts Options) (res *Result, retErr error) {
	defer func() {
		// A cancelled sync fails wherever SQLite or a read noticed it first; say it was the
		// cancellation, so that callers can tell it from a failure.
		if retErr != nil && ctx.Err() != nil && !errors.Is(retErr, ctx.Err()) {
			retErr = fmt.Errorf("sync cancelled: %w (%v)", ctx.Err(), retErr)
		}
		// A full disk fails a build wherever it first writes; the published index is intact.
		if retErr != nil && ctx.Err() == nil && problem.CodeOf(retErr) != problem.DiskFull && DiskFull(retErr) {
			retErr = problem.Wrap(problem.DiskFull, retErr, "the disk is full, so the sync could not write a new index; the previous index stays published; free space and sync again")
		}
	}()
	// Sources that change while a sync reads them (a checkout, a generator, a file deleted
	// between the walk and its read) can make the build fail on a state that never existed
	// on disk. Such a sync is tried again on a fresh walk, a bounded number of times.
	var recovered *changeset.Recovery
	var parse, extract time.Duration
	for n := 1; ; n++ {
		var a attempt
		res, retErr = syncOnce(ctx, d, opts, &a)
		if a.recovered != nil {
			recovered = a.recovered
		}
		parse += time.Duration(a.work.ParseNanos.Load())
		extract += time.Duration(a.work.ExtractNanos.Load())
		if retErr == nil || ctx.Err() != nil || !sourcesMoved(ctx, d, a.identity, retErr) {
			if res != nil {
				res.Attempts, res.Recovered = n, recovered
				res.ParseTime, res.ExtractTime = parse, extract
			}
			return res, retErr
		}
		if n == maxSyncAttempts {
			return nil, problem.Wrap(problem.SourceChanged, retErr,
				"the sources kept changing while the sync read them (%d attempts); the previous index stays published; sync again once they settle", n)
		}
		if opts.Tracker != nil {
			// The watch may not have reported what moved yet: the next attempt walks.
			opts.Tracker.ChangedAll()
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Duration(n) * 20 * time.Millisecond):
		}
	}
}

// StaleReason says, for a failed sync, why the previous generation still answers (the
// project is invalid, its sources kept changing, the disk is full: each leaves the published
// index intact and usable), and false for a failure that leaves nothing to answer from.
func StaleReason(err error) (string, bool) {
	switch problem.CodeOf(err) {
	case problem.ProjectInvalid:
		return "the project has validation errors", err != nil
	case problem.SourceChanged:
		return "the sources kept changing while the sync read them", err != nil
	case problem.DiskFull:
		return "disk_full: the disk is full, so no new index could be written", err != nil
	}
	return "", false
}

// maxSyncAttempts bounds the attempts of a sync whose sources change under it.
const maxSyncAttempts = 4

// errSourcesMoved is a build's validation failure that a full validation of the tree, run
// right after, did not find: the sources changed between the two reads.
var errSourcesMoved = errors.New("the sources changed during the sync")

// sourcesMoved reports whether a failed sync failed because its sources changed under it:
// the build said so, or it found the project invalid and a fresh walk sees another tree than
// the one it built from.
func sourcesMoved(ctx context.Context, d *project.Descriptor, identity string, err error) bool {
	if errors.Is(err, errSourcesMoved) {
		return true
	}
	if problem.CodeOf(err) != problem.ProjectInvalid || identity == "" {
		return false
	}
	inv, serr := source.Scan(ctx, d)
	return serr == nil && inv.Identity() != identity
}

// attempt is what one attempt of a sync records besides its result.
type attempt struct {
	identity  string              // of the tree it walked
	recovered *changeset.Recovery // the interrupted application it finished first
	work      source.Work         // the parse and extraction time of its loaders
}

// syncOnce is one attempt of Sync.
func syncOnce(ctx context.Context, d *project.Descriptor, opts Options, a *attempt) (res *Result, retErr error) {
	r := &syncRun{d: d, opts: opts, a: a, start: time.Now(), clk: newClock(), paths: publication.PathsFor(d, opts.Policy)}
	if err := os.MkdirAll(r.paths.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("sync: create %s: %w", r.paths.Dir, err)
	}
	unlock, err := lockFile(ctx, r.paths.Lock)
	if err != nil {
		return nil, err
	}
	defer unlock()
	removeStaleTemps(r.paths)
	if a.recovered, err = changeset.Settle(ctx, d, opts.Policy); err != nil {
		return nil, fmt.Errorf("sync: finish the interrupted application first: %w", err)
	}
	if err := r.scan(ctx); err != nil {
		return nil, err
	}
	a.identity = r.inv.Identity()
	r.b = bindingFor(d, opts.Policy, "")
	r.b.work = &a.work
	if res := r.current(); res != nil {
		return res, nil
	}
	r.recall(ctx)
	if err := r.mergeFirst(ctx); err != nil {
		return nil, err
	}
	if res, err := r.receiptOnly(); res != nil || err != nil {
		return res, err
	}
	r.plan()
	if res, err := r.statsOnly(); res != nil || err != nil {
		return res, err
	}
	if err := fault(opts.Fault, StepBuild); err != nil {
		return nil, err
	}
	if opts.Implementation != nil {
		r.b.fingerprint = opts.Implementation.Fingerprint()
	}
	defer func() { os.Remove(r.tmp) }() // a no-op once renamed into place
	if r.kind == BuildIncremental {
		if err := r.buildIncremental(ctx); err != nil {
			return nil, err
		}
	}
	if r.kind != BuildIncremental {
		if err := r.buildCold(ctx); err != nil {
			return nil, err
		}
	}
	return r.publish(ctx)
}

// syncRun is one attempt of a sync under the publisher lock: what it read and decided so far.
type syncRun struct {
	d     *project.Descriptor
	opts  Options
	a     *attempt
	start time.Time
	clk   *clock
	paths publication.Paths
	inv   *source.Inventory
	b     binding

	pub    *publication.Publication // the published receipt, when it verifies
	sig    publication.Signature    // the published manifest's
	sigErr error                    // why the published manifest cannot be stat'ed
	prev   *state                   // what the published index holds, when readable
	// prevManifest names the published generation's segments, when it is readable.
	prevManifest *Manifest
	// prevFiles are its files, when it was built for this binding (else nil: no delta).
	prevFiles fileTable

	kind        string
	from        *publication.GraphState // the published generation's state, before any build
	dl          delta
	reread      []fileRow // the file rows an incremental build wrote
	nextGen     int64
	tmp         string // the segment being written, renamed to segment when published
	segment     string
	st          *state
	collector   *diffCollector
	filesParsed int
	// warnings are the scan's, and those of every file a cold build reads or of the files an
	// incremental build re-reads.
	warnings []problem.Problem
}

// result is a Result of this run, its timings and warnings filled in.
func (r *syncRun) result(res Result, warnings []problem.Problem) *Result {
	res.Timings, res.Elapsed = r.clk.marks, time.Since(r.start)
	return res.withWarnings(warnings)
}

// current answers when the receipt proves the published index was built from exactly these
// sources for this binding: nothing to do.
func (r *syncRun) current() *Result {
	sig := r.readReceipt()
	if r.opts.Rebuild || r.pub == nil || r.sigErr != nil || !r.pub.Index.SameFile(sig) ||
		r.pub.Graph.SourceIdentity != r.inv.Identity() || !receiptMatches(r.pub, r.b) {
		return nil
	}
	r.clk.mark("compare_receipt")
	return r.result(Result{Build: BuildNone, Generation: r.pub.Graph.Generation, Publication: r.pub}, r.inv.Problems)
}

// readReceipt reads the publication receipt and stats the published manifest.
func (r *syncRun) readReceipt() publication.Signature {
	r.pub, _ = publication.Read(r.paths.Publication)
	r.sig, r.sigErr = publication.Stat(r.paths.Index)
	return r.sig
}

// scan lists the sources: through the tracker when there is one, by the walk otherwise.
func (r *syncRun) scan(ctx context.Context) (err error) {
	if r.opts.Tracker == nil {
		r.inv, err = source.Scan(ctx, r.d)
		r.clk.mark("scan")
		return err
	}
	var walked bool
	r.inv, walked, err = r.opts.Tracker.Scan(ctx, r.d)
	if walked {
		r.clk.mark("scan")
	} else {
		r.clk.mark(PhaseRescan)
	}
	return err
}

// recall starts from what the publisher remembers of the published generation when the
// manifest is still the one it remembers, and reads the index otherwise.
func (r *syncRun) recall(ctx context.Context) {
	if rem, ok := r.opts.Memory.take(r.sig, r.b); ok && r.sigErr == nil { // taken either way: a sync that fails leaves none
		r.prev, r.prevManifest, r.prevFiles = rem.st, rem.man, rem.files
		r.clk.mark(PhaseRecall)
		return
	}
	r.readPrevious(ctx)
}

// remember gives the memory what this run published or proved current as the manifest sig.
func (r *syncRun) remember(sig publication.Signature, st *state, man *Manifest, files fileTable) {
	r.opts.Memory.keep(remembered{sig: sig, st: st, man: man, files: files}, r.b, false)
}

// readPrevious reads what the published index holds, if it is usable.
func (r *syncRun) readPrevious(ctx context.Context) {
	defer r.clk.mark("read_previous")
	if r.sigErr != nil {
		return
	}
	p, err := readPublished(ctx, r.paths, r.b)
	if err != nil {
		return
	}
	r.prev, r.prevManifest, r.prevFiles = p.st, p.man, p.files
}

// readPublished reads the published generation's state, manifest and (when it was built for
// binding b) file table, and the manifest's signature they belong to.
func readPublished(ctx context.Context, paths publication.Paths, b binding) (remembered, error) {
	g, err := openGeneration(ctx, paths, "files") // the metadata and the file table are all it reads
	if err != nil {
		return remembered{}, err
	}
	defer g.conn.Close()
	p := remembered{sig: g.sig, st: g.st, man: g.manifest}
	if b.sameAs(g.meta) {
		if files, err := readFiles(g.conn); err == nil {
			p.files = files
		}
	}
	return p, nil
}

// Remember fills an empty memory with the published generation of d under policy, so that
// the first edit after a worker starts need not read the file table back either. It reads
// without the publisher lock: what it keeps names the manifest it read, and a sync uses it
// only while that manifest is still the published one.
func Remember(ctx context.Context, d *project.Descriptor, policy string, mem *Memory) error {
	if !mem.Empty() {
		return nil
	}
	b := bindingFor(d, policy, "")
	p, err := readPublished(ctx, publication.PathsFor(d, policy), b)
	if err != nil {
		return fmt.Errorf("remember the published generation: %w", err)
	}
	mem.keep(p, b, true)
	return nil
}

// mergeFirst merges the published generation's deltas, under this run's lock, when it has as
// many as a reader can attach: no worker merged them in the background (a CLI without one).
func (r *syncRun) mergeFirst(ctx context.Context) error {
	if r.prevManifest == nil || r.prevManifest.Deltas() < maxDeltas {
		return nil
	}
	from, _ := mergeRun(r.prevManifest) // ok: maxDeltas deltas are a run
	mb, err := buildMerge(ctx, r.paths, r.prevManifest, from, nil)
	if err != nil {
		return err
	}
	defer os.Remove(mb.tmp)
	if _, err := publishMerge(r.paths, mb, MergeOptions{}); err != nil {
		return err
	}
	r.clk.mark("merge")
	r.readReceipt() // the receipts now name the merged manifest
	r.readPrevious(ctx)
	return nil
}

// receiptOnly rewrites the receipt alone when the index is current but its receipt is missing
// or stale (a crash between rename and receipt).
func (r *syncRun) receiptOnly() (*Result, error) {
	if r.opts.Rebuild || r.prevFiles == nil || r.prev.identity != r.inv.Identity() {
		return nil, nil
	}
	pub, err := writePublication(r.paths, r.b, r.prev, BuildReceipt)
	if err != nil {
		return nil, err
	}
	r.clk.mark("receipts")
	r.remember(pub.Index, r.prev, r.prevManifest, r.prevFiles)
	return r.result(Result{Build: BuildReceipt, Generation: r.prev.generation, Publication: pub}, r.inv.Problems), nil
}

// plan chooses the build: a delta when few files changed (it may still turn out to need a
// cold build: errNeedsColdBuild), a cold build otherwise; and the next generation number.
func (r *syncRun) plan() {
	r.nextGen = 1
	if r.prev != nil {
		r.nextGen = r.prev.generation + 1
	}
	if r.pub != nil && r.pub.Graph.Generation >= r.nextGen {
		r.nextGen = r.pub.Graph.Generation + 1
	}
	if r.prev != nil {
		// Taken now: an incremental build turns prev into the new state.
		gs := graphState(r.prev)
		r.from = &gs
	}
	r.kind, r.filesParsed, r.warnings = BuildCold, len(r.inv.Files), r.inv.Problems
	r.collector = newDiffCollector()
	if r.prevFiles != nil && !r.opts.Rebuild {
		r.dl = computeDelta(r.inv, r.prevFiles)
		if r.dl.size() <= deltaBound(len(r.inv.Files)) && !r.dl.movesLayout() {
			r.kind = BuildIncremental
		}
	}
	r.newSegment()
}

// newSegment names the segment this run writes: a delta for an incremental build, a base
// for a cold one.
func (r *syncRun) newSegment() {
	prefix := basePrefix
	if r.kind == BuildIncremental {
		prefix = deltaPrefix
	}
	r.segment = newSegmentName(prefix, r.nextGen)
	r.tmp = filepath.Join(r.paths.Dir, r.segment+tmpSuffix)
}

// statsOnly records a new identity in the receipt when a delta's files all hold the bytes the
// index has (a touch, a checkout of the same content): no copy, no new generation.
func (r *syncRun) statsOnly() (*Result, error) {
	if r.kind != BuildIncremental || !onlyStatsChanged(source.NewLoader(r.d, r.b.policy), r.dl, r.prevFiles) {
		return nil, nil
	}
	r.prev.identity = r.inv.Identity()
	pub, err := writePublication(r.paths, r.b, r.prev, BuildReceipt)
	if err != nil {
		return nil, err
	}
	r.clk.mark("receipts")
	r.remember(pub.Index, r.prev, r.prevManifest, r.prevFiles)
	return r.result(Result{Build: BuildReceipt, Generation: r.prev.generation, Publication: pub, FilesChanged: r.dl.size()}, r.inv.Problems), nil
}

// buildIncremental writes the delta segment over the published generation's segments; when
// the delta turns out to move link targets it discards the segment and leaves the run to a
// cold build.
func (r *syncRun) buildIncremental(ctx context.Context) error {
	r.st = r.prev
	r.st.generation, r.st.identity = r.nextGen, r.inv.Identity()
	r.b.build = BuildIncremental
	delta, err := incrementalBuild(ctx, r.tmp, r.paths.Dir, r.prevManifest.Segments, r.d, r.dl, r.prevFiles, r.b, r.st, r.collector)
	r.filesParsed, r.warnings = delta.parsed, append(slices.Clone(r.inv.Problems), delta.warnings...)
	r.reread = delta.reread
	switch {
	case errors.Is(err, errNeedsValidation):
		return invalidProject(ctx, r.d, r.b.policy) // an incremental build runs over a published index
	case errors.Is(err, errNeedsColdBuild):
		// The delta is discarded (with any journal beside it), and the cold build writes a new
		// base from a fresh state.
		for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
			if err := os.Remove(r.tmp + suffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("sync: discard the delta: %w", err)
			}
		}
		r.kind, r.filesParsed, r.collector = BuildCold, len(r.inv.Files), newDiffCollector()
		r.newSegment()
		return nil
	case err != nil:
		return err
	}
	r.clk.mark("apply_delta")
	return nil
}

// buildCold builds a new index file from every source; a project with errors publishes
// nothing.
func (r *syncRun) buildCold(ctx context.Context) error {
	r.st = &state{generation: r.nextGen, identity: r.inv.Identity()}
	r.b.build = BuildCold
	probs, text, err := coldBuild(ctx, r.tmp, r.d, r.inv, r.b, r.st, r.opts, r.clk)
	if err != nil {
		return err
	}
	if errs := problem.Errors(probs); len(errs) > 0 {
		return projectInvalid(probs, r.sigErr == nil)
	}
	r.warnings = probs // the scan's among them
	r.clk.mark("edges")
	var unchanged unchangedSets
	havePrev := r.sigErr == nil && r.prev != nil
	if havePrev {
		unchanged = unchangedSets{nodes: r.st.nodes == r.prev.nodes, edges: r.st.edges == r.prev.edges}
	}
	if err := finishCold(ctx, r.tmp, text, r.paths, havePrev, unchanged, r.collector); err != nil {
		return err
	}
	r.clk.mark("optimize_and_diff")
	return nil
}

// publish puts the built file in place with its receipts, unless an application began while
// this run read the sources.
func (r *syncRun) publish(ctx context.Context) (*Result, error) {
	if changeset.Journaled(r.d) {
		// What this run read may be half applied. The next attempt waits for the application
		// and reads the tree again.
		return nil, errSourcesMoved
	}
	diff := r.collector.receipt(r.b, r.from, graphState(r.st))
	var segs []Segment
	if r.kind == BuildIncremental {
		segs = r.prevManifest.Segments
	}
	m, pub, err := publish(ctx, r.paths, segmentBuild{tmp: r.tmp, name: r.segment, base: r.kind == BuildCold, older: segs}, r.b, r.st, diff, r.opts, r.clk)
	if err != nil {
		return nil, err
	}
	if r.kind == BuildIncremental {
		r.remember(pub.Index, r.st, m, r.prevFiles.with(r.dl.removed, r.reread))
	}
	res := r.result(Result{Build: r.kind, Generation: r.st.generation, Publication: pub, Summary: &diff.Summary,
		FilesChanged: r.dl.size(), FilesParsed: r.filesParsed, Published: r.clk.published, Deltas: m.Deltas(),
		MergeDue: mergeDue(m)}, r.warnings)
	return res, nil
}

// onlyStatsChanged reports whether every file of the delta still has the content the index
// holds: nothing removed, nothing new, the same bytes (or package file list) behind a new stat.
// An empty delta qualifies: the identity changed without any source changing (the
// descriptor touched, a refused symlink replaced, a receipt of an earlier identity format).
func onlyStatsChanged(l *source.Loader, dl delta, old fileTable) bool {
	if len(dl.removed) > 0 {
		return false
	}
	for _, f := range dl.changed {
		o, ok := old.get(f.Path)
		if !ok || o.file.Format != f.Format {
			return false
		}
		if h, err := l.ContentHash(f); err != nil || h != o.hash {
			return false
		}
	}
	return true
}

// finishCold finishes the full-text index (coldText.finish, then finishFullText) and computes
// the diff against the previous generation.
func finishCold(ctx context.Context, tmp string, text *coldText, prev publication.Paths, havePrev bool, unchanged unchangedSets, c *diffCollector) error {
	conn, err := openWrite(ctx, tmp, buildCacheMiB)
	if err != nil {
		return err
	}
	defer conn.Close()
	if err := text.finish(conn); err != nil {
		return err
	}
	if err := finishFullText(conn); err != nil {
		return err
	}
	edges := make(chan edgeLists, 1)
	if unchanged.edges {
		edges <- edgeLists{}
	} else {
		go func() { edges <- readEdgeLists(ctx, tmp, prev, havePrev) }()
	}
	var old *sqlite.Conn
	if havePrev && !unchanged.nodes {
		g, err := openGeneration(ctx, prev, "nodes", "edges")
		if err != nil {
			return fmt.Errorf("open the previous generation to diff: %w", err)
		}
		defer g.conn.Close()
		old = g.conn
	}
	if err := fullDiff(conn, old, !unchanged.nodes, edges, c); err != nil {
		return err
	}
	return conn.Close()
}

// segmentBuild is the segment a sync or a merge publishes: the file it wrote, the name it is
// published under, whether it is a base (verified in full) and the segments it lies on.
type segmentBuild struct {
	tmp, name string
	base      bool
	older     []Segment
}

// publish verifies and fsyncs the built segment, renames it to its name, and publishes the
// manifest naming it after the segments it lies on (renamed into place, directory fsynced);
// then it writes both receipts and unlinks the segments no longer named.
func publish(ctx context.Context, paths publication.Paths, sb segmentBuild, b binding, st *state, diff *GenerationDiff, opts Options, clk *clock) (*Manifest, *publication.Publication, error) {
	if err := fault(opts.Fault, StepVerify); err != nil {
		return nil, nil, err
	}
	if err := verify(ctx, sb.tmp, st, b.policy, sb.base); err != nil {
		return nil, nil, err
	}
	clk.mark("verify")
	if err := fault(opts.Fault, StepFsync); err != nil {
		return nil, nil, err
	}
	if err := safefile.Fsync(sb.tmp); err != nil {
		return nil, nil, err
	}
	final := filepath.Join(paths.Dir, sb.name)
	if err := os.Rename(sb.tmp, final); err != nil {
		return nil, nil, fmt.Errorf("publish segment: %w", err)
	}
	clk.mark("fsync")
	if err := fault(opts.Fault, StepRename); err != nil {
		return nil, nil, err
	}
	m, err := writeManifest(paths, st.generation, append(slices.Clone(sb.older), Segment{Name: sb.name}))
	if err != nil {
		return nil, nil, err
	}
	if err := fault(opts.Fault, StepSyncDir); err != nil {
		return nil, nil, err
	}
	if err := safefile.SyncDir(paths.Dir); err != nil {
		return nil, nil, err
	}
	clk.mark("rename")
	if err := fault(opts.Fault, StepPublicationReceipt); err != nil {
		return nil, nil, err
	}
	pub, err := writePublication(paths, b, st, b.build)
	if err != nil {
		return nil, nil, err
	}
	if err := fault(opts.Fault, StepDiffReceipt); err != nil {
		return nil, nil, err
	}
	diff.Index = pub.Index
	if err := sealTo(paths.Diff, diff); err != nil {
		return nil, nil, err
	}
	clk.mark("receipts")
	clk.published = time.Since(clk.start)
	retireSegments(paths.Dir, m)
	clk.mark("retire_previous")
	return m, pub, nil
}

// writeManifest stats the segments (each must be in dir already) and publishes the manifest
// naming them as generation gen.
func writeManifest(paths publication.Paths, gen int64, segs []Segment) (*Manifest, error) {
	for i := range segs {
		sig, err := statSegment(paths.Dir, segs[i].Name)
		if err != nil {
			return nil, fmt.Errorf("publish manifest: %w", err)
		}
		sig.Generation = cmp.Or(segs[i].Generation, gen) // a new segment is this generation's
		segs[i].Signature = sig
	}
	m := &Manifest{ReceiptSchemaVersion: publication.ReceiptSchemaVersion, Generation: gen, Segments: segs}
	if err := sealTo(paths.Index, m); err != nil {
		return nil, fmt.Errorf("publish manifest: %w", err)
	}
	return m, nil
}

// verify reopens the built segment read-only and checks that it holds what was built: its
// metadata, and for a base its node count too (a delta's rows are a part of the graph).
func verify(ctx context.Context, path string, st *state, policy string, base bool) error {
	conn, err := openRead(ctx, path)
	if err != nil {
		return fmt.Errorf("verify built index: %w", err)
	}
	defer conn.Close()
	m, err := readMeta(conn)
	if err != nil {
		return fmt.Errorf("verify built index: %w", err)
	}
	got, err := stateFromMeta(m)
	if err != nil {
		return fmt.Errorf("verify built index: %w", err)
	}
	nodes := st.nodes.Count()
	if base {
		if err := execInt(conn, `SELECT count(*) FROM nodes`, &nodes); err != nil {
			return fmt.Errorf("verify built index: %w", err)
		}
	}
	if got.generation != st.generation || got.identity != st.identity || nodes != st.nodes.Count() || got.nodes.Sum() != st.nodes.Sum() {
		return fmt.Errorf("verify built index: metadata or node count does not match the build (nodes %d, want %d)", nodes, st.nodes.Count())
	}
	if policy == golang.PolicyNoAST {
		// A Logic projection under the no-AST policy is refused before it can be published.
		return refuseLogic(conn, path)
	}
	return nil
}

func writePublication(paths publication.Paths, b binding, st *state, build string) (*publication.Publication, error) {
	sig, err := publication.Stat(paths.Index)
	if err != nil {
		return nil, fmt.Errorf("stat published index: %w", err)
	}
	sig.Generation = st.generation
	pub := &publication.Publication{
		ReceiptSchemaVersion: publication.ReceiptSchemaVersion, ProjectID: b.projectID, ProjectRoot: b.root,
		IndexSchemaVersion: SchemaVersion, Adapter: publication.AdapterName + "@" + publication.AdapterVersion, Policy: b.policy,
		DescriptorHash: b.descriptorHash, Index: sig, Graph: graphState(st), Build: build,
	}
	if err := sealTo(paths.Publication, pub); err != nil {
		return nil, err
	}
	return pub, nil
}

// receiptMatches reports whether a publication receipt was written for this binding: project,
// root, descriptor, index schema, adapter and policy.
func receiptMatches(p *publication.Publication, b binding) bool {
	return p.ProjectID == b.projectID && p.ProjectRoot == b.root && p.DescriptorHash == b.descriptorHash &&
		p.IndexSchemaVersion == SchemaVersion && p.Adapter == publication.AdapterName+"@"+publication.AdapterVersion && p.Policy == b.policy
}

// fault runs a test's fault hook (Options.Fault, MergeOptions.Fault) before step.
func fault(hook func(string) error, step string) error {
	if hook == nil {
		return nil
	}
	if err := hook(step); err != nil {
		return fmt.Errorf("step %s: %w", step, err)
	}
	return nil
}

func invalidProject(ctx context.Context, d *project.Descriptor, policy string) error {
	v, err := source.Validate(ctx, d, policy, 0)
	if err != nil {
		return err
	}
	if len(problem.Errors(v.Problems)) == 0 {
		return errSourcesMoved // the delta did not validate, yet the whole tree does
	}
	return projectInvalid(v.Problems, true)
}

// projectInvalid is the refusal of a project with errors; published says whether an earlier
// index stays in use, which the message then says.
func projectInvalid(probs []problem.Problem, published bool) error {
	then := "no index is published until they are fixed"
	if published {
		then = "the previous index stays published"
	}
	e := problem.Errorf(problem.ProjectInvalid, "the project has %s; %s", problem.Count(len(problem.Errors(probs)), "validation error"), then)
	e.Problems = probs
	if !published {
		e.Problem.Remediation = "fix the errors listed (run 'docforge validate' for every problem), then run 'docforge sync' again"
	}
	return e
}

func warnings(probs []problem.Problem) []problem.Problem {
	out := []problem.Problem{}
	for _, p := range probs {
		if p.Severity == problem.SeverityWarning {
			out = append(out, p)
		}
	}
	return out
}

// MaxResultWarnings bounds the warnings a Result lists; WarningCount counts them all.
const MaxResultWarnings = 20

// withWarnings sets r's warnings from a sync's problems: the count, and the first few in
// source order ('docforge validate' lists every one).
func (r *Result) withWarnings(probs []problem.Problem) *Result {
	w := warnings(probs)
	problem.Sort(w)
	r.WarningCount = len(w)
	r.Warnings = w[:min(len(w), MaxResultWarnings)]
	if len(w) > 0 {
		r.WarningCodes = map[problem.Code]int{}
		for _, p := range w {
			r.WarningCodes[p.Code]++
		}
	}
	return r
}

func randomSuffix() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	return strconv.Itoa(os.Getpid()) + "-" + hex.EncodeToString(b[:])
}

// removeStaleTemps deletes what a crashed build or an older layout left: segments no
// manifest names (and no live process writes), receipts' temporary files and the single-file
// index of schema 9 and before. It runs under the index lock, so no live build owns them.
func removeStaleTemps(paths publication.Paths) {
	entries, err := os.ReadDir(paths.Dir)
	if err != nil {
		return // nothing to clean; the build reports real directory errors itself
	}
	for _, e := range entries {
		if name := e.Name(); strings.HasPrefix(name, "index.db") || strings.HasPrefix(name, ".publication.json.tmp-") || strings.HasPrefix(name, ".generation-diff.json.tmp-") {
			os.Remove(filepath.Join(paths.Dir, name))
		}
	}
	m, err := ReadManifest(paths.Index)
	if errors.Is(err, fs.ErrNotExist) {
		m = &Manifest{}
	} else if err != nil {
		return // leave a damaged generation's files for diagnosis; a cold build replaces it
	}
	retireSegments(paths.Dir, m)
}

// lockFile takes the project's index lock, waiting until ctx is done.
func lockFile(ctx context.Context, path string) (func(), error) {
	unlock, err := safefile.Lock(ctx, path)
	if errors.Is(err, safefile.ErrLockBusy) {
		return nil, problem.Wrap(problem.IndexBusy, err, "another process is updating the index")
	}
	if err != nil {
		return nil, fmt.Errorf("lock index: %w", err)
	}
	return unlock, nil
}
