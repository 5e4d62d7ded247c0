// Package mcpbridge will hold the short-lived docforge-mcp bridge: it validates its immutable
// binding, speaks MCP over stdio with the official go-sdk, and forwards each tool call to its
// project worker. It will hold no project state and never touch SQLite. Nothing is
// implemented here yet.
package mcpbridge
