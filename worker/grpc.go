package worker

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/index"
	"github.com/docforge/docforge/index/publication"
	docforgev2 "github.com/docforge/docforge/proto/docforge/v2"
	"github.com/docforge/docforge/worker/protocol"
)

// grpcWorker serves one binding's tools over the version-2 Worker service.
type grpcWorker struct {
	docforgev2.UnimplementedWorkerServer
	svc     *Service
	binding protocol.Binding
	retire  func() // stop serving: the executable was replaced, so a new worker must take over
}

// check accepts a request of protocol version 2 for this worker's project and adapter policy.
// The rest of the binding (capability mode, writer, applier, diagnostics) belongs to the
// session and travels with every call, so one worker serves every session of its project.
func (g *grpcWorker) check(version uint32, b *docforgev2.Binding) error {
	if err := docforgev2.CheckVersion(version); err != nil {
		return status.Error(codes.FailedPrecondition, err.Error())
	}
	if b != nil && !g.binding.SameWorker(protocol.BindingFromProto(b)) {
		return status.Errorf(codes.FailedPrecondition, "this worker serves %s under the %s policy; the request names %s under %s",
			g.binding.ProjectRoot, g.binding.Policy(), b.ProjectRoot, protocol.BindingFromProto(b).Policy())
	}
	return nil
}

func (g *grpcWorker) Call(ctx context.Context, req *docforgev2.CallRequest) (*docforgev2.CallResponse, error) {
	if err := g.check(req.ProtocolVersion, req.Binding); err != nil {
		return nil, err
	}
	if req.Binding == nil {
		return nil, status.Error(codes.InvalidArgument, "a call names its binding")
	}
	out, err := g.svc.Call(ctx, protocol.BindingFromProto(req.Binding), req.Tool, req.ArgumentsJson)
	resp := &docforgev2.CallResponse{ProtocolVersion: docforgev2.ProtocolVersion, ResultJson: out}
	if err != nil {
		var te *protocol.ToolError
		if !errors.As(err, &te) || out == nil {
			return nil, status.Error(codes.Internal, err.Error())
		}
		resp.IsError, resp.ErrorCode = true, string(te.Code)
		if te.Code == problem.AdapterRestartRequired {
			// This process can never answer again: it would keep reporting the old
			// implementation. Stopping lets the next acquire start the new executable.
			fmt.Fprintf(os.Stderr, "worker %d: %s; stopping so that the manager starts the new executable\n", os.Getpid(), te.Message)
			g.retire()
		}
	}
	return resp, nil
}

func (g *grpcWorker) Health(ctx context.Context, req *docforgev2.HealthRequest) (*docforgev2.HealthResponse, error) {
	if err := g.check(req.ProtocolVersion, nil); err != nil {
		return nil, err
	}
	st := g.svc.Stats()
	resp := &docforgev2.HealthResponse{ProtocolVersion: docforgev2.ProtocolVersion, Binding: protocol.BindingToProto(g.binding), Freshness: publication.Unknown,
		Pid: int64(os.Getpid()), Stats: StatsToProto(st)}
	if v, ok := g.svc.Viewer(g.binding); ok {
		resp.Viewer = ViewerToProto(v)
	}
	d, _, err := g.svc.descriptor(g.binding.ProjectRoot)
	if err != nil || d == nil {
		return resp, nil
	}
	// Health never opens SQLite: the signature is a stat and a receipt, freshness the watch's
	// proof or else a stat walk.
	if sig, err := publication.Probe(d, g.binding.Policy()); err == nil {
		resp.Index = protocol.SignatureToProto(sig)
	}
	info, _ := g.svc.watched(ctx, g.binding, d)
	if st, err := index.CheckStatus(ctx, d, g.binding.Policy(), info.SourceIdentity); err == nil {
		resp.Freshness = st.State
	}
	return resp, nil
}

// StopViewer stops the worker's viewer: the manager's idle reclaim.
func (g *grpcWorker) StopViewer(ctx context.Context, req *docforgev2.StopViewerRequest) (*docforgev2.StopViewerResponse, error) {
	if err := g.check(req.ProtocolVersion, nil); err != nil {
		return nil, err
	}
	return &docforgev2.StopViewerResponse{ProtocolVersion: docforgev2.ProtocolVersion, Stopped: g.svc.StopViewer(g.binding)}, nil
}

// ViewerToProto converts a viewer's status for the wire.
func ViewerToProto(v ViewerStatus) *docforgev2.ViewerInfo {
	return &docforgev2.ViewerInfo{State: "running", Port: int64(v.Port), Index: protocol.SignatureToProto(v.Index), StartedUnixMs: v.Started.UnixMilli(),
		LastActivityUnixMs: v.LastActivity.UnixMilli(), SnapshotState: v.SnapshotState}
}

// StatsToProto converts a service's counters for the wire.
func StatsToProto(st Stats) *docforgev2.WorkerStats {
	return &docforgev2.WorkerStats{Calls: st.Calls, Syncs: st.Syncs, BackgroundSyncs: st.BackgroundSyncs, WalksSkipped: st.WalksSkipped, MaxConcurrentSyncs: st.MaxConcurrent,
		WatchFailures: st.Watch.Failures, WatchRepairs: st.Watch.Repairs, WatchState: st.Watch.State, WatchLastError: st.Watch.LastError}
}

// Serve runs the Worker service for one binding on a Unix socket until ctx ends. The socket is
// private to the user running the worker: mode 0600, peers of another uid refused.
func Serve(ctx context.Context, socket string, b protocol.Binding, svc *Service) error {
	if err := os.MkdirAll(filepath.Dir(socket), 0o700); err != nil {
		return fmt.Errorf("worker socket: %w", err)
	}
	// A socket file left by a killed worker is stale: the manager names each worker's socket
	// afresh, so only a dead worker can have left one at this path.
	ln, err := protocol.ListenPrivate(socket, os.Getuid(), nil)
	if err != nil {
		return fmt.Errorf("worker: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	server := grpc.NewServer(protocol.ServerKeepalive()...)
	docforgev2.RegisterWorkerServer(server, &grpcWorker{svc: svc, binding: b, retire: cancel})
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
