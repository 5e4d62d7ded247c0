// Package protocol is the worker's protocol as its clients see it: the immutable binding of
// an MCP session and its capability modes, the tool catalogue and which tools a binding may
// call, the result envelope and its structured errors, and the gRPC client and private-socket
// transport of the version-2 Worker service. The bridge and the manager need nothing else of
// the worker, so nothing here reaches SQLite, goldmark or fsnotify (a test in cmd/docforge-mcp
// keeps it so).
package protocol
