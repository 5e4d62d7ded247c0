package manager

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/index/publication"
	docforgev2 "github.com/docforge/docforge/proto/docforge/v2"
	"github.com/docforge/docforge/source/project"
	"github.com/docforge/docforge/worker/protocol"
)

// Config is how a manager runs. Zero durations and sizes take the defaults.
type Config struct {
	Paths       Paths
	Executable  string       // the docforge executable workers are started from
	UID         int          // the only uid that may connect: the manager's own in production
	Listener    net.Listener // a socket passed in by systemd activation; nil to listen on Paths.Socket
	LogMax      int64        // bytes per log file (default 1 MiB)
	LogKeep     int          // rotated log files kept (default 3)
	HealthEvery time.Duration
	WorkerStart time.Duration // how long a new worker may take to answer its first health check
	ViewerIdle  time.Duration // a viewer without browser activity this long is reclaimed (default 1h)
	Version     string        // the build, reported by Hello
}

func (c *Config) defaults() {
	if c.LogMax == 0 {
		c.LogMax = 1 << 20
	}
	if c.LogKeep == 0 {
		c.LogKeep = 3
	}
	if c.HealthEvery == 0 {
		c.HealthEvery = 30 * time.Second
	}
	if c.ViewerIdle == 0 {
		c.ViewerIdle = protocol.ViewerIdleLimit
	}
	if c.WorkerStart == 0 {
		c.WorkerStart = 30 * time.Second
	}
}

// Manager is a running manager: the Manager gRPC service and the table of its workers.
type Manager struct {
	docforgev2.UnimplementedManagerServer
	cfg     Config
	log     *log.Logger
	started time.Time

	mu    sync.Mutex
	slots map[string]*slot // per worker key
	seq   int

	stopping chan struct{} // closed by Shutdown
	stopOnce sync.Once
}

// slot holds the worker of one key; its lock serialises acquires, so concurrent bridges of one
// project never start two workers.
type slot struct {
	mu   sync.Mutex
	proc *proc
}

// Run runs a manager until ctx ends or a client asks it to shut down. It refuses to start
// when another manager holds the lock (manager_running) or the runtime directory is not
// private (unsafe_runtime_dir). On return its workers are stopped and its socket removed.
func Run(ctx context.Context, cfg Config) error {
	cfg.defaults()
	if cfg.Executable == "" {
		return errors.New("manager: no executable to start workers from")
	}
	if err := cfg.Paths.checkLengths(); err != nil {
		return err
	}
	if err := ensureDir(cfg.Paths.Dir, os.Getuid()); err != nil {
		return err
	}
	unlock, err := lockManager(cfg.Paths)
	if err != nil {
		return err
	}
	defer unlock()
	logw, err := openLog(cfg.Paths.Log, cfg.LogMax, cfg.LogKeep)
	if err != nil {
		return fmt.Errorf("manager: %w", err)
	}
	defer logw.Close()
	m := &Manager{cfg: cfg, log: log.New(logw, "", log.LstdFlags|log.Lmicroseconds), started: time.Now(),
		slots: map[string]*slot{}, stopping: make(chan struct{})}
	if err := os.MkdirAll(cfg.Paths.Workers, 0o700); err != nil {
		return fmt.Errorf("manager: %w", err)
	}
	m.removeDeadSockets()
	ln := cfg.Listener
	if ln == nil {
		// Holding the lock proves that a socket file at the path is stale (its manager died
		// without removing it), so ListenPrivate replaces it.
		if ln, err = protocol.ListenPrivate(cfg.Paths.Socket, cfg.UID, m.log.Printf); err != nil {
			return fmt.Errorf("manager: %w", err)
		}
		defer os.Remove(cfg.Paths.Socket)
	} else {
		ln = protocol.PeerChecked(ln, cfg.UID, m.log.Printf)
	}
	server := grpc.NewServer(protocol.ServerKeepalive()...)
	docforgev2.RegisterManagerServer(server, m)
	m.log.Printf("manager %d started (protocol %d, build %s) on %s", os.Getpid(), docforgev2.ProtocolVersion, cfg.Version, ln.Addr())

	served := make(chan error, 1)
	go func() { served <- server.Serve(ln) }()
	healthCtx, stopHealth := context.WithCancel(context.Background())
	go m.healthLoop(healthCtx)
	var serveErr error
	select {
	case <-ctx.Done():
		m.log.Printf("stopping: %v", context.Cause(ctx))
	case <-m.stopping:
		m.log.Printf("stopping: asked by a client")
	case serveErr = <-served:
	}
	stopHealth()
	graceful := make(chan struct{})
	go func() { server.GracefulStop(); close(graceful) }()
	select {
	case <-graceful:
	case <-time.After(3 * time.Second):
		server.Stop() // a call that never ends must not keep the manager alive
	}
	m.stopWorkers(5 * time.Second)
	m.log.Printf("manager %d stopped", os.Getpid())
	if serveErr != nil && !errors.Is(serveErr, grpc.ErrServerStopped) {
		return fmt.Errorf("manager: %w", serveErr)
	}
	return nil
}

