// Package manager will hold the per-user DocForge manager daemon: it owns the private gRPC
// socket (protocol version 2), spawns and supervises one worker per project binding, restarts
// crashed workers, reclaims idle viewers and answers status. It will never load sources or
// open an index itself; workers do that. Nothing is implemented here yet.
package manager
