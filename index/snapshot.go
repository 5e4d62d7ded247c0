package index

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"

	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/index/publication"
	"github.com/docforge/docforge/source/golang"
	"github.com/docforge/docforge/source/project"
)

// Snapshot is one published generation opened for reading. It stays consistent however many
// generations are published after it, because a published file is never modified. It is safe
// for concurrent use; queries on one snapshot run one at a time.
type Snapshot struct {
	mu         sync.Mutex
	conn       *sqlite.Conn
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
	// text caches the full-text statistics of a generation of several segments (deltarank.go);
	// rankTable says the connection has its ranked-matches table (rankedMatches), scratch
	// what it has of its scratch full-text tables.
	text      *textStats
	rankTable bool
	scratch   scratchState
	// memo remembers what rankings learned of the base: the snapshot's own, or one a worker
	// shares among the snapshots over the same base (basememo.go).
	memo *BaseMemo
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
	return &Snapshot{memo: NewBaseMemo(), conn: conn, maxResults: d.Limits.MaxResults, policy: policy, stamped: stamped == 1, root: d.Root, maxFileBytes: d.Limits.MaxFileBytes,
		segments: g.manifest.Segments, files: max(st.sources.Count()-1, 0), info: Info{
			ProjectID: m[metaProjectID], GraphState: graphState(st), Adapter: m[metaAdapter], Policy: m[metaPolicy],
			Fingerprint: m[metaFingerprint], Index: g.sig,
		}}, nil
}

// Info returns the identity of the snapshot's generation.
func (s *Snapshot) Info() Info { return s.info }

// Close releases the snapshot.
func (s *Snapshot) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn == nil {
		return nil
	}
	err := s.conn.Close()
	s.conn = nil
	return err
}

// with runs fn on the snapshot's connection with ctx's cancellation wired in.
func (s *Snapshot) with(ctx context.Context, fn func(conn *sqlite.Conn) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn == nil {
		return fmt.Errorf("snapshot is closed")
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	prev := s.conn.SetInterrupt(ctx.Done())
	defer s.conn.SetInterrupt(prev)
	return fn(s.conn)
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
