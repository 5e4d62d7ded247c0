// Package mcpbridge is the docforge-mcp bridge: it speaks MCP over stdio with the official
// go-sdk, registers the worker's tools with their JSON schemas and read-only annotations, and
// forwards each call, arguments untouched (within MaxArgumentBytes), to the worker. Its line
// gate (Gate) answers a line that is not one well-formed JSON-RPC message with a JSON-RPC
// error instead of letting it end the session. It holds no project state and never touches
// SQLite.
package mcpbridge
