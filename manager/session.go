package manager

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"syscall"

	"github.com/docforge/docforge/index/problem"
	"github.com/docforge/docforge/worker"
)

// Session is the bridge's view of its worker: it acquires the project's worker from the
// manager (starting the manager when allowed), forwards calls, and after a worker failure
// acquires again on the next call. It holds no project state.
type Session struct {
	paths Paths
	start StartFunc // nil: never start a manager

	mu     sync.Mutex
	client *Client
	w      *workerConn
}

type workerConn struct {
	rc  *worker.RemoteCaller
	pid int
}

// NewSession returns a session on the manager at p; start (nil for --no-autostart) starts a
// manager when none answers.
func NewSession(p Paths, start StartFunc) *Session { return &Session{paths: p, start: start} }

// Call runs one tool on the binding's worker. Every failure to reach a worker is a structured
// error result (worker_unavailable, manager_unavailable, ...), never a hang or a broken
// session; a call that failed mid-way is not retried, since the worker may have run it.
func (s *Session) Call(ctx context.Context, b worker.Binding, tool string, args json.RawMessage) (json.RawMessage, error) {
	w, err := s.worker(ctx, b)
	if err != nil {
		code := problem.CodeOf(err)
		if code == "" || code == problem.Internal {
			code = problem.WorkerUnavailable
		}
		return worker.ErrorResult(b, code, err.Error())
	}
	out, err := w.rc.Call(ctx, b, tool, args)
	var te *worker.ToolError
	if errors.As(err, &te) && te.Code == problem.WorkerUnavailable {
		s.forget(w)
	}
	return out, err
}

// Prepare acquires the worker ahead of the first call, so that call finds it ready.
func (s *Session) Prepare(ctx context.Context, b worker.Binding) error {
	_, err := s.worker(ctx, b)
	return err
}

// worker returns the current worker connection, acquiring one when there is none or its
// process is gone. A manager that stopped answering is reconnected to (started if allowed)
// once per call.
func (s *Session) worker(ctx context.Context, b worker.Binding) (*workerConn, error) {
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
		info, err := s.client.Acquire(ctx, b)
		if err != nil {
			lastErr = err
			if problem.CodeOf(err) == problem.ManagerUnavailable {
				s.client.Close() // the manager died: reconnect, starting a new one
				s.client = nil
				continue
			}
			return nil, err
		}
		rc, err := worker.DialWorker(info.SocketPath)
		if err != nil {
			return nil, problem.Wrap(problem.WorkerUnavailable, err, "connect to worker %d", info.Pid)
		}
		s.w = &workerConn{rc: rc, pid: int(info.Pid)}
		return s.w, nil
	}
	return nil, lastErr
}

func (s *Session) forget(w *workerConn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.w == w {
		s.dropWorker()
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

// processAlive reports whether pid names a live process (signal 0 checks without sending).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
