// Package source turns a project's canonical files into graph fragments.
//
// It owns three jobs that share one notion of "which files are sources": the inventory (a stat
// walk of the content roots that reads no file, confined to the roots with symlinks resolved,
// whose digest is the cheap source identity), the parsers (Markdown with TOML front matter and
// TOML [[node]] record files, each producing one graph.Fragment with positioned problems), and
// the checker (cross-file rules: unique IDs, existing relation targets). It never writes.
package source
