package mcpbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/index/publication"
	"github.com/docforge/docforge/worker/protocol"
)

// Caller runs one tool for the binding: docforge-mcp passes a manager.Session, which forwards
// to the project's worker process; tests may pass a worker.Service to run tools in-process.
// The bridge itself never runs a tool: it knows them from protocol's catalogue.
type Caller interface {
	Call(ctx context.Context, b protocol.Binding, tool string, args json.RawMessage) (json.RawMessage, error)
}

// MaxArgumentBytes bounds the JSON arguments of one tool call: room for a changeset whose
// operations carry whole page bodies, below protocol.MaxMessageBytes.
const MaxArgumentBytes = 8 << 20

// NewServer returns the MCP server of one immutable binding.
func NewServer(b protocol.Binding, caller Caller) *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "docforge", Title: "DocForge", Version: publication.AdapterVersion},
		&mcp.ServerOptions{Instructions: protocol.Instructions(b)})
	closedWorld := false
	for _, spec := range protocol.ToolsFor(b) {
		// Mutations are not idempotent (each appends a receipt); only application changes
		// canonical files, so only it is destructive.
		destructive := spec.Destructive
		tool := &mcp.Tool{
			Name: spec.Name, Description: spec.Description, InputSchema: spec.InputSchema,
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: spec.ReadOnly, IdempotentHint: !spec.Mutates, OpenWorldHint: &closedWorld, DestructiveHint: &destructive},
		}
		name := spec.Name
		server.AddTool(tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var out json.RawMessage
			var err error
			if n := len(req.Params.Arguments); n > MaxArgumentBytes {
				// Refused here, with the bound: forwarded, it would fail as the worker being
				// unreachable, which says to retry.
				out, err = protocol.ErrorResult(b, problem.InvalidArgument, fmt.Sprintf("the arguments of %s hold %d bytes; a call's arguments hold at most %d", name, n, MaxArgumentBytes))
			} else {
				out, err = caller.Call(ctx, b, name, req.Params.Arguments)
			}
			// The envelope goes out once, as text: the tools declare no output schema, and a
			// structured copy would double every response on the wire.
			res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(out)}}}
			if err != nil {
				var te *protocol.ToolError
				if !errors.As(err, &te) || out == nil {
					// Not a tool failure: the bridge itself could not answer.
					return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
				}
				res.IsError = true
			}
			return res, nil
		})
	}
	return server
}
