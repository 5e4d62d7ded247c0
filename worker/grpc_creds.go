package worker

import (
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
)

// insecureLocal is the transport security of a Unix socket: none on the wire, because the
// socket never leaves the machine and its file mode keeps other users out.
func insecureLocal() credentials.TransportCredentials { return insecure.NewCredentials() }
