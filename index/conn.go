package index

import (
	"context"
	"fmt"
	"net/url"

	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"
)

// openWrite opens a private, not-yet-published index file for building. Journaling is off:
// a crash mid-build only ruins a temporary file that is never published. Two sorter threads
// let the secondary indexes and the diff's sorts use the second core, which a build's
// single-threaded end leaves idle (docs/benchmarks.md, "Settings chosen from measurements").
func openWrite(ctx context.Context, path string, cacheMiB int) (*sqlite.Conn, error) {
	conn, err := sqlite.OpenConn(path, sqlite.OpenReadWrite|sqlite.OpenCreate|sqlite.OpenURI)
	if err != nil {
		return nil, fmt.Errorf("open %s for writing: %w", path, err)
	}
	conn.SetInterrupt(ctx.Done())
	for _, p := range []string{
		"PRAGMA journal_mode = OFF",
		"PRAGMA synchronous = OFF",
		"PRAGMA locking_mode = EXCLUSIVE",
		"PRAGMA temp_store = MEMORY",
		"PRAGMA threads = 2",
		fmt.Sprintf("PRAGMA cache_size = -%d", cacheMiB*1024),
	} {
		if err := sqlitex.ExecuteTransient(conn, p, nil); err != nil {
			conn.Close()
			return nil, fmt.Errorf("configure %s: %s: %w", path, p, err)
		}
	}
	return conn, nil
}

// immutableURI names a published segment for SQLite to read without locking or change
// detection: a published inode never changes.
func immutableURI(path string) string {
	return (&url.URL{Scheme: "file", Path: path, RawQuery: "mode=ro&immutable=1"}).String()
}

// openRead opens a published index read-only and immutable: a published inode never changes,
// so SQLite may skip locking and change detection entirely.
func openRead(ctx context.Context, path string) (*sqlite.Conn, error) {
	conn, err := sqlite.OpenConn(immutableURI(path), sqlite.OpenReadOnly|sqlite.OpenURI)
	if err != nil {
		return nil, fmt.Errorf("open index %s: %w", path, err)
	}
	conn.SetInterrupt(ctx.Done())
	// Ranking many matches sorts them; in memory that costs no temporary-file system calls.
	// (A 32 MiB page cache instead of the default 2 MiB measured no faster: docs/benchmarks.md.)
	if err := sqlitex.ExecuteTransient(conn, "PRAGMA temp_store = MEMORY", nil); err != nil {
		conn.Close()
		return nil, fmt.Errorf("configure index %s: %w", path, err)
	}
	return conn, nil
}

// beginBuild starts the one transaction of a build and returns its commit. There is no
// rollback: a build writes a private file that is discarded on any error, and a connection
// whose context was cancelled may refuse even a ROLLBACK (SQLite keeps its interrupt while a
// statement is still active), on which sqlitex's transaction helper panics. The caller
// commits only when the build succeeded.
func beginBuild(conn *sqlite.Conn) (commit func() error, err error) {
	if err := sqlitex.ExecuteTransient(conn, "BEGIN IMMEDIATE", nil); err != nil {
		return nil, err
	}
	return func() error { return sqlitex.ExecuteTransient(conn, "COMMIT", nil) }, nil
}
