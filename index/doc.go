// Package index stores a project's graph in disposable SQLite segment files and answers
// queries over them.
//
// It owns publication. A generation is a manifest naming a base segment and a few delta
// segments: a cold build writes a base, an edit writes a delta holding the changed files'
// rows and the keys of the rows they replace, and a merge folds deltas of like size into one
// delta, or the deltas into a new base once they reach an eighth of its size (merge.go). Every segment is built aside, verified and fsynced, then the manifest is
// written aside and renamed into place, the directory fsynced and the publication and
// generation-diff receipts written. A published segment is never modified, so readers open
// it immutable and keep a consistent snapshot however many generations follow; a crash at
// any step leaves the previous generation published and readable.
//
// Queries (get, search, filter, backlinks, dependencies, impact) run on a Snapshot, read the
// segments together through views with the replaced rows left out, are bounded by explicit
// limits and work budgets, and answer as a cold build of the same sources would; full-text
// ranks between merges are the exception (ranking.go, deltarank.go). This package never
// writes canonical sources.
package index
