// Package graph defines DocForge's primary graph as plain data: Node, Edge, the per-file
// Fragment a loader produces, and the canonical hashes that make two builds comparable.
//
// Hashes are defined here once so that the cold builder, the incremental publisher, the
// generation diff and (later) changesets all agree on what "the same node" means. This
// package performs no I/O.
package graph
