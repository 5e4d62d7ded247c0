// Package manager is the per-user DocForge manager daemon and its clients. The manager owns
// the private gRPC socket (protocol version 2), spawns and supervises one worker process per
// project and adapter policy, restarts crashed workers on the next acquire, answers status,
// reports each worker's graph-browser viewer, reclaims a viewer after an hour without browser
// activity, and compares index publication signatures by stat for viewers. It never loads sources or
// opens an index itself; workers do that.
//
// The client side (Client, Session) is what the MCP bridge and the CLI use: connect, start a
// manager when none answers, acquire the project's worker and call it, turning every transport
// failure into a structured worker_unavailable result.
package manager
