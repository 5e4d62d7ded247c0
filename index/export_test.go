package index

import (
	"context"
	"time"

	"github.com/docforge/docforge/source/project"

	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"
)

// QueryForTest runs a read-only query on the snapshot's generation, its segments read
// together, so tests can compare the stored graph row by row.
func (s *Snapshot) QueryForTest(ctx context.Context, q string, fn func(*sqlite.Stmt) error) error {
	return s.with(ctx, func(conn *sqlite.Conn) error {
		return sqlitex.Execute(conn, q, &sqlitex.ExecOptions{ResultFunc: fn})
	})
}

// MergeDeltasForTest folds every delta of the published generation into one delta, never the
// base, whatever the policy says: the run the policy chooses over a large base.
func MergeDeltasForTest(ctx context.Context, d *project.Descriptor, opts MergeOptions) (*MergeResult, error) {
	return mergeWith(ctx, d, opts, func(m *Manifest) (int, bool) { return 1, m.Deltas() > 1 })
}

// SetGrowAfterForTest sets how long a query waits for a busy connection before the pool
// opens another (0: at once, so that a test's short queries run on several).
func (s *Snapshot) SetGrowAfterForTest(d time.Duration) { s.growAfter = d }

// HoldReaderForTest takes a read connection as a query does and returns it with its
// release.
func (s *Snapshot) HoldReaderForTest(ctx context.Context) (*sqlite.Conn, func(), error) {
	r, err := s.acquire(ctx)
	if err != nil {
		return nil, nil, err
	}
	return r.conn, func() { s.release(r) }, nil
}

// ReadersForTest is how many read connections the snapshot has open.
func (s *Snapshot) ReadersForTest() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.opened
}

// TextsForTest is how many base rows analyzed again the memo holds; ForgetTextsForTest
// forgets them, and only them.
func (m *BaseMemo) TextsForTest() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.texts)
}

func (m *BaseMemo) ForgetTextsForTest() {
	m.mu.Lock()
	defer m.mu.Unlock()
	clear(m.texts)
}

// DeltaReadsForTest is how many lists of a delta's rows the memo read from FTS5 and kept.
func (m *BaseMemo) DeltaReadsForTest() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.deltaReads
}
