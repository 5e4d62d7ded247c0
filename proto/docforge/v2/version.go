// Package docforgev2 is DocForge's process protocol, version 2: the manager and worker gRPC
// services (generated from manager.proto and worker.proto by 'make generate') and the version
// check every server applies to every request.
package docforgev2

import "fmt"

// ProtocolVersion is the version this build speaks. Every request carries it.
const ProtocolVersion = 2

// CheckVersion rejects a request of another protocol version, naming both.
func CheckVersion(got uint32) error {
	if got != ProtocolVersion {
		return fmt.Errorf("protocol version mismatch: the peer speaks version %d, this DocForge speaks version %d; run the same DocForge build on both sides (restart the manager after upgrading)", got, ProtocolVersion)
	}
	return nil
}
