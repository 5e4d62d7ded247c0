package fts5seg

import (
	"path/filepath"
	"testing"

	"zombiezen.com/go/sqlite/sqlitex"
)

// ReadShape reads what FTS5 itself wrote: no segment in a new table, one per flushed insert,
// a deletion mark for each row removed, and one segment without marks after optimize.
func TestReadShapeFollowsFTS5(t *testing.T) {
	conn := openTable(t, filepath.Join(t.TempDir(), "shape.db"))
	exec := func(q string) {
		t.Helper()
		if err := sqlitex.ExecuteTransient(conn, q, nil); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	steps := []struct {
		do   []string
		want Shape
	}{
		{nil, Shape{}},
		{[]string{`INSERT INTO s(rowid, a, b, c) VALUES (1, 'one', 'x', 'y'), (2, 'two', 'x', 'y'), (3, 'three', 'x', 'y')`}, Shape{Segments: 1, Entries: 3}},
		{[]string{`INSERT INTO s(rowid, a, b, c) VALUES (4, 'four', 'x', 'y')`}, Shape{Segments: 2, Entries: 4}},
		{[]string{`DELETE FROM s WHERE rowid IN (1, 4)`}, Shape{Segments: 2, Entries: 4, Tombstones: 2}},
		{[]string{`INSERT INTO s(s) VALUES ('optimize')`}, Shape{Segments: 1, Entries: 2}},
	}
	for i, step := range steps {
		for _, q := range step.do {
			exec(q)
		}
		got, err := ReadShape(conn, testTable)
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if got != step.want {
			t.Errorf("step %d: shape %+v, want %+v", i, got, step.want)
		}
	}
}
