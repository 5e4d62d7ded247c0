package manager

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"

	"github.com/docforge/docforge/base/problem"
	docforgev2 "github.com/docforge/docforge/proto/docforge/v2"
	"github.com/docforge/docforge/worker/protocol"
)

// docforgeBin is the real docforge command, built once: the manager starts workers from it.
var docforgeBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "dfm")
	if err != nil {
		panic(err)
	}
	docforgeBin = filepath.Join(dir, "docforge")
	if out, err := exec.Command("go", "build", "-o", docforgeBin, "../cmd/docforge").CombinedOutput(); err != nil {
		os.Stderr.Write(out)
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// shortDir is a private temporary directory with a short path: a socket path has about 100
// bytes at most, and t.TempDir's names are long.
func shortDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "df")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func exampleCopy(t *testing.T) string {
	t.Helper()
	dst := filepath.Join(shortDir(t), "courier")
	if out, err := exec.Command("cp", "-R", "../examples/courier", dst).CombinedOutput(); err != nil {
		t.Fatalf("copy example: %v %s", err, out)
	}
	os.RemoveAll(filepath.Join(dst, ".docforge"))
	return dst
}

// running is a manager run in this process (its workers are real child processes).
type running struct {
	paths Paths
	done  chan struct{} // closed when Run returned, with err set
	err   error
	stop  context.CancelFunc
}

