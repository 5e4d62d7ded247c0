package manager

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/docforge/docforge/base/problem"
	docforgev2 "github.com/docforge/docforge/proto/docforge/v2"
	"github.com/docforge/docforge/worker/protocol"
)

// Client is a connection to the running manager.
type Client struct {
	paths Paths
	conn  *grpc.ClientConn
	mc    docforgev2.ManagerClient
	hello *docforgev2.HelloResponse
}

// helloTimeout bounds the first exchange: a manager that does not answer within it is treated
// as absent (and a bridge may start another, which the lock arbitrates).
const helloTimeout = 3 * time.Second

// Dial connects to the running manager. It refuses a runtime directory or socket that is not
// private to this user (unsafe_runtime_dir) and answers manager_unavailable when no manager
// listens, protocol_mismatch when it speaks another protocol version.
func Dial(ctx context.Context, p Paths) (*Client, error) {
	uid := os.Getuid()
	for _, f := range []struct {
		path string
		dir  bool
	}{{p.Dir, true}, {p.Socket, false}} {
		if _, err := os.Lstat(f.path); errors.Is(err, os.ErrNotExist) {
			return nil, problem.Errorf(problem.ManagerUnavailable, "no manager runs: %s does not exist", f.path)
		}
		if err := checkPrivate(f.path, uid, f.dir); err != nil {
			return nil, err
		}
	}
	conn, err := grpc.NewClient("unix://"+p.Socket, protocol.DialOptions()...)
	if err != nil {
		return nil, problem.Wrap(problem.ManagerUnavailable, err, "connect to %s", p.Socket)
	}
	c := &Client{paths: p, conn: conn, mc: docforgev2.NewManagerClient(conn)}
	hctx, cancel := context.WithTimeout(ctx, helloTimeout)
	defer cancel()
	c.hello, err = c.mc.Hello(hctx, &docforgev2.HelloRequest{ProtocolVersion: docforgev2.ProtocolVersion, Client: "docforge"})
	if err != nil {
		conn.Close()
		return nil, rpcError(err, "manager at "+p.Socket)
	}
	return c, nil
}

// StartFunc starts a manager when none answers.
type StartFunc func(ctx context.Context) error

// Connect dials the manager, starting one with start when none answers (start nil: never).
func Connect(ctx context.Context, p Paths, start StartFunc) (*Client, error) {
	c, err := Dial(ctx, p)
	if err == nil || start == nil || problem.CodeOf(err) != problem.ManagerUnavailable {
		return c, err
	}
	if err := start(ctx); err != nil {
		return nil, err
	}
	return Dial(ctx, p)
}

// rpcError turns a gRPC failure into the problem code a person can act on.
func rpcError(err error, what string) error {
	st, _ := status.FromError(err)
	switch st.Code() {
	case codes.FailedPrecondition:
		if strings.Contains(st.Message(), "protocol version") {
			return problem.Errorf(problem.ProtocolMismatch, "%s: %s", what, st.Message())
		}
		return problem.Errorf(problem.InvalidBinding, "%s: %s", what, st.Message())
	case codes.InvalidArgument:
		return problem.Errorf(problem.InvalidBinding, "%s: %s", what, st.Message())
	case codes.NotFound: // the manager answered: no worker runs, and none was to be started
		return problem.Errorf(problem.WorkerUnavailable, "%s: %s", what, st.Message())
	case codes.Aborted: // the manager answered: the worker it started did not
		return problem.Errorf(problem.WorkerUnavailable, "%s: %s", what, st.Message())
	case codes.Unavailable, codes.DeadlineExceeded, codes.Canceled:
		return problem.Errorf(problem.ManagerUnavailable, "%s did not answer: %s", what, st.Message())
	}
	return problem.Errorf(problem.ManagerUnavailable, "%s: %s", what, st.Message())
}

// Close closes the connection.
func (c *Client) Close() error { return c.conn.Close() }

// Pid is the manager's process ID.
func (c *Client) Pid() int { return int(c.hello.Pid) }

// Version is the manager's build.
func (c *Client) Version() string { return c.hello.ManagerVersion }

// Acquire returns the binding's worker, started if none runs. unresponsive is the pid of a
// worker that stopped answering this client (0: none), which the manager then replaces
// unless it answers a health check at once.
func (c *Client) Acquire(ctx context.Context, b protocol.Binding, unresponsive int) (*docforgev2.WorkerInfo, error) {
	return c.acquire(ctx, &docforgev2.AcquireWorkerRequest{ProtocolVersion: docforgev2.ProtocolVersion, Binding: protocol.BindingToProto(b), UnresponsivePid: int64(unresponsive)})
}

// AcquireRunning returns the binding's worker only if one runs: it starts none, and answers
// worker_unavailable otherwise.
func (c *Client) AcquireRunning(ctx context.Context, b protocol.Binding) (*docforgev2.WorkerInfo, error) {
	return c.acquire(ctx, &docforgev2.AcquireWorkerRequest{ProtocolVersion: docforgev2.ProtocolVersion, Binding: protocol.BindingToProto(b), RunningOnly: true})
}

func (c *Client) acquire(ctx context.Context, req *docforgev2.AcquireWorkerRequest) (*docforgev2.WorkerInfo, error) {
	resp, err := c.mc.AcquireWorker(ctx, req)
	if err != nil {
		return nil, rpcError(err, "acquire worker for "+req.Binding.GetProjectRoot())
	}
	return resp.Worker, nil
}

// Status lists the manager's workers.
func (c *Client) Status(ctx context.Context) (*docforgev2.StatusResponse, error) {
	resp, err := c.mc.Status(ctx, &docforgev2.StatusRequest{ProtocolVersion: docforgev2.ProtocolVersion})
	if err != nil {
		return nil, rpcError(err, "manager status")
	}
	return resp, nil
}

// CheckSignature asks whether sig is still the published index of b's project.
func (c *Client) CheckSignature(ctx context.Context, b protocol.Binding, sig *docforgev2.Signature) (*docforgev2.CheckSignatureResponse, error) {
	resp, err := c.mc.CheckSignature(ctx, &docforgev2.CheckSignatureRequest{ProtocolVersion: docforgev2.ProtocolVersion, Binding: protocol.BindingToProto(b), Signature: sig})
	if err != nil {
		return nil, rpcError(err, "check signature")
	}
	return resp, nil
}

// Shutdown asks the manager to stop its workers and exit, and waits until its process has
// exited (or ctx ends). The manager exits only after its workers have, so a caller that goes
// on to remove a project's files does not race a worker still finishing a merge in them. The
// socket is no sign: under socket activation it belongs to the service manager and stays. A
// manager run inside this process (tests) is waited for by the socket its Run removes.
func (c *Client) Shutdown(ctx context.Context) error {
	if _, err := c.mc.Shutdown(ctx, &docforgev2.ShutdownRequest{ProtocolVersion: docforgev2.ProtocolVersion}); err != nil {
		return rpcError(err, "manager shutdown")
	}
	pid := c.Pid()
	exited := func() bool { return !processAlive(pid) }
	if pid <= 0 || pid == os.Getpid() {
		exited = func() bool {
			_, err := os.Lstat(c.paths.Socket)
			return errors.Is(err, os.ErrNotExist)
		}
	}
	for !exited() {
		select {
		case <-ctx.Done():
			return fmt.Errorf("manager shutdown: manager %d has not exited (it stops its workers first): %w", pid, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
	return nil
}
