// Package mcpbridge is the docforge-mcp bridge: it speaks MCP over stdio with the official
// go-sdk, registers the worker's tools with their JSON schemas and read-only annotations, and
// forwards each call, arguments untouched, to the worker. It holds no project state and never
// touches SQLite.
package mcpbridge
