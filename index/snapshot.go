package index

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"

	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/index/publication"
	"github.com/docforge/docforge/source/golang"
	"github.com/docforge/docforge/source/project"
)

// Snapshot is one published generation opened for reading. It stays consistent however many
// generations are published after it, because a published file is never modified. It is safe
// for concurrent use: queries run in parallel on up to MaxReaders read connections of its
// own, each opened on the same segment files.
type Snapshot struct {
	// idle holds the read connections no query uses, the last released on top: a query takes
	// the connection whose page cache and temporary tables the previous query warmed. freed
	// wakes the queries waiting for one (a token may be stale: they look again); closing is
	// closed by Close. mu guards idle and the rest of the pool.
	idle    []*reader
	freed   chan struct{}
	closing chan struct{}
	mu      sync.Mutex
	// opened counts the snapshot's connections, busy or idle, up to maxReaders; noMore is set once a new one
	// could not open the snapshot's segments (a merge retired one: the connections that
	// have it keep reading it).
	opened     int
	maxReaders int
	growAfter  time.Duration // growAfter, but in tests
	noMore     bool
	closed     bool
	// dir is where the segment files are.
	dir        string
	maxResults int
	policy     string
	// root and maxFileBytes let evidence quote the sources the generation was built from
	// (SourceFile), confined to the project and bounded like the loader's reads.
	root         string
	maxFileBytes int64
	info         Info
	// stamped reports whether any relation of this generation carries a review stamp: an
	// index without stamps skips the stamp probe of every traversed edge.
	stamped bool
	// segments are the generation's segment files, oldest first.
	segments []Segment
	// files counts the generation's source files (its source set less the descriptor), so
	// that no query counts rows across segments.
	files int64
	// text caches the full-text statistics of a generation of several segments
	// (deltarank.go), read once under textMu.
	textMu sync.Mutex
	text   *textStats
	// memo remembers what rankings learned of the base: the snapshot's own, or one a worker
	// shares among the snapshots over the same base (basememo.go).
	memo *BaseMemo
}

// DefaultReaders bounds the read connections of a snapshot unless SetReaders says otherwise,
// and MaxReaders bounds what it may say: each connection holds its own page cache and its
// copy of the deltas' overlay, and queries are CPU-bound once the pages are cached (eight
// agents on 2 cores: docs/benchmarks.md, "Several agents at once").
const (
	DefaultReaders = 4
	MaxReaders     = 16
)

// SetReaders bounds the snapshot's read connections to n, within 1 and MaxReaders: 1 answers
// one query at a time, as a snapshot of one connection does.
func (s *Snapshot) SetReaders(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.maxReaders = min(max(n, 1), MaxReaders)
}

// reader is one read connection of a snapshot and what it holds of its temporary tables:
// the ranked-matches table (rankedMatches) and the scratch full-text tables (layerrank.go).
type reader struct {
	conn      *sqlite.Conn
	rankTable bool
	scratch   scratchState
}

// Info identifies the generation a snapshot holds.
type Info struct {
	ProjectID string `json:"project_id"`
	publication.GraphState
	Adapter string `json:"adapter"`
	Policy  string `json:"policy"`
	// Fingerprint is the implementation that built this index, when it was recorded.
	Fingerprint string                `json:"adapter_fingerprint,omitempty"`
	Index       publication.Signature `json:"index"`
}

// Open opens the published index of d. It does not synchronise; call Sync first when the
// caller needs the current sources.
func Open(ctx context.Context, d *project.Descriptor) (*Snapshot, error) {
	return OpenWith(ctx, d, golang.PolicyAST)
}

