// Package index stores a project's graph in one disposable SQLite file and answers queries
// over it.
//
// It owns publication: every generation is built aside in a temporary file (a cold build from
// all sources, or a copy of the published file with a per-file delta applied), verified,
// fsynced and renamed over the published name, after which the directory is fsynced and the
// publication and generation-diff receipts are written. A published file is never modified,
// so readers open it immutable and keep a consistent snapshot however many generations follow.
// A crash at any step leaves the previous generation published and readable.
//
// Queries (get, search, filter, backlinks, dependencies, impact) run on a Snapshot, are
// bounded by explicit limits and work budgets, and are deterministic for a given index.
// This package never writes canonical sources.
package index
