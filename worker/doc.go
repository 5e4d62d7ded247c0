// Package worker will hold the per-project worker: the only process that loads sources,
// publishes the index (through package index) and runs tools behind one
// Call(ctx, binding, tool, args) interface, watching sources with fsnotify. Nothing is
// implemented here yet; the CLI calls package index directly until then.
package worker