// OpenWith opens the published index under an adapter policy. Under the no-AST policy an
// index that contains Logic is refused before anything is read from it.
func OpenWith(ctx context.Context, d *project.Descriptor, policy string) (*Snapshot, error) {
	paths := publication.PathsFor(d, policy)
	g, err := openGeneration(ctx, paths)
	switch {
	case os.IsNotExist(err):
		return nil, problem.Errorf(problem.IndexMissing, "no index at %s", paths.Index)
	case errors.Is(err, errSegmentMoved):
		return nil, problem.Errorf(problem.IndexBusy, "the index kept changing while it was being opened")
	case err != nil:
		return nil, problem.Wrap(problem.IndexCorrupt, err, "cannot open %s", paths.Index)
	}
	conn, m, st := g.conn, g.meta, g.st
	if policy == golang.PolicyNoAST {
		if err := refuseLogic(conn, paths.Index); err != nil {
			conn.Close()
			return nil, err
		}
	}
	var stamped int64
	if err := execInt(conn, `SELECT EXISTS (SELECT 1 FROM stamps)`, &stamped); err != nil {
		conn.Close()
		return nil, problem.Wrap(problem.IndexCorrupt, err, "cannot read the review stamps of %s", paths.Index)
	}
	snap := &Snapshot{memo: NewBaseMemo(), freed: make(chan struct{}, MaxReaders), maxReaders: DefaultReaders, growAfter: growAfter, closing: make(chan struct{}), dir: paths.Dir,
		maxResults: d.Limits.MaxResults, policy: policy, stamped: stamped == 1, root: d.Root, maxFileBytes: d.Limits.MaxFileBytes,
		segments: g.manifest.Segments, files: max(st.sources.Count()-1, 0), info: Info{
			ProjectID: m[metaProjectID], GraphState: graphState(st), Adapter: m[metaAdapter], Policy: m[metaPolicy],
			Fingerprint: m[metaFingerprint], Index: g.sig,
		}}
	conn.SetInterrupt(nil) // each query sets its own
	snap.adopt(conn)
	return snap, nil
}

// adopt adds an open connection to the pool, idle.
func (s *Snapshot) adopt(conn *sqlite.Conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opened++
	s.idle = append(s.idle, &reader{conn: conn})
}

// Info returns the identity of the snapshot's generation.
func (s *Snapshot) Info() Info { return s.info }

// Close releases the snapshot: its idle connections now, each busy one when its query ends.
func (s *Snapshot) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	close(s.closing)
	var errs []error
	for _, r := range s.idle {
		errs = append(errs, s.closeReader(r))
	}
	s.idle = nil
	return errors.Join(errs...)
}

// closeReader closes one connection of the pool; the caller holds s.mu.
func (s *Snapshot) closeReader(r *reader) error {
	s.opened--
	return r.conn.Close()
}

// with runs fn on one of the snapshot's connections with ctx's cancellation wired in: an
// idle one, else a new one while fewer than its bound are open, else the first to be
// released.
func (s *Snapshot) with(ctx context.Context, fn func(conn *sqlite.Conn) error) error {
	return s.withReader(ctx, func(r *reader) error { return fn(r.conn) })
}

// withReader is with for a query that also uses the connection's temporary tables (ranked
// matches, scratch full text).
func (s *Snapshot) withReader(ctx context.Context, fn func(r *reader) error) error {
	r, err := s.acquire(ctx)
	if err != nil {
		return err
	}
	defer s.release(r)
	if err := ctx.Err(); err != nil {
		return err
	}
	r.conn.SetInterrupt(ctx.Done())
	defer r.conn.SetInterrupt(nil)
	return fn(r)
}

// growAfter is how long a query waits for a busy connection before the pool opens another.
// Opening one (its segments attached, its page cache cold) costs more than most queries, and
// a snapshot replaced every few hundred milliseconds under edits would otherwise open its
// whole pool each time. Under the fault suite's 8 bridges calling get_node and an edit every
// 200 ms (make soak): one connection 37,600 calls a minute, the pool growing at once 22,300,
// after 3 ms 33,000, after 10 ms 38,100; eight agents' task contexts still spread over the
// pool (docs/benchmarks.md, "Several agents at once").
const growAfter = 10 * time.Millisecond

// acquire takes a connection for one query: an idle one, else the first released within
// growAfter, else a new one while the pool may grow, else the first released.
func (s *Snapshot) acquire(ctx context.Context) (*reader, error) {
	if r, err := s.take(); r != nil || err != nil {
		return r, err
	}
	if s.growAfter > 0 && s.mayGrow() {
		wait := time.NewTimer(s.growAfter)
		r, err := s.waitIdle(ctx, wait.C)
		wait.Stop()
		if r != nil || err != nil {
			return r, err
		}
	}
	if r, err := s.grow(ctx); r != nil || err != nil {
		return r, err
	}
	return s.waitIdle(ctx, nil)
}

// errSnapshotClosed answers a query on a snapshot closed before or while it waited.
var errSnapshotClosed = errors.New("snapshot is closed")

