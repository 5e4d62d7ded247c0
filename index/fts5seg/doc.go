// Package fts5seg writes SQLite FTS5 index segments from Go.
//
// A cold build gives FTS5 every node's text, and FTS5's own insert path (tokenizing, then a
// hash of pending terms flushed into segments) was most of the CPU of the build's one
// inserting thread, in the pure-Go SQLite (docs/benchmarks.md). This package does that work in Go: an Analyzer
// turns a row's columns into its postings on any goroutine, a Builder gathers the rows'
// postings per term and writes them as FTS5 segments (leaf pages, doclist indexes, separators
// and row sizes) into the table's shadow tables, and Finish records the segments and the row
// statistics in the table's structure and averages records, where FTS5 reads them.
//
// The segments are the ones FTS5's own flush writes for the same rows: the tests compare them
// byte for byte, then compare answers and scores with FTS5's after deletes, inserts and a
// merge. The table must be contentless with detail=full, columnsize and contentless_delete,
// use the unicode61 tokenizer and the default page size. An Analyzer takes ASCII text only,
// where unicode61's tokens are the runs of letters and digits, lowercased; a row it refuses
// goes through FTS5's own insert, into the same table, and the Builder then numbers its
// segments apart from FTS5's (Numbering).
//
// Those tests hold for one SQLite and one table configuration, so a caller asks Check first:
// it passes only the linked SQLite PinnedSQLite and the configuration Pinned (tokenizer,
// prefix indexes, detail, column sizes, contentless delete, page size), and the caller
// otherwise inserts through FTS5. The package also reads and writes the table's other records
// whose format is FTS5's (Totals: the averages record; RowSizes: a docsize record), so that
// all knowledge of FTS5's on-disk format is here.
package fts5seg
