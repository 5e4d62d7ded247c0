package fts5seg

import (
	"fmt"
	"strings"

	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"
)

// PinnedSQLite is the SQLite whose FTS5 the byte-identity tests compared the Builder's
// segments with. Another SQLite may write other bytes for the same rows, so the Builder is
// used only with this one (Check); TestLinkedSQLiteIsThePinnedOne fails when go.mod brings
// another, until the tests have run against it and this is updated.
const PinnedSQLite = "3.49.2"

// Config is what of an FTS5 table's configuration decides the bytes of its segments.
type Config struct {
	Tokenizer         string // the tokenize option, as written
	Prefix            string // the prefix option ("" for none)
	Detail            string // full, column or none
	Columnsize        bool
	Contentless       bool // content = ''
	ContentlessDelete bool
	PageSize          int // the pgsz setting
}

// Pinned is the table configuration the byte-identity tests hold for.
func Pinned() Config {
	return Config{Tokenizer: "unicode61 remove_diacritics 2", Detail: "full", Columnsize: true, Contentless: true,
		ContentlessDelete: true, PageSize: PageSize}
}

// Check says whether the Builder may write t's segments on conn: nil when the linked SQLite
// is PinnedSQLite and t's configuration is Pinned, else an error saying what differs (the
// caller then inserts the rows through FTS5).
func Check(conn *sqlite.Conn, t Table) error {
	var version string
	if err := sqlitex.Execute(conn, "SELECT sqlite_version()", &sqlitex.ExecOptions{ResultFunc: func(st *sqlite.Stmt) error {
		version = st.ColumnText(0)
		return nil
	}}); err != nil {
		return fmt.Errorf("read the SQLite version: %w", err)
	}
	if version != PinnedSQLite {
		return fmt.Errorf("the linked SQLite is %s, the segment writer is proven against %s", version, PinnedSQLite)
	}
	got, err := readConfig(conn, t)
	if err != nil {
		return err
	}
	if want := Pinned(); got != want {
		return fmt.Errorf("the full-text table is configured %+v, the segment writer is proven for %+v", got, want)
	}
	return nil
}

// readConfig reads t's configuration: the options of its CREATE VIRTUAL TABLE statement,
// with FTS5's defaults for those it leaves out, and its page size setting.
func readConfig(conn *sqlite.Conn, t Table) (Config, error) {
	var sql string
	found := false
	err := sqlitex.Execute(conn, "SELECT sql FROM "+t.Schema+".sqlite_master WHERE type = 'table' AND name = ?", &sqlitex.ExecOptions{
		Args: []any{t.Name},
		ResultFunc: func(st *sqlite.Stmt) error {
			sql, found = st.ColumnText(0), true
			return nil
		}})
	if err == nil && !found {
		err = fmt.Errorf("no table %s", t.Name)
	}
	if err != nil {
		return Config{}, fmt.Errorf("read the full-text table's definition: %w", err)
	}
	c, err := parseOptions(sql)
	if err != nil {
		return Config{}, fmt.Errorf("full-text table %s: %w", t.Name, err)
	}
	c.PageSize = PageSize // FTS5's default, unless the table sets its own
	err = sqlitex.Execute(conn, "SELECT v FROM "+t.shadow("config")+" WHERE k = 'pgsz'", &sqlitex.ExecOptions{ResultFunc: func(st *sqlite.Stmt) error {
		c.PageSize = st.ColumnInt(0)
		return nil
	}})
	if err != nil {
		return Config{}, fmt.Errorf("read the full-text table's settings: %w", err)
	}
	return c, nil
}

// parseOptions reads the options of a "CREATE VIRTUAL TABLE ... USING fts5(...)" statement;
// the arguments without "=" are columns.
func parseOptions(sql string) (Config, error) {
	c := Config{Tokenizer: "unicode61", Detail: "full", Columnsize: true}
	open, end := strings.Index(sql, "("), strings.LastIndex(sql, ")")
	if open < 0 || end < open {
		return c, fmt.Errorf("not an FTS5 table definition: %q", sql)
	}
	for _, arg := range splitArgs(sql[open+1 : end]) {
		key, value, ok := strings.Cut(arg, "=")
		if !ok {
			continue // a column
		}
		key, value = strings.ToLower(strings.TrimSpace(key)), unquote(strings.TrimSpace(value))
		switch key {
		case "tokenize":
			c.Tokenizer = value
		case "prefix":
			c.Prefix = value
		case "detail":
			c.Detail = strings.ToLower(value)
		case "columnsize":
			c.Columnsize = value != "0"
		case "content":
			c.Contentless = value == ""
		case "contentless_delete":
			c.ContentlessDelete = value != "0"
		default:
			return c, fmt.Errorf("an option the segment writer does not know: %s", key)
		}
	}
	return c, nil
}

// splitArgs splits an argument list at the commas outside quotes.
func splitArgs(s string) []string {
	var out []string
	var quote byte
	start := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case quote != 0 && c == quote:
			quote = 0
		case quote == 0 && (c == '\'' || c == '"'):
			quote = c
		case quote == 0 && c == ',':
			out = append(out, strings.TrimSpace(s[start:i]))
			start = i + 1
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}

// unquote removes SQL quotes around a value, undoubling the quotes within.
func unquote(v string) string {
	if len(v) >= 2 && (v[0] == '\'' || v[0] == '"') && v[len(v)-1] == v[0] {
		q := string(v[0])
		return strings.ReplaceAll(v[1:len(v)-1], q+q, q)
	}
	return v
}