// waitIdle waits for a released connection until timeout fires (nil, nil then; a nil
// timeout never fires), the snapshot closes or ctx ends.
func (s *Snapshot) waitIdle(ctx context.Context, timeout <-chan time.Time) (*reader, error) {
	for {
		if r, err := s.take(); r != nil || err != nil {
			return r, err
		}
		select {
		case <-s.freed:
		case <-timeout:
			return nil, nil
		case <-s.closing:
			return nil, errSnapshotClosed
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// take pops the idle connection released last; nil, nil when none is idle.
func (s *Snapshot) take() (*reader, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errSnapshotClosed
	}
	n := len(s.idle)
	if n == 0 {
		return nil, nil
	}
	r := s.idle[n-1]
	s.idle = s.idle[:n-1]
	return r, nil
}

// mayGrow reports whether the pool may open another connection.
func (s *Snapshot) mayGrow() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.noMore && s.opened < s.maxReaders
}

// grow opens another connection when the pool may have one; nil, nil when it may not, or
// when the segments cannot be opened again (a merge retired one: the connections open make
// do, unless there are none).
func (s *Snapshot) grow(ctx context.Context) (*reader, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, errSnapshotClosed
	}
	if s.noMore || s.opened >= s.maxReaders {
		s.mu.Unlock()
		return nil, nil
	}
	s.opened++ // reserved while it opens
	s.mu.Unlock()
	conn, err := openSegments(ctx, s.dir, s.segments, nil)
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case err == nil && !s.closed:
		return &reader{conn: conn}, nil // the reservation is this connection
	case err == nil:
		s.opened--
		conn.Close()
		return nil, errSnapshotClosed
	}
	s.opened--
	s.noMore = true
	if s.opened == 0 {
		return nil, fmt.Errorf("open another connection to the snapshot: %w", err)
	}
	return nil, nil
}

// release returns a connection to the pool after a query, or closes it when the snapshot was
// closed meanwhile.
func (s *Snapshot) release(r *reader) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		s.closeReader(r)
		return
	}
	s.idle = append(s.idle, r)
	select {
	case s.freed <- struct{}{}:
	default: // as many tokens wait as connections: a waiter finds this one anyway
	}
}

// capLimit applies the project's result ceiling; requested <= 0 means def.
func (s *Snapshot) capLimit(requested, def int) int {
	if requested <= 0 {
		requested = def
	}
	return min(requested, s.maxResults)
}

func execInt(conn *sqlite.Conn, query string, out *int64, args ...any) error {
	return sqlitex.Execute(conn, query, &sqlitex.ExecOptions{
		Args:       args,
		ResultFunc: func(s *sqlite.Stmt) error { *out = s.ColumnInt64(0); return nil },
	})
}

// PublishedSignature stats the published manifest of d without opening it.
func PublishedSignature(d *project.Descriptor, policy string) (publication.Signature, error) {
	return publication.Stat(publication.PathsFor(d, policy).Index)
}

// liveMatches calls fn with the keys of the full-text matches of expr across the
// generation's segments, the rows later segments replaced left out: at most n of them,
// segment by segment, in no particular order (ranked matches: rankedMatches).
//
// The replaced rows are dropped as they stream by, against the keys textStats read once for
// the snapshot. Written as conditions in SQL they cost a lookup in every later delta for
// every match, and the compound statement they made, joined to the node views, had SQLite
// materialize the views (the lexical task context's p95 at 100k over 4 deltas was 370 ms,
// 67 ms since, 46 ms merged; docs/benchmarks.md).
func (s *Snapshot) liveMatches(conn *sqlite.Conn, expr string, n int, fn func(key int64)) error {
	if len(s.segments) <= 1 {
		_, err := stepKeys(conn.Prep("SELECT rowid FROM search WHERE search MATCH ?1"), expr, n, nil, fn)
		return err
	}
	g, err := s.textStats(conn, segmentNames("main", len(s.segments)))
	if err != nil {
		return err
	}
	for i := 0; i < len(g.segs) && n > 0; i++ {
		t := &g.segs[i]
		got, err := stepKeys(conn.Prep("SELECT rowid FROM "+t.schema+".search WHERE search MATCH ?1"), expr, n, t.dead, fn)
		if err != nil {
			return err
		}
		n -= got
	}
	return nil
}

// stepKeys runs a prepared query of keys with expr bound as ?1 and calls fn with the first n
// of them not in dead, and returns how many it passed. It has no LIMIT: the rows stream, and
// stepping stops at the n-th.
func stepKeys(st *sqlite.Stmt, expr string, n int, dead map[int64]bool, fn func(key int64)) (int, error) {
	defer st.Reset()
	st.BindText(1, expr)
	got := 0
	for got < n {
		row, err := st.Step()
		if err != nil {
			return got, fmt.Errorf("read matches of %s: %w", expr, err)
		}
		if !row {
			break
		}
		if k := st.ColumnInt64(0); !dead[k] {
			fn(k)
			got++
		}
	}
	return got, nil
}
