package manager

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"syscall"

	"github.com/docforge/docforge/base/problem"
	docforgev2 "github.com/docforge/docforge/proto/docforge/v2"
	"github.com/docforge/docforge/worker/protocol"
)

// Session is the bridge's view of its worker: it acquires the project's worker from the
// manager (starting the manager when allowed), forwards calls, and after a worker failure
// acquires again on the next call. It holds no project state.
type Session struct {
	paths Paths
	start StartFunc // nil: never start a manager
	// runningOnly uses a worker only if one runs already (Attach): none is started.
	runningOnly bool

	mu     sync.Mutex
	client *Client
	w      *workerConn
	failed int // pid of the last worker that did not answer, reported on the next acquire
}

type workerConn struct {
	rc  *protocol.RemoteCaller
	pid int
}

// NewSession returns a session on the manager at p; start (nil for --no-autostart) starts a
// manager when none answers.
func NewSession(p Paths, start StartFunc) *Session { return &Session{paths: p, start: start} }

// Attach returns a session that calls a project's worker only when a manager and that worker
// already run: it starts neither (a call answers manager_unavailable or worker_unavailable).
func Attach(p Paths) *Session { return &Session{paths: p, runningOnly: true} }

// Call runs one tool on the binding's worker. Every failure to reach a worker is a structured
// error result (worker_unavailable, manager_unavailable, ...), never a hang or a broken
// session; a call that failed mid-way is not retried, since the worker may have run it.
func (s *Session) Call(ctx context.Context, b protocol.Binding, tool string, args json.RawMessage) (json.RawMessage, error) {
	w, err := s.worker(ctx, b)
	if err != nil {
		code := problem.CodeOf(err)
		if code == "" || code == problem.Internal {
			code = problem.WorkerUnavailable
		}
		return protocol.ErrorResult(b, code, err.Error())
	}
	out, err := w.rc.Call(ctx, b, tool, args)
	var te *protocol.ToolError
	if errors.As(err, &te) && te.Code == problem.WorkerUnavailable {
		s.forget(w, ctx.Err() == nil)
	}
	return out, err
}

// Prepare acquires the worker ahead of the first call, so that call finds it ready.
func (s *Session) Prepare(ctx context.Context, b protocol.Binding) error {
	_, err := s.worker(ctx, b)
	return err
}

// worker returns the current worker connection, acquiring one when there is none or its
// process is gone. A manager that stopped answering is reconnected to (started if allowed)
// once per call.
func (s *Session) worker(ctx context.Context, b protocol.Binding) (*workerConn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.w != nil && processAlive(s.w.pid) {
		return s.w, nil
	}
	s.dropWorker()
	var lastErr error
	for attempt := 0; attempt < 2; attempt++ {
		if s.client == nil {
			c, err := Connect(ctx, s.paths, s.start)
			if err != nil {
				return nil, err
			}
			s.client = c
		}
		var info *docforgev2.WorkerInfo
		var err error
		if s.runningOnly {
			info, err = s.client.AcquireRunning(ctx, b)
		} else {
			info, err = s.client.Acquire(ctx, b, s.failed)
		}
		if err != nil {
			lastErr = err
			if problem.CodeOf(err) == problem.ManagerUnavailable {
				s.client.Close() // the manager died: reconnect, starting a new one
				s.client = nil
				continue
			}
			return nil, err
		}
		rc, err := protocol.DialWorker(info.SocketPath)
		if err != nil {
			return nil, problem.Wrap(problem.WorkerUnavailable, err, "connect to worker %d", info.Pid)
		}
		s.w, s.failed = &workerConn{rc: rc, pid: int(info.Pid)}, 0
		return s.w, nil
	}
	return nil, lastErr
}

// forget drops a worker that failed a call; unresponsive (the call was not cancelled by its
// caller) makes the next acquire ask the manager to check it.
func (s *Session) forget(w *workerConn, unresponsive bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.w == w {
		s.dropWorker()
		if unresponsive {
			s.failed = w.pid
		}
	}
}

func (s *Session) dropWorker() {
	if s.w != nil {
		s.w.rc.Close()
		s.w = nil
	}
}

// Close closes the session's connections; the worker and manager keep running.
func (s *Session) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dropWorker()
	if s.client != nil {
		s.client.Close()
		s.client = nil
	}
	return nil
}

// processAlive reports whether pid names a live process: signal 0 checks without sending,
// and a zombie (dead, not yet reaped: a worker whose manager died, under an init that reaps
// late) counts as dead.
func processAlive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	return !zombie(pid)
}
