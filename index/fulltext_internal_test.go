package index

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"
)

// A cold build leaves a few full-text segments as they are and merges many into one; either
// way the index answers the same and incremental merging is back on for later writes.
func TestFinishFullTextMergesOnlyManySegments(t *testing.T) {
	for _, tc := range []struct {
		flushes, want int64
	}{
		{1, 1},
		{maxColdSegments, maxColdSegments},
		{maxColdSegments + 1, 1},
		{2*maxColdSegments - 1, 1}, // FTS5 merges 16 segments of one level itself (crisismerge)
	} {
		t.Run(fmt.Sprint(tc.flushes, " segments"), func(t *testing.T) {
			conn := newTestSegment(t)
			if err := sqlitex.ExecuteTransient(conn, "INSERT INTO search(search, rank) VALUES ('automerge', 0)", nil); err != nil {
				t.Fatal(err)
			}
			// Each statement outside a transaction commits, and each commit flushes the pending
			// terms into a segment of their own.
			for i := range tc.flushes {
				err := sqlitex.Execute(conn, "INSERT INTO search(rowid, body) VALUES (?, ?)",
					&sqlitex.ExecOptions{Args: []any{i + 1, fmt.Sprintf("quokka number%d", i)}})
				if err != nil {
					t.Fatal(err)
				}
			}
			if got := fullTextSegments(t, conn); got != tc.flushes {
				t.Fatalf("%d segments before, want %d", got, tc.flushes)
			}
			if err := finishFullText(conn); err != nil {
				t.Fatal(err)
			}
			if got := fullTextSegments(t, conn); got != tc.want {
				t.Errorf("%d segments after, want %d", got, tc.want)
			}
			var matches int64
			if err := execInt(conn, "SELECT count(*) FROM search WHERE search MATCH 'quokka'", &matches); err != nil {
				t.Fatal(err)
			}
			if matches != tc.flushes {
				t.Errorf("%d rows match, want %d", matches, tc.flushes)
			}
			var automerge int64
			if err := execInt(conn, "SELECT v FROM search_config WHERE k = 'automerge'", &automerge); err != nil || automerge != 4 {
				t.Errorf("automerge %d (%v), want 4", automerge, err)
			}
		})
	}
}

// newTestSegment opens a new segment file, its tables created without their indexes, closed
// when the test ends.
func newTestSegment(t *testing.T) *sqlite.Conn {
	t.Helper()
	conn, err := openWrite(context.Background(), filepath.Join(t.TempDir(), "segment.db"), 2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if err := createSegment(conn, false); err != nil {
		t.Fatal(err)
	}
	return conn
}

func fullTextSegments(t *testing.T, conn *sqlite.Conn) int64 {
	t.Helper()
	var n int64
	if err := execInt(conn, "SELECT count(DISTINCT segid) FROM search_idx", &n); err != nil {
		t.Fatal(err)
	}
	return n
}
