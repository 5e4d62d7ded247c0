package mcpbridge

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/worker/protocol"
)

// Uninitialised is the Caller of a binding whose root holds no docforge.toml yet: the session
// starts as usual (a host that sees the server exit shows only "connection closed"), and every
// call answers descriptor_not_found with the command that makes the root a project.
type Uninitialised struct{}

// Call answers descriptor_not_found, naming the root and 'docforge init'.
func (Uninitialised) Call(_ context.Context, b protocol.Binding, tool string, _ json.RawMessage) (json.RawMessage, error) {
	return protocol.ErrorResultWith(b, problem.DescriptorNotFound,
		fmt.Sprintf("%s cannot answer: %s has no docforge.toml, so it is not a DocForge project yet", tool, b.ProjectRoot),
		InitRemediation(b.ProjectRoot))
}

// InitRemediation is what a user does about a root with no descriptor.
func InitRemediation(root string) string {
	return fmt.Sprintf("run 'docforge init %s' (it writes docforge.toml from the docs and code it finds) and 'docforge sync', "+
		"then start a new MCP session (restart this server in the host); 'docforge status --project-root %s' checks the project", root, root)
}