// lockManager takes the per-user manager lock and writes this pid into it. The lock is a
// flock, so a killed manager releases it with its last descriptor.
func lockManager(p Paths) (func(), error) {
	f, err := os.OpenFile(p.Lock, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("manager lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, problem.Errorf(problem.ManagerRunning, "a manager already runs for this user (pid %d, socket %s)", readPID(p.Lock), p.Socket)
		}
		return nil, fmt.Errorf("manager lock: %w", err)
	}
	if err := f.Truncate(0); err == nil {
		fmt.Fprintf(f, "%d\n", os.Getpid())
	}
	return func() { f.Close() }, nil
}

// removeDeadSockets deletes worker sockets nobody listens on (left by killed workers).
func (m *Manager) removeDeadSockets() {
	entries, _ := os.ReadDir(m.cfg.Paths.Workers)
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".sock") {
			continue
		}
		p := filepath.Join(m.cfg.Paths.Workers, e.Name())
		if c, err := net.DialTimeout("unix", p, 200*time.Millisecond); err == nil {
			c.Close() // a worker of a dead manager that has not exited yet: it will remove it
			continue
		}
		os.Remove(p)
	}
}

// workerKey is what one worker serves: a project under an adapter policy.
func workerKey(b protocol.Binding) string { return b.ProjectRoot + "\x00" + b.Policy() }

func (m *Manager) slot(key string) *slot {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.slots[key]
	if !ok {
		s = &slot{}
		m.slots[key] = s
	}
	return s
}

// procs returns the live workers.
func (m *Manager) procs() []*proc {
	m.mu.Lock()
	slots := make([]*slot, 0, len(m.slots))
	for _, s := range m.slots {
		slots = append(slots, s)
	}
	m.mu.Unlock()
	var out []*proc
	for _, s := range slots {
		s.mu.Lock()
		if s.proc != nil && s.proc.alive() {
			out = append(out, s.proc)
		}
		s.mu.Unlock()
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key < out[j].key })
	return out
}

func versionErr(v uint32) error {
	if err := docforgev2.CheckVersion(v); err != nil {
		return status.Error(codes.FailedPrecondition, err.Error())
	}
	return nil
}

// Hello answers a client's first request.
func (m *Manager) Hello(ctx context.Context, req *docforgev2.HelloRequest) (*docforgev2.HelloResponse, error) {
	if err := versionErr(req.ProtocolVersion); err != nil {
		return nil, err
	}
	return &docforgev2.HelloResponse{ProtocolVersion: docforgev2.ProtocolVersion, ManagerVersion: m.cfg.Version, Pid: int64(os.Getpid())}, nil
}

// AcquireWorker returns the binding's worker, starting one when none runs.
func (m *Manager) AcquireWorker(ctx context.Context, req *docforgev2.AcquireWorkerRequest) (*docforgev2.AcquireWorkerResponse, error) {
	if err := versionErr(req.ProtocolVersion); err != nil {
		return nil, err
	}
	b := protocol.BindingFromProto(req.Binding)
	if real, err := filepath.EvalSymlinks(b.ProjectRoot); err == nil && filepath.IsAbs(b.ProjectRoot) {
		b.ProjectRoot = real // one worker per project, whichever path names it
	}
	key := workerKey(b)
	s := m.slot(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := s.proc; p != nil && p.alive() && req.UnresponsivePid == int64(p.pid) {
		hctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		err := p.check(hctx)
		cancel()
		if err != nil {
			m.log.Printf("worker %d for %s stopped answering a client (%v): replacing it", p.pid, p.binding.ProjectRoot, err)
			p.kill()
			<-p.exited
		}
	}
	if p := s.proc; p != nil && p.alive() {
		return &docforgev2.AcquireWorkerResponse{ProtocolVersion: docforgev2.ProtocolVersion, Worker: p.info()}, nil
	} else if req.RunningOnly {
		return nil, status.Errorf(codes.NotFound, "no worker runs for %s", b.ProjectRoot)
	} else if p != nil {
		select { // dead: let the reaper finish (it removes the socket) before replacing it
		case <-p.exited:
		case <-time.After(5 * time.Second):
		}
	}
	// The manager starts processes for what it is asked, so it checks the binding itself.
	wb := protocol.Binding{ProjectRoot: b.ProjectRoot, NoAST: b.NoAST}
	if _, err := wb.Validate(); err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	p, err := m.spawn(ctx, wb, key)
	if err != nil {
		return nil, status.Error(codes.Aborted, err.Error())
	}
	s.proc = p
	return &docforgev2.AcquireWorkerResponse{ProtocolVersion: docforgev2.ProtocolVersion, Worker: p.info()}, nil
}

// Status lists the workers with a fresh health check of each.
func (m *Manager) Status(ctx context.Context, req *docforgev2.StatusRequest) (*docforgev2.StatusResponse, error) {
	if err := versionErr(req.ProtocolVersion); err != nil {
		return nil, err
	}
	procs := m.procs()
	var wg sync.WaitGroup
	for _, p := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			hctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			p.check(hctx)
		}()
	}
	wg.Wait()
	resp := &docforgev2.StatusResponse{ProtocolVersion: docforgev2.ProtocolVersion, Pid: int64(os.Getpid()), StartedUnixMs: m.started.UnixMilli()}
	for _, p := range procs {
		resp.Workers = append(resp.Workers, p.info())
	}
	return resp, nil
}

