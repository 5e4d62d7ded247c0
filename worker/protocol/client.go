package protocol

import (
	"context"
	"fmt"

	"google.golang.org/grpc"

	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/index/publication"
	docforgev2 "github.com/docforge/docforge/proto/docforge/v2"
)

// BindingToProto and BindingFromProto convert the binding for the wire.
func BindingToProto(b Binding) *docforgev2.Binding {
	return &docforgev2.Binding{ProjectRoot: b.ProjectRoot, ProposalWriter: b.ProposalWriter, CanonicalApplier: b.CanonicalApplier,
		CapabilityMode: b.CapabilityMode, NoAst: b.NoAST, Diagnostics: b.Diagnostics, Local: b.Local}
}

// BindingFromProto is the inverse of BindingToProto.
func BindingFromProto(p *docforgev2.Binding) Binding {
	if p == nil {
		return Binding{}
	}
	return Binding{ProjectRoot: p.ProjectRoot, ProposalWriter: p.ProposalWriter, CanonicalApplier: p.CanonicalApplier,
		CapabilityMode: p.CapabilityMode, NoAST: p.NoAst, Diagnostics: p.Diagnostics, Local: p.Local}
}

// SignatureToProto converts an index signature for the wire.
func SignatureToProto(s publication.Signature) *docforgev2.Signature {
	return &docforgev2.Signature{Device: s.Device, Inode: s.Inode, Size: s.Size, MtimeNs: s.MtimeNs, Generation: s.Generation}
}

// RemoteCaller calls a worker over its socket: what the bridge uses once the manager hands it
// a worker. Errors of the transport are worker_unavailable tool errors, never hangs.
type RemoteCaller struct {
	client docforgev2.WorkerClient
	conn   *grpc.ClientConn
}

// DialWorker connects to a worker socket.
func DialWorker(socket string) (*RemoteCaller, error) {
	conn, err := DialRaw(socket)
	if err != nil {
		return nil, fmt.Errorf("dial worker %s: %w", socket, err)
	}
	return &RemoteCaller{client: docforgev2.NewWorkerClient(conn), conn: conn}, nil
}

// DialRaw returns a gRPC connection to a worker socket, for clients of the raw service.
func DialRaw(socket string) (*grpc.ClientConn, error) {
	return grpc.NewClient("unix://"+socket, DialOptions()...)
}

// Close closes the connection.
func (r *RemoteCaller) Close() error { return r.conn.Close() }

// Call runs one tool on the worker.
func (r *RemoteCaller) Call(ctx context.Context, b Binding, tool string, args []byte) ([]byte, error) {
	resp, err := r.client.Call(ctx, &docforgev2.CallRequest{ProtocolVersion: docforgev2.ProtocolVersion, Binding: BindingToProto(b), Tool: tool, ArgumentsJson: args})
	if err != nil {
		return Unavailable(b, tool, err)
	}
	if resp.IsError {
		return resp.ResultJson, &ToolError{Code: problem.Code(resp.ErrorCode), Message: "tool error"}
	}
	return resp.ResultJson, nil
}