func startManager(t *testing.T, cfg Config) *running {
	t.Helper()
	if cfg.Paths.Dir == "" {
		cfg.Paths = PathsIn(filepath.Join(shortDir(t), "docforge"))
	}
	if cfg.Executable == "" {
		cfg.Executable = docforgeBin
	}
	if cfg.UID == 0 && os.Getuid() != 0 {
		cfg.UID = os.Getuid()
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{paths: cfg.Paths, done: make(chan struct{}), stop: cancel}
	go func() { r.err = Run(ctx, cfg); close(r.done) }()
	t.Cleanup(func() { r.shutdown(t) })
	for i := 0; ; i++ {
		if c, err := Dial(ctx, cfg.Paths); err == nil {
			c.Close()
			return r
		} else if cfg.UID != os.Getuid() {
			if _, err := os.Stat(cfg.Paths.Socket); err == nil {
				return r // it refuses this process: its socket is all there is to wait for
			}
		}
		select {
		case <-r.done:
			t.Fatalf("manager exited at start: %v", r.err)
		case <-time.After(10 * time.Millisecond):
		}
		if i > 500 {
			t.Fatal("the manager socket never appeared")
		}
	}
}

// shutdown stops the manager and waits for Run to return (once).
func (r *running) shutdown(t *testing.T) error {
	r.stop()
	select {
	case <-r.done:
		return r.err
	case <-time.After(20 * time.Second):
		t.Fatal("the manager did not stop")
		return nil
	}
}

func dial(t *testing.T, p Paths) *Client {
	t.Helper()
	c, err := Dial(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// The runtime directory and socket must be private: right type, owned by the user, exact mode.
func TestPrivateRuntimeDirAndSocket(t *testing.T) {
	base := shortDir(t)
	uid := os.Getuid()
	mk := func(name string, mode os.FileMode) string {
		p := filepath.Join(base, name)
		if err := os.Mkdir(p, mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, mode)
		return p
	}
	sock := func(name string, mode os.FileMode) string {
		p := filepath.Join(base, name)
		ln, err := net.Listen("unix", p)
		if err != nil {
			t.Fatal(err)
		}
		ln.(*net.UnixListener).SetUnlinkOnClose(false)
		ln.Close()
		os.Chmod(p, mode)
		return p
	}
	file := filepath.Join(base, "plain")
	os.WriteFile(file, nil, 0o600)
	link := filepath.Join(base, "link")
	os.Symlink(mk("target", 0o700), link)
	cases := []struct {
		name string
		path string
		uid  int
		dir  bool
		ok   bool
		want string
	}{
		{"private dir", mk("good", 0o700), uid, true, true, ""},
		{"group-readable dir", mk("open", 0o750), uid, true, false, "mode 0750"},
		{"world-writable dir", mk("wide", 0o777), uid, true, false, "mode 0777"},
		{"another user's dir", mk("theirs", 0o700), uid + 1, true, false, "owned by uid"},
		{"symlink to a dir", link, uid, true, false, "not a directory"},
		{"file for a dir", file, uid, true, false, "not a directory"},
		{"private socket", sock("s1", 0o600), uid, false, true, ""},
		{"socket open to all", sock("s2", 0o666), uid, false, false, "mode 0666"},
		{"another user's socket", sock("s3", 0o600), uid + 1, false, false, "owned by uid"},
		{"file for a socket", file, uid, false, false, "not a socket"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := checkPrivate(c.path, c.uid, c.dir)
			if c.ok != (err == nil) || (err != nil && (problem.CodeOf(err) != problem.UnsafeRuntimeDir || !strings.Contains(err.Error(), c.want))) {
				t.Errorf("checkPrivate(%s): %v, want ok=%v %q", c.path, err, c.ok, c.want)
			}
		})
	}
	if uid == 0 { // root can make a file another user's for real
		p := sock("s4", 0o600)
		if err := os.Chown(p, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		if err := checkPrivate(p, uid, false); problem.CodeOf(err) != problem.UnsafeRuntimeDir {
			t.Errorf("a socket chowned to 65534: %v", err)
		}
	}
}

// A client refuses a manager socket that is not private, and a manager refuses to start in a
// runtime directory that is not.
func TestUnsafeSocketOrDirIsRefused(t *testing.T) {
	r := startManager(t, Config{})
	if err := os.Chmod(r.paths.Socket, 0o666); err != nil {
		t.Fatal(err)
	}
	if _, err := Dial(context.Background(), r.paths); problem.CodeOf(err) != problem.UnsafeRuntimeDir {
		t.Errorf("dial a 0666 socket: %v, want unsafe_runtime_dir", err)
	}
	os.Chmod(r.paths.Socket, 0o600)
	dial(t, r.paths)

	open := filepath.Join(shortDir(t), "docforge")
	os.Mkdir(open, 0o755)
	os.Chmod(open, 0o755)
	err := Run(context.Background(), Config{Paths: PathsIn(open), Executable: docforgeBin, UID: os.Getuid()})
	if problem.CodeOf(err) != problem.UnsafeRuntimeDir || !strings.Contains(err.Error(), "chmod 700") {
		t.Errorf("manager in a 0755 directory: %v", err)
	}
	if _, err := os.Stat(PathsIn(open).Socket); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused manager created its socket: %v", err)
	}
}

// A runtime directory too long for socket paths is refused up front, saying what to do.
func TestRuntimeDirTooLong(t *testing.T) {
	long := filepath.Join(shortDir(t), strings.Repeat("d", 90), "docforge")
	err := Run(context.Background(), Config{Paths: PathsIn(long), Executable: docforgeBin, UID: os.Getuid()})
	if problem.CodeOf(err) != problem.InvalidArgument || !strings.Contains(err.Error(), "XDG_RUNTIME_DIR") {
		t.Errorf("long runtime dir: %v", err)
	}
}

// One manager per user: a second one refuses with the pid of the first, touching nothing; a
// socket file left by a killed manager is replaced by the next.
func TestSingleInstanceAndStaleSocket(t *testing.T) {
	r := startManager(t, Config{})
	err := Run(context.Background(), Config{Paths: r.paths, Executable: docforgeBin, UID: os.Getuid()})
	if problem.CodeOf(err) != problem.ManagerRunning || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) {
		t.Errorf("second manager: %v, want manager_running naming pid %d", err, os.Getpid())
	}
	dial(t, r.paths) // the first still answers: the second did not remove its socket
	r.shutdown(t)
	if _, err := os.Stat(r.paths.Socket); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("socket left after shutdown: %v", err)
	}

	// What a SIGKILLed manager leaves: a socket file nobody listens on.
	ln, err := net.Listen("unix", r.paths.Socket)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	os.Chmod(r.paths.Socket, 0o600)
	if _, err := Dial(context.Background(), r.paths); problem.CodeOf(err) != problem.ManagerUnavailable {
		t.Errorf("dial a stale socket: %v, want manager_unavailable", err)
	}
	r2 := startManager(t, Config{Paths: r.paths})
	if c := dial(t, r2.paths); c.Pid() != os.Getpid() {
		t.Errorf("pid %d", c.Pid())
	}
}

