package fts5seg_test

import (
	"strings"
	"testing"

	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"

	"github.com/docforge/docforge/index/fts5seg"
)

// memoryConn is a fresh in-memory database.
func memoryConn(t *testing.T) *sqlite.Conn {
	t.Helper()
	conn, err := sqlite.OpenConn(":memory:", sqlite.OpenReadWrite|sqlite.OpenCreate|sqlite.OpenMemory)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// The SQLite go.mod links is the one the byte-identity tests of this package ran against:
// when a new SQLite comes in, this fails until those tests pass against it and PinnedSQLite
// names it.
func TestLinkedSQLiteIsThePinnedOne(t *testing.T) {
	conn := memoryConn(t)
	var version string
	if err := sqlitex.Execute(conn, "SELECT sqlite_version()", &sqlitex.ExecOptions{ResultFunc: func(st *sqlite.Stmt) error {
		version = st.ColumnText(0)
		return nil
	}}); err != nil {
		t.Fatal(err)
	}
	if version != fts5seg.PinnedSQLite {
		t.Fatalf("the linked SQLite is %s, PinnedSQLite %s: run this package's tests against it, then update the pin", version, fts5seg.PinnedSQLite)
	}
}

// Check passes the pinned table, and names what differs in any other: a tokenizer, prefix
// indexes, detail, columnsize, content, contentless delete, the page size.
func TestCheckPassesOnlyThePinnedConfiguration(t *testing.T) {
	const pinned = `a, b, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 2'`
	for _, tc := range []struct {
		name, args, settings, want string
	}{
		{"pinned", pinned, "", ""},
		{"pinned, options spelled otherwise", `a, b, tokenize="unicode61 remove_diacritics 2", CONTENT='', contentless_delete=1, detail=full, columnsize=1`, "", ""},
		{"porter tokenizer", `a, b, content = '', contentless_delete = 1, tokenize = 'porter unicode61'`, "", "Tokenizer"},
		{"prefix indexes", pinned + `, prefix = '2 3'`, "", "Prefix"},
		{"column detail", pinned + `, detail = column`, "", "Detail"},
		{"no column sizes", `a, b, content = '', tokenize = 'unicode61 remove_diacritics 2', columnsize = 0`, "", "Columnsize"},
		{"with content", `a, b, tokenize = 'unicode61 remove_diacritics 2'`, "", "Contentless"},
		{"page size", pinned, "INSERT INTO s(s, rank) VALUES ('pgsz', 8000)", "PageSize:8000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn := memoryConn(t)
			if err := sqlitex.ExecuteTransient(conn, "CREATE VIRTUAL TABLE s USING fts5("+tc.args+")", nil); err != nil {
				t.Fatal(err)
			}
			if tc.settings != "" {
				if err := sqlitex.ExecuteTransient(conn, tc.settings, nil); err != nil {
					t.Fatal(err)
				}
			}
			err := fts5seg.Check(conn, fts5seg.Table{Schema: "main", Name: "s", Columns: 2})
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("Check: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("Check = %v, want an error naming %s", err, tc.want)
			}
		})
	}
}
