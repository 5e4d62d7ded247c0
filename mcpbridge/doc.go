// Package mcpbridge is the docforge-mcp bridge: it speaks MCP over stdio with the official
// go-sdk, registers the worker's tools with their JSON schemas and read-only annotations, and
// forwards each call, arguments untouched (within MaxArgumentBytes), to the worker. Its stdio
// transport (Stdio) gates every line: one that is not a well-formed JSON-RPC message, member
// types included, is answered with a JSON-RPC error instead of ending the session, and every
// response carries its request's id exactly as the client wrote it. It holds no project state
// and never touches SQLite.
package mcpbridge
