package protocol

import (
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/keepalive"
)

// insecureLocal is the transport security of a Unix socket: none on the wire, because the
// socket never leaves the machine and its file mode keeps other users out.
func insecureLocal() credentials.TransportCredentials { return insecure.NewCredentials() }

// keepaliveTime bounds how long a client waits on a peer that stopped answering (a stopped or
// wedged process, not a dead one: a dead peer's socket fails at once) before the call fails.
const keepaliveTime = 5 * time.Second

// DialOptions are those of every client of a local DocForge socket. Keepalive pings make a
// call to a peer that stopped answering end within about two keepalive periods; a short
// reconnect backoff lets a client reach a restarted peer at once, not after gRPC's default
// one-second backoff.
func DialOptions() []grpc.DialOption {
	return []grpc.DialOption{
		grpc.WithTransportCredentials(insecureLocal()),
		grpc.WithKeepaliveParams(keepalive.ClientParameters{Time: keepaliveTime, Timeout: keepaliveTime, PermitWithoutStream: true}),
		grpc.WithConnectParams(grpc.ConnectParams{Backoff: backoff.Config{BaseDelay: 20 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: time.Second},
			MinConnectTimeout: 2 * time.Second}),
		grpc.WithDefaultCallOptions(grpc.MaxCallSendMsgSize(MaxMessageBytes), grpc.MaxCallRecvMsgSize(MaxMessageBytes)),
	}
}

// MaxMessageBytes bounds one gRPC message between bridge, manager and worker: above the
// bridge's bound on a call's arguments (mcpbridge.MaxArgumentBytes) and any response
// (max_response_chars), so that a call the bridge forwards is never refused as too large on
// the way, which a caller would read as the worker being unreachable.
const MaxMessageBytes = 16 << 20

// ServerKeepalive lets clients ping as often as ClientKeepalive does.
func ServerKeepalive() []grpc.ServerOption {
	return []grpc.ServerOption{grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: keepaliveTime / 2, PermitWithoutStream: true}),
		grpc.MaxRecvMsgSize(MaxMessageBytes), grpc.MaxSendMsgSize(MaxMessageBytes)}
}
