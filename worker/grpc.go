package worker

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/docforge/docforge/index"
	"github.com/docforge/docforge/index/problem"
	docforgev2 "github.com/docforge/docforge/proto/docforge/v2"
)

// BindingToProto and BindingFromProto convert the binding for the wire.
func BindingToProto(b Binding) *docforgev2.Binding {
	return &docforgev2.Binding{ProjectRoot: b.ProjectRoot, ProposalWriter: b.ProposalWriter, CanonicalApplier: b.CanonicalApplier,
		CapabilityMode: b.CapabilityMode, NoAst: b.NoAST, Diagnostics: b.Diagnostics}
}

// BindingFromProto is the inverse of BindingToProto.
func BindingFromProto(p *docforgev2.Binding) Binding {
	if p == nil {
		return Binding{}
	}
	return Binding{ProjectRoot: p.ProjectRoot, ProposalWriter: p.ProposalWriter, CanonicalApplier: p.CanonicalApplier,
		CapabilityMode: p.CapabilityMode, NoAST: p.NoAst, Diagnostics: p.Diagnostics}
}

// grpcWorker serves one binding's tools over the version-2 Worker service.
type grpcWorker struct {
	docforgev2.UnimplementedWorkerServer
	svc     *Service
	binding Binding
}

func (g *grpcWorker) check(version uint32, b *docforgev2.Binding) error {
	if err := docforgev2.CheckVersion(version); err != nil {
		return status.Error(codes.FailedPrecondition, err.Error())
	}
	if b != nil && BindingFromProto(b) != g.binding {
		return status.Errorf(codes.FailedPrecondition, "this worker serves the binding of %s; the request names another", g.binding.ProjectRoot)
	}
	return nil
}

func (g *grpcWorker) Call(ctx context.Context, req *docforgev2.CallRequest) (*docforgev2.CallResponse, error) {
	if err := g.check(req.ProtocolVersion, req.Binding); err != nil {
		return nil, err
	}
	out, err := g.svc.Call(ctx, g.binding, req.Tool, req.ArgumentsJson)
	resp := &docforgev2.CallResponse{ProtocolVersion: docforgev2.ProtocolVersion, ResultJson: out}
	if err != nil {
		var te *ToolError
		if !errors.As(err, &te) || out == nil {
			return nil, status.Error(codes.Internal, err.Error())
		}
		resp.IsError, resp.ErrorCode = true, string(te.Code)
	}
	return resp, nil
}

func (g *grpcWorker) Health(ctx context.Context, req *docforgev2.HealthRequest) (*docforgev2.HealthResponse, error) {
	if err := g.check(req.ProtocolVersion, nil); err != nil {
		return nil, err
	}
	resp := &docforgev2.HealthResponse{ProtocolVersion: docforgev2.ProtocolVersion, Binding: BindingToProto(g.binding), Freshness: "unknown"}
	d, _, err := g.svc.descriptor(g.binding.ProjectRoot)
	if err != nil || d == nil {
		return resp, nil
	}
	// Health never opens SQLite: the signature is a stat, freshness the receipt check.
	if sig, err := index.PublishedSignature(d); err == nil {
		resp.Index = &docforgev2.Signature{Device: sig.Device, Inode: sig.Inode, Size: sig.Size, MtimeNs: sig.MtimeNs, Generation: sig.Generation}
	}
	if st, err := index.CheckStatus(ctx, d, g.binding.Policy()); err == nil {
		resp.Freshness = st.State
		if st.Publication != nil && resp.Index != nil {
			resp.Index.Generation = st.Publication.Graph.Generation
		}
	}
	return resp, nil
}

// Serve runs the Worker service for one binding on a Unix socket until ctx ends. The socket is
// created private to its user (mode 0600, in a directory that should be 0700).
func Serve(ctx context.Context, socket string, b Binding, svc *Service) error {
	if err := os.MkdirAll(filepath.Dir(socket), 0o700); err != nil {
		return fmt.Errorf("worker socket: %w", err)
	}
	os.Remove(socket) // a socket file left by a killed worker
	ln, err := net.Listen("unix", socket)
	if err != nil {
		return fmt.Errorf("worker socket: %w", err)
	}
	if err := os.Chmod(socket, 0o600); err != nil {
		ln.Close()
		return fmt.Errorf("worker socket: %w", err)
	}
	server := grpc.NewServer()
	docforgev2.RegisterWorkerServer(server, &grpcWorker{svc: svc, binding: b})
	go func() {
		<-ctx.Done()
		server.GracefulStop()
	}()
	err = server.Serve(ln)
	os.Remove(socket)
	if err != nil && !errors.Is(err, grpc.ErrServerStopped) {
		return fmt.Errorf("worker: %w", err)
	}
	return nil
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
	return grpc.NewClient("unix://"+socket, grpc.WithTransportCredentials(insecureLocal()))
}

// Close closes the connection.
func (r *RemoteCaller) Close() error { return r.conn.Close() }

// Call runs one tool on the worker.
func (r *RemoteCaller) Call(ctx context.Context, b Binding, tool string, args []byte) ([]byte, error) {
	resp, err := r.client.Call(ctx, &docforgev2.CallRequest{ProtocolVersion: docforgev2.ProtocolVersion, Binding: BindingToProto(b), Tool: tool, ArgumentsJson: args})
	if err != nil {
		return nil, problem.Errorf(problem.WorkerUnavailable, "worker call %s: %v", tool, err)
	}
	if resp.IsError {
		return resp.ResultJson, &ToolError{Code: problem.Code(resp.ErrorCode), Message: "tool error"}
	}
	return resp.ResultJson, nil
}
