package manager

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"

	"google.golang.org/grpc"

	docforgev2 "github.com/docforge/docforge/proto/docforge/v2"
	"github.com/docforge/docforge/worker/protocol"
)

// proc is one worker process the manager started.
type proc struct {
	key     string
	binding protocol.Binding
	pid     int
	socket  string
	started time.Time
	cmd     *exec.Cmd
	conn    *grpc.ClientConn
	client  docforgev2.WorkerClient
	exited  chan struct{} // closed once the process has been reaped

	mu        sync.Mutex
	index     *docforgev2.Signature // the last published signature seen
	freshness string
	stats     *docforgev2.WorkerStats
	viewer    *docforgev2.ViewerInfo // nil when the worker runs no viewer
}

// spawn starts a worker for b from the manager's executable and waits until it answers. The
// worker gets the read end of a pipe as its lifeline: when the manager dies, however it dies,
// the pipe closes and the worker stops, so no worker outlives its supervisor.
func (m *Manager) spawn(ctx context.Context, b protocol.Binding, key string) (*proc, error) {
	m.mu.Lock()
	m.seq++
	socket := m.cfg.Paths.workerSocket(key, m.seq)
	m.mu.Unlock()
	args := []string{"worker", "--project-root", b.ProjectRoot, "--socket", socket, "--lifeline-fd", "3"}
	if b.NoAST {
		args = append(args, "--no-ast")
	}
	lifeR, lifeW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("start worker: %w", err)
	}
	cmd := exec.Command(m.cfg.Executable, args...)
	cmd.ExtraFiles = []*os.File{lifeR}
	out := &lineLog{m: m}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		lifeR.Close()
		lifeW.Close()
		return nil, fmt.Errorf("start worker %s: %w", m.cfg.Executable, err)
	}
	lifeR.Close()
	p := &proc{key: key, binding: b, pid: cmd.Process.Pid, socket: socket, started: time.Now(), cmd: cmd, exited: make(chan struct{}), freshness: "unknown"}
	out.setPrefix("worker " + strconv.Itoa(p.pid) + ": ")
	m.log.Printf("started worker %d for %s (policy %s) on %s", p.pid, b.ProjectRoot, b.Policy(), socket)
	var exitErr error
	go func() {
		exitErr = cmd.Wait() // reaps the child
		lifeW.Close()
		os.Remove(socket) // a killed worker cannot remove its own
		out.flush()
		m.log.Printf("worker %d for %s exited: %v", p.pid, b.ProjectRoot, exitStatus(exitErr))
		close(p.exited)
	}()
	if err := p.await(ctx, m.cfg.WorkerStart); err != nil {
		p.kill()
		<-p.exited
		if p.conn != nil {
			p.conn.Close()
		}
		return nil, fmt.Errorf("worker %d for %s did not start (%v; exit: %v); see %s", p.pid, b.ProjectRoot, err, exitStatus(exitErr), m.cfg.Paths.Log)
	}
	go func() { // close the connection once the worker is gone
		<-p.exited
		p.conn.Close()
	}()
	return p, nil
}

func exitStatus(err error) string {
	if err == nil {
		return "status 0"
	}
	return err.Error()
}

// await waits for the worker's socket and first health answer, or its exit.
func (p *proc) await(ctx context.Context, limit time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	for {
		if _, err := os.Stat(p.socket); err == nil {
			break
		}
		select {
		case <-p.exited:
			return fmt.Errorf("it exited")
		case <-ctx.Done():
			return fmt.Errorf("no socket after %v", limit)
		case <-time.After(5 * time.Millisecond):
		}
	}
	conn, err := protocol.DialRaw(p.socket)
	if err != nil {
		return err
	}
	p.conn, p.client = conn, docforgev2.NewWorkerClient(conn)
	return p.check(ctx)
}

// check asks the worker for its health and records what it says.
func (p *proc) check(ctx context.Context) error {
	resp, err := p.client.Health(ctx, &docforgev2.HealthRequest{ProtocolVersion: docforgev2.ProtocolVersion})
	if err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if resp.Index != nil {
		p.index = resp.Index
	}
	p.freshness, p.stats, p.viewer = resp.Freshness, resp.Stats, resp.Viewer
	return nil
}

// reclaimViewer stops the worker's viewer when the browser has been away for idle or more.
// It reports whether it did.
func (p *proc) reclaimViewer(ctx context.Context, idle time.Duration) (bool, error) {
	p.mu.Lock()
	v := p.viewer
	p.mu.Unlock()
	if v == nil || time.Since(time.UnixMilli(v.LastActivityUnixMs)) < idle {
		return false, nil
	}
	resp, err := p.client.StopViewer(ctx, &docforgev2.StopViewerRequest{ProtocolVersion: docforgev2.ProtocolVersion, Reason: "idle"})
	if err != nil {
		return false, err
	}
	p.mu.Lock()
	p.viewer = nil
	p.mu.Unlock()
	return resp.Stopped, nil
}

func (p *proc) setIndex(sig *docforgev2.Signature) {
	p.mu.Lock()
	p.index = sig
	p.mu.Unlock()
}

// alive reports whether the worker runs: not reaped, and not a zombie waiting to be.
func (p *proc) alive() bool {
	select {
	case <-p.exited:
		return false
	default:
		return processAlive(p.pid)
	}
}

func (p *proc) terminate() { p.cmd.Process.Signal(syscall.SIGTERM) }
func (p *proc) kill()      { p.cmd.Process.Kill() }

func (p *proc) info() *docforgev2.WorkerInfo {
	p.mu.Lock()
	defer p.mu.Unlock()
	return &docforgev2.WorkerInfo{Binding: protocol.BindingToProto(p.binding), Pid: int64(p.pid), SocketPath: p.socket,
		StartedUnixMs: p.started.UnixMilli(), Index: p.index, Freshness: p.freshness, Stats: p.stats, Viewer: p.viewer}
}

// lineLog copies a worker's output into the manager's log line by line, prefixed with its pid.
type lineLog struct {
	m      *Manager
	prefix string
	mu     sync.Mutex
	buf    []byte
}

func (l *lineLog) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, b...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			break
		}
		l.m.log.Printf("%s%s", l.prefix, l.buf[:i])
		l.buf = l.buf[i+1:]
	}
	if len(l.buf) > 64<<10 { // a line without end: log it in pieces rather than grow
		l.m.log.Printf("%s%s", l.prefix, l.buf)
		l.buf = l.buf[:0]
	}
	return len(b), nil
}

func (l *lineLog) setPrefix(prefix string) {
	l.mu.Lock()
	l.prefix = prefix
	l.mu.Unlock()
}

func (l *lineLog) flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.buf) > 0 {
		l.m.log.Printf("%s%s", l.prefix, l.buf)
		l.buf = nil
	}
}