// A connection from another uid is closed unanswered, and logged.
func TestPeerOfAnotherUIDIsRefused(t *testing.T) {
	r := startManager(t, Config{UID: os.Getuid() + 1})
	_, err := Dial(context.Background(), r.paths)
	if problem.CodeOf(err) != problem.ManagerUnavailable {
		t.Errorf("dial as a uid the manager does not serve: %v", err)
	}
	r.shutdown(t)
	log, _ := os.ReadFile(r.paths.Log)
	if !strings.Contains(string(log), fmt.Sprintf("from uid %d: only uid %d may connect", os.Getuid(), os.Getuid()+1)) {
		t.Errorf("log does not record the refusal:\n%s", log)
	}
}

// A client of protocol version 1 gets an error naming both versions, on every method.
func TestProtocolVersionOneIsRefused(t *testing.T) {
	r := startManager(t, Config{})
	conn, err := grpc.NewClient("unix://"+r.paths.Socket, protocol.DialOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	mc := docforgev2.NewManagerClient(conn)
	ctx := context.Background()
	for name, call := range map[string]func() error{
		"Hello": func() error { _, err := mc.Hello(ctx, &docforgev2.HelloRequest{ProtocolVersion: 1}); return err },
		"Acquire": func() error {
			_, err := mc.AcquireWorker(ctx, &docforgev2.AcquireWorkerRequest{ProtocolVersion: 1})
			return err
		},
		"Status": func() error { _, err := mc.Status(ctx, &docforgev2.StatusRequest{ProtocolVersion: 1}); return err },
		"Shutdown": func() error {
			_, err := mc.Shutdown(ctx, &docforgev2.ShutdownRequest{ProtocolVersion: 1})
			return err
		},
	} {
		err := call()
		if err == nil || !strings.Contains(err.Error(), "version 1") || !strings.Contains(err.Error(), "version 2") {
			t.Errorf("%s at version 1: %v", name, err)
		}
		if mapped := rpcError(err, name); problem.CodeOf(mapped) != problem.ProtocolMismatch {
			t.Errorf("%s: mapped to %v", name, mapped)
		}
	}
	dial(t, r.paths) // the refused Shutdown did not stop it
}

// One worker per project however many acquire it at once; a killed worker is reaped and a new
// one started on the next acquire; shutdown stops the workers and removes the socket.
func TestWorkersAreSupervised(t *testing.T) {
	root := exampleCopy(t)
	r := startManager(t, Config{})
	c := dial(t, r.paths)
	ctx := context.Background()
	b := protocol.Binding{ProjectRoot: root, CapabilityMode: protocol.ModeRead}
	pids := make(chan int64, 8)
	for i := 0; i < 8; i++ {
		go func() {
			info, err := c.Acquire(ctx, b, 0)
			if err != nil {
				t.Error(err)
				pids <- 0
				return
			}
			pids <- info.Pid
		}()
	}
	first := <-pids
	for i := 1; i < 8; i++ {
		if p := <-pids; p != first {
			t.Errorf("acquire %d got worker %d, another got %d", i, p, first)
		}
	}
	// Another policy is another worker; the session parts of a binding are not.
	other, err := c.Acquire(ctx, protocol.Binding{ProjectRoot: root, NoAST: true}, 0)
	if err != nil || other.Pid == first {
		t.Errorf("no-ast worker: %v %+v", err, other)
	}
	same, err := c.Acquire(ctx, protocol.Binding{ProjectRoot: root, CapabilityMode: protocol.ModeOperator, Diagnostics: true}, 0)
	if err != nil || same.Pid != first {
		t.Errorf("operator session: %v %+v, want worker %d", err, same, first)
	}
	// The project through a symlink is the same project: the same worker, not a second
	// publisher.
	link := filepath.Join(t.TempDir(), "through-a-link")
	if err := os.Symlink(root, link); err != nil {
		t.Fatal(err)
	}
	linked, err := c.Acquire(ctx, protocol.Binding{ProjectRoot: link, CapabilityMode: protocol.ModeRead}, 0)
	if err != nil || linked.Pid != first {
		t.Errorf("the project through a symlink: %v %+v, want worker %d", err, linked, first)
	}

	syscall.Kill(int(first), syscall.SIGKILL)
	for processAlive(int(first)) { // alive until reaped: the manager must wait for it
		time.Sleep(5 * time.Millisecond)
	}
	again, err := c.Acquire(ctx, b, 0)
	if err != nil || again.Pid == first {
		t.Fatalf("acquire after the worker died: %v %+v", err, again)
	}
	st, err := c.Status(ctx)
	if err != nil || len(st.Workers) != 2 {
		t.Fatalf("status: %v %+v", err, st)
	}
	for _, w := range st.Workers {
		if w.Freshness == "" || w.Stats == nil {
			t.Errorf("status of %d: %+v", w.Pid, w)
		}
	}

	if err := c.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := r.shutdown(t); err != nil {
		t.Errorf("run: %v", err)
	}
	for _, pid := range []int64{again.Pid, other.Pid} {
		if processAlive(int(pid)) {
			t.Errorf("worker %d still runs after the manager stopped", pid)
		}
	}
	if entries, _ := os.ReadDir(r.paths.Workers); len(entries) != 0 {
		t.Errorf("worker sockets left: %v", entries)
	}
}

// A binding the manager cannot serve is refused before any process starts.
func TestAcquireValidatesTheBinding(t *testing.T) {
	r := startManager(t, Config{})
	c := dial(t, r.paths)
	for _, root := range []string{"relative", filepath.Join(shortDir(t), "missing")} {
		_, err := c.Acquire(context.Background(), protocol.Binding{ProjectRoot: root}, 0)
		if problem.CodeOf(err) != problem.InvalidBinding {
			t.Errorf("acquire %q: %v, want invalid_binding", root, err)
		}
	}
	if st, _ := c.Status(context.Background()); len(st.Workers) != 0 {
		t.Errorf("workers started for bad bindings: %+v", st.Workers)
	}
}

// The signature a viewer records stays current until a new index is published, and the
// manager tells by stat and receipt alone.
func TestSignatureComparedByStat(t *testing.T) {
	root := exampleCopy(t)
	r := startManager(t, Config{})
	c := dial(t, r.paths)
	ctx := context.Background()
	b := protocol.Binding{ProjectRoot: root, CapabilityMode: protocol.ModeRead}
	info, err := c.Acquire(ctx, b, 0)
	if err != nil {
		t.Fatal(err)
	}
	rc, err := protocol.DialWorker(info.SocketPath)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	if _, err := rc.Call(ctx, b, "docforge_bootstrap", nil); err != nil {
		t.Fatal(err)
	}
	first, err := c.CheckSignature(ctx, b, nil)
	if err != nil || first.Current || first.Published == nil || first.Published.Generation != 1 {
		t.Fatalf("no signature: %v %+v", err, first)
	}
	rec := first.Published
	if got, err := c.CheckSignature(ctx, b, rec); err != nil || !got.Current {
		t.Errorf("recorded signature: %v %+v", err, got)
	}
	node := filepath.Join(root, "docs", "architecture", "store.md")
	data, _ := os.ReadFile(node)
	os.WriteFile(node, append(data, []byte("\nA new paragraph.\n")...), 0o644)
	if _, err := rc.Call(ctx, b, "docforge_bootstrap", nil); err != nil {
		t.Fatal(err)
	}
	got, err := c.CheckSignature(ctx, b, rec)
	if err != nil || got.Current || got.Published.Generation != 2 {
		t.Errorf("after a new publication: %v %+v", err, got)
	}
}

// The log stays within its bounds however much is written.
func TestLogRotationBounds(t *testing.T) {
	dir := shortDir(t)
	path := filepath.Join(dir, "m.log")
	l, err := openLog(path, 1000, 2)
	if err != nil {
		t.Fatal(err)
	}
	line := []byte(strings.Repeat("x", 99) + "\n")
	for i := 0; i < 100; i++ {
		if _, err := l.Write(line); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	entries, _ := os.ReadDir(dir)
	if len(entries) != 3 {
		t.Errorf("files %v, want m.log, m.log.1, m.log.2", entries)
	}
	for _, e := range entries {
		info, _ := e.Info()
		if info.Size() > 1000 || info.Size() == 0 {
			t.Errorf("%s has %d bytes", e.Name(), info.Size())
		}
	}
}
