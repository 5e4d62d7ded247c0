// Package lang is the table-driven code adapters (Python and the languages after it): each
// Language names a tree-sitter grammar and which of its syntax nodes are declarations, calls,
// doc comments and tests, and one extractor turns a file of any of them into code.Facts; the
// Layout is what their imports resolve through beyond one file.
package lang
