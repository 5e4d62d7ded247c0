package index

import (
	"context"

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