// Shutdown stops the manager after answering.
func (m *Manager) Shutdown(ctx context.Context, req *docforgev2.ShutdownRequest) (*docforgev2.ShutdownResponse, error) {
	if err := versionErr(req.ProtocolVersion); err != nil {
		return nil, err
	}
	m.stopOnce.Do(func() { close(m.stopping) })
	return &docforgev2.ShutdownResponse{ProtocolVersion: docforgev2.ProtocolVersion}, nil
}

// CheckSignature compares a recorded five-field signature with the published index's, from a
// stat and the receipt alone.
func (m *Manager) CheckSignature(ctx context.Context, req *docforgev2.CheckSignatureRequest) (*docforgev2.CheckSignatureResponse, error) {
	if err := versionErr(req.ProtocolVersion); err != nil {
		return nil, err
	}
	b := protocol.BindingFromProto(req.Binding)
	d, _, err := project.Load(b.ProjectRoot)
	if err != nil || d == nil {
		return nil, status.Errorf(codes.InvalidArgument, "project %s has no valid descriptor", b.ProjectRoot)
	}
	resp := &docforgev2.CheckSignatureResponse{ProtocolVersion: docforgev2.ProtocolVersion}
	cur, err := publication.Probe(d, b.Policy())
	if err != nil {
		resp.Reason = err.Error()
		return resp, nil
	}
	resp.Published = protocol.SignatureToProto(cur)
	got := req.Signature
	resp.Current = got != nil && got.Device == cur.Device && got.Inode == cur.Inode && got.Size == cur.Size && got.MtimeNs == cur.MtimeNs && got.Generation == cur.Generation
	if !resp.Current {
		resp.Reason = "a newer index was published"
	}
	m.recordSignature(workerKey(b), cur)
	return resp, nil
}

func (m *Manager) recordSignature(key string, sig publication.Signature) {
	m.mu.Lock()
	s := m.slots[key]
	m.mu.Unlock()
	if s == nil {
		return
	}
	s.mu.Lock()
	if s.proc != nil {
		s.proc.setIndex(protocol.SignatureToProto(sig))
	}
	s.mu.Unlock()
}

// healthLoop checks every worker periodically and kills one that stops answering (the next
// acquire starts it again), and reclaims viewers the browser has left idle.
func (m *Manager) healthLoop(ctx context.Context) {
	t := time.NewTicker(m.cfg.HealthEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		for _, p := range m.procs() {
			hctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			err := p.check(hctx)
			cancel()
			if err != nil && ctx.Err() == nil {
				m.log.Printf("worker %d for %s failed its health check (%v): stopping it; the next acquire starts another", p.pid, p.binding.ProjectRoot, err)
				p.kill()
				continue
			}
			rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			stopped, err := p.reclaimViewer(rctx, m.cfg.ViewerIdle)
			cancel()
			switch {
			case err != nil && ctx.Err() == nil:
				m.log.Printf("worker %d: could not reclaim its idle viewer: %v", p.pid, err)
			case stopped:
				m.log.Printf("worker %d for %s: reclaimed its viewer after %s without browser activity", p.pid, p.binding.ProjectRoot, m.cfg.ViewerIdle)
			}
		}
	}
}

// stopWorkers asks every worker to stop and kills those that do not within grace.
func (m *Manager) stopWorkers(grace time.Duration) {
	procs := m.procs()
	for _, p := range procs {
		p.terminate()
	}
	deadline := time.Now().Add(grace)
	for _, p := range procs {
		select {
		case <-p.exited:
		case <-time.After(time.Until(deadline)):
			p.kill()
			<-p.exited
		}
	}
}
