// Package worker runs DocForge's tools for one project binding behind one interface,
// Service.Call(ctx, binding, tool, args JSON) (result JSON, error). It syncs the index before
// every normal call, wraps each answer in the response protocol.Envelope (content notice, project
// identity, revision, source hash, adapter, staleness), enforces the project's result and
// response-size limits, and issues version-1 cursors. The MCP bridge calls it in-process;
// Serve exposes the same Call as the version-2 Worker gRPC service on a Unix socket
// ('docforge worker'), and protocol.RemoteCaller is its client, so the manager can put a process
// boundary in between without changing tool code. A long-lived service also hosts the graph
// browser's viewer of each binding (docforge_visualize), which outlives the calls that
// started it.
package worker
