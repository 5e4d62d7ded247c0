package mcpbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/docforge/docforge/index"
	"github.com/docforge/docforge/index/problem"
	"github.com/docforge/docforge/worker"
)

// Caller runs one tool for the binding: docforge-mcp passes a manager.Session, which forwards
// to the project's worker process; tests may pass a worker.Service to run tools in-process.
type Caller interface {
	Call(ctx context.Context, b worker.Binding, tool string, args json.RawMessage) (json.RawMessage, error)
}

// MaxArgumentBytes bounds the JSON arguments of one tool call: room for a changeset whose
// operations carry whole page bodies, below worker.MaxMessageBytes.
const MaxArgumentBytes = 8 << 20

// NewServer returns the MCP server of one immutable binding.
func NewServer(b worker.Binding, caller Caller) *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "docforge", Title: "DocForge", Version: index.AdapterVersion},
		&mcp.ServerOptions{Instructions: worker.Instructions(b)})
	closedWorld := false
	for _, spec := range worker.ToolsFor(b) {
		// Mutations are not idempotent (each appends a receipt); only application changes
		// canonical files, so only it is destructive.
		destructive := spec.Destructive()
		tool := &mcp.Tool{
			Name: spec.Name, Description: spec.Description, InputSchema: spec.InputSchema,
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: spec.ReadOnly, IdempotentHint: !spec.Mutates(), OpenWorldHint: &closedWorld, DestructiveHint: &destructive},
		}
		name := spec.Name
		server.AddTool(tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var out json.RawMessage
			var err error
			if n := len(req.Params.Arguments); n > MaxArgumentBytes {
				// Refused here, with the bound: forwarded, it would fail as the worker being
				// unreachable, which says to retry.
				out, err = worker.ErrorResult(b, problem.InvalidArgument, fmt.Sprintf("the arguments of %s hold %d bytes; a call's arguments hold at most %d", name, n, MaxArgumentBytes))
			} else {
				out, err = caller.Call(ctx, b, name, req.Params.Arguments)
			}
			// The envelope goes out once, as text: the tools declare no output schema, and a
			// structured copy would double every response on the wire.
			res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(out)}}}
			if err != nil {
				var te *worker.ToolError
				if !errors.As(err, &te) || out == nil {
					return nil, err // not a tool failure: a protocol-level error
				}
				res.IsError = true
			}
			return res, nil
		})
	}
	return server
}
