// Package changeset stores and checks isolated proposals: hash-bound changesets of node
// operations that agents write and people review, preview and apply. Its applier is the only
// code in DocForge that writes canonical files (the index package never does; it only settles
// an interrupted application through Settle before it reads the sources).
//
// A changeset lives in its own folder under the descriptor's changeset_root. Every version of
// its document is an immutable, content-addressed file of canonical JSON; every lifecycle
// transition is a numbered receipt naming the version it leads to. The newest complete
// receipt is the changeset's state, so a process killed mid-write leaves the previous state
// readable. Writers serialise on one flock per project.
//
// Checking a changeset projects its operations onto the canonical sources in memory (the
// edited files' proposed bytes, untouched bytes preserved), parses the projected files with
// the loader's own parser and runs the cross-file checks over the whole graph. Nothing here
// writes a canonical file.
package changeset
