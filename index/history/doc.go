// Package history indexes a bounded window of a project's git history as evidence: each
// first-parent commit's message, the files it touched and the lines it changed, carried
// forward to the lines they are now. It is disposable state beside the graph (never part of
// a generation), rebuilt from git whenever it cannot be brought up to date incrementally.
package history
