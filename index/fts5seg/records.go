package fts5seg

import (
	"fmt"

	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"
)

// Totals is an FTS5 table's averages record: its row count and each column's token total,
// what BM25 reads for the average row length. FTS5 cannot take a deleted row of a
// contentless table out of it, so whoever deletes such rows keeps it (Sub, Write).
type Totals struct {
	Rows    uint64
	Columns []uint64
}

// ReadTotals reads t's averages record; ok is false when the table has none (no row was ever
// written, or an empty one).
func ReadTotals(conn *sqlite.Conn, t Table) (tot Totals, ok bool, err error) {
	var rec []byte
	err = sqlitex.Execute(conn, "SELECT block FROM "+t.shadow("data")+" WHERE id = ?", &sqlitex.ExecOptions{Args: []any{averagesRowid},
		ResultFunc: func(st *sqlite.Stmt) error {
			rec = make([]byte, st.ColumnLen(0))
			st.ColumnBytes(0, rec)
			ok = true
			return nil
		}})
	if err != nil || !ok {
		return Totals{}, false, err
	}
	vals := decodeVarints(rec)
	if len(vals) == 0 {
		return Totals{}, false, nil // FTS5 leaves an empty record in a table whose rows all went
	}
	if len(vals) != t.Columns+1 {
		return Totals{}, false, fmt.Errorf("the full-text averages record of %s.%s holds %d values, want %d", t.Schema, t.Name, len(vals), t.Columns+1)
	}
	return Totals{Rows: vals[0], Columns: vals[1:]}, true, nil
}

// Add counts one more row, of the sizes a docsize record holds (RowSizes).
func (tot *Totals) Add(docsize []byte) {
	for i, v := range RowSizes(docsize) {
		if i < len(tot.Columns) {
			tot.Columns[i] += v
		}
	}
	tot.Rows++
}

// Sub takes one row, of the sizes a docsize record holds, out of the totals.
func (tot *Totals) Sub(docsize []byte) {
	for i, v := range RowSizes(docsize) {
		if i < len(tot.Columns) {
			tot.Columns[i] -= v
		}
	}
	tot.Rows--
}

// Write stores the totals as t's averages record. It must run outside any transaction that
// changed the table: FTS5 writes its cached totals when that commits.
func (tot Totals) Write(conn *sqlite.Conn, t Table) error {
	rec := AppendVarint(nil, tot.Rows)
	for _, c := range tot.Columns {
		rec = AppendVarint(rec, c)
	}
	if err := sqlitex.Execute(conn, "UPDATE "+t.shadow("data")+" SET block = ? WHERE id = ?", &sqlitex.ExecOptions{Args: []any{rec, averagesRowid}}); err != nil {
		return fmt.Errorf("write the full-text totals of %s.%s: %w", t.Schema, t.Name, err)
	}
	return nil
}

// RowSizes decodes a docsize record (a row of the table's docsize shadow table): each
// column's size in tokens.
func RowSizes(docsize []byte) []uint64 { return decodeVarints(docsize) }

// RowSize is a docsize record's size in tokens, all columns together.
func RowSize(docsize []byte) int64 {
	var n int64
	for _, v := range decodeVarints(docsize) {
		n += int64(v)
	}
	return n
}

// decodeVarints decodes SQLite's varints (big-endian groups of seven bits, the ninth byte
// whole), as FTS5 writes its records.
func decodeVarints(b []byte) []uint64 {
	var out []uint64
	for len(b) > 0 {
		v, n := ReadVarint(b)
		out = append(out, v)
		b = b[n:]
	}
	return out
}
